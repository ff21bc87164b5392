//===- AttentionMatcher.cpp - the whole attention form --------------------===//
//
// Reads backwards from the P V contraction: the softmax, the scales and the
// mask of the scores down to Q K^T, then Q, K and V through the reshapes,
// scales, transposes and group broadcasts applied to them.
//
//===----------------------------------------------------------------------===//

#include "AttentionMatchers.h"

using namespace mlir;
using namespace mlir::fattn::raising;

/// Q, K or V as a contraction reads it, seen through reshapes of its batch
/// dims and, where the pointers are given, constant scales (multiplying
/// `scale`), transposes of its last two dims (flipping `transposed`) and
/// group broadcasts (setting `grouped`).
static Value peelOperand(Value v, double *scale, bool *transposed,
                         bool *grouped) {
  while (true) {
    Value next = throughBatchReshapes(v);
    if (linalg::LinalgOp linalgOp =
            scale ? getElementwiseProducer(next) : linalg::LinalgOp()) {
      if (std::optional<std::pair<OpOperand *, double>> scaled =
              matchConstantScale(linalgOp)) {
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

FailureOr<AttentionMatch> fattn::raising::matchAttention(BatchContraction pv) {
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
    linalg::LinalgOp linalgOp = getElementwiseProducer(s);
    if (!linalgOp)
      return failure();
    if (std::optional<std::pair<OpOperand *, double>> scaled =
            matchConstantScale(linalgOp)) {
      match.scale *= scaled->second;
      s = scaled->first->get();
      continue;
    }
    std::optional<std::pair<OpOperand *, KeyBounds>> masked =
        matchIndexMask(linalgOp, match.scale);
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
