//===- FAttnToNVVM.h - tiled attention -> NVVM kernels ----------*- C++ -*-===//
//
// `--convert-fattn-to-nvvm{chip=...}` turns every func.func whose body is one
// (target-annotated) fattn.tiled_attention into a kernel: an llvm.func with
// the parameters of docs/KERNEL-ABI.md inside a `gpu.module @fattn_kernels`
// carrying an #nvvm.target for the chip. The func.func is erased, or, when
// something calls it (the host-launch pipelines), emptied and marked with
// its kernel (kKernelRefAttrName).
//
// Per-chip hook: the pass looks the chip up in a small registry of
// `AttentionKernelBuilder`s. sm_80 is built in (SM80/AttentionKernel.cpp).
// The sm_90a builder lives in lib/Conversion/FAttnToNVVM/SM90/ and is added
// with `registerAttentionKernelBuilder("sm_90a", ...)` (e.g. from
// registerFAttnConversionPasses or a static initializer in that folder); until
// it is registered, chip=sm_90a fails with a diagnostic.
//
// Every kernel carries `fattn.kernel` (a dictionary: block sizes, threads,
// dynamic shared memory, semantics) that fattn-compile turns into the JSON
// description of docs/KERNEL-ABI.md.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_CONVERSION_FATTNTONVVM_FATTNTONVVM_H
#define FATTN_CONVERSION_FATTNTONVVM_FATTNTONVVM_H

#include "fattn/Dialect/FAttn/IR/FAttnOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <functional>

namespace mlir::fattn {

/// Name of the kernel-description attribute on each generated llvm.func.
constexpr llvm::StringLiteral kKernelInfoAttrName = "fattn.kernel";

/// On an attention function that something calls (the host-complete
/// pipelines' outlined attention, GPULaunch.h): the kernel that took its
/// body, `@gpu_module::@kernel`. Such a function stays, emptied, for
/// --fattn-gpu-launch to replace its calls; one that nothing calls goes.
constexpr llvm::StringLiteral kKernelRefAttrName = "fattn.kernel_ref";

/// Marks `func` with kKernelRefAttrName naming `kernel` of `module`.
void markConvertedFunction(Operation *func, gpu::GPUModuleOp module,
                           LLVM::LLVMFuncOp kernel);

/// Builds the kernel `name` for `op` at the builder's insertion point (the
/// body of a gpu.module). Emits a diagnostic on `op` and fails for a
/// configuration the target cannot handle.
using AttentionKernelBuilder = std::function<FailureOr<LLVM::LLVMFuncOp>(
    OpBuilder &builder, TiledAttentionOp op, StringRef name)>;

/// Registers (or replaces) the builder for `chip` (e.g. "sm_90a").
void registerAttentionKernelBuilder(StringRef chip,
                                    AttentionKernelBuilder builder);
/// The builder for `chip`, or null.
const AttentionKernelBuilder *lookupAttentionKernelBuilder(StringRef chip);

/// The sm_80 builder (cp.async ring, ldmatrix, mma.sync m16n8k16). Needs the
/// annotations of --fattn-sm80-async-copy and --fattn-sm80-mma. Builds the
/// kernel at its target level (L3: FAttnSM80Ops.td), which
/// lowerSM80TargetOps (SM80/TargetToNVVM.h) lowers.
FailureOr<LLVM::LLVMFuncOp> buildSM80AttentionKernel(OpBuilder &builder,
                                                     TiledAttentionOp op,
                                                     StringRef name);

/// Converts every attention function of `module` for `chip`. sm_80 kernels
/// stay at their target ops (L3) with `keepTargetOps`.
LogicalResult convertFAttnToNVVM(ModuleOp module, StringRef chip,
                                 bool keepTargetOps = false);

/// The longest window bound the kernels take: they add window_left and
/// window_right to 32-bit key indices (row + seq_k - seq_q +- window), which
/// stay in range for windows and sequences up to 2^30.
inline constexpr int64_t kMaxKernelWindow = int64_t(1) << 30;

/// Fails with a diagnostic on `op`, naming `lowering` (e.g. "the sm_80
/// lowering"), when a window bound exceeds kMaxKernelWindow.
LogicalResult checkKernelWindows(TiledAttentionOp op, StringRef lowering);

} // namespace mlir::fattn

#endif // FATTN_CONVERSION_FATTNTONVVM_FATTNTONVVM_H
