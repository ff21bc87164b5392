//===- WarpgroupKVRanges.cpp - each consumer warpgroup's KV range ---------===//
//
// Under a causal mask (or a right window) the first consumer warpgroup's
// rows see fewer keys than the work item's last row. With its own range a
// warpgroup stops at the last tile its rows see and hands the tiles past
// it back unread: the producer warpgroup must still load them, each
// warpgroup may take a different number of GEMM turns (no pingpong), and
// the hand-back must not wait on other CTAs (no split tail).
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Transforms/SM90/LoweringChoices.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Schedule.h"

#define DEBUG_TYPE "fattn-sm90-warpgroup-kv-ranges"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNSM90WARPGROUPKVRANGES
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

LogicalResult mlir::fattn::checkSM90KVRanges(TiledAttentionOp op,
                                             SM90KVRanges ranges) {
  if (ranges != SM90KVRanges::Warpgroup)
    return success();
  auto reject = [&](const char *why) {
    return op.emitOpError() << "warpgroup-kv-ranges needs " << why;
  };
  WarpSpecializeOp ws = getWarpSpecialize(op);
  bool pingpong = false;
  if (ws)
    ws.getConsumer().walk([&](Operation *inner) {
      pingpong |= isa<NamedBarrierSyncOp, NamedBarrierArriveOp>(inner);
    });
  if (pingpong)
    return reject("no pingpong, whose turns each consumer warpgroup must "
                  "take as often as the others");
  FailureOr<SM90WorkChoices> work = getSM90WorkChoices(op);
  if (failed(work))
    return failure();
  if (work->tail == SM90WorkTail::Split)
    return reject("no split tail, whose pieces wait on each other before a "
                  "warpgroup hands its skipped tiles back");
  if (!ws)
    return reject("the producer warpgroup (--fattn-warp-specialize), which "
                  "loads the tiles a consumer warpgroup skips");
  return success();
}

LogicalResult mlir::fattn::setSM90KVRanges(TiledAttentionOp op,
                                           SM90KVRanges ranges) {
  if (failed(checkSM90KVRanges(op, ranges)))
    return failure();
  return updateSM90ConsumerChoices(
      op, [&](SM90ConsumerChoices &consumers) { consumers.kvRanges = ranges; });
}

namespace {
struct FAttnSM90WarpgroupKVRangesPass
    : public fattn::impl::FAttnSM90WarpgroupKVRangesBase<
          FAttnSM90WarpgroupKVRangesPass> {
  using FAttnSM90WarpgroupKVRangesBase::FAttnSM90WarpgroupKVRangesBase;

  void runOnOperation() override {
    if (failed(forEachTiledAttention(getOperation(), [&](TiledAttentionOp op) {
          return setSM90KVRanges(op, SM90KVRanges::Warpgroup);
        })))
      signalPassFailure();
  }
};
} // namespace
