//===- PersistentTiles.cpp - persistent tile scheduler (sm_90a) -----------===//
//
// A kernel of one CTA per Q tile pays, for every tile, a launch of its CTA,
// the prologue that fills the K/V ring and an epilogue (O store) during
// which the tensor cores idle. A persistent kernel launches one CTA per SM
// and loops over the tiles, so that its producer warpgroup already loads the
// next tile's Q and K/V while the consumers finish the current one. The
// decision is a unit attribute on the tiled op; the sm_90a lowering builds
// the loop over work items.
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

LogicalResult mlir::fattn::markPersistentTiles(TiledAttentionOp op) {
  // Without a producer warpgroup nobody loads the next work item's tiles
  // during the current one's epilogue, which is what the loop is for.
  if (!getWarpSpecialize(op))
    return op.emitOpError("persistent tiles need the producer warpgroup of "
                          "--fattn-warp-specialize: run it first");
  op->setAttr(kPersistentTilesAttrName, UnitAttr::get(op.getContext()));
  return success();
}

bool mlir::fattn::hasPersistentTiles(TiledAttentionOp op) {
  return op->hasAttrOfType<UnitAttr>(kPersistentTilesAttrName);
}

namespace {
struct FAttnPersistentTilesPass
    : public fattn::impl::FAttnPersistentTilesBase<FAttnPersistentTilesPass> {
  using FAttnPersistentTilesBase::FAttnPersistentTilesBase;

  void runOnOperation() override {
    // Every op gets its diagnostic, not only the first.
    bool failedAny = false;
    getOperation()->walk([&](TiledAttentionOp op) {
      failedAny |= failed(markPersistentTiles(op));
    });
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
