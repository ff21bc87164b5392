//===- MaskMatcher.cpp - masks on the query and key indices ---------------===//
//
// Reads a mask of the scores (an arith.select of the scores and a masked
// score, or an additive bias of 0 and a masked score) whose predicate
// compares the query and key indices, through linalg.index directly or
// through iota tensors, as bounds on key - query.
//
//===----------------------------------------------------------------------===//

#include "AttentionMatchers.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::fattn::raising;

namespace {

/// A masked score must be at most this (or -inf): exp of it, minus a row
/// max, is 0 in f32, as the masked scores of fattn.attention are.
constexpr double kMaskedScoreBound = -1.0e9;

/// Which axis of the score matrix a loop of a (possibly producer) generic
/// walks.
enum class Axis { Query, Key, Other };

/// An integer index of the body: index(axis) + offset.
struct IndexTerm {
  Axis axis;
  int64_t offset;
};

/// The axes of the loops of `producer`, which makes the tensor that `input`
/// of a generic with loop axes `axes` reads; fails unless every dim of the
/// tensor is read by one loop.
FailureOr<SmallVector<Axis>> getProducerAxes(linalg::LinalgOp consumer,
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
  auto consumer = dyn_cast<linalg::LinalgOp>(arg.getOwner()->getParentOp());
  if (!consumer)
    return failure();
  OpOperand *input = getInputOf(consumer, v);
  if (!input)
    return failure();
  linalg::LinalgOp producer = getElementwiseProducer(input->get());
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
bool isMaskedScore(linalg::LinalgOp linalgOp, Value v, double laterScale) {
  std::optional<double> c = getUniformScalar(linalgOp, v);
  return c && *c * laterScale <= kMaskedScoreBound;
}

/// select(c, a, b) in the body of `linalgOp` (loop axes `axes`) with one of
/// a, b kept (`isKept`) and the other a masked score: the kept value and
/// the bounds on key - query that keep it.
std::optional<std::pair<Value, KeyBounds>>
matchMaskSelect(linalg::LinalgOp linalgOp, ArrayRef<Axis> axes,
                arith::SelectOp select, function_ref<bool(Value)> isKept,
                double laterScale) {
  if (!select || select->getBlock() != linalgOp.getBlock())
    return std::nullopt;
  bool keptIsTrue = isKept(select.getTrueValue()) &&
                    isMaskedScore(linalgOp, select.getFalseValue(), laterScale);
  bool keptIsFalse = isKept(select.getFalseValue()) &&
                     isMaskedScore(linalgOp, select.getTrueValue(), laterScale);
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

/// An additive mask bias in the body of `linalgOp`: select(keep, 0, NEG) or
/// select(hide, NEG, 0), computed there or by the producer of an input.
std::optional<KeyBounds> matchMaskBias(linalg::LinalgOp linalgOp,
                                       ArrayRef<Axis> axes, Value bias,
                                       double laterScale) {
  auto isZero = [](linalg::LinalgOp g) {
    return [g](Value v) {
      std::optional<double> c = getUniformScalar(g, v);
      return c && *c == 0.0;
    };
  };
  if (auto select = bias.getDefiningOp<arith::SelectOp>()) {
    if (auto found =
            matchMaskSelect(linalgOp, axes, select, isZero(linalgOp), laterScale))
      return found->second;
    return std::nullopt;
  }
  OpOperand *input = getInputOf(linalgOp, bias);
  linalg::LinalgOp producer =
      input ? getElementwiseProducer(input->get()) : linalg::LinalgOp();
  if (!producer)
    return std::nullopt;
  FailureOr<SmallVector<Axis>> producerAxes =
      getProducerAxes(linalgOp, input, axes);
  if (failed(producerAxes))
    return std::nullopt;
  auto select = getYielded(producer).getDefiningOp<arith::SelectOp>();
  if (auto found = matchMaskSelect(producer, *producerAxes, select,
                                   isZero(producer), laterScale))
    return found->second;
  return std::nullopt;
}

} // namespace

/// select(keep, x, NEG), select(hide, NEG, x), or x + bias with bias as
/// matchMaskBias reads it, as the body of an elementwise generic over
/// [..., query, key], followed by scales of product `laterScale`. Returns
/// x's input and the kept keys.
std::optional<std::pair<OpOperand *, KeyBounds>>
fattn::raising::matchIndexMask(linalg::LinalgOp linalgOp, double laterScale) {
  unsigned rank = linalgOp.getNumLoops();
  if (rank < 2)
    return std::nullopt;
  SmallVector<Axis> axes(rank, Axis::Other);
  axes[rank - 2] = Axis::Query;
  axes[rank - 1] = Axis::Key;
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(rank, linalgOp.getContext());

  Value yielded = getYielded(linalgOp);
  if (auto select = yielded.getDefiningOp<arith::SelectOp>()) {
    auto found = matchMaskSelect(
        linalgOp, axes, select,
        [&](Value v) { return getInputOf(linalgOp, v, identity) != nullptr; },
        laterScale);
    if (!found)
      return std::nullopt;
    return std::pair{getInputOf(linalgOp, found->first, identity),
                     found->second};
  }
  auto add = yielded.getDefiningOp<arith::AddFOp>();
  if (!add || add->getBlock() != linalgOp.getBlock())
    return std::nullopt;
  for (unsigned xPos : {0u, 1u}) {
    OpOperand *x = getInputOf(linalgOp, add->getOperand(xPos), identity);
    if (!x)
      continue;
    if (std::optional<KeyBounds> bounds =
            matchMaskBias(linalgOp, axes, add->getOperand(1 - xPos), laterScale))
      return std::pair{x, *bounds};
  }
  return std::nullopt;
}
