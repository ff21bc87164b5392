//===- TargetToNVVM.h - sm_90a target ops (L3) to NVVM ----------*- C++ -*-===//
//
// The L3 -> L4 step of the sm_90a back end: one ConvertOpToLLVMPattern per
// fattn.sm90.* op (FAttnSM90Ops.td), each building the NVVM and LLVM
// operations that the op stands for.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_CONVERSION_FATTNTONVVM_SM90_TARGETTONVVM_H
#define FATTN_CONVERSION_FATTNTONVVM_SM90_TARGETTONVVM_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class LLVMTypeConverter;
class Operation;
class RewritePatternSet;
} // namespace mlir

namespace mlir::fattn {

/// The patterns that lower the fattn.sm90.* target ops to NVVM and LLVM.
void populateSM90TargetToNVVMPatterns(LLVMTypeConverter &converter,
                                      RewritePatternSet &patterns);

/// Lowers every fattn.sm90.* op nested in `root` by those patterns, and
/// any scf, cf, arith and math op by upstream's patterns, in one partial
/// conversion (NVVM and LLVM ops stay as they are). Fails, with a
/// diagnostic, when an op cannot be lowered.
LogicalResult lowerSM90TargetOps(Operation *root);

} // namespace mlir::fattn

#endif // FATTN_CONVERSION_FATTNTONVVM_SM90_TARGETTONVVM_H
