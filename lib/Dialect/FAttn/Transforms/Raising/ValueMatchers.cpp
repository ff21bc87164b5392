//===- ValueMatchers.cpp - constants, reshapes, generic bodies ------------===//
//
// The small facts every matcher of --fattn-raise-attention asks about a
// value: the constant it holds, the reshapes of batch dims it goes through,
// the elementwise generic that makes it, the input a block argument reads,
// and a constant scale.
//
//===----------------------------------------------------------------------===//

#include "AttentionMatchers.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;

/// Whether a reshape keeps the last two dims (seq and head_dim, or query and
/// key) as they are and regroups only the leading (batch) dims.
static bool reshapesOnlyBatchDims(ArrayRef<ReassociationIndices> groups,
                                  ShapedType small, ShapedType large) {
  int64_t n = groups.size();
  if (n < 3 || small.getRank() != n)
    return false;
  for (int64_t g = n - 2; g < n; ++g)
    if (groups[g].size() != 1 ||
        small.getDimSize(g) != large.getDimSize(groups[g][0]) ||
        groups[g][0] != large.getRank() - (n - g))
      return false;
  return true;
}

namespace mlir::fattn::raising {

/// `v` seen through expand_shape / collapse_shape ops of its batch dims. Row
/// and elementwise ops commute with those reshapes, which keep the order of
/// the elements.
Value throughBatchReshapes(Value v) {
  while (true) {
    if (auto expand = v.getDefiningOp<tensor::ExpandShapeOp>()) {
      if (!reshapesOnlyBatchDims(expand.getReassociationIndices(),
                                 expand.getSrcType(), expand.getResultType()))
        return v;
      v = expand.getSrc();
    } else if (auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>()) {
      if (!reshapesOnlyBatchDims(collapse.getReassociationIndices(),
                                 collapse.getResultType(),
                                 collapse.getSrcType()))
        return v;
      v = collapse.getSrc();
    } else {
      return v;
    }
  }
}

/// The float constant `v` holds (in every element, for a tensor), seen
/// through linalg.fill and linalg.broadcast.
std::optional<double> getUniformFloat(Value v) {
  if (auto fill = v.getDefiningOp<linalg::FillOp>())
    return getUniformFloat(fill.getInputs()[0]);
  if (auto broadcast = v.getDefiningOp<linalg::BroadcastOp>())
    return broadcast.hasPureTensorSemantics()
               ? getUniformFloat(broadcast.getInput())
               : std::nullopt;
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto dense = dyn_cast<DenseFPElementsAttr>(attr))
    attr = dense.isSplat() ? dense.getSplatValue<Attribute>() : Attribute();
  if (auto f = dyn_cast_if_present<FloatAttr>(attr))
    return f.getValueAsDouble();
  return std::nullopt;
}

/// The all-parallel generic with one result and an identity output map that
/// produces `v`, or null.
linalg::LinalgOp getElementwiseProducer(Value v) {
  auto linalgOp = v.getDefiningOp<linalg::LinalgOp>();
  if (!linalgOp || linalgOp.getNumDpsInits() != 1 ||
      linalgOp->getNumResults() != 1 ||
      !linalgOp.hasPureTensorSemantics() ||
      linalgOp.getNumLoops() != linalgOp.getNumParallelLoops() ||
      !linalgOp.getMatchingIndexingMap(linalgOp.getDpsInitOperand(0))
           .isIdentity())
    return {};
  return linalgOp;
}

Value getYielded(linalg::LinalgOp linalgOp) {
  return linalgOp.getBlock()->getTerminator()->getOperand(0);
}

/// The input of `linalgOp` whose block argument `v` is, when its indexing map
/// is `wanted` (null: any), else null.
OpOperand *getInputOf(linalg::LinalgOp linalgOp, Value v, AffineMap wanted) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != linalgOp.getBlock() ||
      arg.getArgNumber() >= linalgOp.getNumDpsInputs())
    return nullptr;
  OpOperand *operand = linalgOp.getDpsInputOperand(arg.getArgNumber());
  if (wanted && linalgOp.getMatchingIndexingMap(operand) != wanted)
    return nullptr;
  return operand;
}

/// The value of a scalar in a generic's body that is the same everywhere:
/// a constant, or an input that is one constant (a splat, a fill, a
/// rank-0 tensor of a constant).
std::optional<double> getUniformScalar(linalg::LinalgOp linalgOp, Value v) {
  if (std::optional<double> c = getUniformFloat(v))
    return c;
  if (OpOperand *input = getInputOf(linalgOp, v))
    return getUniformFloat(input->get());
  return std::nullopt;
}

/// The map of a row-wise value ([..., rows]) read in a loop nest over
/// [..., rows, keys]: (d0, ..., dn) -> (d0, ..., dn-1).
AffineMap getRowMap(MLIRContext *ctx, unsigned rank) {
  return AffineMap::getMultiDimIdentityMap(rank, ctx).dropResult(rank - 1);
}

/// `x` times a positive constant: mulf(x, c), mulf(c, x) or divf(x, c) as
/// the whole body of an elementwise generic. Returns x's input and the
/// factor.
std::optional<std::pair<OpOperand *, double>>
matchConstantScale(linalg::LinalgOp linalgOp) {
  Operation *op = getYielded(linalgOp).getDefiningOp();
  if (!op || op->getBlock() != linalgOp.getBlock() ||
      !isa<arith::MulFOp, arith::DivFOp>(op))
    return std::nullopt;
  AffineMap identity = AffineMap::getMultiDimIdentityMap(linalgOp.getNumLoops(),
                                                         linalgOp.getContext());
  for (unsigned xPos : {0u, 1u}) {
    if (isa<arith::DivFOp>(op) && xPos == 1)
      break;
    OpOperand *x = getInputOf(linalgOp, op->getOperand(xPos), identity);
    std::optional<double> c =
        getUniformScalar(linalgOp, op->getOperand(1 - xPos));
    // Positive factors only: a negative one would turn a masked -inf into
    // +inf before a second one turned the product positive.
    if (!x || !c || !std::isfinite(*c) || *c <= 0.0)
      continue;
    return std::pair{x, isa<arith::DivFOp>(op) ? 1.0 / *c : *c};
  }
  return std::nullopt;
}

/// The source of a broadcast that inserts dim `dim`: linalg.broadcast, or an
/// elementwise generic that copies its one input, read without that dim.
Value throughBroadcastAlong(Value v, int64_t dim) {
  if (auto broadcast = v.getDefiningOp<linalg::BroadcastOp>()) {
    if (broadcast.hasPureTensorSemantics() &&
        broadcast.getDimensions() == ArrayRef<int64_t>{dim})
      return broadcast.getInput();
    return {};
  }
  linalg::LinalgOp linalgOp = getElementwiseProducer(v);
  if (!linalgOp || linalgOp.getNumDpsInputs() != 1)
    return {};
  AffineMap withoutDim =
      AffineMap::getMultiDimIdentityMap(linalgOp.getNumLoops(), v.getContext())
          .dropResult(dim);
  OpOperand *input = getInputOf(linalgOp, getYielded(linalgOp), withoutDim);
  return input ? input->get() : Value();
}

} // namespace mlir::fattn::raising
