//===- KernelDescription.h - The JSON kernel description, parsed ----------===//
//
// docs/KERNEL-ABI.md is the contract; this is its in-memory form. Parsing is
// strict (unknown keys, wrong types and out-of-range values are errors) so a
// typo in fattn-compile's output fails at load, not as a wrong launch.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_RUNTIME_KERNELDESCRIPTION_H
#define FATTN_RUNTIME_KERNELDESCRIPTION_H

#include "fattn/KernelABI.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fattn::runtime {

/// Element types; the values equal fattnDType in include/fattn-c/Runtime.h.
enum class DType : int32_t { F16 = 0, BF16 = 1, F32 = 2, E4M3 = 3, E5M2 = 4 };
constexpr int kNumDTypes = 5;
const char *dtypeName(DType dtype);
bool parseDType(std::string_view name, DType &dtype);
uint32_t dtypeBytes(DType dtype);

/// The caller's tensors, in this order; the values equal fattnTensorIndex.
/// Slots 5-7 are the FP8 descale factors (f32, rank 0, 2 or 3), present only
/// for kernels whose description has a "descale" key.
enum TensorIndex : int {
  kQ = 0,
  kK = 1,
  kV = 2,
  kO = 3,
  kLse = 4,
  kQDescale = 5,
  kKDescale = 6,
  kVDescale = 7,
  kNumTensors = 8
};
const char *tensorName(int tensor);
inline bool isDescaleTensor(int tensor) { return tensor >= kQDescale && tensor <= kVDescale; }

/// Runtime sizes a grid dimension or a u32/u64 parameter can name.
enum class SizeName { Batch, HeadsQ, HeadsKV, SeqQ, SeqK, NumSMs };
const char *sizeName(SizeName size);

enum class ParamType { Ptr, U32, U64, F32, TensorMap };
const char *paramTypeName(ParamType type);

enum class Swizzle { None, B32, B64, B128 };
enum class L2Promotion { None, B64, B128, B256 };
enum class OobFill { Zero, NaN };

/// Encoding fields of a "tensormap" parameter (KERNEL-ABI.md, "Tensor maps").
/// box and elementStrides are in the tensor's logical dim order
/// ([batch, heads, seq, head_dim], [batch, heads, seq] for lse, [batch, heads,
/// head_dim, keys] for a transposed V).
struct TensorMapSpec {
  int tensor = kQ;
  DType elementType = DType::BF16;
  std::vector<uint32_t> box;
  std::vector<uint32_t> elementStrides;
  Swizzle swizzle = Swizzle::None;
  L2Promotion l2Promotion = L2Promotion::B256;
  OobFill oobFill = OobFill::Zero;
};

/// How the caller lays out V ("value_layout"). Default: [batch, heads_kv,
/// seq_k, head_dim_v], like K. TransposedWgmmaE4M3K32 (e4m3 only): [batch,
/// heads_kv, head_dim_v, keys], keys contiguous, padded to a multiple of 16 and
/// permuted within every 16 as the P V wgmma reads them, so TMA loads V
/// straight into the operand layout (KERNEL-ABI.md).
enum class ValueLayout { Default, TransposedWgmmaE4M3K32 };
constexpr const char *kTransposedWgmmaE4M3K32 =
    fattn_abi::kTransposedValueLayout;

/// Where a parameter's value comes from.
/// Workspace: the runtime's zeroed scratch buffer of the launch's device and
/// stream ("workspace_bytes_per_cta" bytes per CTA of the grid).
enum class ParamSource { Pointer, Size, Stride, Scalar, TensorMap, Workspace, TailPairs };
/// The f32 parameters a launch derives from its scale and softcap:
/// `scale`, `scale_log2` (scale·log2 e), `rescale_margin` (the rescale
/// threshold over scale·log2 e: how far, in scores, a row's max may grow
/// before the kernel rescales) and `softcap`.
enum class ScalarName { Scale, ScaleLog2, RescaleMargin, Softcap };

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::Ptr;
  ParamSource source = ParamSource::Pointer;
  int tensor = kQ;                 // Pointer, Stride, TensorMap
  int dim = 0;                     // Stride: logical dim (0 = batch, 1 = heads, 2 = seq or,
                                   // for a descale, block)
  SizeName size = SizeName::Batch; // Size
  ScalarName scalar = ScalarName::Scale;
  TensorMapSpec tensorMap;         // TensorMap
};

/// How the kernel reads one FP8 descale tensor ("descale": {"q": {...}}):
/// rank 0 per tensor, rank 2 [batch, heads_kv], rank 3 [batch, heads,
/// ceildiv(seq, block)] (heads of Q for q, of K/V for k and v).
struct DescaleSpec {
  int rank = 0;
  int64_t block = 0; // rank 3 only
};

/// grid[i] = ceildiv(value of size, divisor).
struct GridDim {
  SizeName size = SizeName::Batch;
  uint32_t divisor = 1;
};

struct KernelDescription {
  int version = 1;
  std::string arch;  // "sm_80", "sm_90a"
  std::string entry; // kernel symbol in the cubin
  std::string cubin; // file name, relative to the description's folder
  std::string ptx;   // optional PTX fallback, relative likewise ("" = none)
  DType dtype = DType::BF16;
  DType outDtype = DType::BF16; // "out_dtype", defaults to dtype
  int64_t headDimQK = 0, headDimV = 0;
  double scale = 0.0;
  bool causal = false;
  int64_t windowLeft = -1, windowRight = -1;
  double softcap = 0.0;
  /// "runtime_scalars": the scale and/or the softcap are the caller's at
  /// each launch (LaunchScalars), not `scale` / `softcap` above.
  bool runtimeScale = false, runtimeSoftcap = false;
  bool hasLse = false;
  /// "meta"."rescale_threshold" (log2 units; 0: none), which a
  /// `rescale_margin` parameter needs.
  double rescaleThreshold = 0.0;
  int64_t blockM = 0, blockN = 0;
  uint32_t threads = 0;
  uint32_t dynamicSmemBytes = 0;
  std::vector<GridDim> grid; // 1 to 3 entries: x, y, z
  bool hasCluster = false;
  std::array<uint32_t, 3> cluster{1, 1, 1};
  uint32_t alignBytes = 16; // required alignment of data pointers and row strides
  bool hasDescale = false;  // the "descale" key: launches take 8 tensors
  std::array<DescaleSpec, 3> descale; // q, k, v (index tensor - kQDescale)
  ValueLayout valueLayout = ValueLayout::Default;
  /// "workspace_bytes_per_cta": bytes of scratch per CTA of the grid that
  /// the "workspace" parameter points to, zeroed before the first launch and
  /// left zeroed by each launch (KERNEL-ABI.md); 0: none.
  uint64_t workspaceBytesPerCta = 0;
  /// "work_order" (persistent kernels of masked attention, with a
  /// "tail_pairs" parameter): what the runtime needs to simulate the
  /// kernel's order of work items and choose that parameter (WorkOrder.h).
  bool hasWorkOrder = false;
  int64_t ctasPerPair = 1;
  bool reverseQTiles = true;
  std::vector<ParamSpec> params;
};

/// Parses and checks a description. On failure returns false with `error` set
/// ("kernel description: params[3]: unknown parameter name \"qq\"").
bool parseKernelDescription(std::string_view json, KernelDescription &desc, std::string &error);

/// The value of the scalar parameter `name` for a launch with this scale
/// and softcap.
double scalarParamValue(const KernelDescription &desc, ScalarName name, double scale,
                        double softcap);

} // namespace fattn::runtime

#endif // FATTN_RUNTIME_KERNELDESCRIPTION_H
