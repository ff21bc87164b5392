//===- TileGrad.cpp - fattn.attention_grad -> tiled backward form ---------===//
//
// FlashAttention-2's backward (Dao 2023, algorithm 2) on tile values: a
// preprocess grid for D = rowsum(dO * O), the main grid over KV tiles with
// the Q tiles that see each one inside, and a postprocess grid for dQ. The
// main body is built from the forward's tile ops (S = Q K^T, the softcap
// and the mask exactly as fattn-tile builds them) and the backward's.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/IR/DestinationStyle.h"
#include "fattn/Dialect/FAttn/IR/FAttnTiledGradOps.h"
#include "fattn/Dialect/FAttn/Transforms/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <tuple>

#define DEBUG_TYPE "fattn-tile-grad"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNTILEGRAD
#include "fattn/Dialect/FAttn/Transforms/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

namespace {
/// The tile sizes and element types that every grid body uses.
struct GradTiles {
  TiledAttentionGradOp op;
  Type elemType, f32;
  int64_t blockM, blockN, headDim, headDimV;
  RankedTensorType rows(int64_t columns, Type elem) const {
    return RankedTensorType::get({blockM, columns}, elem);
  }
  RankedTensorType keys(int64_t columns, Type elem) const {
    return RankedTensorType::get({blockN, columns}, elem);
  }
  RankedTensorType rowVector() const {
    return RankedTensorType::get({blockM}, f32);
  }
};

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value zeroTile(OpBuilder &b, Location loc, RankedTensorType type) {
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(type, b.getFloatAttr(type.getElementType(), 0.0)));
}

Value dimOf(OpBuilder &b, Location loc, Value memref, int64_t d) {
  return memref::DimOp::create(b, loc, memref, d);
}

/// The batch, query head and first row of the Q tile of a grid point of
/// `grid` (the preprocess or the postprocess).
std::tuple<Value, Value, Value> qTilePoint(OpBuilder &b, Location loc,
                                           int64_t blockM, Region &grid) {
  Block &point = grid.front();
  Value row = arith::MulIOp::create(b, loc, point.getArgument(2),
                                    indexConst(b, loc, blockM));
  return {point.getArgument(0), point.getArgument(1), row};
}

/// The preprocess body (batch, query head, Q tile): D = rowsum(dO * O) into
/// `delta`, zeros into the dQ accumulator.
void buildPreprocess(OpBuilder &b, const GradTiles &t) {
  TiledAttentionGradOp op = t.op;
  Location loc = op.getLoc();
  auto [batch, head, row] = qTilePoint(b, loc, t.blockM, op.getPreprocess());
  RankedTensorType outType = t.rows(t.headDimV, t.elemType);
  Value o =
      LoadTileOp::create(b, loc, outType, op.getOutput(), batch, head, row);
  Value gradOut =
      LoadTileOp::create(b, loc, outType, op.getGradOutput(), batch, head, row);
  Value delta = RowDotOp::create(b, loc, t.rowVector(), gradOut, o);
  StoreTileOp::create(b, loc, delta, op.getDelta(), batch, head, row);
  Value zero = zeroTile(b, loc, t.rows(t.headDim, b.getF32Type()));
  StoreTileOp::create(b, loc, zero, op.getDqAccum(), batch, head, row);
}

/// The postprocess body (batch, query head, Q tile): dQ = scale * dq_accum.
void buildPostprocess(OpBuilder &b, const GradTiles &t) {
  TiledAttentionGradOp op = t.op;
  Location loc = op.getLoc();
  auto [batch, head, row] = qTilePoint(b, loc, t.blockM, op.getPostprocess());
  Value acc = LoadTileOp::create(b, loc, t.rows(t.headDim, b.getF32Type()),
                                 op.getDqAccum(), batch, head, row);
  Value gradQuery = ScaleTileOp::create(b, loc, t.rows(t.headDim, t.elemType),
                                        acc, op.getScaleAttr());
  StoreTileOp::create(b, loc, gradQuery, op.getGradQuery(), batch, head, row);
}

/// What the Q-tile loops of one KV tile share.
struct KVTileContext {
  Value batch, head, firstKey, seqQ, seqK;
  Value key, value; // the loaded K and V tiles
};

/// One Q loop over tiles [from, to) of query head `ctx.head`, carrying the
/// f32 dK and dV accumulators of the KV tile; `masked` adds fattn.mask.
std::pair<Value, Value> buildQLoop(OpBuilder &b, const GradTiles &t,
                                   const KVTileContext &ctx, Value from,
                                   Value to, bool masked, Value gradKey,
                                   Value gradValue) {
  TiledAttentionGradOp op = t.op;
  Location loc = op.getLoc();
  float softcap = op.getSoftcap().convertToFloat();
  Type f32 = b.getF32Type();
  auto loop = scf::ForOp::create(
      b, loc, from, to, indexConst(b, loc, 1), ValueRange{gradKey, gradValue},
      [&](OpBuilder &b, Location loc, Value qTile, ValueRange acc) {
        Value row =
            arith::MulIOp::create(b, loc, qTile, indexConst(b, loc, t.blockM));
        auto load = [&](Value mem, RankedTensorType type) -> Value {
          return LoadTileOp::create(b, loc, type, mem, ctx.batch, ctx.head,
                                    row);
        };
        Value q = load(op.getQuery(), t.rows(t.headDim, t.elemType));
        Value gradOut =
            load(op.getGradOutput(), t.rows(t.headDimV, t.elemType));
        Value lse = load(op.getLse(), t.rowVector());
        Value delta = load(op.getDelta(), t.rowVector());
        // S as the forward computes it: scaled and capped by fattn.softcap
        // when softcap > 0, under the forward's mask.
        RankedTensorType scoresType = t.rows(t.blockN, f32);
        Value s = MmaOp::create(b, loc, scoresType, q, ctx.key, /*acc=*/Value(),
                                /*lhs_scale=*/Value(), /*rhs_scale=*/Value(),
                                /*transpose_rhs=*/true);
        Value capped;
        if (softcap > 0)
          s = capped =
              SoftcapOp::create(b, loc, scoresType, s, Value(), Value(),
                                op.getScaleAttr(), op.getSoftcapAttr());
        if (masked)
          s = MaskOp::create(b, loc, scoresType, s, row, ctx.firstKey, ctx.seqQ,
                             ctx.seqK, op.getWindowLeftAttr(),
                             op.getWindowRightAttr());
        float probsScale = softcap > 0 ? 1.0f : op.getScale().convertToFloat();
        Value p = GradProbsOp::create(b, loc, scoresType, s, lse,
                                      b.getF32FloatAttr(probsScale));
        // dV += P^T dO (P rounded to the element type).
        Value gradValue = MmaTransposeLhsOp::create(b, loc, acc[1].getType(), p,
                                                    gradOut, acc[1]);
        // dP = dO V^T; dS = P (dP - D), rounded.
        Value gradProbs = MmaOp::create(b, loc, scoresType, gradOut, ctx.value,
                                        Value(), Value(), Value(),
                                        /*transpose_rhs=*/true);
        Value gradScores =
            GradScoresOp::create(b, loc, t.rows(t.blockN, t.elemType), p,
                                 gradProbs, delta, capped, op.getSoftcapAttr());
        // dK += dS^T Q; dQ += dS K.
        Value gradKey = MmaTransposeLhsOp::create(b, loc, acc[0].getType(),
                                                  gradScores, q, acc[0]);
        Value gradQuery =
            MmaOp::create(b, loc, t.rows(t.headDim, f32), gradScores, ctx.key,
                          Value(), Value(), Value(), /*transpose_rhs=*/false);
        AccumulateTileOp::create(b, loc, gradQuery, op.getDqAccum(), ctx.batch,
                                 ctx.head, row, op.getDeterministicAttr());
        scf::YieldOp::create(b, loc, ValueRange{gradKey, gradValue});
      });
  return {loop.getResult(0), loop.getResult(1)};
}

/// The main body (batch, KV head, KV tile): dK and dV of the tile, over the
/// Q tiles of every query head of the group that see it.
void buildKVTileBody(OpBuilder &b, const GradTiles &t) {
  TiledAttentionGradOp op = t.op;
  Location loc = op.getLoc();
  Block &body = op.getBody().front();
  Value batch = body.getArgument(0), kvHead = body.getArgument(1),
        kvTile = body.getArgument(2);
  Value c0 = indexConst(b, loc, 0), c1 = indexConst(b, loc, 1);
  KVTileContext ctx;
  ctx.batch = batch;
  ctx.seqQ = dimOf(b, loc, op.getQuery(), 2);
  ctx.seqK = dimOf(b, loc, op.getKey(), 2);
  // GQA: the KV head serves query heads [kvHead * group, (kvHead + 1) * group).
  Value group = arith::DivUIOp::create(b, loc, dimOf(b, loc, op.getQuery(), 1),
                                       dimOf(b, loc, op.getKey(), 1));
  ctx.firstKey =
      arith::MulIOp::create(b, loc, kvTile, indexConst(b, loc, t.blockN));
  ctx.key = LoadTileOp::create(b, loc, t.keys(t.headDim, t.elemType),
                               op.getKey(), batch, kvHead, ctx.firstKey);
  ctx.value = LoadTileOp::create(b, loc, t.keys(t.headDimV, t.elemType),
                                 op.getValue(), batch, kvHead, ctx.firstKey);
  Type index = b.getIndexType();
  auto range = QTileRangeOp::create(
      b, loc, TypeRange{index, index, index, index}, kvTile, ctx.seqQ, ctx.seqK,
      op.getBlockMAttr(), op.getBlockNAttr(), op.getWindowLeftAttr(),
      op.getWindowRightAttr());
  Type f32 = b.getF32Type();
  Value firstHead = arith::MulIOp::create(b, loc, kvHead, group);
  auto members = scf::ForOp::create(
      b, loc, c0, group, c1,
      ValueRange{zeroTile(b, loc, t.keys(t.headDim, f32)),
                 zeroTile(b, loc, t.keys(t.headDimV, f32))},
      [&](OpBuilder &b, Location loc, Value member, ValueRange acc) {
        KVTileContext inner = ctx;
        inner.head = arith::AddIOp::create(b, loc, firstHead, member);
        std::pair<Value, Value> grads = {acc[0], acc[1]};
        auto qLoop = [&](Value from, Value to, bool masked) {
          grads = buildQLoop(b, t, inner, from, to, masked, grads.first,
                             grads.second);
        };
        // With queries and keys exchanged, the first Q tiles are masked only
        // at a right window edge (lo == full_lo without one).
        if (static_cast<int64_t>(op.getWindowRight()) >= 0)
          qLoop(range.getLo(), range.getFullLo(), /*masked=*/true);
        qLoop(range.getFullLo(), range.getFullHi(), /*masked=*/false);
        qLoop(range.getFullHi(), range.getHi(), /*masked=*/true);
        scf::YieldOp::create(b, loc, ValueRange{grads.first, grads.second});
      });
  Value gradKey = ScaleTileOp::create(b, loc, t.keys(t.headDim, t.elemType),
                                      members.getResult(0), op.getScaleAttr());
  StoreTileOp::create(b, loc, gradKey, op.getGradKey(), batch, kvHead,
                      ctx.firstKey);
  Value gradValue =
      ScaleTileOp::create(b, loc, t.keys(t.headDimV, t.elemType),
                          members.getResult(1), b.getF32FloatAttr(1.0f));
  StoreTileOp::create(b, loc, gradValue, op.getGradValue(), batch, kvHead,
                      ctx.firstKey);
}

/// A buffer of f32 with `like`'s sizes (static where they are).
Value allocWorkspace(OpBuilder &b, Location loc, Value like) {
  auto type = cast<MemRefType>(like.getType());
  SmallVector<Value> dynamic;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamic.push_back(dimOf(b, loc, like, d));
  return memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), b.getF32Type()), dynamic);
}
} // namespace

FailureOr<TiledAttentionGradOp>
mlir::fattn::tileAttentionGrad(RewriterBase &rewriter, AttentionGradOp op,
                               TileSizes sizes) {
  if (sizes.blockM <= 0 || sizes.blockN <= 0)
    return op.emitOpError() << "cannot be tiled: block sizes must be "
                               "positive, found block-m = "
                            << sizes.blockM << ", block-n = " << sizes.blockN;
  if (!op.hasPureBufferSemantics())
    return emitTensorFormError(op, "--fattn-tile-grad");
  // The tiles' shapes: block_m or block_n rows of a head dim.
  auto qType = cast<MemRefType>(op.getQuery().getType());
  auto vType = cast<MemRefType>(op.getValue().getType());
  if (qType.isDynamicDim(3) || vType.isDynamicDim(3))
    return op.emitOpError("cannot be tiled: the head dims of query and value "
                          "must be static");

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Value delta = allocWorkspace(rewriter, loc, op.getLse());
  Value dqAccum = allocWorkspace(rewriter, loc, op.getQuery());
  auto tiled = TiledAttentionGradOp::create(
      rewriter, loc, op.getQuery(), op.getKey(), op.getValue(), op.getOutput(),
      op.getGradOutput(), op.getLse(), op.getGradQuery(), op.getGradKey(),
      op.getGradValue(), delta, dqAccum,
      rewriter.getI64IntegerAttr(sizes.blockM),
      rewriter.getI64IntegerAttr(sizes.blockN),
      rewriter.getF32FloatAttr(op.getEffectiveScale()),
      rewriter.getI64IntegerAttr(op.getEffectiveWindowLeft()),
      rewriter.getI64IntegerAttr(op.getEffectiveWindowRight()),
      rewriter.getF32FloatAttr(op.getEffectiveSoftcap()),
      op.getDeterministicAttr());
  memref::DeallocOp::create(rewriter, loc, delta);
  memref::DeallocOp::create(rewriter, loc, dqAccum);

  GradTiles t{
      tiled,        qType.getElementType(), rewriter.getF32Type(), sizes.blockM,
      sizes.blockN, qType.getDimSize(3),    vType.getDimSize(3)};
  Type index = rewriter.getIndexType();
  SmallVector<Type> gridArgs(3, index);
  SmallVector<Location> gridLocs(3, loc);
  rewriter.createBlock(&tiled.getPreprocess(), {}, gridArgs, gridLocs);
  buildPreprocess(rewriter, t);
  rewriter.createBlock(&tiled.getBody(), {}, gridArgs, gridLocs);
  buildKVTileBody(rewriter, t);
  rewriter.createBlock(&tiled.getPostprocess(), {}, gridArgs, gridLocs);
  buildPostprocess(rewriter, t);
  rewriter.eraseOp(op);
  return tiled;
}

namespace {
struct FAttnTileGradPass
    : public fattn::impl::FAttnTileGradBase<FAttnTileGradPass> {
  using FAttnTileGradBase::FAttnTileGradBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Post-order: the op being visited may be replaced.
    WalkResult result = getOperation()->walk([&](AttentionGradOp op) {
      return failed(tileAttentionGrad(rewriter, op, {blockM, blockN}))
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
