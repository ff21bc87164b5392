//===- FP8LayoutFromIR.cpp - the sm_90a FP8 layout recorded in the IR -----===//

#include "fattn/Conversion/FAttnToNVVM/SM90/FP8LayoutFromIR.h"
#include "fattn/Dialect/FAttn/IR/FAttnFP8Ops.h"
#include "fattn/Dialect/FAttn/IR/FAttnScheduleOps.h"

using namespace mlir;
using namespace mlir::fattn;

namespace {
/// Where the rhs tile of a fattn.mma comes from.
enum class TileSource { Key, Value, TransposedValue, Other };
} // namespace

/// The tile that `tile` carries: through a fattn.ring_wait to the tile that
/// the producer commits to the same ring element.
static Value throughRing(TiledAttentionOp op, Value tile) {
  auto wait = tile.getDefiningOp<RingWaitOp>();
  if (!wait)
    return tile;
  Value committed;
  op.getBody().walk([&](RingCommitOp commit) {
    if (commit.getRing() == wait.getRing() &&
        commit.getElement() == wait.getElement())
      committed = commit.getTile();
  });
  return committed ? committed : tile;
}

static TileSource classify(TiledAttentionOp op, Value tile) {
  tile = throughRing(op, tile);
  if (tile.getDefiningOp<TransposeTileOp>())
    return TileSource::TransposedValue;
  if (auto load = tile.getDefiningOp<LoadTileOp>()) {
    if (load.getSource() == op.getKey())
      return TileSource::Key;
    if (load.getSource() == op.getValue())
      return load.getTransposed() ? TileSource::TransposedValue
                                  : TileSource::Value;
  }
  return TileSource::Other;
}

static FailureOr<SM90FP8Layout>
checkValueProducts(TiledAttentionOp op, const SM90FP8Layout &layout);

FailureOr<SM90FP8Layout> mlir::fattn::readSM90FP8Layout(TiledAttentionOp op) {
  SM90FP8Layout layout;
  Type elem = cast<MemRefType>(op.getQuery().getType()).getElementType();
  if (!isa<Float8E4M3FNType>(elem))
    return layout;

  // The transposes of V: all in one role, all with the permutation the
  // lowering implements (the verifier knows no other today).
  SmallVector<TransposeTileOp> transposes;
  op.getBody().walk([&](TransposeTileOp t) { transposes.push_back(t); });
  layout.transposeV = true;
  layout.keyPermutation = kWgmmaE4M3K32KeyPermutation.str();
  if (op.hasTransposedValue()) {
    // V^T is stored in the kernel's key order (the verifier knows one
    // value_layout): its tiles need no transpose.
    if (!transposes.empty())
      return transposes.front().emitOpError(
          "transposes a V that value_layout stores transposed already");
    layout.valueStoredTransposed = true;
    return checkValueProducts(op, layout);
  }
  if (transposes.empty())
    return op.emitOpError("is fp8 but its P V product reads V as stored; "
                          "e4m3 wgmma needs V^T: run --fattn-fp8-layout");
  auto inProducer = [](Operation *inner) {
    auto ws = inner->getParentOfType<WarpSpecializeOp>();
    return ws && ws.getProducer().isAncestor(inner->getParentRegion());
  };
  layout.producerTransposes = inProducer(transposes.front());
  for (TransposeTileOp t : transposes) {
    auto load = t.getInput().getDefiningOp<LoadTileOp>();
    if (!load || load.getSource() != op.getValue())
      return t.emitOpError("is not a transpose of a V tile that the sm_90a "
                           "lowering implements: expected its input to be "
                           "a fattn.load_tile of V");
    if (t.getKeyPermutation() != layout.keyPermutation)
      return t.emitOpError() << "permutes the keys by \""
                             << t.getKeyPermutation()
                             << "\"; the sm_90a lowering implements \""
                             << layout.keyPermutation << "\"";
    if (inProducer(t) != layout.producerTransposes)
      return t.emitOpError("transposes V in another warpgroup role than the "
                           "other transposes of V");
  }

  return checkValueProducts(op, layout);
}

/// Every P V product reads V^T and P permuted like V^T's keys.
static FailureOr<SM90FP8Layout> checkValueProducts(TiledAttentionOp op,
                                            const SM90FP8Layout &layout) {
  WalkResult result = op.getBody().walk([&](MmaOp mma) {
    TileSource source = classify(op, mma.getRhs());
    if (source == TileSource::Value) {
      mma.emitOpError("reads V as stored; the fp8 layout transposes every V "
                      "tile (run --fattn-fp8-layout once, after the "
                      "scheduling passes)");
      return WalkResult::interrupt();
    }
    if (source != TileSource::TransposedValue)
      return WalkResult::advance();
    auto permute = mma.getLhs().getDefiningOp<PermuteKeysOp>();
    if (!mma.getTransposeRhs() || !permute ||
        permute.getKeyPermutation() != layout.keyPermutation) {
      mma.emitOpError() << "multiplies V^T by P not permuted like its keys: "
                           "expected {transpose_rhs} and P from "
                           "fattn.permute_keys {key_permutation = \""
                        << layout.keyPermutation << "\"}";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  return layout;
}
