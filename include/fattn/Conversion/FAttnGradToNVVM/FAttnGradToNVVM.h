//===- FAttnGradToNVVM.h - the attention backward on sm_80 ------*- C++ -*-===//
//
// `--convert-fattn-grad-to-nvvm-sm80`: fattn.tiled_attention_grad functions
// to FlashAttention-2's three backward kernels (Passes.td). The kernels are
// built from upstream ops (nvgpu, gpu, memref, vector, scf, arith, math)
// and lowered by upstream conversions; each kernel carries a dictionary
// (kGradKernelInfoAttrName) from which fattn-compile writes one description
// for the three (docs/KERNEL-ABI.md, "Backward").
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_CONVERSION_FATTNGRADTONVVM_FATTNGRADTONVVM_H
#define FATTN_CONVERSION_FATTNGRADTONVVM_FATTNGRADTONVVM_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <utility>

namespace mlir::fattn {

/// The dictionary on each backward kernel: its role ("preprocess", "main",
/// "postprocess"), dynamic shared memory and the configuration.
constexpr llvm::StringLiteral kGradKernelInfoAttrName = "fattn.grad_kernel";

/// Replaces every func.func whose body holds one fattn.tiled_attention_grad
/// by its three sm_80 kernels of nvgpu/gpu/memref/vector/scf ops, in
/// `gpu.module @fattn_kernels`. Fails with a diagnostic on the op for what
/// the kernels do not support.
LogicalResult buildSM80GradKernels(ModuleOp module);

/// As buildSM80GradKernels, with the sm_90a main kernel (wgmma; the
/// preprocess and postprocess kernels are the same) in a gpu.module for
/// sm_90a. Its KV tiles have 64 keys (one warpgroup) or 128 (two).
LogicalResult buildSM90GradKernels(ModuleOp module);

/// The sm_90a main kernel's faster KV tile (block_n) at head dim `headDim`:
/// 128 keys where two warpgroups split dQ's 64-column atoms, else 64.
int64_t sm90GradBlockN(int64_t headDim);

/// nvgpu.mma.sync m16n8k16 on bf16 (which upstream's NVGPU-to-NVVM pattern
/// does not take) as nvvm.mma.sync on the 32-bit registers of the
/// operands.
void populateSM80BF16MmaSyncPatterns(RewritePatternSet &patterns);

/// math.exp2 and math.tanh on f32 (scalars and vectors) as ex2.approx.ftz
/// (llvm.nvvm.ex2.approx.ftz.f32) and tanh.approx.f32 (inline PTX) per
/// element, as the forward kernels compute them.
void populateSM80MathApproxPatterns(RewritePatternSet &patterns);

/// The upstream conversions that take the kernels to NVVM/LLVM, to run on
/// the gpu.module after populateSM80BF16MmaSyncPatterns and
/// populateSM80MathApproxPatterns.
void buildSM80GradKernelLowering(OpPassManager &pm);

/// One description for the three kernels of the backward function `name`,
/// from their kGradKernelInfoAttrName dictionaries (entry, dictionary), for
/// GPUs of `arch` ("sm_80" or "sm_90a"; the launch is the same).
llvm::json::Object describeGradKernels(
    ArrayRef<std::pair<std::string, DictionaryAttr>> kernels, StringRef name,
    StringRef arch);

} // namespace mlir::fattn

#endif // FATTN_CONVERSION_FATTNGRADTONVVM_FATTNGRADTONVVM_H
