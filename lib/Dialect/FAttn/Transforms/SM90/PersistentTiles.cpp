//===- PersistentTiles.cpp - persistent tile scheduler (sm_90a) -----------===//
//
// A kernel of one CTA per Q tile pays, for every tile, a launch of its CTA,
// the prologue that fills the K/V ring and an epilogue (O store) during
// which the tensor cores idle. A persistent kernel launches one CTA per SM
// and loops over the tiles, so that its producer warpgroup already loads the
// next tile's Q and K/V while the consumers finish the current one. The pass
// wraps the per-tile body in a fattn.work_loop, whose region takes the work
// item's coordinates; the sm_90a lowering builds each role's loop over work
// items from it.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Schedule.h"

#define DEBUG_TYPE "fattn-persistent-tiles"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNPERSISTENTTILES
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

FailureOr<WorkLoopOp> mlir::fattn::buildWorkLoop(RewriterBase &rewriter,
                                                 TiledAttentionOp op) {
  if (WorkLoopOp existing = getWorkLoop(op))
    return existing;
  // Without a producer warpgroup nobody loads the next work item's tiles
  // during the current one's epilogue, which is what the loop is for.
  if (!getWarpSpecialize(op))
    return op.emitOpError("persistent tiles need the producer warpgroup of "
                          "--fattn-warp-specialize: run it first");
  Block &body = op.getBody().front();
  // The ring outlives a work item (its stages and phases run on), so it is
  // created before the loop; ring_create has no operands.
  SmallVector<Operation *> rings, perItem;
  for (Operation &inner : body)
    (isa<RingCreateOp>(inner) ? rings : perItem).push_back(&inner);
  for (Operation *ring : llvm::reverse(rings))
    rewriter.moveOpBefore(ring, &body, body.begin());

  Location loc = op.getLoc();
  rewriter.setInsertionPointToEnd(&body);
  auto loop = WorkLoopOp::create(rewriter, loc);
  Type index = rewriter.getIndexType();
  Block *item = rewriter.createBlock(&loop.getBody(), {},
                                     {index, index, index}, {loc, loc, loc});
  for (Operation *inner : perItem)
    rewriter.moveOpBefore(inner, item, item->end());
  // Every use of the grid coordinates is now inside the loop.
  for (auto [grid, coordinate] :
       llvm::zip(body.getArguments(), item->getArguments()))
    rewriter.replaceAllUsesWith(grid, coordinate);
  return loop;
}

WorkLoopOp mlir::fattn::getWorkLoop(TiledAttentionOp op) {
  for (Operation &inner : op.getBody().front())
    if (auto loop = dyn_cast<WorkLoopOp>(inner))
      return loop;
  return nullptr;
}

bool mlir::fattn::hasPersistentTiles(TiledAttentionOp op) {
  return static_cast<bool>(getWorkLoop(op));
}

namespace {
struct FAttnPersistentTilesPass
    : public fattn::impl::FAttnPersistentTilesBase<FAttnPersistentTilesPass> {
  using FAttnPersistentTilesBase::FAttnPersistentTilesBase;

  void runOnOperation() override {
    // Every op gets its diagnostic, not only the first.
    bool failedAny = false;
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](TiledAttentionOp op) {
      failedAny |= failed(buildWorkLoop(rewriter, op));
    });
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
