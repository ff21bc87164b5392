//===- GradKernel.h - The backward's description and launch plan ----------===//
//
// docs/KERNEL-ABI.md, "Backward": one description ("kind": "attention_grad")
// for the kernels of fattn.attention_grad, launched in order with one shared
// parameter list and two f32 workspaces (and, for the deterministic kernels,
// a u32 one). Parsing is as strict as the forward's (KernelDescription.h); the
// tensor checks and the parameter bytes need no GPU and are unit-tested on
// machines without CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_RUNTIME_GRADKERNEL_H
#define FATTN_RUNTIME_GRADKERNEL_H

#include "fattn/Runtime/KernelDescription.h"
#include "fattn/Runtime/LaunchPlan.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fattn::runtime {

/// The caller's tensors of a backward launch, in this order; the values
/// equal fattnGradTensorIndex in include/fattn-c/Runtime.h.
enum GradTensor : int {
  kGradQ = 0,
  kGradK,
  kGradV,
  kGradO,
  kGradDO,
  kGradLse,
  kGradDQ,
  kGradDK,
  kGradDV,
  kNumGradTensors
};
/// "q", "k", "v", "o", "do", "lse", "dq", "dk", "dv".
const char *gradTensorName(int tensor);

/// The workspaces of the backward (KERNEL-ABI.md), all contiguous: the f32
/// D = rowsum(dO O) [batch, heads_q, seq_q] and dQ accumulator [batch,
/// heads_q, seq_q, head_dim], and for the deterministic kernels only, the u32
/// counters [batch, heads_q, seq_q] that order the additions into dQ.
enum GradWorkspace : int { kDelta = 0, kDQAccum = 1, kDQSemaphore = 2, kNumGradWorkspaces = 3 };
/// "delta", "dq_accum", "dq_semaphore".
const char *gradWorkspaceName(int workspace);

enum class GradParamSource { Pointer, Workspace, Size, Stride };

struct GradParamSpec {
  std::string name;
  ParamType type = ParamType::Ptr;
  GradParamSource source = GradParamSource::Pointer;
  int tensor = kGradQ;    // Pointer, Stride
  int workspace = kDelta; // Workspace
  int dim = 0;            // Stride: 0 = batch, 1 = heads, 2 = seq
  SizeName size = SizeName::Batch;
};

/// One kernel of the backward, launched in the description's order.
struct GradKernelLaunchSpec {
  std::string role; // "preprocess", "main", "postprocess"
  std::string entry;
  std::vector<GridDim> grid;
  uint32_t threads = 0;
  uint32_t dynamicSmemBytes = 0;
};

struct GradKernelDescription {
  std::string arch, cubin, ptx;
  DType dtype = DType::BF16;
  int64_t headDim = 0;
  double scale = 0.0, softcap = 0.0;
  bool causal = false;
  /// dQ added in a fixed order ("deterministic"): the kernels take the
  /// dq_semaphore parameter and workspace.
  bool deterministic = false;
  int64_t windowLeft = -1, windowRight = -1;
  int64_t blockM = 0, blockN = 0;
  uint32_t alignBytes = 16;
  std::vector<GradParamSpec> params;
  std::vector<GradKernelLaunchSpec> kernels; // preprocess, main, postprocess
};

/// Parses and checks a backward description. On failure returns false with
/// `error` set ("kernel description: workspaces[1]: ...").
bool parseGradKernelDescription(std::string_view json, GradKernelDescription &desc,
                                std::string &error);

struct GradLaunchPlan {
  /// Nothing to launch: batch, heads_q, seq_q or seq_k is 0 (dQ, dK and dV
  /// are left as they are; the caller zeroes them).
  bool empty = false;
  struct Launch {
    std::array<uint32_t, 3> grid{1, 1, 1};
    uint32_t threads = 0;
    uint32_t dynamicSmemBytes = 0;
  };
  std::vector<Launch> launches; // one per kernel, in order
  std::vector<ParamSlot> params;
  /// Each workspace's bytes and offset in one buffer (256-byte aligned), and
  /// the buffer's size; the workspace parameters are filled by
  /// setGradWorkspace. dq_semaphore has 0 bytes (at the buffer's end) unless
  /// the description is deterministic.
  std::array<uint64_t, kNumGradWorkspaces> workspaceBytes{};
  std::array<uint64_t, kNumGradWorkspaces> workspaceOffsets{};
  uint64_t totalWorkspaceBytes = 0;
};

/// Checks the nine tensors (q, k, v, o, do, lse, dq, dk, dv) against `desc`
/// and derives the sizes; on failure `error` names the tensor.
bool checkGradTensors(const GradKernelDescription &desc, const TensorArg *tensors, int numTensors,
                      ProblemSizes &sizes, std::string &error);

/// The grids, the parameter bytes (workspace pointers left 0) and the
/// workspace sizes for tensors that passed checkGradTensors.
bool planGradLaunch(const GradKernelDescription &desc, const TensorArg *tensors,
                    const ProblemSizes &sizes, GradLaunchPlan &plan, std::string &error);

/// checkGradTensors, then planGradLaunch.
bool buildGradLaunchPlan(const GradKernelDescription &desc, const TensorArg *tensors,
                         int numTensors, GradLaunchPlan &plan, std::string &error);

/// Points the workspace parameters into one buffer of at least
/// plan.totalWorkspaceBytes bytes at device address `base`.
void setGradWorkspace(const GradKernelDescription &desc, uint64_t base, GradLaunchPlan &plan);

} // namespace fattn::runtime

#endif // FATTN_RUNTIME_GRADKERNEL_H
