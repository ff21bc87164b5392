//===- NarrowTail.cpp - a short last KV tile on fewer columns (sm_90a) ----===//
//
// A KV sequence that is not a multiple of the tile leaves each work item a
// partial last tile, which the overlapped loop computes on all block_n
// columns. The narrow tail replaces the loop's last iteration by a copy of
// its body on fewer columns when that tile is short enough. Only the
// sequence's end may cut a tile short (no mask, whose edge tiles lie
// elsewhere), and K's factors must come once per tile (per-key ones are
// staged for whole tiles).
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Transforms/SM90/LoweringChoices.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Schedule.h"

#define DEBUG_TYPE "fattn-sm90-narrow-tail"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNSM90NARROWTAIL
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

LogicalResult mlir::fattn::checkSM90NarrowTail(TiledAttentionOp op,
                                               int64_t keys) {
  if (keys == 0)
    return success();
  auto reject = [&]() {
    return op.emitOpError() << "narrow-tail " << keys << " needs ";
  };
  // The wgmma k step: 32 bytes of keys.
  bool fp8 = hasE4M3Inputs(op);
  int64_t step = fp8 ? 32 : 16;
  int64_t blockN = op.getBlockN();
  if (keys < 0 || keys % step != 0 || keys >= blockN)
    return reject() << "a multiple of " << step << " below block_n (" << blockN
                    << ")";
  WarpSpecializeOp ws = getWarpSpecialize(op);
  if (!ws || !isConsumerLoopOverlapped(ws))
    return reject() << "the overlapped KV loop (--fattn-intra-wg-overlap)";
  if (isMaskedAttention(op))
    return reject() << "unmasked attention (no causal mask or window), whose "
                       "only short tile is the sequence's last";
  int64_t keyBlock = static_cast<int64_t>(op.getDescaleBlockKv().value_or(0));
  if (descaleRank(op.getKDescale()) == 3 && keyBlock < blockN)
    return reject() << "K descales per KV tile, not per key";
  return success();
}

LogicalResult mlir::fattn::setSM90NarrowTail(TiledAttentionOp op,
                                             int64_t keys) {
  if (failed(checkSM90NarrowTail(op, keys)))
    return failure();
  return updateSM90ConsumerChoices(
      op, [&](SM90ConsumerChoices &consumers) { consumers.narrowTail = keys; });
}

namespace {
struct FAttnSM90NarrowTailPass
    : public fattn::impl::FAttnSM90NarrowTailBase<FAttnSM90NarrowTailPass> {
  using FAttnSM90NarrowTailBase::FAttnSM90NarrowTailBase;

  void runOnOperation() override {
    if (failed(forEachTiledAttention(getOperation(), [&](TiledAttentionOp op) {
          return setSM90NarrowTail(op, keys);
        })))
      signalPassFailure();
  }
};
} // namespace
