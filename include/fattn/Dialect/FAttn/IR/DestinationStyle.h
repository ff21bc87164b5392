//===- DestinationStyle.h - tensor and memref forms of fattn ----*- C++ -*-===//
//
// fattn.attention, fattn.quantize and fattn.hadamard_rotate take all tensors
// (and return their inits' new values) or all memrefs (and write them). The
// checks and effects that the three share.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_IR_DESTINATIONSTYLE_H
#define FATTN_DIALECT_FATTN_IR_DESTINATIONSTYLE_H

#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <utility>

namespace mlir::fattn {

/// Checks that the named operands (null ones skipped) are all tensors or all
/// memrefs; the first names the kind in the diagnostic.
LogicalResult
verifyOneShapedKind(Operation *op,
                    ArrayRef<std::pair<StringRef, Value>> namedOperands);

/// The memory effects of a destination-style op in the memref form: its
/// inputs are read, its inits written. Tensor operands have none.
void getDestinationStyleEffects(
    DestinationStyleOpInterface op,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects);

/// The diagnostic of a pass that lowers the memref form of `op` and found
/// its tensor form; `pass` is the pass's command-line name.
InFlightDiagnostic emitTensorFormError(Operation *op, StringRef pass);

/// Fails with emitTensorFormError on the first OpTy under `root` that is in
/// the tensor form.
template <typename OpTy>
LogicalResult checkBufferized(Operation *root, StringRef pass) {
  WalkResult result = root->walk([&](OpTy op) {
    if (!op.hasPureTensorSemantics())
      return WalkResult::advance();
    emitTensorFormError(op, pass);
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_IR_DESTINATIONSTYLE_H
