//===- SoftmaxMatcher.cpp - softmax along the keys ------------------------===//
//
// The softmax of the scores along the last dim: linalg.softmax, or its
// decomposition into max, subtract, exp, sum and divide (or reciprocal and
// multiply) generics, fused or not, the row max and sum as [..., rows],
// kept as [..., rows, 1] or broadcast to [..., rows, keys].
//
//===----------------------------------------------------------------------===//

#include "AttentionMatchers.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::fattn::raising;

namespace {

/// The map of a row value kept as [..., rows, 1], as reductions with keepdim
/// make it: (d0, ..., dn) -> (d0, ..., dn-1, 0).
AffineMap getKeptRowMap(MLIRContext *ctx, unsigned rank) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d = 0; d + 1 < rank; ++d)
    exprs.push_back(getAffineDimExpr(d, ctx));
  exprs.push_back(getAffineConstantExpr(0, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

/// `v` seen through a tensor.expand_shape that appends a unit dim to its
/// rows ([..., rows] -> [..., rows, 1]), else `v`.
Value throughUnitDimExpand(Value v) {
  auto expand = v.getDefiningOp<tensor::ExpandShapeOp>();
  if (!expand)
    return v;
  RankedTensorType type = expand.getResultType();
  int64_t rank = type.getRank();
  SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
  if (rank < 2 || type.getDimSize(rank - 1) != 1 ||
      static_cast<int64_t>(groups.size()) != rank - 1)
    return v;
  for (int64_t g = 0; g < rank - 2; ++g)
    if (groups[g] != ReassociationIndices{g})
      return v;
  if (groups.back() != ReassociationIndices{rank - 2, rank - 1})
    return v;
  return expand.getSrc();
}

/// The row value ([..., rows]) that `v`, a block argument of an elementwise
/// generic over [..., rows, keys], reads: an input read with the row map;
/// a [..., rows, 1] input read with the kept row map (the keepdim
/// reductions of torch-mlir and TOSA), seen through the expand_shape that
/// appended its unit dim; or a broadcast of it along the keys read with the
/// identity (StableHLO's broadcast_in_dim). Null otherwise.
Value getRowInput(linalg::GenericOp generic, Value v) {
  unsigned rank = generic.getNumLoops();
  MLIRContext *ctx = generic.getContext();
  if (OpOperand *row = getInputOf(generic, v, getRowMap(ctx, rank)))
    return row->get();
  if (OpOperand *kept = getInputOf(generic, v, getKeptRowMap(ctx, rank)))
    return throughUnitDimExpand(kept->get());
  OpOperand *broadcast =
      getInputOf(generic, v, AffineMap::getMultiDimIdentityMap(rank, ctx));
  return broadcast ? throughBroadcastAlong(broadcast->get(), rank - 1)
                   : Value();
}

/// A generic that reduces `x` ([..., keys]) along its last dim with
/// `combine`(element, accumulator) into [...], or into [..., 1] with
/// keepdim (from zero with `zeroInit`). The types pair the two results
/// with the two ways getRowInput reads them.
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
      (generic.getMatchingIndexingMap(init) != getRowMap(ctx, rank) &&
       generic.getMatchingIndexingMap(init) != getKeptRowMap(ctx, rank)))
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
  Value m = getRowInput(subGeneric, sub.getRhs());
  // Any row constant gives the same softmax; a max of the row keeps exp
  // from overflowing, as fattn's running max does.
  if (!x || !m ||
      !isRowReduction<arith::MaximumFOp, arith::MaxNumFOp>(m, x->get(), false))
    return failure();
  return x->get();
}

/// s where `v`, a value of the body of `generic`, is 1 / s, else null.
Value getReciprocalOperand(linalg::GenericOp generic, Value v) {
  auto div = v.getDefiningOp<arith::DivFOp>();
  if (!div || div->getBlock() != generic.getBody())
    return {};
  std::optional<double> one = getUniformScalar(generic, div.getLhs());
  return one && *one == 1.0 ? div.getRhs() : Value();
}

/// The row value s (as getRowInput returns it) where `r`, a value of the
/// body of an elementwise generic over [..., rows, keys], is 1 / s: computed
/// there, or read as a row value that an elementwise generic computes as
/// 1 / s (TOSA's reciprocal, before the multiply that normalizes). Null
/// otherwise.
Value getRowReciprocal(linalg::GenericOp generic, Value r) {
  if (Value s = getReciprocalOperand(generic, r))
    return getRowInput(generic, s);
  Value row = getRowInput(generic, r);
  linalg::GenericOp producer =
      row ? getElementwiseProducer(row) : linalg::GenericOp();
  if (!producer)
    return {};
  Value s = getReciprocalOperand(producer, getYielded(producer));
  OpOperand *sum =
      s ? getInputOf(producer, s,
                     AffineMap::getMultiDimIdentityMap(producer.getNumLoops(),
                                                       producer.getContext()))
        : nullptr;
  return sum ? throughUnitDimExpand(sum->get()) : Value();
}

} // namespace

/// P = softmax(x) along the last dim: linalg.softmax, or e / sum(e) or
/// e * (1 / sum(e)) with e = exp(x - max(x)). Returns x.
FailureOr<Value> fattn::raising::matchSoftmax(Value p) {
  if (auto softmax = p.getDefiningOp<linalg::SoftmaxOp>()) {
    auto type = cast<ShapedType>(softmax.getInput().getType());
    if (!softmax.hasPureTensorSemantics() ||
        softmax.getDimension() + 1 != static_cast<uint64_t>(type.getRank()))
      return failure();
    return softmax.getInput();
  }
  linalg::GenericOp normalize = getElementwiseProducer(p);
  if (!normalize)
    return failure();
  Operation *op = getYielded(normalize).getDefiningOp();
  if (!op || op->getBlock() != normalize.getBody() ||
      !isa<arith::DivFOp, arith::MulFOp>(op))
    return failure();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(
      normalize.getNumLoops(), p.getContext());
  for (unsigned ePos : {0u, 1u}) {
    if (isa<arith::DivFOp>(op) && ePos == 1)
      break;
    OpOperand *e = getInputOf(normalize, op->getOperand(ePos), identity);
    Value other = op->getOperand(1 - ePos);
    Value sum = isa<arith::DivFOp>(op) ? getRowInput(normalize, other)
                                       : getRowReciprocal(normalize, other);
    if (e && sum && isRowReduction<arith::AddFOp>(sum, e->get(), true))
      return matchShiftedExp(e->get());
  }
  return failure();
}
