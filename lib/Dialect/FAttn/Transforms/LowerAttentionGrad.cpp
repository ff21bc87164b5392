//===- LowerAttentionGrad.cpp - fattn.attention_grad -> tiled backward ----===//
//
// The FlashAttention-2 backward pass (Dao 2023, algorithm 2) as loops over
// tiles: KV tiles outside, each with f32 dK and dV accumulators, and the Q
// tiles that see it inside, recomputing P from the forward's LSE. dQ is
// accumulated in f32 across the KV tiles of one (batch, KV head). The tile
// math is linalg.generic on memref views, so it needs no bufferization; the
// CPU pipeline lowers it to loops with the rest of the program.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/IR/DestinationStyle.h"
#include "fattn/Dialect/FAttn/Transforms/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/Transforms.h"
#include "fattn/Dialect/FAttn/Utils/Float8Emulation.h"
#include "fattn/Dialect/FAttn/Utils/KVTileRangeBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <limits>

#define DEBUG_TYPE "fattn-lower-attention-grad"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNLOWERATTENTIONGRAD
#include "fattn/Dialect/FAttn/Transforms/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

namespace {
using utils::IteratorType;
constexpr float kLog2E = 1.4426950408889634f;

/// Index and float helpers bound to one builder and location.
struct Emitter {
  OpBuilder &b;
  Location loc;

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value f32(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  /// Size `d` of `memref`: a constant when static.
  Value dim(Value memref, int64_t d) {
    int64_t size = cast<MemRefType>(memref.getType()).getDimSize(d);
    if (!ShapedType::isDynamic(size))
      return idx(size);
    return memref::DimOp::create(b, loc, memref, d);
  }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  /// How many of `tile` indices from `first` on lie below `size`.
  Value clipped(Value size, Value first, int64_t tile) {
    Value left = arith::SubIOp::create(b, loc, size, first);
    return arith::MinSIOp::create(b, loc, idx(tile), left);
  }
  /// mem[offsets][sizes] with unit strides, its first `dropped` dims (of
  /// size 1) dropped.
  Value view(Value mem, ArrayRef<OpFoldResult> offsetsIn,
             ArrayRef<OpFoldResult> sizesIn, unsigned dropped) {
    auto type = cast<MemRefType>(mem.getType());
    // Constants as attributes, so that static sizes stay in the view's type.
    auto folded = [&](ArrayRef<OpFoldResult> in) {
      SmallVector<OpFoldResult> out;
      for (OpFoldResult ofr : in) {
        std::optional<int64_t> c = getConstantIntValue(ofr);
        out.push_back(c ? OpFoldResult(b.getIndexAttr(*c)) : ofr);
      }
      return out;
    };
    SmallVector<OpFoldResult> offsets = folded(offsetsIn),
                              sizes = folded(sizesIn);
    // A static offset must lie inside its dim, so the offset 0 of a dim of
    // static size 0 (an empty sequence or head dim) stays an SSA value.
    for (auto [d, offset] : llvm::enumerate(offsets))
      if (type.getDimSize(d) == 0)
        if (auto attr = dyn_cast<Attribute>(offset))
          offset = idx(cast<IntegerAttr>(attr).getInt());
    SmallVector<int64_t> shape;
    for (OpFoldResult size : ArrayRef(sizes).drop_front(dropped))
      shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
    SmallVector<OpFoldResult> strides(sizes.size(), b.getIndexAttr(1));
    auto viewType = memref::SubViewOp::inferRankReducedResultType(
        shape, type, offsets, sizes, strides);
    return memref::SubViewOp::create(b, loc, viewType, mem, offsets, sizes,
                                     strides);
  }
  void fill(Value mem, float value) {
    linalg::FillOp::create(b, loc, ValueRange{f32(value)}, ValueRange{mem});
  }
  void generic(ValueRange inputs, ValueRange outputs, ArrayRef<AffineMap> maps,
               ArrayRef<IteratorType> iterators,
               function_ref<void(OpBuilder &, Location, ValueRange)> body) {
    linalg::GenericOp::create(b, loc, TypeRange{}, inputs, outputs, maps,
                              iterators, body);
  }
};

/// The maps of a product over (d0, d1, d2) reducing d2.
struct ProductMaps {
  AffineMap lhs, rhs, acc;
};

/// acc[d0, d1] += lhs * rhs summed over d2, in f32. `roundLhs` (or null) is
/// the type lhs (f32) is rounded to first: P and dS enter their products in
/// the input element type, as on the GPU.
void accumulateProduct(Emitter &e, Value lhs, Value rhs, Value acc,
                       ProductMaps maps, Type roundLhs) {
  e.generic(ValueRange{lhs, rhs}, acc, {maps.lhs, maps.rhs, maps.acc},
            {IteratorType::parallel, IteratorType::parallel,
             IteratorType::reduction},
            [&](OpBuilder &b, Location loc, ValueRange args) {
              Value x = args[0];
              if (roundLhs && !roundLhs.isF32())
                x = emitExtToF32(b, loc, emitTruncFromF32(b, loc, x, roundLhs));
              else
                x = emitExtToF32(b, loc, x);
              Value y = emitExtToF32(b, loc, args[1]);
              Value prod = arith::MulFOp::create(b, loc, x, y);
              Value sum = arith::AddFOp::create(b, loc, args[2], prod);
              linalg::YieldOp::create(b, loc, sum);
            });
}

/// Everything the tiles of one op share.
struct GradContext {
  AttentionGradOp op;
  Type elemType;
  int64_t blockM, blockN;
  float scale, softcap;
  int64_t windowLeft, windowRight;
  Value seqQ, seqK, offset, group;
  // Scratch: [blockM, blockN] scores, probabilities and dP / dS; per (batch,
  // KV head) D [group, seq_q] and the dQ accumulator [group, seq_q, d];
  // per KV tile the dK and dV accumulators [blockN, d].
  Value scores, probs, gradScores, delta, gradQueryAcc, gradKeyAcc,
      gradValueAcc;
  ProductMaps rowsByCols, colsByRowsT, rowsByColsT;
};

/// One KV tile of one (batch, KV head).
struct KVTile {
  Value batch, kvHead, firstKey, keys;
  Value key, value;           // [keys, d] views of K and V
  Value gradKey, gradValue;   // [keys, d] views of the accumulators
};

/// P = exp(S - LSE) for one (Q tile, KV tile), S = scale * Q K^T (or its
/// softcap), under the forward's mask when `masked`; 0 for rows with LSE =
/// -inf. `scores` holds Q K^T unscaled.
void emitProbabilities(Emitter &e, const GradContext &ctx, const KVTile &kv,
                       Value firstRow, Value scores, Value lse, Value probs,
                       bool masked) {
  MLIRContext *mctx = e.b.getContext();
  AffineExpr i, j;
  bindDims(mctx, i, j);
  auto tile = AffineMap::get(2, 0, {i, j}, mctx);
  auto row = AffineMap::get(2, 0, {i}, mctx);
  e.generic(
      ValueRange{scores, lse}, probs, {tile, row, tile},
      {IteratorType::parallel, IteratorType::parallel},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Emitter e{b, loc};
        Value s = arith::MulFOp::create(b, loc, args[0], e.f32(ctx.scale));
        if (ctx.softcap > 0) {
          Value t = math::TanhOp::create(
              b, loc, arith::MulFOp::create(b, loc, s, e.f32(1 / ctx.softcap)));
          s = arith::MulFOp::create(b, loc, t, e.f32(ctx.softcap));
        }
        Value diff = arith::SubFOp::create(b, loc, s, args[1]);
        Value x = arith::MulFOp::create(b, loc, diff, e.f32(kLog2E));
        Value p = math::Exp2Op::create(b, loc, x);
        Value keep = arith::CmpFOp::create(
            b, loc, arith::CmpFPredicate::OGT, args[1],
            e.f32(-std::numeric_limits<float>::infinity()));
        if (masked) {
          Value qi = arith::AddIOp::create(b, loc, firstRow,
                                           linalg::IndexOp::create(b, loc, 0));
          Value kj = arith::AddIOp::create(b, loc, kv.firstKey,
                                           linalg::IndexOp::create(b, loc, 1));
          keep = arith::AndIOp::create(
              b, loc, keep,
              buildKeyVisible(b, loc, qi, kj, ctx.offset, ctx.seqK,
                              ctx.windowLeft, ctx.windowRight));
        }
        linalg::YieldOp::create(
            b, loc,
            arith::SelectOp::create(b, loc, keep, p, e.f32(0.0f)).getResult());
      });
}

/// dS = P * (dP - D), times the softcap's derivative 1 - tanh^2; written
/// over dP in `grad`.
void emitGradScores(Emitter &e, const GradContext &ctx, Value scores,
                    Value probs, Value delta, Value grad) {
  MLIRContext *mctx = e.b.getContext();
  AffineExpr i, j;
  bindDims(mctx, i, j);
  auto tile = AffineMap::get(2, 0, {i, j}, mctx);
  auto row = AffineMap::get(2, 0, {i}, mctx);
  SmallVector<Value> inputs = {probs, delta};
  SmallVector<AffineMap> maps = {tile, row};
  if (ctx.softcap > 0) {
    inputs.push_back(scores);
    maps.push_back(tile);
  }
  maps.push_back(tile);
  e.generic(inputs, grad, maps,
            {IteratorType::parallel, IteratorType::parallel},
            [&](OpBuilder &b, Location loc, ValueRange args) {
              Emitter e{b, loc};
              Value dp = args.back();
              Value ds = arith::MulFOp::create(
                  b, loc, args[0], arith::SubFOp::create(b, loc, dp, args[1]));
              if (ctx.softcap > 0) {
                Value t = math::TanhOp::create(
                    b, loc,
                    arith::MulFOp::create(b, loc, args[2],
                                          e.f32(ctx.scale / ctx.softcap)));
                Value square = arith::MulFOp::create(b, loc, t, t);
                Value slope =
                    arith::SubFOp::create(b, loc, e.f32(1.0f), square);
                ds = arith::MulFOp::create(b, loc, ds, slope);
              }
              linalg::YieldOp::create(b, loc, ds);
            });
}

/// The contribution of Q tile `qTile` of query head `head` (member `member`
/// of the KV head's group) to dK, dV of the KV tile and to dQ.
void emitQTile(Emitter &e, const GradContext &ctx, const KVTile &kv,
               Value head, Value member, Value qTile, bool masked) {
  AttentionGradOp op = ctx.op;
  Value firstRow = e.mul(qTile, e.idx(ctx.blockM));
  Value rows = e.clipped(ctx.seqQ, firstRow, ctx.blockM);
  OpFoldResult one = e.b.getIndexAttr(1), zero = e.b.getIndexAttr(0);
  auto rowsOf = [&](Value mem) {
    return e.view(mem, {kv.batch, head, firstRow, zero},
                  {one, one, rows, e.dim(mem, 3)}, 2);
  };
  Value q = rowsOf(op.getQuery()), gradOut = rowsOf(op.getGradOutput());
  Value lse = e.view(op.getLse(), {kv.batch, head, firstRow}, {one, one, rows},
                     2);
  Value delta = e.view(ctx.delta, {member, firstRow}, {one, rows}, 1);
  Value gradQuery = e.view(ctx.gradQueryAcc, {member, firstRow, zero},
                           {one, rows, e.dim(ctx.gradQueryAcc, 2)}, 1);
  auto scratch = [&](Value mem) {
    return e.view(mem, {zero, zero}, {rows, kv.keys}, 0);
  };
  Value scores = scratch(ctx.scores), probs = scratch(ctx.probs),
        gradScores = scratch(ctx.gradScores);

  // S = Q K^T, P, dP = dO V^T, dS.
  e.fill(scores, 0.0f);
  accumulateProduct(e, q, kv.key, scores, ctx.rowsByColsT, Type());
  emitProbabilities(e, ctx, kv, firstRow, scores, lse, probs, masked);
  e.fill(gradScores, 0.0f);
  accumulateProduct(e, gradOut, kv.value, gradScores, ctx.rowsByColsT, Type());
  emitGradScores(e, ctx, scores, probs, delta, gradScores);
  // dV += P^T dO; dK += dS^T Q; dQ += dS K.
  accumulateProduct(e, probs, gradOut, kv.gradValue, ctx.colsByRowsT,
                    ctx.elemType);
  accumulateProduct(e, gradScores, q, kv.gradKey, ctx.colsByRowsT,
                    ctx.elemType);
  accumulateProduct(e, gradScores, kv.key, gradQuery, ctx.rowsByCols,
                    ctx.elemType);
}

/// dst = round(src * factor) elementwise (both of rank `rank`).
void emitScaledStore(Emitter &e, Value src, Value dst, float factor,
                     int64_t rank) {
  auto id = AffineMap::getMultiDimIdentityMap(rank, e.b.getContext());
  Type elemType = cast<MemRefType>(dst.getType()).getElementType();
  e.generic(src, dst, {id, id},
            SmallVector<IteratorType>(rank, IteratorType::parallel),
            [&](OpBuilder &b, Location loc, ValueRange args) {
              Value x = args[0];
              if (factor != 1.0f)
                x = arith::MulFOp::create(b, loc, x,
                                          Emitter{b, loc}.f32(factor));
              linalg::YieldOp::create(b, loc,
                                      emitTruncFromF32(b, loc, x, elemType));
            });
}

/// One KV tile: its accumulators, the Q tiles that see it, its stores.
void emitKVTile(Emitter &e, const GradContext &ctx, Value batch, Value kvHead,
                Value kvTile) {
  AttentionGradOp op = ctx.op;
  OpFoldResult one = e.b.getIndexAttr(1), zero = e.b.getIndexAttr(0);
  KVTile kv;
  kv.batch = batch;
  kv.kvHead = kvHead;
  kv.firstKey = e.mul(kvTile, e.idx(ctx.blockN));
  kv.keys = e.clipped(ctx.seqK, kv.firstKey, ctx.blockN);
  auto keysOf = [&](Value mem) {
    return e.view(mem, {batch, kvHead, kv.firstKey, zero},
                  {one, one, kv.keys, e.dim(mem, 3)}, 2);
  };
  auto accOf = [&](Value mem) {
    return e.view(mem, {zero, zero}, {kv.keys, e.dim(mem, 1)}, 0);
  };
  kv.key = keysOf(op.getKey());
  kv.value = keysOf(op.getValue());
  kv.gradKey = accOf(ctx.gradKeyAcc);
  kv.gradValue = accOf(ctx.gradValueAcc);
  e.fill(kv.gradKey, 0.0f);
  e.fill(kv.gradValue, 0.0f);

  KVTileRange<Value> range = buildQTileRange(
      e.b, e.loc, kvTile, ctx.seqQ, ctx.seqK,
      {ctx.blockM, ctx.blockN, ctx.windowLeft, ctx.windowRight});
  Value firstHead = e.mul(kvHead, ctx.group);
  scf::ForOp::create(
      e.b, e.loc, e.idx(0), ctx.group, e.idx(1), ValueRange{},
      [&](OpBuilder &b, Location loc, Value member, ValueRange) {
        Emitter e{b, loc};
        Value head = arith::AddIOp::create(b, loc, firstHead, member);
        auto qTiles = [&](Value from, Value to, bool masked) {
          scf::ForOp::create(
              b, loc, from, to, e.idx(1), ValueRange{},
              [&](OpBuilder &b, Location loc, Value qTile, ValueRange) {
                Emitter e{b, loc};
                emitQTile(e, ctx, kv, head, member, qTile, masked);
                scf::YieldOp::create(b, loc);
              });
        };
        // The edges as the forward's KV loops: with queries and keys
        // exchanged, the first tiles are masked only below a right window
        // edge (lo == full_lo otherwise).
        if (ctx.windowRight >= 0)
          qTiles(range.lo, range.fullLo, /*masked=*/true);
        qTiles(range.fullLo, range.fullHi, /*masked=*/false);
        qTiles(range.fullHi, range.hi, /*masked=*/true);
        scf::YieldOp::create(b, loc);
      });

  auto outOf = [&](Value mem) {
    return e.view(mem, {batch, kvHead, kv.firstKey, zero},
                  {one, one, kv.keys, e.dim(mem, 3)}, 2);
  };
  emitScaledStore(e, kv.gradKey, outOf(op.getGradKey()), ctx.scale, 2);
  emitScaledStore(e, kv.gradValue, outOf(op.getGradValue()), 1.0f, 2);
}

/// D = rowsum(dO * O) for the query heads [firstHead, firstHead + group).
void emitDelta(Emitter &e, const GradContext &ctx, Value batch,
               Value firstHead) {
  AttentionGradOp op = ctx.op;
  OpFoldResult one = e.b.getIndexAttr(1), zero = e.b.getIndexAttr(0);
  auto headsOf = [&](Value mem) {
    return e.view(mem, {batch, firstHead, zero, zero},
                  {one, ctx.group, ctx.seqQ, e.dim(mem, 3)}, 1);
  };
  MLIRContext *mctx = e.b.getContext();
  AffineExpr g, i, c;
  bindDims(mctx, g, i, c);
  auto all = AffineMap::get(3, 0, {g, i, c}, mctx);
  auto rows = AffineMap::get(3, 0, {g, i}, mctx);
  e.fill(ctx.delta, 0.0f);
  e.generic(ValueRange{headsOf(op.getGradOutput()), headsOf(op.getOutput())},
            ctx.delta, {all, all, rows},
            {IteratorType::parallel, IteratorType::parallel,
             IteratorType::reduction},
            [](OpBuilder &b, Location loc, ValueRange args) {
              Value x = emitExtToF32(b, loc, args[0]);
              Value y = emitExtToF32(b, loc, args[1]);
              Value prod = arith::MulFOp::create(b, loc, x, y);
              Value sum = arith::AddFOp::create(b, loc, args[2], prod);
              linalg::YieldOp::create(b, loc, sum);
            });
}
} // namespace

LogicalResult mlir::fattn::lowerAttentionGrad(RewriterBase &rewriter,
                                              AttentionGradOp op,
                                              TileSizes sizes) {
  if (!op.hasPureBufferSemantics())
    return emitTensorFormError(op, "--fattn-lower-attention-grad");
  if (sizes.blockM <= 0 || sizes.blockN <= 0)
    return op.emitOpError() << "cannot be lowered: block sizes must be "
                               "positive, found block-m = "
                            << sizes.blockM << ", block-n = " << sizes.blockN;
  // The scratch tiles are block_m x block_n f32: keep their byte size (and
  // the allocation's size arithmetic) far from overflowing.
  constexpr int64_t kMaxTileElements = int64_t{1} << 28;
  if (sizes.blockM > kMaxTileElements / sizes.blockN)
    return op.emitOpError() << "cannot be lowered: block-m * block-n must be "
                               "at most 2^28, found block-m = "
                            << sizes.blockM << ", block-n = " << sizes.blockN;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Emitter e{rewriter, loc};
  MLIRContext *mctx = rewriter.getContext();

  GradContext ctx;
  ctx.op = op;
  ctx.elemType = op.getQuery().getType().getElementType();
  ctx.blockM = sizes.blockM;
  ctx.blockN = sizes.blockN;
  ctx.scale = op.getEffectiveScale();
  ctx.softcap = op.getEffectiveSoftcap();
  ctx.windowLeft = op.getEffectiveWindowLeft();
  ctx.windowRight = op.getEffectiveWindowRight();
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  ctx.seqQ = e.dim(q, 2);
  ctx.seqK = e.dim(k, 2);
  ctx.offset = arith::SubIOp::create(rewriter, loc, ctx.seqK, ctx.seqQ);
  // GQA: query head h reads KV head h / group.
  Value headsQ = e.dim(q, 1), headsKV = e.dim(k, 1);
  ctx.group = arith::DivUIOp::create(rewriter, loc, headsQ, headsKV);
  {
    AffineExpr d0, d1, d2;
    bindDims(mctx, d0, d1, d2);
    auto map = [&](AffineExpr x, AffineExpr y) {
      return AffineMap::get(3, 0, {x, y}, mctx);
    };
    ctx.rowsByColsT = {map(d0, d2), map(d1, d2), map(d0, d1)}; // A B^T
    ctx.colsByRowsT = {map(d2, d0), map(d2, d1), map(d0, d1)}; // A^T B
    ctx.rowsByCols = {map(d0, d2), map(d2, d1), map(d0, d1)};  // A B
  }

  Type f32 = rewriter.getF32Type();
  // Static sizes stay in the type, dynamic ones are operands.
  auto alloc = [&](ArrayRef<Value> dims) -> Value {
    SmallVector<int64_t> shape;
    SmallVector<Value> dynamic;
    for (Value d : dims) {
      shape.push_back(getConstantIntValue(d).value_or(ShapedType::kDynamic));
      if (ShapedType::isDynamic(shape.back()))
        dynamic.push_back(d);
    }
    return memref::AllocOp::create(rewriter, loc, MemRefType::get(shape, f32),
                                   dynamic);
  };
  Value blockM = e.idx(sizes.blockM), blockN = e.idx(sizes.blockN);
  Value headDim = e.dim(q, 3), headDimV = e.dim(v, 3);
  ctx.scores = alloc({blockM, blockN});
  ctx.probs = alloc({blockM, blockN});
  ctx.gradScores = alloc({blockM, blockN});
  ctx.delta = alloc({ctx.group, ctx.seqQ});
  ctx.gradQueryAcc = alloc({ctx.group, ctx.seqQ, headDim});
  ctx.gradKeyAcc = alloc({blockN, headDim});
  ctx.gradValueAcc = alloc({blockN, headDimV});

  Value zero = e.idx(0), one = e.idx(1);
  Value kvTiles = arith::CeilDivUIOp::create(rewriter, loc, ctx.seqK, blockN);
  scf::buildLoopNest(
      rewriter, loc, {zero, zero}, {e.dim(q, 0), e.dim(k, 1)}, {one, one},
      [&](OpBuilder &b, Location loc, ValueRange ivs) {
        Emitter e{b, loc};
        Value batch = ivs[0], kvHead = ivs[1];
        Value firstHead = e.mul(kvHead, ctx.group);
        emitDelta(e, ctx, batch, firstHead);
        e.fill(ctx.gradQueryAcc, 0.0f);
        scf::ForOp::create(
            b, loc, zero, kvTiles, one, ValueRange{},
            [&](OpBuilder &b, Location loc, Value kvTile, ValueRange) {
              Emitter e{b, loc};
              emitKVTile(e, ctx, batch, kvHead, kvTile);
              scf::YieldOp::create(b, loc);
            });
        OpFoldResult unit = b.getIndexAttr(1), origin = b.getIndexAttr(0);
        Value gradQuery =
            e.view(op.getGradQuery(), {batch, firstHead, origin, origin},
                   {unit, ctx.group, ctx.seqQ, headDim}, 1);
        emitScaledStore(e, ctx.gradQueryAcc, gradQuery, ctx.scale, 3);
      });
  for (Value buffer : {ctx.scores, ctx.probs, ctx.gradScores, ctx.delta,
                       ctx.gradQueryAcc, ctx.gradKeyAcc, ctx.gradValueAcc})
    memref::DeallocOp::create(rewriter, loc, buffer);
  rewriter.eraseOp(op);
  return success();
}

namespace {
/// Whether Q's or V's head dim is dynamic (the tiled form's tiles need
/// both).
bool hasDynamicHeadDim(AttentionGradOp op) {
  return ShapedType::isDynamic(op.getQuery().getType().getDimSize(3)) ||
         ShapedType::isDynamic(op.getValue().getType().getDimSize(3));
}

struct FAttnLowerAttentionGradPass
    : public fattn::impl::FAttnLowerAttentionGradBase<
          FAttnLowerAttentionGradPass> {
  using FAttnLowerAttentionGradBase::FAttnLowerAttentionGradBase;

  void runOnOperation() override {
    SmallVector<AttentionGradOp> ops;
    getOperation()->walk([&](AttentionGradOp op) {
      if (!dynamicHeadDimsOnly || hasDynamicHeadDim(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (AttentionGradOp op : ops)
      if (failed(lowerAttentionGrad(rewriter, op, {blockM, blockN})))
        return signalPassFailure();
  }
};
} // namespace
