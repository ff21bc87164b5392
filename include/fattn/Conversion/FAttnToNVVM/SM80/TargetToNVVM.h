//===- TargetToNVVM.h - sm_80 target ops (L3) to NVVM -----------*- C++ -*-===//
//
// The L3 -> L4 step of the sm_80 back end: one ConvertOpToLLVMPattern per
// fattn.sm80.* op (FAttnSM80Ops.td), each building the NVVM, LLVM, arith and
// scf operations that the op stands for, applied with upstream's patterns
// for the other ops of the sm_80 L3 (nvgpu.device_async_wait, gpu.shuffle).
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

/// The patterns that lower the fattn.sm80.* target ops.
void populateSM80TargetToNVVMPatterns(LLVMTypeConverter &converter,
                                      RewritePatternSet &patterns);

/// Lowers the sm_80 L3 nested in `root` to L4: every fattn.sm80.* op,
/// nvgpu.device_async_wait and gpu.shuffle, in one partial
/// conversion (other ops stay as they are). Fails, with a diagnostic, when
/// an op cannot be lowered.
LogicalResult lowerSM80TargetOps(Operation *root);

} // namespace mlir::fattn

#endif // FATTN_CONVERSION_FATTNTONVVM_SM80_TARGETTONVVM_H
