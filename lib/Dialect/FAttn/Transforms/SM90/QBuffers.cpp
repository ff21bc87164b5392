//===- QBuffers.cpp - the shared-memory buffers of Q (sm_90a) -------------===//
//
// With one Q buffer the producer copies a work item's Q only once the
// consumers have handed the previous item's back, so the copy's latency
// falls between the items; a second buffer lets it copy the next item's Q
// while the current one's is still read.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Transforms/SM90/LoweringChoices.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Schedule.h"

#define DEBUG_TYPE "fattn-sm90-q-buffers"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNSM90QBUFFERS
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

LogicalResult mlir::fattn::checkSM90QBuffers(TiledAttentionOp op,
                                             int64_t buffers) {
  // One CTA per Q tile reads one Q: a second buffer only serves persistent
  // CTAs, whose next work item's Q it receives.
  if (buffers != 1 && (buffers != 2 || !hasPersistentTiles(op)))
    return op.emitOpError() << "q-buffers " << buffers
                            << " must be 1, or 2 with persistent tiles";
  return success();
}

LogicalResult mlir::fattn::setSM90QBuffers(TiledAttentionOp op,
                                           int64_t buffers) {
  if (failed(checkSM90QBuffers(op, buffers)))
    return failure();
  return updateSM90WorkChoices(
      op, [&](SM90WorkChoices &work) { work.qBuffers = buffers; });
}

namespace {
struct FAttnSM90QBuffersPass
    : public fattn::impl::FAttnSM90QBuffersBase<FAttnSM90QBuffersPass> {
  using FAttnSM90QBuffersBase::FAttnSM90QBuffersBase;

  void runOnOperation() override {
    if (failed(forEachTiledAttention(getOperation(), [&](TiledAttentionOp op) {
          return setSM90QBuffers(op, count);
        })))
      signalPassFailure();
  }
};
} // namespace
