//===- LaunchPlan.h - From a description and tensors to launch arguments --===//
//
// Everything about a launch that needs no GPU: checking the caller's tensors
// against the description, the grid, and the parameter bytes. Tensor maps are
// described here (innermost dim first, as cuTensorMapEncodeTiled takes them)
// and encoded by the driver layer. Unit-tested on machines without CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_RUNTIME_LAUNCHPLAN_H
#define FATTN_RUNTIME_LAUNCHPLAN_H

#include "fattn/Runtime/KernelDescription.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace fattn::runtime {

/// A caller's tensor; the layout equals fattnTensor in the C header.
struct TensorArg {
  uint64_t data;
  int32_t rank;
  int32_t dtype; // DType value
  int64_t sizes[4];
  int64_t strides[4]; // in elements
};

/// The runtime sizes, taken from the tensors.
struct ProblemSizes {
  uint64_t batch = 0, headsQ = 0, headsKV = 0, seqQ = 0, seqK = 0, numSMs = 0;
  uint64_t get(SizeName name) const;
};

/// The sizes of `q` and `k` ([b, h, s, d] views) that the forward and the
/// backward share: batch, heads and sequence lengths; false, with `error`,
/// where k's heads do not divide q's.
bool readQKSizes(const TensorArg &q, const TensorArg &k, ProblemSizes &sizes,
                 std::string &error);

/// One kernel parameter's bytes. 128 bytes, 128-aligned: the size and alignment
/// of a CUtensorMap, the largest parameter.
struct alignas(128) ParamSlot {
  unsigned char bytes[128];
};

/// Writes `value` into `slot` as a u32 or u64 parameter; false with `error`
/// naming the parameter when it does not fit.
bool packIntegerParam(ParamSlot &slot, ParamType type, uint64_t value, const std::string &name,
                      std::string &error);

/// Arguments of one cuTensorMapEncodeTiled call, innermost dim first.
struct TensorMapRequest {
  size_t slot = 0; // index into LaunchPlan::params
  std::string paramName;
  DType elementType = DType::BF16;
  uint32_t rank = 0;
  uint64_t globalAddress = 0;
  std::array<uint64_t, 5> globalDims{};
  std::array<uint64_t, 4> globalStridesBytes{}; // dims 1..rank-1
  std::array<uint32_t, 5> box{};
  std::array<uint32_t, 5> elementStrides{};
  Swizzle swizzle = Swizzle::None;
  L2Promotion l2Promotion = L2Promotion::B256;
  OobFill oobFill = OobFill::Zero;
};

struct LaunchPlan {
  bool empty = false; // nothing to compute (batch, heads or seq_q is 0)
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  std::array<uint32_t, 3> cluster{1, 1, 1};
  bool hasCluster = false;
  uint32_t dynamicSmemBytes = 0;
  std::vector<ParamSlot> params;
  std::vector<TensorMapRequest> tensorMaps;
  /// The "workspace" parameter: its slot (its bytes are left zero for the
  /// launcher to fill) and the bytes it must point to; 0 without one.
  size_t workspaceSlot = 0;
  uint64_t workspaceBytes = 0;
};

/// The most CTAs a grid takes along x, y and z (CUDA's launch limits).
inline constexpr std::array<uint64_t, 3> kMaxGrid = {INT32_MAX, 65535, 65535};

/// grid[i] = ceildiv(size, divisor) for each of `dims` (the others 1), rounded
/// up to whole clusters of `cluster`; false with `error` naming `kernel`
/// ("kernel fattn_fwd_...") when a dim is outside the launch limits.
bool computeGrid(const std::vector<GridDim> &dims, const std::array<uint32_t, 3> &cluster,
                 const ProblemSizes &sizes, const std::string &kernel,
                 std::array<uint32_t, 3> &grid, std::string &error);

/// Checks `tensors` (q, k, v, o and, when the kernel has LSE, lse) against
/// `desc` and derives the sizes. `numSMs` fills "num_sms". On failure returns
/// false with `error` naming the tensor and what is wrong.
bool checkTensors(const KernelDescription &desc, const TensorArg *tensors, int numTensors,
                  ProblemSizes &sizes, std::string &error);

/// The grid and every parameter's bytes for tensors that passed checkTensors
/// (`sizes` is its result, with numSMs filled in).
bool planLaunch(const KernelDescription &desc, const TensorArg *tensors,
                const ProblemSizes &sizes, LaunchPlan &plan, std::string &error);

/// The "tail_pairs" parameter of a kernel with "work_order" (WorkOrder.h's
/// chooseTailPairs over the kernel's Q tiles and their KV tiles), for a
/// grid of `grid` CTAs; remembered per shape. 0 without "work_order".
uint32_t tailPairsFor(const KernelDescription &desc, const ProblemSizes &sizes,
                      uint64_t grid);

/// A launch's scale and softcap (fattnScalars).
struct LaunchScalars {
  double scale = 0.0, softcap = 0.0;
};

/// Checks the caller's scalars against the kernel (a runtime scalar: a
/// positive finite value; a compiled-in one: its value, to f32 precision)
/// and writes them into the plan's `scale`, `scale_log2` and `softcap`
/// parameters. Without `scalars`, a kernel with a runtime softcap fails (it
/// has no value to default to) and the description's values stay.
bool applyLaunchScalars(const KernelDescription &desc, const LaunchScalars *scalars,
                        LaunchPlan &plan, std::string &error);

/// checkTensors, then planLaunch.
bool buildLaunchPlan(const KernelDescription &desc, const TensorArg *tensors, int numTensors,
                     uint64_t numSMs, LaunchPlan &plan, std::string &error);

} // namespace fattn::runtime

#endif // FATTN_RUNTIME_LAUNCHPLAN_H
