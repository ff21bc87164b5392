//===- TargetToNVVM.h - sm_80 target ops (L3) to NVVM -----------*- C++ -*-===//
//
// The L3 -> L4 step of the sm_80 back end: one ConvertOpToLLVMPattern per
// fattn.sm80.* op (FAttnSM80Ops.td), each building the NVVM, LLVM, arith and
// scf operations that the op stands for, and the kernel's math (f32
// math.exp2, math.log2, math.tanh as approximate instructions, math.fma),
// applied with upstream's patterns for the other ops of the sm_80 L3
// (nvgpu.device_async_wait, gpu.barrier, gpu.shuffle).
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_CONVERSION_FATTNTONVVM_SM80_TARGETTONVVM_H
#define FATTN_CONVERSION_FATTNTONVVM_SM80_TARGETTONVVM_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class LLVMTypeConverter;
class Operation;
class RewritePatternSet;
} // namespace mlir

namespace mlir::fattn {

/// The patterns that lower the fattn.sm80.* target ops and the sm_80
/// kernel's f32 math ops (exp2, log2 and tanh approximate, fma).
void populateSM80TargetToNVVMPatterns(LLVMTypeConverter &converter,
                                      RewritePatternSet &patterns);

/// Lowers the sm_80 L3 nested in `root` to L4: every fattn.sm80.* op, math
/// op, nvgpu.device_async_wait, gpu.barrier and gpu.shuffle, in one partial
/// conversion (other ops stay as they are). Fails, with a diagnostic, when
/// an op cannot be lowered.
LogicalResult lowerSM80TargetOps(Operation *root);

} // namespace mlir::fattn

#endif // FATTN_CONVERSION_FATTNTONVVM_SM80_TARGETTONVVM_H
