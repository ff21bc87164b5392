//===- GPULaunch.h - host code that launches fattn's kernels ----*- C++ -*-===//
//
// The host-complete GPU pipelines (`host-launch=true` of fattn-sm80-pipeline
// and fattn-sm90-pipeline) in two steps around the target pipeline:
//
//   --fattn-outline-attention  each fattn.attention moves into a function of
//                              its own, called where the op was;
//   (the target pipeline turns that function into a kernel and marks it
//    with kKernelRefAttrName)
//   --fattn-gpu-launch         each such call becomes gpu.launch_func of the
//                              kernel, with the grid, shared memory,
//                              parameters and TMA tensor maps that the
//                              kernel's description (docs/KERNEL-ABI.md)
//                              states, computed from the call's memrefs.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_CONVERSION_GPULAUNCH_GPULAUNCH_H
#define FATTN_CONVERSION_GPULAUNCH_GPULAUNCH_H

#include "fattn/Dialect/FAttn/IR/FAttnOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fattn {

/// On a call of an outlined attention function: the kernel-ABI names of the
/// call's operands, in order ("q", "k", "v", "o", then "lse", "q_descale",
/// "k_descale", "v_descale" when present).
inline constexpr llvm::StringLiteral kLaunchTensorsAttrName =
    "fattn.launch_tensors";

/// Moves `op` (memref form) into a new private function named
/// `<enclosing function>_attention` (made unique) placed before the
/// enclosing function, whose arguments are the op's operands, and replaces
/// it with a call carrying kLaunchTensorsAttrName. Fails with a diagnostic
/// on the tensor form or outside a function of a symbol table.
FailureOr<func::CallOp> outlineAttention(RewriterBase &rewriter,
                                         AttentionOp op);

/// Emits, at the builder's insertion point, host code that launches
/// `kernel` on `tensors` (memrefs, named by their kernel-ABI names as in
/// kLaunchTensorsAttrName) as its description (docs/KERNEL-ABI.md) says: the
/// sm_90a kernel's `fattn.kernel_description`, or the one that the sm_80
/// kernel's `fattn.kernel` dictionary gives (describeSM80Kernel), read by
/// fattn's runtime's reader (parseKernelDescription), so the launch is the
/// one the runtime would make: the grid from the sizes,
/// the dynamic shared memory, each parameter, the tensor maps (encoded by
/// mgpuTensorMapEncodeTiled, declared in `module` when missing), all under
/// an scf.if that skips a launch with no work. Fails with a diagnostic at
/// `loc`, and builds nothing, on a parameter the host cannot fill (the
/// multiprocessor count, a workspace) or operands the description does not
/// take; at `kernel` on a missing description or one the reader rejects.
LogicalResult
buildKernelLaunch(OpBuilder &builder, Location loc, ModuleOp module,
                  LLVM::LLVMFuncOp kernel,
                  ArrayRef<std::pair<StringRef, Value>> tensors);

/// Replaces `call` (of an outlined attention function that the target
/// pipeline marked with kKernelRefAttrName) with the launch of its kernel;
/// erases the callee once nothing calls it.
LogicalResult launchOutlinedAttention(RewriterBase &rewriter,
                                      func::CallOp call);

} // namespace mlir::fattn

#endif // FATTN_CONVERSION_GPULAUNCH_GPULAUNCH_H
