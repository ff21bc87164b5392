//===- FP8Layout.cpp - the e4m3 wgmma layout of P V (sm_90a) --------------===//
//
// e4m3 wgmma takes both operands K-major (FlashAttention-3, section 3.3):
// O += P V needs V^T, keys contiguous, which TMA cannot produce, and P is
// taken from the registers of the f32 S accumulator, whose columns a thread
// holds as (2q, 2q + 1) of each 8-column group while the A operand of a k32
// step wants 4 consecutive k slots per register. Instead of moving P between
// threads, the keys are renumbered: slot k of P holds key pi(k)
// (fattn.permute_keys, a byte permute within a thread on the GPU) and
// column k of V^T holds key pi(k) too (fattn.transpose_tile, done in shared
// memory by the producer warpgroup), so sum_k P[m, pi(k)] V[pi(k), n] is
// P V exactly.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Transforms/SM90/FP8Layout.h"
#include "fattn/Dialect/FAttn/IR/FAttnFP8Ops.h"
#include "fattn/Dialect/FAttn/IR/FAttnScheduleOps.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Schedule.h"

#define DEBUG_TYPE "fattn-fp8-layout"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNFP8LAYOUT
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

namespace {
/// The P V products of one tiled op and where their V tiles come from,
/// found before anything changes.
struct ValueProducts {
  /// Unscheduled form: the loads of V, each transposed where it is.
  SmallVector<LoadTileOp> loads;
  /// Warp-specialized form: the producer's commit of V to the ring and the
  /// consumers' waits for it.
  RingCommitOp commit;
  SmallVector<RingWaitOp> waits;
  SmallVector<MmaOp> products;
};
} // namespace

/// Appends the users of the V tile `tile` to `products`; each must be a
/// P V product (V as its untransposed rhs).
static LogicalResult collectProducts(TiledAttentionOp op, Value tile,
                                     SmallVectorImpl<MmaOp> &products) {
  for (Operation *user : tile.getUsers()) {
    auto mma = dyn_cast<MmaOp>(user);
    if (!mma || mma.getRhs() != tile || mma.getLhs() == tile ||
        mma.getTransposeRhs())
      return op.emitOpError() << "expected each V tile to be only the rhs of "
                                 "P V products (fattn.mma without "
                                 "transpose_rhs), found a use by "
                              << user->getName();
    products.push_back(mma);
  }
  return success();
}

/// The V tiles of the warp-specialized `op`: the one V commit of its
/// producer and the consumers' waits for that ring element.
static LogicalResult findRingProducts(TiledAttentionOp op,
                                      WarpSpecializeOp ws,
                                      ValueProducts &found) {
  WalkResult result = ws.getProducer().walk([&](RingCommitOp commit) {
    auto load = commit.getTile().getDefiningOp<LoadTileOp>();
    if (!load || load.getSource() != op.getValue())
      return WalkResult::advance();
    if (found.commit) {
      op.emitOpError("expected the producer to commit V to the ring once");
      return WalkResult::interrupt();
    }
    found.commit = commit;
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  if (!found.commit)
    return op.emitOpError("expected the producer to commit the V tiles to "
                          "the ring (the form --fattn-warp-specialize "
                          "builds)");
  // The ring's V element changes type, which only its fattn.ring_create in
  // this op can take.
  auto create = found.commit.getRing().getDefiningOp<RingCreateOp>();
  if (!create || !op->isAncestor(create))
    return op.emitOpError("expected the ring that carries V to be created "
                          "by a fattn.ring_create inside the op");
  ws.getConsumer().walk([&](RingWaitOp wait) {
    if (wait.getRing() == found.commit.getRing() &&
        wait.getElement() == found.commit.getElement())
      found.waits.push_back(wait);
  });
  for (RingWaitOp wait : found.waits)
    if (failed(collectProducts(op, wait.getTile(), found.products)))
      return failure();
  return success();
}

/// Checks that the layout applies to the fp8 `op` and finds what it changes.
static FailureOr<ValueProducts> analyze(TiledAttentionOp op) {
  bool applied = false;
  op.getBody().walk([&](Operation *inner) {
    applied |= isa<TransposeTileOp, PermuteKeysOp>(inner);
  });
  if (applied)
    return op.emitOpError("already has the fp8 layout (fattn.transpose_tile "
                          "or fattn.permute_keys found)");
  int64_t multiple = *getKeyPermutationMultiple(kWgmmaE4M3K32KeyPermutation);
  int64_t blockN = op.getBlockN();
  if (blockN % multiple != 0)
    return op.emitOpError() << "needs block_n to be a multiple of " << multiple
                            << " (the keys of one e4m3 wgmma k step), found "
                            << blockN;
  // The V factor moves to the product's columns, which needs one factor per
  // KV tile.
  if (!hasOneValueFactorPerTile(op.getVDescale(), op.getDescaleBlockKv(),
                                blockN))
    return op.emitOpError()
           << "needs one V descale per KV tile: descale_block_kv ("
           << *op.getDescaleBlockKv() << ") must be a multiple of block_n ("
           << blockN << ")";

  ValueProducts found;
  if (WarpSpecializeOp ws = getWarpSpecialize(op)) {
    if (failed(findRingProducts(op, ws, found)))
      return failure();
  } else {
    op.getBody().walk([&](LoadTileOp load) {
      if (load.getSource() == op.getValue())
        found.loads.push_back(load);
    });
    for (LoadTileOp load : found.loads)
      if (failed(collectProducts(op, load.getResult(), found.products)))
        return failure();
  }
  if (found.products.empty())
    return op.emitOpError("has no P V product to lay out");
  return found;
}

static RankedTensorType transposedType(Value tile) {
  auto type = cast<RankedTensorType>(tile.getType());
  return RankedTensorType::get({type.getDimSize(1), type.getDimSize(0)},
                               type.getElementType());
}

/// Producer: V lands in a staging buffer, the ring slot is taken only once
/// the copy is issued, and the slot receives V^T.
static void transposeInProducer(RewriterBase &rewriter, ValueProducts &found) {
  RingCommitOp commit = found.commit;
  Value ring = commit.getRing();
  int64_t element = commit.getElement();
  auto load = commit.getTile().getDefiningOp<LoadTileOp>();
  RankedTensorType vtType = transposedType(load.getResult());

  auto ringType = cast<RingType>(ring.getType());
  SmallVector<Type> elements(ringType.getElementTypes());
  elements[element] = vtType;
  rewriter.modifyOpInPlace(ring.getDefiningOp(), [&] {
    ring.setType(
        RingType::get(ring.getContext(), ringType.getStages(), elements));
  });
  for (RingWaitOp wait : found.waits)
    rewriter.modifyOpInPlace(wait, [&] { wait.getTile().setType(vtType); });

  for (Operation *it = load->getPrevNode(); it; it = it->getPrevNode())
    if (auto acquire = dyn_cast<RingAcquireOp>(it);
        acquire && acquire.getRing() == ring &&
        acquire.getElement() == element) {
      rewriter.moveOpAfter(acquire, load);
      break;
    }
  rewriter.setInsertionPoint(commit);
  Value vt = TransposeTileOp::create(rewriter, load.getLoc(), vtType, load,
                                     kWgmmaE4M3K32KeyPermutation);
  rewriter.modifyOpInPlace(commit,
                           [&] { commit.getTileMutable().assign(vt); });
}

/// fattn.mma %p, V -> fattn.mma (permute_keys %p), `vt` {transpose_rhs},
/// with V's per-tile factor on the product's columns.
static void permuteProduct(RewriterBase &rewriter, MmaOp mma, Value vt) {
  rewriter.setInsertionPoint(mma);
  rewriter.replaceOp(mma, createPermutedValueProduct(
                              rewriter, mma.getLoc(), mma.getResult().getType(),
                              mma.getLhs(), vt, mma.getAcc(),
                              mma.getLhsScale(), mma.getRhsScale()));
}

LogicalResult mlir::fattn::applySM90FP8Layout(RewriterBase &rewriter,
                                              TiledAttentionOp op) {
  Type elem = cast<MemRefType>(op.getValue().getType()).getElementType();
  // A V stored transposed (value_layout) was tiled into this layout already.
  if (!isa<Float8E4M3FNType>(elem) || op.hasTransposedValue())
    return success();
  FailureOr<ValueProducts> found = analyze(op);
  if (failed(found))
    return failure();

  DenseMap<Value, Value> transposed;
  if (found->commit) {
    transposeInProducer(rewriter, *found);
    for (RingWaitOp wait : found->waits)
      transposed[wait.getTile()] = wait.getTile();
  } else {
    for (LoadTileOp load : found->loads) {
      rewriter.setInsertionPointAfter(load);
      transposed[load.getResult()] = TransposeTileOp::create(
          rewriter, load.getLoc(), transposedType(load.getResult()), load,
          kWgmmaE4M3K32KeyPermutation);
    }
  }
  for (MmaOp mma : found->products)
    permuteProduct(rewriter, mma, transposed.lookup(mma.getRhs()));
  return success();
}

namespace {
struct FAttnFP8LayoutPass
    : public fattn::impl::FAttnFP8LayoutBase<FAttnFP8LayoutPass> {
  void runOnOperation() override {
    SmallVector<TiledAttentionOp> ops;
    getOperation()->walk([&](TiledAttentionOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (TiledAttentionOp op : ops)
      if (failed(applySM90FP8Layout(rewriter, op)))
        return signalPassFailure();
  }
};
} // namespace
