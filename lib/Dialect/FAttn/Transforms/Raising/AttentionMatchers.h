//===- AttentionMatchers.h - matchers of raise-attention ----*- C++ -*-===//
//
// Private to the raising: the matchers that read attention written as linalg
// ops on tensors, each proving that the ops it reads compute what its part of
// fattn.attention computes. A matcher that cannot prove it fails (or returns
// its input unchanged, for the `through...` ones) and the IR stays as it is.
//
// A "generic" below is any linalg op on tensors, read through the LinalgOp
// interface (its indexing maps, iterator types and body block), so that
// linalg.generic, linalg.map, linalg.reduce, linalg.broadcast and the named
// elementwise ops read alike, and nothing is generalized to be read.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_LIB_DIALECT_FATTN_TRANSFORMS_RAISING_ATTENTIONMATCHERS_H
#define FATTN_LIB_DIALECT_FATTN_TRANSFORMS_RAISING_ATTENTIONMATCHERS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>
#include <utility>

namespace mlir::fattn::raising {

//===----------------------------------------------------------------------===//
// Values, constants and generic bodies (ValueMatchers.cpp)
//===----------------------------------------------------------------------===//

/// `v` seen through expand_shape / collapse_shape ops of its batch dims. Row
/// and elementwise ops commute with those reshapes, which keep the order of
/// the elements.
Value throughBatchReshapes(Value v);

/// The float constant `v` holds (in every element, for a tensor), seen
/// through linalg.fill and linalg.broadcast.
std::optional<double> getUniformFloat(Value v);

/// The all-parallel generic with one result and an identity output map that
/// produces `v`, or null.
linalg::LinalgOp getElementwiseProducer(Value v);

/// The value the body of `linalgOp` yields (its first).
Value getYielded(linalg::LinalgOp linalgOp);

/// The input of `linalgOp` whose block argument `v` is, when its indexing map
/// is `wanted` (null: any), else null.
OpOperand *getInputOf(linalg::LinalgOp linalgOp, Value v,
                      AffineMap wanted = {});

/// The value of a scalar in a generic's body that is the same everywhere:
/// a constant, or an input that is one constant (a splat, a fill, a
/// rank-0 tensor of a constant).
std::optional<double> getUniformScalar(linalg::LinalgOp linalgOp, Value v);

/// The map of a row-wise value ([..., rows]) read in a loop nest over
/// [..., rows, keys]: (d0, ..., dn) -> (d0, ..., dn-1).
AffineMap getRowMap(MLIRContext *ctx, unsigned rank);

/// `x` times a positive constant: mulf(x, c), mulf(c, x) or divf(x, c) as
/// the whole body of an elementwise generic. Returns x's input and the
/// factor.
std::optional<std::pair<OpOperand *, double>>
matchConstantScale(linalg::LinalgOp linalgOp);

/// The source of a broadcast that inserts dim `dim` (linalg.broadcast, or
/// an elementwise generic that copies its one input, read without that
/// dim), else null.
Value throughBroadcastAlong(Value v, int64_t dim);

//===----------------------------------------------------------------------===//
// Contractions and their operands (ContractionMatchers.cpp)
//===----------------------------------------------------------------------===//

/// out[b..., m, n] = sum_k lhs[b..., m, k] * rhs[b..., k, n], or
/// rhs[b..., n, k] when `rhsTransposed`, with out starting at zero.
struct BatchContraction {
  linalg::LinalgOp op;
  Value lhs, rhs;
  bool rhsTransposed;
};

/// `op` as a BatchContraction: a linalg op on tensors (named or generic)
/// with one or two batch dims and one m, n and k dim, whose accumulator
/// starts at zero.
FailureOr<BatchContraction> matchBatchContraction(Operation *op);

/// `v`, or the source of a linalg.transpose that swaps its last two dims
/// (flipping `transposed`).
Value throughLastDimsTranspose(Value v, bool &transposed);

/// The source of a broadcast that inserts one dim just before the last two:
/// the query heads of a GQA/MQA group that share a KV head (linalg.broadcast,
/// or a linalg.generic copying its input along that dim), else null.
Value throughGroupBroadcast(Value v);

//===----------------------------------------------------------------------===//
// Masks (MaskMatcher.cpp)
//===----------------------------------------------------------------------===//

/// Bounds on key - query (top-left aligned) that keep a score.
struct KeyBounds {
  std::optional<int64_t> lower, upper;
};

/// select(keep, x, NEG), select(hide, NEG, x), or x + bias with bias
/// select(keep, 0, NEG) or select(hide, NEG, 0), as the body of an
/// elementwise generic over [..., query, key], where keep/hide compare the
/// query and key indices and NEG stays a masked score after the scales of
/// product `laterScale` that follow. Returns x's input and the kept keys.
std::optional<std::pair<OpOperand *, KeyBounds>>
matchIndexMask(linalg::LinalgOp linalgOp, double laterScale);

//===----------------------------------------------------------------------===//
// Softmax (SoftmaxMatcher.cpp)
//===----------------------------------------------------------------------===//

/// P = softmax(x) along the last dim: linalg.softmax, or e / sum(e) with
/// e = exp(x - max(x)). Returns x.
FailureOr<Value> matchSoftmax(Value p);

//===----------------------------------------------------------------------===//
// The whole attention (AttentionMatcher.cpp)
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

/// softmax(scale * Q K^T + mask) V ending at the P V contraction `pv`.
FailureOr<AttentionMatch> matchAttention(BatchContraction pv);

} // namespace mlir::fattn::raising

#endif // FATTN_LIB_DIALECT_FATTN_TRANSFORMS_RAISING_ATTENTIONMATCHERS_H
