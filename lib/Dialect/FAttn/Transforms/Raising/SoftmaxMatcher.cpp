//===- SoftmaxMatcher.cpp - softmax along the keys ------------------------===//
//
// The softmax of the scores along the last dim: linalg.softmax, or its
// decomposition into max, subtract, exp, sum and divide (or reciprocal and
// multiply) generics, fused or not, the row max and sum as [..., rows],
// kept as [..., rows, 1] or broadcast to [..., rows, keys]. The generics are
// read through the LinalgOp interface: linalg.generic, or the linalg.reduce
// and linalg.map ops of StableHLO lowered with primitive ops.
//
//===----------------------------------------------------------------------===//

#include "AttentionMatchers.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/APFloat.h"

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

/// Whether `groups` reshape [..., rows] to `kept`, [..., rows, 1], and
/// back: every dim on its own but the rows and the unit dim.
bool isUnitDimReshape(ArrayRef<ReassociationIndices> groups,
                      RankedTensorType kept) {
  int64_t rank = kept.getRank();
  if (rank < 2 || kept.getDimSize(rank - 1) != 1 ||
      static_cast<int64_t>(groups.size()) != rank - 1)
    return false;
  for (int64_t g = 0; g < rank - 2; ++g)
    if (groups[g] != ReassociationIndices{g})
      return false;
  return groups.back() == ReassociationIndices{rank - 2, rank - 1};
}

/// `v` seen through a tensor.expand_shape that appends a unit dim to its
/// rows ([..., rows] -> [..., rows, 1]), else `v`.
Value throughUnitDimExpand(Value v) {
  auto expand = v.getDefiningOp<tensor::ExpandShapeOp>();
  if (!expand ||
      !isUnitDimReshape(expand.getReassociationIndices(),
                        expand.getResultType()))
    return v;
  return expand.getSrc();
}

/// `v` seen through a tensor.collapse_shape that drops the unit dim of rows
/// kept as [..., rows, 1], where an expand_shape or a linalg.broadcast
/// appended it to [..., rows] (StableHLO's keepdim broadcast_in_dim, then
/// the broadcast_in_dim to the scores' shape, lowered with primitive ops);
/// else `v`.
Value throughUnitDimCollapse(Value v) {
  auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || !isUnitDimReshape(collapse.getReassociationIndices(),
                                     collapse.getSrcType()))
    return v;
  Value kept = collapse.getSrc();
  if (Value rows = throughUnitDimExpand(kept); rows != kept)
    return rows;
  int64_t rank = collapse.getSrcType().getRank();
  auto broadcast = kept.getDefiningOp<linalg::BroadcastOp>();
  if (broadcast && broadcast.hasPureTensorSemantics() &&
      broadcast.getDimensions() == ArrayRef<int64_t>{rank - 1})
    return broadcast.getInput();
  return v;
}

/// The row value ([..., rows]) that `v`, a block argument of an elementwise
/// generic over [..., rows, keys], reads: an input read with the row map;
/// a [..., rows, 1] input read with the kept row map (the keepdim
/// reductions of torch-mlir and TOSA), seen through the expand_shape that
/// appended its unit dim; or a broadcast of it along the keys read with the
/// identity (StableHLO's broadcast_in_dim), of [..., rows] or of
/// [..., rows, 1] collapsed. Null otherwise.
Value getRowInput(linalg::LinalgOp linalgOp, Value v) {
  unsigned rank = linalgOp.getNumLoops();
  MLIRContext *ctx = linalgOp.getContext();
  if (OpOperand *row = getInputOf(linalgOp, v, getRowMap(ctx, rank)))
    return row->get();
  if (OpOperand *kept = getInputOf(linalgOp, v, getKeptRowMap(ctx, rank)))
    return throughUnitDimExpand(kept->get());
  OpOperand *broadcast =
      getInputOf(linalgOp, v, AffineMap::getMultiDimIdentityMap(rank, ctx));
  Value rows =
      broadcast ? throughBroadcastAlong(broadcast->get(), rank - 1) : Value();
  return rows ? throughUnitDimCollapse(rows) : Value();
}

/// Whether `init` is 0 in every element: the sum of a row from it is the
/// row's sum.
bool isZero(Value init) {
  std::optional<double> c = getUniformFloat(init);
  return c && *c == 0.0;
}

/// Whether `init` is -inf, or the lowest finite value of its element type,
/// in every element: the max of a row from it is the row's max. A larger
/// one is a row constant too, but one above the row's max can underflow
/// every exp of the row to 0.
bool isLowest(Value init) {
  std::optional<double> c = getUniformFloat(init);
  auto type = dyn_cast<FloatType>(getElementTypeOrSelf(init));
  if (!c || !type)
    return false;
  llvm::APFloat lowest =
      llvm::APFloat::getLargest(type.getFloatSemantics(), /*Negative=*/true);
  // Types wider than f64 round their lowest down to -inf.
  bool losesInfo;
  lowest.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmTowardNegative,
                 &losesInfo);
  return *c <= lowest.convertToDouble();
}

/// A generic (linalg.generic or linalg.reduce) that reduces `x`
/// ([..., keys]) along its last dim with `combine`(element, accumulator)
/// into [...], or into [..., 1] with keepdim, from an init that `isNeutral`
/// accepts. The types pair the two results with the two ways getRowInput
/// reads them.
template <typename... CombineOps>
bool isRowReduction(Value reduced, Value x, bool (*isNeutral)(Value)) {
  auto linalgOp = reduced.getDefiningOp<linalg::LinalgOp>();
  if (!linalgOp || linalgOp.getNumDpsInputs() != 1 ||
      linalgOp.getNumDpsInits() != 1 || !linalgOp.hasPureTensorSemantics())
    return false;
  unsigned rank = linalgOp.getNumLoops();
  SmallVector<utils::IteratorType> iterators = linalgOp.getIteratorTypesArray();
  for (unsigned d = 0; d < rank; ++d)
    if (iterators[d] != (d + 1 == rank ? utils::IteratorType::reduction
                                       : utils::IteratorType::parallel))
      return false;
  MLIRContext *ctx = linalgOp.getContext();
  OpOperand *input = linalgOp.getDpsInputOperand(0);
  OpOperand *init = linalgOp.getDpsInitOperand(0);
  if (input->get() != x ||
      linalgOp.getMatchingIndexingMap(input) !=
          AffineMap::getMultiDimIdentityMap(rank, ctx) ||
      (linalgOp.getMatchingIndexingMap(init) != getRowMap(ctx, rank) &&
       linalgOp.getMatchingIndexingMap(init) != getKeptRowMap(ctx, rank)))
    return false;
  if (!isNeutral(init->get()))
    return false;
  Operation *combine = getYielded(linalgOp).getDefiningOp();
  if (!combine || !isa<CombineOps...>(combine) ||
      combine->getBlock() != linalgOp.getBlock())
    return false;
  Value element = linalgOp.getMatchingBlockArgument(input);
  Value acc = linalgOp.getMatchingBlockArgument(init);
  return (combine->getOperand(0) == element && combine->getOperand(1) == acc) ||
         (combine->getOperand(0) == acc && combine->getOperand(1) == element);
}

/// exp(x - m) with m a row max of x: one elementwise generic, or an exp
/// generic of a subtract generic. Returns x.
FailureOr<Value> matchShiftedExp(Value e) {
  linalg::LinalgOp expGeneric = getElementwiseProducer(e);
  if (!expGeneric)
    return failure();
  auto exp = getYielded(expGeneric).getDefiningOp<math::ExpOp>();
  if (!exp || exp->getBlock() != expGeneric.getBlock())
    return failure();
  unsigned rank = expGeneric.getNumLoops();
  MLIRContext *ctx = e.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  linalg::LinalgOp subGeneric = expGeneric;
  arith::SubFOp sub = exp.getOperand().getDefiningOp<arith::SubFOp>();
  if (!sub) {
    OpOperand *shifted = getInputOf(expGeneric, exp.getOperand(), identity);
    subGeneric =
        shifted ? getElementwiseProducer(shifted->get()) : linalg::LinalgOp();
    if (!subGeneric || subGeneric.getNumLoops() != rank)
      return failure();
    sub = getYielded(subGeneric).getDefiningOp<arith::SubFOp>();
  }
  if (!sub || sub->getBlock() != subGeneric.getBlock())
    return failure();
  OpOperand *x = getInputOf(subGeneric, sub.getLhs(), identity);
  Value m = getRowInput(subGeneric, sub.getRhs());
  // Any row constant gives the same softmax; the max of the row keeps exp
  // from overflowing and from underflowing everywhere, as fattn's running
  // max does.
  if (!x || !m ||
      !isRowReduction<arith::MaximumFOp, arith::MaxNumFOp>(m, x->get(),
                                                           isLowest))
    return failure();
  return x->get();
}

/// s where `v`, a value of the body of `linalgOp`, is 1 / s, else null.
Value getReciprocalOperand(linalg::LinalgOp linalgOp, Value v) {
  auto div = v.getDefiningOp<arith::DivFOp>();
  if (!div || div->getBlock() != linalgOp.getBlock())
    return {};
  std::optional<double> one = getUniformScalar(linalgOp, div.getLhs());
  return one && *one == 1.0 ? div.getRhs() : Value();
}

/// The row value s (as getRowInput returns it) where `r`, a value of the
/// body of an elementwise generic over [..., rows, keys], is 1 / s: computed
/// there, or read as a row value that an elementwise generic computes as
/// 1 / s (TOSA's reciprocal, before the multiply that normalizes). Null
/// otherwise.
Value getRowReciprocal(linalg::LinalgOp linalgOp, Value r) {
  if (Value s = getReciprocalOperand(linalgOp, r))
    return getRowInput(linalgOp, s);
  Value row = getRowInput(linalgOp, r);
  linalg::LinalgOp producer =
      row ? getElementwiseProducer(row) : linalg::LinalgOp();
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
  linalg::LinalgOp normalize = getElementwiseProducer(p);
  if (!normalize)
    return failure();
  Operation *op = getYielded(normalize).getDefiningOp();
  if (!op || op->getBlock() != normalize.getBlock() ||
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
    if (e && sum && isRowReduction<arith::AddFOp>(sum, e->get(), isZero))
      return matchShiftedExp(e->get());
  }
  return failure();
}
