//===- QTileOrder.cpp - the order of a head's Q tiles (sm_90a) ------------===//
//
// Under a causal mask a head's last Q tiles see the most keys; a grid that
// starts with them finishes with short tiles instead of leaving one long
// tile to run alone at the end.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Transforms/SM90/LoweringChoices.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h"

#define DEBUG_TYPE "fattn-sm90-q-tile-order"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNSM90QTILEORDER
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

LogicalResult mlir::fattn::setSM90QTileOrder(TiledAttentionOp op,
                                             SM90QTileOrder order) {
  return updateSM90WorkChoices(
      op, [&](SM90WorkChoices &work) { work.qTileOrder = order; });
}

namespace {
struct FAttnSM90QTileOrderPass
    : public fattn::impl::FAttnSM90QTileOrderBase<FAttnSM90QTileOrderPass> {
  using FAttnSM90QTileOrderBase::FAttnSM90QTileOrderBase;

  void runOnOperation() override {
    if (failed(forEachTiledAttention(getOperation(), [&](TiledAttentionOp op) {
          return setSM90QTileOrder(op, order);
        })))
      signalPassFailure();
  }
};
} // namespace
