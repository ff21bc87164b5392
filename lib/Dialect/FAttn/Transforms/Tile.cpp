//===- Tile.cpp - fattn.attention -> tiled online-softmax form ------------===//

#include "fattn/Dialect/FAttn/IR/DestinationStyle.h"
#include "fattn/Dialect/FAttn/IR/FAttnFP8Ops.h"
#include "fattn/Dialect/FAttn/Transforms/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#define DEBUG_TYPE "fattn-tile"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNTILE
#include "fattn/Dialect/FAttn/Transforms/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

namespace {
/// The online-softmax state carried by the KV loops.
struct OnlineSoftmaxState {
  Value max, sum, acc;
};

/// Everything the KV loop body needs from the enclosing Q tile.
struct QTileContext {
  TiledAttentionOp op;
  Value batch, kvHead, firstRow, seqQ, seqK;
  Value qTile;  // the loaded Q tile
  Value qScale; // its FP8 descale factors, or null
  Value one, blockN;
  RankedTensorType kTileType, vTileType, scoresType, probsType;
};

/// The descale factors of `rows` rows starting at `row`, or null without
/// descales. Per-(batch, KV head) factors are indexed by `kvHead`, per-block
/// ones by `head` (the tensor's own head).
Value loadDescale(OpBuilder &b, Location loc, Value descale, Value batch,
                  Value head, Value kvHead, Value row, IntegerAttr block,
                  int64_t rows) {
  if (!descale)
    return Value();
  auto type = cast<MemRefType>(descale.getType());
  bool perBlock = type.getRank() == 3;
  return LoadDescaleOp::create(
      b, loc, RankedTensorType::get({rows}, b.getF32Type()), descale, batch,
      perBlock ? head : kvHead, row, perBlock ? block : IntegerAttr());
}

/// O += P V for one KV tile. A V stored transposed (`value_layout`) is read
/// as the V^T tile it holds, keys in wgmma_e4m3_k32 order, so P's keys are
/// permuted to match and V's per-tile factor scales the product's columns:
/// the form --fattn-fp8-layout gives a V stored by rows.
Value addValueProduct(OpBuilder &b, Location loc, const QTileContext &ctx,
                      Value acc, Value probs, Value firstCol) {
  TiledAttentionOp op = ctx.op;
  bool transposed = op.hasTransposedValue();
  Value v = LoadTileOp::create(b, loc, ctx.vTileType, op.getValue(), ctx.batch,
                               ctx.kvHead, firstCol, transposed);
  Value vScale = loadDescale(b, loc, op.getVDescale(), ctx.batch, ctx.kvHead,
                             ctx.kvHead, firstCol, op.getDescaleBlockKvAttr(),
                             op.getBlockN());
  if (!transposed)
    return MmaOp::create(b, loc, acc.getType(), probs, v, acc,
                         /*lhs_scale=*/Value(), vScale,
                         /*transpose_rhs=*/false);
  // One V factor per KV tile: tileAttention checks the blocks.
  return createPermutedValueProduct(b, loc, acc.getType(), probs, v, acc,
                                    /*lhsScale=*/Value(), vScale);
}

/// Builds one KV loop over tiles [from, to); `masked` adds fattn.mask.
OnlineSoftmaxState buildKVLoop(OpBuilder &b, Location loc,
                               const QTileContext &ctx, Value from, Value to,
                               bool masked, OnlineSoftmaxState init) {
  TiledAttentionOp op = ctx.op;
  bool softcap = op.hasSoftcap();
  // With a softcap, fattn.softcap applies the scale; the softmax then sees
  // already-scaled scores.
  FloatAttr softmaxScale = softcap ? b.getF32FloatAttr(1.0f) : op.getScaleAttr();
  Value softmaxDynamicScale = softcap ? Value() : op.getDynamicScale();
  auto loop = scf::ForOp::create(
      b, loc, from, to, ctx.one, ValueRange{init.max, init.sum, init.acc},
      [&](OpBuilder &b, Location loc, Value kvTile, ValueRange state) {
        Value firstCol = arith::MulIOp::create(b, loc, kvTile, ctx.blockN);
        Value k = LoadTileOp::create(b, loc, ctx.kTileType, op.getKey(),
                                     ctx.batch, ctx.kvHead, firstCol);
        Value kScale = loadDescale(b, loc, op.getKDescale(), ctx.batch,
                                   ctx.kvHead, ctx.kvHead, firstCol,
                                   op.getDescaleBlockKvAttr(), op.getBlockN());
        Value s = MmaOp::create(b, loc, ctx.scoresType, ctx.qTile, k,
                                /*acc=*/Value(), ctx.qScale, kScale,
                                /*transpose_rhs=*/true);
        if (softcap)
          s = SoftcapOp::create(b, loc, s.getType(), s, op.getDynamicScale(),
                                op.getDynamicSoftcap(), op.getScaleAttr(),
                                op.getSoftcapAttr());
        if (masked)
          s = MaskOp::create(b, loc, s.getType(), s, ctx.firstRow, firstCol,
                             ctx.seqQ, ctx.seqK, op.getWindowLeftAttr(),
                             op.getWindowRightAttr());
        auto update = SoftmaxUpdateOp::create(
            b, loc, ctx.probsType, state[0].getType(), state[1].getType(),
            state[0].getType(), s, state[0], state[1], softmaxDynamicScale,
            softmaxScale);
        Value acc = RescaleOp::create(b, loc, state[2].getType(), state[2],
                                      update.getAlpha());
        acc = addValueProduct(b, loc, ctx, acc, update.getProbs(), firstCol);
        scf::YieldOp::create(
            b, loc, ValueRange{update.getNewMax(), update.getNewSum(), acc});
      });
  return {loop.getResult(0), loop.getResult(1), loop.getResult(2)};
}

/// Fills the body of `op` (one Q tile of the grid).
void buildQTileBody(OpBuilder &b, TiledAttentionOp op) {
  Location loc = op.getLoc();
  auto qType = cast<MemRefType>(op.getQuery().getType());
  Type elemType = qType.getElementType();
  int64_t blockM = op.getBlockM(), blockN = op.getBlockN();
  int64_t headDimQK = qType.getDimSize(3), headDimV = op.getValueHeadDim();
  Type f32 = b.getF32Type();

  QTileContext ctx;
  ctx.op = op;
  ctx.batch = op.getBatchIndex();
  ctx.kTileType = RankedTensorType::get({blockN, headDimQK}, elemType);
  ctx.vTileType = op.hasTransposedValue()
                      ? RankedTensorType::get({headDimV, blockN}, elemType)
                      : RankedTensorType::get({blockN, headDimV}, elemType);
  ctx.scoresType = RankedTensorType::get({blockM, blockN}, f32);
  // P is fed to the second product in V's element type, as on the GPU.
  ctx.probsType = RankedTensorType::get({blockM, blockN}, elemType);

  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  Value c2 = arith::ConstantIndexOp::create(b, loc, 2);
  ctx.one = c1;
  ctx.blockN = arith::ConstantIndexOp::create(b, loc, blockN);
  ctx.seqQ = memref::DimOp::create(b, loc, op.getQuery(), c2);
  ctx.seqK = memref::DimOp::create(b, loc, op.getKey(), c2);
  // GQA: query head h reads KV head h / (Hq / Hkv).
  Value headsQ = memref::DimOp::create(b, loc, op.getQuery(), c1);
  Value headsKV = memref::DimOp::create(b, loc, op.getKey(), c1);
  Value group = arith::DivUIOp::create(b, loc, headsQ, headsKV);
  ctx.kvHead = arith::DivUIOp::create(b, loc, op.getHeadIndex(), group);
  ctx.firstRow =
      arith::MulIOp::create(b, loc, op.getQTileIndex(),
                            arith::ConstantIndexOp::create(b, loc, blockM));
  ctx.qTile = LoadTileOp::create(
      b, loc, RankedTensorType::get({blockM, headDimQK}, elemType),
      op.getQuery(), ctx.batch, op.getHeadIndex(), ctx.firstRow);
  ctx.qScale =
      loadDescale(b, loc, op.getQDescale(), ctx.batch, op.getHeadIndex(),
                  ctx.kvHead, ctx.firstRow, op.getDescaleBlockQAttr(), blockM);

  Type index = b.getIndexType();
  auto range = KVTileRangeOp::create(
      b, loc, TypeRange{index, index, index, index}, op.getQTileIndex(),
      ctx.seqQ, ctx.seqK, op.getBlockMAttr(), op.getBlockNAttr(),
      op.getWindowLeftAttr(), op.getWindowRightAttr());
  auto rowVecType = RankedTensorType::get({blockM}, f32);
  auto init =
      SoftmaxInitOp::create(b, loc, rowVecType, rowVecType,
                            RankedTensorType::get({blockM, headDimV}, f32));
  OnlineSoftmaxState state{init.getMax(), init.getSum(), init.getAcc()};
  // Without a left window edge, kv_tile_range guarantees lo == full_lo.
  if (static_cast<int64_t>(op.getWindowLeft()) >= 0)
    state = buildKVLoop(b, loc, ctx, range.getLo(), range.getFullLo(),
                        /*masked=*/true, state);
  state = buildKVLoop(b, loc, ctx, range.getFullLo(), range.getFullHi(),
                      /*masked=*/false, state);
  state = buildKVLoop(b, loc, ctx, range.getFullHi(), range.getHi(),
                      /*masked=*/true, state);

  bool softcap = op.hasSoftcap();
  FloatAttr finalScale =
      softcap ? b.getF32FloatAttr(1.0f) : op.getScaleAttr();
  auto finalize = FinalizeOp::create(
      b, loc,
      RankedTensorType::get(
          {blockM, headDimV},
          cast<MemRefType>(op.getOutput().getType()).getElementType()),
      rowVecType, state.acc, state.max, state.sum,
      softcap ? Value() : op.getDynamicScale(), finalScale);
  StoreTileOp::create(b, loc, finalize.getOutput(), op.getOutput(), ctx.batch,
                      op.getHeadIndex(), ctx.firstRow);
  if (op.getLse())
    StoreTileOp::create(b, loc, finalize.getLse(), op.getLse(), ctx.batch,
                        op.getHeadIndex(), ctx.firstRow);
}
} // namespace

FailureOr<TiledAttentionOp> mlir::fattn::tileAttention(RewriterBase &rewriter,
                                                       AttentionOp op,
                                                       TileSizes sizes) {
  if (!op.hasPureBufferSemantics())
    return emitTensorFormError(op, "--fattn-tile");
  auto qType = cast<MemRefType>(op.getQuery().getType());
  if (qType.isDynamicDim(3) || ShapedType::isDynamic(op.getValueHeadDim()))
    return op.emitOpError("cannot be tiled: the head dims of query and value "
                          "must be static");
  if (sizes.blockM <= 0 || sizes.blockN <= 0)
    return op.emitOpError() << "cannot be tiled: block sizes must be "
                               "positive, found block-m = "
                            << sizes.blockM << ", block-n = " << sizes.blockN;
  if (op.hasTransposedValue()) {
    // The P V product reads V^T with P's keys permuted per k step, and
    // scales its columns by V's factor of the tile.
    int64_t multiple = *getKeyPermutationMultiple(kWgmmaE4M3K32KeyPermutation);
    if (sizes.blockN % multiple != 0)
      return op.emitOpError()
             << "cannot be tiled: value_layout = \"" << kTransposedValueLayout
             << "\" needs block-n to be a multiple of " << multiple
             << ", found " << sizes.blockN;
    if (!hasOneValueFactorPerTile(op.getVDescale(), op.getDescaleBlockKv(),
                                  sizes.blockN))
      return op.emitOpError()
             << "cannot be tiled: value_layout = \"" << kTransposedValueLayout
             << "\" needs one V descale per KV tile: descale_block_kv ("
             << *op.getDescaleBlockKv() << ") must be a multiple of block-n ("
             << sizes.blockN << ")";
  }

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  auto tiled = TiledAttentionOp::create(
      rewriter, loc, op.getQuery(), op.getKey(), op.getValue(), op.getOutput(),
      op.getLse(), op.getQDescale(), op.getKDescale(), op.getVDescale(),
      op.getDynamicScale(), op.getDynamicSoftcap(),
      rewriter.getI64IntegerAttr(sizes.blockM),
      rewriter.getI64IntegerAttr(sizes.blockN),
      op.getDynamicScale() ? FloatAttr()
                           : rewriter.getF32FloatAttr(op.getEffectiveScale()),
      rewriter.getI64IntegerAttr(op.getEffectiveWindowLeft()),
      rewriter.getI64IntegerAttr(op.getEffectiveWindowRight()),
      op.getDynamicSoftcap()
          ? FloatAttr()
          : rewriter.getF32FloatAttr(op.getEffectiveSoftcap()),
      op.getDescaleBlockQAttr(), op.getDescaleBlockKvAttr(),
      op.getValueLayoutAttr());
  Type index = rewriter.getIndexType();
  rewriter.createBlock(&tiled.getBody(), {}, {index, index, index},
                       {loc, loc, loc});
  buildQTileBody(rewriter, tiled);
  rewriter.eraseOp(op);
  return tiled;
}

namespace {
struct FAttnTilePass : public fattn::impl::FAttnTileBase<FAttnTilePass> {
  using FAttnTileBase::FAttnTileBase;

  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    getOperation()->walk([&](AttentionOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (AttentionOp op : ops)
      if (failed(tileAttention(rewriter, op, {blockM, blockN})))
        return signalPassFailure();
  }
};
} // namespace
