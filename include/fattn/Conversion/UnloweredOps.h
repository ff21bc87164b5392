//===- UnloweredOps.h - refusing the ops a conversion does not lower -*- C++ -*-===//
//
// Each conversion to NVVM lowers one kind of op in one form: the forward
// conversions a fattn.tiled_attention alone in its function, the backward
// ones a fattn.tiled_attention_grad alone in its function. Run on the other
// forms (untiled, the other direction's tiled op, two in one function), a
// conversion would leave them in place without a word and the failure would
// come later, far from its cause; these checks name the pass that is
// missing instead.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_CONVERSION_UNLOWEREDOPS_H
#define FATTN_CONVERSION_UNLOWEREDOPS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/Twine.h"

namespace mlir::fattn {

/// Fails with a diagnostic on the first op of `OpTs` under `root`: "'<op>' op
/// is not lowered by --<conversion>: <remedy>".
template <typename... OpTs>
LogicalResult refuseOpsNotLowered(Operation *root, llvm::StringRef conversion,
                                  const llvm::Twine &remedy) {
  WalkResult result = root->walk([&](Operation *op) {
    if (!isa<OpTs...>(op))
      return WalkResult::advance();
    op->emitOpError() << "is not lowered by --" << conversion << ": "
                      << remedy;
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// Fails with a diagnostic on the second `OpT` of the first function of
/// `module` that holds several: `conversion` lowers a function whose body
/// holds one.
template <typename OpT>
LogicalResult refuseSharedFunctions(ModuleOp module,
                                    llvm::StringRef conversion) {
  for (auto func : module.getOps<func::FuncOp>()) {
    SmallVector<OpT> ops;
    func.walk([&](OpT op) { ops.push_back(op); });
    if (ops.size() > 1)
      return ops[1].emitOpError()
             << "is not lowered by --" << conversion
             << ": it lowers a function that holds one "
             << OpT::getOperationName() << ", @" << func.getSymName()
             << " holds " << ops.size();
  }
  return success();
}

} // namespace mlir::fattn

#endif // FATTN_CONVERSION_UNLOWEREDOPS_H
