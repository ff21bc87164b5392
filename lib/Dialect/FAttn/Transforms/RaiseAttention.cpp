//===- RaiseAttention.cpp - attention from linalg to fattn.attention ------===//
//
// Recognizes O = softmax(scale * Q K^T + mask) V written as linalg ops on
// tensors, reading backwards from the P V contraction, and replaces it with
// fattn.attention in the tensor form. Every step proves that the op it reads
// computes what fattn.attention computes; the first that cannot leaves the
// IR as it is.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/IR/FAttnOps.h"
#include "fattn/Dialect/FAttn/Transforms/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/Transforms.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"

#include <cmath>
#include <optional>

#define DEBUG_TYPE "fattn-raise-attention"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNRAISEATTENTION
#include "fattn/Dialect/FAttn/Transforms/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

namespace {

/// A masked score must be at most this (or -inf): exp of it, minus a row
/// max, is 0 in f32, as the masked scores of fattn.attention are.
constexpr double kMaskedScoreBound = -1.0e9;

//===----------------------------------------------------------------------===//
// Values and constants
//===----------------------------------------------------------------------===//

/// Whether a reshape keeps the last two dims (seq and head_dim, or query and
/// key) as they are and regroups only the leading (batch) dims.
bool reshapesOnlyBatchDims(ArrayRef<ReassociationIndices> groups,
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
/// through linalg.fill.
std::optional<double> getUniformFloat(Value v) {
  if (auto fill = v.getDefiningOp<linalg::FillOp>())
    return getUniformFloat(fill.getInputs()[0]);
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto dense = dyn_cast<DenseFPElementsAttr>(attr))
    attr = dense.isSplat() ? dense.getSplatValue<Attribute>() : Attribute();
  if (auto f = dyn_cast_if_present<FloatAttr>(attr))
    return f.getValueAsDouble();
  return std::nullopt;
}

/// The all-parallel linalg.generic with one result and an identity output
/// map that produces `v`, or null.
linalg::GenericOp getElementwiseProducer(Value v) {
  auto generic = v.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInits() != 1 ||
      !generic.hasPureTensorSemantics() ||
      generic.getNumLoops() != generic.getNumParallelLoops() ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity())
    return {};
  return generic;
}

Value getYielded(linalg::GenericOp generic) {
  return generic.getBody()->getTerminator()->getOperand(0);
}

/// The input of `generic` whose block argument `v` is, when its indexing map
/// is `wanted` (null: any), else null.
OpOperand *getInputOf(linalg::GenericOp generic, Value v,
                      AffineMap wanted = {}) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != generic.getBody() ||
      arg.getArgNumber() >= generic.getNumDpsInputs())
    return nullptr;
  OpOperand *operand = generic.getDpsInputOperand(arg.getArgNumber());
  if (wanted && generic.getMatchingIndexingMap(operand) != wanted)
    return nullptr;
  return operand;
}

/// The value of a scalar in a generic's body that is the same everywhere:
/// a constant, or an input that is one constant (a splat, a fill, a
/// rank-0 tensor of a constant).
std::optional<double> getUniformScalar(linalg::GenericOp generic, Value v) {
  if (std::optional<double> c = getUniformFloat(v))
    return c;
  if (OpOperand *input = getInputOf(generic, v))
    return getUniformFloat(input->get());
  return std::nullopt;
}

/// The map of a row-wise value ([..., rows]) read in a loop nest over
/// [..., rows, keys]: (d0, ..., dn) -> (d0, ..., dn-1).
AffineMap getRowMap(MLIRContext *ctx, unsigned rank) {
  return AffineMap::getMultiDimIdentityMap(rank, ctx).dropResult(rank - 1);
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

/// out[b..., m, n] = sum_k lhs[b..., m, k] * rhs[b..., k, n], or
/// rhs[b..., n, k] when `rhsTransposed`, with out starting at zero.
struct BatchContraction {
  linalg::LinalgOp op;
  Value lhs, rhs;
  bool rhsTransposed;
};

FailureOr<BatchContraction> matchBatchContraction(Operation *op) {
  auto linalgOp = dyn_cast_if_present<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics() ||
      linalgOp.getNumDpsInputs() != 2 || linalgOp.getNumDpsInits() != 1 ||
      !linalg::isaContractionOpInterface(linalgOp))
    return failure();
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(linalgOp);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1 || dims->batch.empty() || dims->batch.size() > 2)
    return failure();
  // The accumulator must start at zero: C + A B is not attention.
  OpOperand *init = linalgOp.getDpsInitOperand(0);
  std::optional<double> initValue = getUniformFloat(init->get());
  if (!initValue || *initValue != 0.0)
    return failure();

  MLIRContext *ctx = op->getContext();
  auto dimsMap = [&](ArrayRef<unsigned> order) {
    SmallVector<AffineExpr> exprs;
    for (unsigned d : dims->batch)
      exprs.push_back(getAffineDimExpr(d, ctx));
    for (unsigned d : order)
      exprs.push_back(getAffineDimExpr(d, ctx));
    return AffineMap::get(linalgOp.getNumLoops(), 0, exprs, ctx);
  };
  unsigned m = dims->m[0], n = dims->n[0], k = dims->k[0];
  if (linalgOp.getMatchingIndexingMap(init) != dimsMap({m, n}))
    return failure();
  OpOperand *a = linalgOp.getDpsInputOperand(0);
  OpOperand *b = linalgOp.getDpsInputOperand(1);
  if (linalgOp.getMatchingIndexingMap(a) != dimsMap({m, k}))
    std::swap(a, b);
  if (linalgOp.getMatchingIndexingMap(a) != dimsMap({m, k}))
    return failure();
  AffineMap rhsMap = linalgOp.getMatchingIndexingMap(b);
  if (rhsMap != dimsMap({k, n}) && rhsMap != dimsMap({n, k}))
    return failure();
  return BatchContraction{linalgOp, a->get(), b->get(),
                          rhsMap == dimsMap({n, k})};
}

/// `v`, or the source of a linalg.transpose that swaps its last two dims
/// (flipping `transposed`).
Value throughLastDimsTranspose(Value v, bool &transposed) {
  auto transpose = v.getDefiningOp<linalg::TransposeOp>();
  if (!transpose || !transpose.hasPureTensorSemantics())
    return v;
  ArrayRef<int64_t> perm = transpose.getPermutation();
  int64_t rank = perm.size();
  for (int64_t d = 0; d < rank - 2; ++d)
    if (perm[d] != d)
      return v;
  if (perm[rank - 2] != rank - 1 || perm[rank - 1] != rank - 2)
    return v;
  transposed = !transposed;
  return transpose.getInput();
}

//===----------------------------------------------------------------------===//
// Scales and masks
//===----------------------------------------------------------------------===//

/// `x` times a positive constant: mulf(x, c), mulf(c, x) or divf(x, c) as
/// the whole body of an elementwise generic. Returns x's input and the
/// factor.
std::optional<std::pair<OpOperand *, double>>
matchConstantScale(linalg::GenericOp generic) {
  Operation *op = getYielded(generic).getDefiningOp();
  if (!op || op->getBlock() != generic.getBody() ||
      !isa<arith::MulFOp, arith::DivFOp>(op))
    return std::nullopt;
  AffineMap identity = AffineMap::getMultiDimIdentityMap(generic.getNumLoops(),
                                                         generic.getContext());
  for (unsigned xPos : {0u, 1u}) {
    if (isa<arith::DivFOp>(op) && xPos == 1)
      break;
    OpOperand *x = getInputOf(generic, op->getOperand(xPos), identity);
    std::optional<double> c =
        getUniformScalar(generic, op->getOperand(1 - xPos));
    // Positive factors only: a negative one would turn a masked -inf into
    // +inf before a second one turned the product positive.
    if (!x || !c || !std::isfinite(*c) || *c <= 0.0)
      continue;
    return std::pair{x, isa<arith::DivFOp>(op) ? 1.0 / *c : *c};
  }
  return std::nullopt;
}

/// Which axis of the score matrix a loop of a (possibly producer) generic
/// walks.
enum class Axis { Query, Key, Other };

/// An integer index of the body: index(axis) + offset.
struct IndexTerm {
  Axis axis;
  int64_t offset;
};

/// Bounds on key - query (top-left aligned) that keep a score.
struct KeyBounds {
  std::optional<int64_t> lower, upper;
};

/// The axes of the loops of `producer`, which makes the tensor that `input`
/// of a generic with loop axes `axes` reads; fails unless every dim of the
/// tensor is read by one loop.
FailureOr<SmallVector<Axis>> getProducerAxes(linalg::GenericOp consumer,
                                             OpOperand *input,
                                             ArrayRef<Axis> axes) {
  AffineMap map = consumer.getMatchingIndexingMap(input);
  SmallVector<Axis> producerAxes;
  for (AffineExpr e : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim)
      return failure();
    producerAxes.push_back(axes[dim.getPosition()]);
  }
  return producerAxes;
}

FailureOr<IndexTerm> evalIndex(Value v, ArrayRef<Axis> axes, int depth);

/// The value an input's block argument reads, evaluated in its producer (an
/// iota, a broadcast of one, a comparison of them).
template <typename Result, typename Eval>
FailureOr<Result> evalInProducer(Value v, ArrayRef<Axis> axes, int depth,
                                 Eval eval) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || depth > 8)
    return failure();
  auto consumer = dyn_cast<linalg::GenericOp>(arg.getOwner()->getParentOp());
  if (!consumer)
    return failure();
  OpOperand *input = getInputOf(consumer, v);
  if (!input)
    return failure();
  linalg::GenericOp producer = getElementwiseProducer(input->get());
  if (!producer)
    return failure();
  FailureOr<SmallVector<Axis>> producerAxes =
      getProducerAxes(consumer, input, axes);
  if (failed(producerAxes))
    return failure();
  return eval(getYielded(producer), *producerAxes, depth + 1);
}

FailureOr<IndexTerm> evalIndex(Value v, ArrayRef<Axis> axes, int depth) {
  if (isa<BlockArgument>(v))
    return evalInProducer<IndexTerm>(v, axes, depth, evalIndex);
  Operation *op = v.getDefiningOp();
  if (auto index = dyn_cast<linalg::IndexOp>(op)) {
    // An index of the generic whose loops `axes` describes.
    if (index.getDim() >= axes.size())
      return failure();
    return IndexTerm{axes[index.getDim()], 0};
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::SIToFPOp, arith::UIToFPOp>(op))
    return evalIndex(op->getOperand(0), axes, depth);
  if (isa<arith::AddIOp, arith::SubIOp>(op)) {
    APInt c;
    if (!matchPattern(op->getOperand(1), m_ConstantInt(&c)))
      return failure();
    FailureOr<IndexTerm> term = evalIndex(op->getOperand(0), axes, depth);
    if (failed(term))
      return failure();
    term->offset +=
        isa<arith::AddIOp>(op) ? c.getSExtValue() : -c.getSExtValue();
    return term;
  }
  return failure();
}

/// The predicate P' with (b P' a) == (a P b).
arith::CmpIPredicate swapOperands(arith::CmpIPredicate pred) {
  using P = arith::CmpIPredicate;
  switch (pred) {
  case P::slt:
    return P::sgt;
  case P::sgt:
    return P::slt;
  case P::sle:
    return P::sge;
  case P::sge:
    return P::sle;
  case P::ult:
    return P::ugt;
  case P::ugt:
    return P::ult;
  case P::ule:
    return P::uge;
  case P::uge:
    return P::ule;
  default:
    return pred;
  }
}

/// key + a PRED query + b, as bounds on key - query (c = b - a).
FailureOr<KeyBounds> boundsOf(arith::CmpIPredicate pred, int64_t c) {
  using P = arith::CmpIPredicate;
  switch (pred) {
  case P::sle:
  case P::ule:
    return KeyBounds{std::nullopt, c};
  case P::slt:
  case P::ult:
    return KeyBounds{std::nullopt, c - 1};
  case P::sge:
  case P::uge:
    return KeyBounds{c, std::nullopt};
  case P::sgt:
  case P::ugt:
    return KeyBounds{c + 1, std::nullopt};
  default:
    return failure();
  }
}

/// The i1 `v` (a comparison of the query and key indices, or an `and` of
/// two) as bounds on key - query.
FailureOr<KeyBounds> evalKeep(Value v, ArrayRef<Axis> axes, int depth) {
  if (isa<BlockArgument>(v))
    return evalInProducer<KeyBounds>(v, axes, depth, evalKeep);
  Operation *op = v.getDefiningOp();
  if (auto andOp = dyn_cast<arith::AndIOp>(op)) {
    FailureOr<KeyBounds> a = evalKeep(andOp.getLhs(), axes, depth);
    FailureOr<KeyBounds> b = evalKeep(andOp.getRhs(), axes, depth);
    if (failed(a) || failed(b) || (a->lower && b->lower) ||
        (a->upper && b->upper))
      return failure();
    return KeyBounds{a->lower ? a->lower : b->lower,
                     a->upper ? a->upper : b->upper};
  }
  auto cmp = dyn_cast<arith::CmpIOp>(op);
  if (!cmp)
    return failure();
  FailureOr<IndexTerm> lhs = evalIndex(cmp.getLhs(), axes, depth);
  FailureOr<IndexTerm> rhs = evalIndex(cmp.getRhs(), axes, depth);
  if (failed(lhs) || failed(rhs))
    return failure();
  arith::CmpIPredicate pred = cmp.getPredicate();
  if (lhs->axis == Axis::Query && rhs->axis == Axis::Key) {
    std::swap(lhs, rhs);
    pred = swapOperands(pred);
  }
  if (lhs->axis != Axis::Key || rhs->axis != Axis::Query)
    return failure();
  // Indices are not negative, so an unsigned comparison is the signed one,
  // unless an offset could take an index below zero (and wrap).
  using P = arith::CmpIPredicate;
  bool isUnsigned = llvm::is_contained({P::ult, P::ule, P::ugt, P::uge}, pred);
  if (isUnsigned && (lhs->offset < 0 || rhs->offset < 0))
    return failure();
  // key + a PRED query + b  <=>  key - query PRED b - a.
  return boundsOf(pred, rhs->offset - lhs->offset);
}

/// The negation of one bound (not of two: that is an `or`).
FailureOr<KeyBounds> negate(KeyBounds b) {
  if (b.lower && !b.upper)
    return KeyBounds{std::nullopt, *b.lower - 1};
  if (b.upper && !b.lower)
    return KeyBounds{*b.upper + 1, std::nullopt};
  return failure();
}

/// Whether `v` is a constant that, times `laterScale` (the positive scales
/// applied after the mask), is still a masked score.
bool isMaskedScore(linalg::GenericOp generic, Value v, double laterScale) {
  std::optional<double> c = getUniformScalar(generic, v);
  return c && *c * laterScale <= kMaskedScoreBound;
}

/// select(c, a, b) in the body of `generic` (loop axes `axes`) with one of
/// a, b kept (`isKept`) and the other a masked score: the kept value and
/// the bounds on key - query that keep it.
std::optional<std::pair<Value, KeyBounds>>
matchMaskSelect(linalg::GenericOp generic, ArrayRef<Axis> axes,
                arith::SelectOp select, function_ref<bool(Value)> isKept,
                double laterScale) {
  if (!select || select->getBlock() != generic.getBody())
    return std::nullopt;
  bool keptIsTrue = isKept(select.getTrueValue()) &&
                    isMaskedScore(generic, select.getFalseValue(), laterScale);
  bool keptIsFalse = isKept(select.getFalseValue()) &&
                     isMaskedScore(generic, select.getTrueValue(), laterScale);
  if (keptIsTrue == keptIsFalse)
    return std::nullopt;
  FailureOr<KeyBounds> bounds = evalKeep(select.getCondition(), axes, 0);
  if (succeeded(bounds) && keptIsFalse)
    bounds = negate(*bounds);
  if (failed(bounds))
    return std::nullopt;
  Value kept = keptIsTrue ? select.getTrueValue() : select.getFalseValue();
  return std::pair{kept, *bounds};
}

/// An additive mask bias in the body of `generic`: select(keep, 0, NEG) or
/// select(hide, NEG, 0), computed there or by the producer of an input.
std::optional<KeyBounds> matchMaskBias(linalg::GenericOp generic,
                                       ArrayRef<Axis> axes, Value bias,
                                       double laterScale) {
  auto isZero = [](linalg::GenericOp g) {
    return [g](Value v) {
      std::optional<double> c = getUniformScalar(g, v);
      return c && *c == 0.0;
    };
  };
  if (auto select = bias.getDefiningOp<arith::SelectOp>()) {
    if (auto found =
            matchMaskSelect(generic, axes, select, isZero(generic), laterScale))
      return found->second;
    return std::nullopt;
  }
  OpOperand *input = getInputOf(generic, bias);
  linalg::GenericOp producer =
      input ? getElementwiseProducer(input->get()) : linalg::GenericOp();
  if (!producer)
    return std::nullopt;
  FailureOr<SmallVector<Axis>> producerAxes =
      getProducerAxes(generic, input, axes);
  if (failed(producerAxes))
    return std::nullopt;
  auto select = getYielded(producer).getDefiningOp<arith::SelectOp>();
  if (auto found = matchMaskSelect(producer, *producerAxes, select,
                                   isZero(producer), laterScale))
    return found->second;
  return std::nullopt;
}

/// select(keep, x, NEG), select(hide, NEG, x), or x + bias with bias as
/// matchMaskBias reads it, as the body of an elementwise generic over
/// [..., query, key], followed by scales of product `laterScale`. Returns
/// x's input and the kept keys.
std::optional<std::pair<OpOperand *, KeyBounds>>
matchIndexMask(linalg::GenericOp generic, double laterScale) {
  unsigned rank = generic.getNumLoops();
  if (rank < 2)
    return std::nullopt;
  SmallVector<Axis> axes(rank, Axis::Other);
  axes[rank - 2] = Axis::Query;
  axes[rank - 1] = Axis::Key;
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(rank, generic.getContext());

  Value yielded = getYielded(generic);
  if (auto select = yielded.getDefiningOp<arith::SelectOp>()) {
    auto found = matchMaskSelect(
        generic, axes, select,
        [&](Value v) { return getInputOf(generic, v, identity) != nullptr; },
        laterScale);
    if (!found)
      return std::nullopt;
    return std::pair{getInputOf(generic, found->first, identity),
                     found->second};
  }
  auto add = yielded.getDefiningOp<arith::AddFOp>();
  if (!add || add->getBlock() != generic.getBody())
    return std::nullopt;
  for (unsigned xPos : {0u, 1u}) {
    OpOperand *x = getInputOf(generic, add->getOperand(xPos), identity);
    if (!x)
      continue;
    if (std::optional<KeyBounds> bounds =
            matchMaskBias(generic, axes, add->getOperand(1 - xPos), laterScale))
      return std::pair{x, *bounds};
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

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

/// P = softmax(x) along the last dim: linalg.softmax, or e / sum(e) with
/// e = exp(x - max(x)). Returns x.
FailureOr<Value> matchSoftmax(Value p) {
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

//===----------------------------------------------------------------------===//
// The whole attention
//===----------------------------------------------------------------------===//

struct AttentionMatch {
  /// Q, K and V before the reshapes of their batch dims, the scales and the
  /// GQA broadcasts that the form applies to them.
  Value query, key, value;
  double scale = 1.0;
  KeyBounds bounds;
  bool masked = false;
  /// Whether K and V were broadcast along a query-head group.
  bool keyGroups = false, valueGroups = false;
};

/// The source of a broadcast that inserts one dim just before the last two:
/// the query heads of a GQA/MQA group that share a KV head (linalg.broadcast,
/// or a linalg.generic copying its input along that dim), else null. The
/// group is the innermost batch dim, so in the batch dims flattened query
/// head n reads KV head n / group, as in fattn.attention.
Value throughGroupBroadcast(Value v) {
  auto type = cast<ShapedType>(v.getType());
  int64_t rank = type.getRank();
  if (rank < 4)
    return {};
  if (auto broadcast = v.getDefiningOp<linalg::BroadcastOp>()) {
    if (broadcast.hasPureTensorSemantics() &&
        broadcast.getDimensions() == ArrayRef<int64_t>{rank - 3})
      return broadcast.getInput();
    return {};
  }
  linalg::GenericOp generic = getElementwiseProducer(v);
  if (!generic || generic.getNumDpsInputs() != 1)
    return {};
  AffineMap dropGroup = AffineMap::getMultiDimIdentityMap(rank, v.getContext())
                            .dropResult(rank - 3);
  OpOperand *input = getInputOf(generic, getYielded(generic), dropGroup);
  return input ? input->get() : Value();
}

/// Q, K or V as a contraction reads it, seen through reshapes of its batch
/// dims and, where the pointers are given, constant scales (multiplying
/// `scale`), transposes of its last two dims (flipping `transposed`) and
/// group broadcasts (setting `grouped`).
Value peelOperand(Value v, double *scale, bool *transposed, bool *grouped) {
  while (true) {
    Value next = throughBatchReshapes(v);
    if (linalg::GenericOp generic =
            scale ? getElementwiseProducer(next) : linalg::GenericOp()) {
      if (std::optional<std::pair<OpOperand *, double>> scaled =
              matchConstantScale(generic)) {
        *scale *= scaled->second;
        next = scaled->first->get();
      }
    }
    if (transposed)
      next = throughLastDimsTranspose(next, *transposed);
    if (grouped) {
      if (Value source = throughGroupBroadcast(next)) {
        // One group broadcast per operand.
        if (*grouped)
          return v;
        *grouped = true;
        next = source;
      }
    }
    if (next == v)
      return v;
    v = next;
  }
}

FailureOr<AttentionMatch> matchAttention(BatchContraction pv) {
  AttentionMatch match;
  if (pv.rhsTransposed)
    return failure();
  FailureOr<Value> scores = matchSoftmax(throughBatchReshapes(pv.lhs));
  if (failed(scores))
    return failure();

  // Scales and masks of the scores, in any order, down to Q K^T.
  Value s = *scores;
  FailureOr<BatchContraction> qk = failure();
  while (true) {
    s = throughBatchReshapes(s);
    qk = matchBatchContraction(s.getDefiningOp());
    if (succeeded(qk))
      break;
    linalg::GenericOp generic = getElementwiseProducer(s);
    if (!generic)
      return failure();
    if (std::optional<std::pair<OpOperand *, double>> scaled =
            matchConstantScale(generic)) {
      match.scale *= scaled->second;
      s = scaled->first->get();
      continue;
    }
    std::optional<std::pair<OpOperand *, KeyBounds>> masked =
        matchIndexMask(generic, match.scale);
    if (!masked || match.masked)
      return failure();
    match.masked = true;
    match.bounds = masked->second;
    s = masked->first->get();
  }

  match.query = peelOperand(qk->lhs, &match.scale, nullptr, nullptr);
  bool keyTransposed = !qk->rhsTransposed;
  match.key =
      peelOperand(qk->rhs, &match.scale, &keyTransposed, &match.keyGroups);
  bool valueTransposed = false;
  match.value =
      peelOperand(pv.rhs, nullptr, &valueTransposed, &match.valueGroups);
  if (keyTransposed || valueTransposed)
    return failure();
  return match;
}

/// The mask attributes of fattn.attention.
struct MaskAttributes {
  BoolAttr causal;
  IntegerAttr windowLeft, windowRight;
};

/// The mask attributes for top-left aligned bounds on key - query, or
/// failure when they are not expressible or hide every key of some row
/// (where fattn gives 0 and the softmax NaN or a mean).
FailureOr<MaskAttributes> getMaskAttributes(Builder &b, KeyBounds bounds,
                                            int64_t seqQ, int64_t seqK) {
  MaskAttributes attrs;
  if (!bounds.lower && !bounds.upper)
    return attrs;
  if (ShapedType::isDynamic(seqQ) || ShapedType::isDynamic(seqK))
    return failure();
  // fattn keeps seqK - seqQ - left <= key - query <= seqK - seqQ + right.
  int64_t shift = seqK - seqQ;
  if (bounds.upper) {
    int64_t right = *bounds.upper - shift;
    // Row 0 sees key 0 only if upper >= 0.
    if (*bounds.upper < 0 || right < 0)
      return failure();
    if (right == 0)
      attrs.causal = b.getBoolAttr(true);
    else
      attrs.windowRight = b.getI64IntegerAttr(right);
  }
  if (bounds.lower) {
    int64_t left = shift - *bounds.lower;
    // The last row sees the last key only if seqQ - 1 + lower <= seqK - 1.
    if (left < 0 || seqQ - 1 + *bounds.lower > seqK - 1 ||
        (bounds.upper && *bounds.lower > *bounds.upper))
      return failure();
    attrs.windowLeft = b.getI64IntegerAttr(left);
  }
  return attrs;
}

/// The reassociation that merges the batch dims of a rank-`rank` tensor
/// ([b..., s, d] -> [prod(b...), s, d]).
SmallVector<ReassociationIndices> getBatchMergingGroups(int64_t rank) {
  SmallVector<ReassociationIndices> groups(1);
  for (int64_t d = 0; d < rank - 2; ++d)
    groups[0].push_back(d);
  groups.push_back({rank - 2});
  groups.push_back({rank - 1});
  return groups;
}

/// [b..., s, d] -> [1, prod(b...), s, d].
Value toHeadsOfOneBatch(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() != 3) {
    v = tensor::CollapseShapeOp::create(b, loc, v,
                                        getBatchMergingGroups(type.getRank()));
    type = cast<RankedTensorType>(v.getType());
  }
  SmallVector<int64_t> shape{1};
  llvm::append_range(shape, type.getShape());
  SmallVector<OpFoldResult> sizes{b.getIndexAttr(1)};
  llvm::append_range(sizes, tensor::getMixedSizes(b, loc, v));
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v,
      getBatchMergingGroups(4), sizes);
}

bool isAttentionElementType(Type t) {
  return t.isF32() || t.isF16() || t.isBF16();
}
} // namespace

FailureOr<AttentionOp> mlir::fattn::raiseAttention(RewriterBase &rewriter,
                                                   Operation *pvContraction) {
  FailureOr<BatchContraction> pv = matchBatchContraction(pvContraction);
  if (failed(pv))
    return failure();
  FailureOr<AttentionMatch> match = matchAttention(*pv);
  if (failed(match))
    return failure();
  auto qType = cast<RankedTensorType>(match->query.getType());
  auto kType = cast<RankedTensorType>(match->key.getType());
  auto vType = cast<RankedTensorType>(match->value.getType());
  auto oType = cast<RankedTensorType>(pvContraction->getResult(0).getType());
  Type elem = qType.getElementType();
  if (!isAttentionElementType(elem) || kType.getElementType() != elem ||
      vType.getElementType() != elem || oType.getElementType() != elem ||
      match->keyGroups != match->valueGroups)
    return failure();
  for (RankedTensorType type : {qType, kType, vType})
    if (type.getRank() < 3)
      return failure();
  if (!std::isfinite(match->scale) || match->scale <= 0.0 ||
      !std::isfinite(static_cast<float>(match->scale)))
    return failure();
  FailureOr<MaskAttributes> mask = getMaskAttributes(
      rewriter, match->bounds, qType.getDimSize(qType.getRank() - 2),
      kType.getDimSize(kType.getRank() - 2));
  if (failed(mask))
    return failure();

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(pvContraction);
  Location loc = pvContraction->getLoc();
  // Rank-4 operands of one static batch size are [batch, heads, seq, dim]
  // as they are; others become the heads of a batch of 1, their batch dims
  // flattened in order (which keeps query head n on KV head n / group).
  bool asIs = llvm::all_of(
      ArrayRef<RankedTensorType>{qType, kType, vType}, [&](auto type) {
        return type.getRank() == 4 && !type.isDynamicDim(0) &&
               type.getDimSize(0) == qType.getDimSize(0);
      });
  Value q =
      asIs ? match->query : toHeadsOfOneBatch(rewriter, loc, match->query);
  Value k = asIs ? match->key : toHeadsOfOneBatch(rewriter, loc, match->key);
  Value v =
      asIs ? match->value : toHeadsOfOneBatch(rewriter, loc, match->value);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, q);
  sizes.back() = tensor::getMixedSizes(rewriter, loc, v).back();
  Value init = tensor::EmptyOp::create(rewriter, loc, sizes, elem);
  auto attention = AttentionOp::create(
      rewriter, loc, TypeRange{init.getType()}, q, k, v, init, /*lse=*/Value(),
      /*q_descale=*/Value(), /*k_descale=*/Value(), /*v_descale=*/Value(),
      rewriter.getF32FloatAttr(match->scale), mask->causal, mask->windowLeft,
      mask->windowRight, /*softcap=*/nullptr, /*descale_block_q=*/nullptr,
      /*descale_block_kv=*/nullptr, /*value_layout=*/nullptr);
  Value result = attention.getResultTensors()[0];
  if (result.getType() != oType) {
    // [b, h, s, d] -> [b * h, s, d] -> the P V product's batch dims.
    result = tensor::CollapseShapeOp::create(rewriter, loc, result,
                                             getBatchMergingGroups(4));
    if (oType.getRank() != 3)
      result = tensor::ExpandShapeOp::create(
          rewriter, loc, oType, result, getBatchMergingGroups(oType.getRank()),
          tensor::getMixedSizes(rewriter, loc, pv->op.getDpsInits()[0]));
  }
  // The ops of the matched form that only fed the P V product go with it.
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.filter = [&](Operation *op) {
    return !llvm::is_contained(op->getResults(), match->query) &&
           !llvm::is_contained(op->getResults(), match->key) &&
           !llvm::is_contained(op->getResults(), match->value);
  };
  (void)getBackwardSlice(pvContraction, &slice, options);
  rewriter.replaceOp(pvContraction, result);
  for (Operation *op : llvm::reverse(slice))
    if (isOpTriviallyDead(op))
      rewriter.eraseOp(op);
  return attention;
}

namespace {
struct FAttnRaiseAttentionPass
    : public fattn::impl::FAttnRaiseAttentionBase<FAttnRaiseAttentionPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && op->getNumResults() == 1)
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : candidates)
      (void)raiseAttention(rewriter, op);
  }
};
} // namespace
