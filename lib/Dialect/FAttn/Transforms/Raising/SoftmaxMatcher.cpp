//===- SoftmaxMatcher.cpp - softmax along the keys ------------------------===//
//
// The softmax of the scores along the last dim: linalg.softmax, or its
// decomposition into max, subtract, exp, sum and divide generics (fused or
// not).
//
//===----------------------------------------------------------------------===//

#include "AttentionMatchers.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::fattn::raising;

namespace {

/// A generic that reduces `x` ([..., keys]) along its last dim with
/// `combine`(element, accumulator) into [...] (from zero with `zeroInit`).
template <typename... CombineOps>
bool isRowReduction(Value reduced, Value x, bool zeroInit) {
  auto generic = reduced.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || !generic.hasPureTensorSemantics())
    return false;
  unsigned rank = generic.getNumLoops();
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  for (unsigned d = 0; d < rank; ++d)
    if (iterators[d] != (d + 1 == rank ? utils::IteratorType::reduction
                                       : utils::IteratorType::parallel))
      return false;
  MLIRContext *ctx = generic.getContext();
  OpOperand *input = generic.getDpsInputOperand(0);
  OpOperand *init = generic.getDpsInitOperand(0);
  if (input->get() != x ||
      generic.getMatchingIndexingMap(input) !=
          AffineMap::getMultiDimIdentityMap(rank, ctx) ||
      generic.getMatchingIndexingMap(init) != getRowMap(ctx, rank))
    return false;
  if (zeroInit) {
    std::optional<double> initValue = getUniformFloat(init->get());
    if (!initValue || *initValue != 0.0)
      return false;
  }
  Operation *combine = getYielded(generic).getDefiningOp();
  Block *body = generic.getBody();
  if (!combine || !isa<CombineOps...>(combine) || combine->getBlock() != body)
    return false;
  Value element = body->getArgument(0), acc = body->getArgument(1);
  return (combine->getOperand(0) == element && combine->getOperand(1) == acc) ||
         (combine->getOperand(0) == acc && combine->getOperand(1) == element);
}

/// exp(x - m) with m a row max of x: one elementwise generic, or an exp
/// generic of a subtract generic. Returns x.
FailureOr<Value> matchShiftedExp(Value e) {
  linalg::GenericOp expGeneric = getElementwiseProducer(e);
  if (!expGeneric)
    return failure();
  auto exp = getYielded(expGeneric).getDefiningOp<math::ExpOp>();
  if (!exp || exp->getBlock() != expGeneric.getBody())
    return failure();
  unsigned rank = expGeneric.getNumLoops();
  MLIRContext *ctx = e.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  linalg::GenericOp subGeneric = expGeneric;
  arith::SubFOp sub = exp.getOperand().getDefiningOp<arith::SubFOp>();
  if (!sub) {
    OpOperand *shifted = getInputOf(expGeneric, exp.getOperand(), identity);
    subGeneric =
        shifted ? getElementwiseProducer(shifted->get()) : linalg::GenericOp();
    if (!subGeneric || subGeneric.getNumLoops() != rank)
      return failure();
    sub = getYielded(subGeneric).getDefiningOp<arith::SubFOp>();
  }
  if (!sub || sub->getBlock() != subGeneric.getBody())
    return failure();
  OpOperand *x = getInputOf(subGeneric, sub.getLhs(), identity);
  OpOperand *m = getInputOf(subGeneric, sub.getRhs(), getRowMap(ctx, rank));
  // Any row constant gives the same softmax; a max of the row keeps exp
  // from overflowing, as fattn's running max does.
  if (!x || !m ||
      !isRowReduction<arith::MaximumFOp, arith::MaxNumFOp>(m->get(), x->get(),
                                                           false))
    return failure();
  return x->get();
}

} // namespace

/// P = softmax(x) along the last dim: linalg.softmax, or e / sum(e) with
/// e = exp(x - max(x)). Returns x.
FailureOr<Value> fattn::raising::matchSoftmax(Value p) {
  if (auto softmax = p.getDefiningOp<linalg::SoftmaxOp>()) {
    auto type = cast<ShapedType>(softmax.getInput().getType());
    if (!softmax.hasPureTensorSemantics() ||
        softmax.getDimension() + 1 != static_cast<uint64_t>(type.getRank()))
      return failure();
    return softmax.getInput();
  }
  linalg::GenericOp divGeneric = getElementwiseProducer(p);
  if (!divGeneric)
    return failure();
  auto div = getYielded(divGeneric).getDefiningOp<arith::DivFOp>();
  if (!div || div->getBlock() != divGeneric.getBody())
    return failure();
  unsigned rank = divGeneric.getNumLoops();
  MLIRContext *ctx = p.getContext();
  OpOperand *e = getInputOf(divGeneric, div.getLhs(),
                            AffineMap::getMultiDimIdentityMap(rank, ctx));
  OpOperand *sum = getInputOf(divGeneric, div.getRhs(), getRowMap(ctx, rank));
  if (!e || !sum || !isRowReduction<arith::AddFOp>(sum->get(), e->get(), true))
    return failure();
  return matchShiftedExp(e->get());
}
