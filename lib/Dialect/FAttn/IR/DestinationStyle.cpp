//===- DestinationStyle.cpp - tensor and memref forms of fattn ops --------===//

#include "fattn/Dialect/FAttn/IR/DestinationStyle.h"

using namespace mlir;
using namespace mlir::fattn;

static StringRef kindName(Type type) {
  return isa<TensorType>(type) ? "tensor" : "memref";
}

LogicalResult mlir::fattn::verifyOneShapedKind(
    Operation *op, ArrayRef<std::pair<StringRef, Value>> namedOperands) {
  const std::pair<StringRef, Value> *first = nullptr;
  for (const auto &named : namedOperands) {
    if (!named.second)
      continue;
    if (!first) {
      first = &named;
      continue;
    }
    Type type = named.second.getType();
    if (isa<TensorType>(type) != isa<TensorType>(first->second.getType()))
      return op->emitOpError()
             << "expected " << named.first << " to be a "
             << kindName(first->second.getType()) << " as " << first->first
             << " is (all operands tensors or all memrefs), found " << type;
  }
  return success();
}

void mlir::fattn::getDestinationStyleEffects(
    DestinationStyleOpInterface op,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    if (op.isDpsInit(&operand))
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
    else
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
  }
}

InFlightDiagnostic mlir::fattn::emitTensorFormError(Operation *op,
                                                    StringRef pass) {
  return op->emitOpError() << "on tensors: " << pass
                           << " takes the memref form (run "
                              "--one-shot-bufferize first)";
}
