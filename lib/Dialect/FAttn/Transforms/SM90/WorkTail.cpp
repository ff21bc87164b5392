//===- WorkTail.cpp - the last rounds of a persistent grid (sm_90a) -------===//
//
// When the grid does not divide the work items, the last round keeps only
// some CTAs busy. Unmasked items can be cut along their KV tiles among all
// CTAs (the split tail); masked items differ in length, and moving the
// last pairs' items to the end of the order, Q tile slowest, lets the
// snake pair their long and short items (WorkOrder.h).
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Transforms/SM90/LoweringChoices.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Schedule.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/TMAPlan.h"

#define DEBUG_TYPE "fattn-sm90-work-tail"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNSM90WORKTAIL
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

/// The split tail cuts work items along their KV tiles, so every item must
/// have the same tiles (no mask), a CTA must loop over items (persistent),
/// and the pieces must combine: O in the same units in each (not per-block
/// V descales, which move O into the last tile's). A piece without its
/// item's first tile stores no O, so O must not leave through the Q buffer
/// (a 16-bit kernel's TMA stores), which the stores hand back.
static LogicalResult checkSplitTail(TiledAttentionOp op) {
  auto reject = [&](const char *why) {
    return op.emitOpError() << "split-tail needs " << why;
  };
  if (!hasPersistentTiles(op))
    return reject("persistent tiles (--fattn-persistent-tiles)");
  if (isMaskedAttention(op))
    return reject("unmasked attention, whose work items all have the same "
                  "KV tiles (no causal mask or window)");
  FailureOr<TMAPlan> tma = getTMAPlan(op);
  if (succeeded(tma) && tma->store == SM90OutputStore::TMA &&
      !hasE4M3Inputs(op))
    return reject("O stored from registers or through a buffer of its own "
                  "(FP8), not by tma-store through a 16-bit kernel's Q "
                  "buffer");
  if (descaleRank(op.getVDescale()) == 3)
    return reject("V descales per tensor or per (batch, head), not per "
                  "block");
  return success();
}

LogicalResult mlir::fattn::checkSM90WorkTail(TiledAttentionOp op,
                                             SM90WorkTail tail) {
  if (tail == SM90WorkTail::Split)
    return checkSplitTail(op);
  // The tail reorders items of unequal length, over the rounds of a
  // persistent grid.
  if (tail == SM90WorkTail::Pairs &&
      (!hasPersistentTiles(op) || !isMaskedAttention(op)))
    return op.emitOpError()
           << "work-order-tail needs "
           << (hasPersistentTiles(op)
                   ? "masked attention (a causal mask or a window), whose "
                     "work items differ in length"
                   : "persistent tiles (--fattn-persistent-tiles)");
  return success();
}

LogicalResult mlir::fattn::setSM90WorkTail(TiledAttentionOp op,
                                           SM90WorkTail tail) {
  if (failed(checkSM90WorkTail(op, tail)))
    return failure();
  return updateSM90WorkChoices(op,
                               [&](SM90WorkChoices &work) { work.tail = tail; });
}

namespace {
struct FAttnSM90WorkTailPass
    : public fattn::impl::FAttnSM90WorkTailBase<FAttnSM90WorkTailPass> {
  using FAttnSM90WorkTailBase::FAttnSM90WorkTailBase;

  void runOnOperation() override {
    if (failed(forEachTiledAttention(getOperation(), [&](TiledAttentionOp op) {
          return setSM90WorkTail(op, tail);
        })))
      signalPassFailure();
  }
};
} // namespace
