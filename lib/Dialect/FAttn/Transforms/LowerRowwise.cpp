//===- LowerRowwise.cpp - fattn.attention -> row-wise loops ---------------===//
//
// The untiled CPU lowering, for sizes the tiled form cannot express (dynamic
// head dims): each query row walks the contiguous range of keys its mask
// shows it, with the online softmax in scalars and an f32 accumulator row.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/IR/DestinationStyle.h"
#include "fattn/Dialect/FAttn/IR/FAttnOps.h"
#include "fattn/Dialect/FAttn/Transforms/Passes.h"
#include "fattn/Dialect/FAttn/Utils/Float8Emulation.h"
#include "fattn/Dialect/FAttn/Utils/KVTileRangeBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"

#include <limits>

#define DEBUG_TYPE "fattn-lower-rowwise"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNLOWERROWWISE
#include "fattn/Dialect/FAttn/Transforms/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

namespace {
bool hasDynamicHeadDims(AttentionOp op) {
  return op.getQuery().getType().isDynamicDim(3) ||
         ShapedType::isDynamic(op.getValueHeadDim());
}

/// Index and float helpers bound to one builder and location.
struct Emitter {
  OpBuilder &b;
  Location loc;
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value f32(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value dim(Value memref, int64_t d) {
    return memref::DimOp::create(b, loc, memref, d);
  }
  /// for (i = lo; i < hi; ++i) with iter_args.
  scf::ForOp loop(Value lo, Value hi, ValueRange init,
                  function_ref<SmallVector<Value>(OpBuilder &, Location, Value,
                                                  ValueRange)>
                      body) {
    return scf::ForOp::create(
        b, loc, lo, hi, idx(1), init,
        [&](OpBuilder &nb, Location nloc, Value i, ValueRange args) {
          scf::YieldOp::create(nb, nloc, body(nb, nloc, i, args));
        });
  }
};

LogicalResult lowerRowwise(RewriterBase &rewriter, AttentionOp op) {
  if (!op.hasPureBufferSemantics())
    return emitTensorFormError(op, "--fattn-lower-rowwise");
  if (op.getQDescale())
    return op.emitOpError("with descales needs static head dims (the "
                          "row-wise lowering does not apply descales)");
  if (op.hasTransposedValue())
    return op.emitOpError("with a value_layout is tiled, not lowered row by "
                          "row (the row-wise lowering reads V by rows): give "
                          "it static head dims");
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Emitter e{rewriter, loc};
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue(),
        o = op.getOutput(), lse = op.getLse();
  Type outElem = cast<MemRefType>(o.getType()).getElementType();
  float scale = op.getEffectiveScale(), softcap = op.getEffectiveSoftcap();
  // Runtime scalars: the operand, and 1 / softcap computed once.
  Value dynamicScale = op.getDynamicScale(), dynamicSoftcap = op.getDynamicSoftcap();
  Value inverseSoftcap;
  if (dynamicSoftcap)
    inverseSoftcap = arith::DivFOp::create(rewriter, loc, e.f32(1.0f),
                                           dynamicSoftcap);
  int64_t windowLeft = op.getEffectiveWindowLeft();
  int64_t windowRight = op.getEffectiveWindowRight();

  Value zero = e.idx(0), one = e.idx(1);
  Value seqQ = e.dim(q, 2), seqK = e.dim(k, 2);
  Value headDim = e.dim(q, 3), headDimV = e.dim(v, 3);
  Value group = arith::DivUIOp::create(rewriter, loc, e.dim(q, 1), e.dim(k, 1));
  Value acc = memref::AllocOp::create(
      rewriter, loc, MemRefType::get({ShapedType::kDynamic}, rewriter.getF32Type()),
      ValueRange{headDimV});
  float inf = std::numeric_limits<float>::infinity();

  scf::buildLoopNest(
      rewriter, loc, {zero, zero, zero}, {e.dim(q, 0), e.dim(q, 1), seqQ},
      {one, one, one}, [&](OpBuilder &b, Location loc, ValueRange ivs) {
        Emitter e{b, loc};
        Value batch = ivs[0], head = ivs[1], row = ivs[2];
        Value kvHead = arith::DivUIOp::create(b, loc, head, group);
        // Keys [lo, hi) are visible: the KV tile range of a one-row Q tile
        // with one-key tiles is exactly the row's window, clipped to seq_k.
        KVTileRange<Value> range = buildKVTileRange(
            b, loc, row, seqQ, seqK, {1, 1, windowLeft, windowRight});
        Value lo = range.lo, hi = range.hi;

        e.loop(zero, headDimV, {}, [&](OpBuilder &b, Location loc, Value c,
                                       ValueRange) {
          memref::StoreOp::create(b, loc, Emitter{b, loc}.f32(0.0f), acc, c);
          return SmallVector<Value>{};
        });
        auto keys = e.loop(
            lo, hi, {e.f32(-inf), e.f32(0.0f)},
            [&](OpBuilder &b, Location loc, Value key, ValueRange state) {
              Emitter e{b, loc};
              auto dot = e.loop(
                  zero, headDim, {e.f32(0.0f)},
                  [&](OpBuilder &b, Location loc, Value d, ValueRange sum) {
                    Value x = emitExtToF32(
                        b, loc,
                        memref::LoadOp::create(b, loc, q,
                                               ValueRange{batch, head, row, d}));
                    Value y = emitExtToF32(
                        b, loc,
                        memref::LoadOp::create(
                            b, loc, k, ValueRange{batch, kvHead, key, d}));
                    Value prod = arith::MulFOp::create(b, loc, x, y);
                    return SmallVector<Value>{
                        arith::AddFOp::create(b, loc, sum[0], prod)};
                  });
              Value s = arith::MulFOp::create(
                  b, loc, dot.getResult(0),
                  dynamicScale ? dynamicScale : e.f32(scale));
              if (dynamicSoftcap) {
                Value t = math::TanhOp::create(
                    b, loc, arith::MulFOp::create(b, loc, s, inverseSoftcap));
                s = arith::MulFOp::create(b, loc, t, dynamicSoftcap);
              } else if (softcap > 0) {
                Value t = math::TanhOp::create(
                    b, loc, arith::MulFOp::create(b, loc, s, e.f32(1 / softcap)));
                s = arith::MulFOp::create(b, loc, t, e.f32(softcap));
              }
              // Every key here is visible, so newMax is finite; exp(-inf) = 0
              // scales the empty state away on the first key.
              Value newMax = arith::MaxNumFOp::create(b, loc, state[0], s);
              Value alpha = math::ExpOp::create(
                  b, loc, arith::SubFOp::create(b, loc, state[0], newMax));
              Value p = math::ExpOp::create(
                  b, loc, arith::SubFOp::create(b, loc, s, newMax));
              Value newSum = arith::AddFOp::create(
                  b, loc, arith::MulFOp::create(b, loc, state[1], alpha), p);
              e.loop(zero, headDimV, {}, [&](OpBuilder &b, Location loc,
                                             Value c, ValueRange) {
                Value a = memref::LoadOp::create(b, loc, acc, c);
                Value vc = emitExtToF32(
                    b, loc,
                    memref::LoadOp::create(b, loc, v,
                                           ValueRange{batch, kvHead, key, c}));
                Value updated = arith::AddFOp::create(
                    b, loc, arith::MulFOp::create(b, loc, a, alpha),
                    arith::MulFOp::create(b, loc, p, vc));
                memref::StoreOp::create(b, loc, updated, acc, c);
                return SmallVector<Value>{};
              });
              return SmallVector<Value>{newMax, newSum};
            });
        Value max = keys.getResult(0), sum = keys.getResult(1);
        Value seen = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                           sum, e.f32(0.0f));
        e.loop(zero, headDimV, {}, [&](OpBuilder &b, Location loc, Value c,
                                       ValueRange) {
          Value a = memref::LoadOp::create(b, loc, acc, c);
          Value out = arith::SelectOp::create(
              b, loc, seen, arith::DivFOp::create(b, loc, a, sum),
              Emitter{b, loc}.f32(0.0f));
          memref::StoreOp::create(b, loc, emitTruncFromF32(b, loc, out, outElem),
                                  o, ValueRange{batch, head, row, c});
          return SmallVector<Value>{};
        });
        if (lse) {
          Value value = arith::AddFOp::create(b, loc, max,
                                              math::LogOp::create(b, loc, sum));
          Value result =
              arith::SelectOp::create(b, loc, seen, value, e.f32(-inf));
          memref::StoreOp::create(b, loc, result, lse,
                                  ValueRange{batch, head, row});
        }
      });
  memref::DeallocOp::create(rewriter, loc, acc);
  rewriter.eraseOp(op);
  return success();
}

struct FAttnLowerRowwisePass
    : public fattn::impl::FAttnLowerRowwiseBase<FAttnLowerRowwisePass> {
  using FAttnLowerRowwiseBase::FAttnLowerRowwiseBase;

  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    getOperation()->walk([&](AttentionOp op) {
      if (!dynamicHeadDimsOnly || hasDynamicHeadDims(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (AttentionOp op : ops)
      if (failed(lowerRowwise(rewriter, op)))
        return signalPassFailure();
  }
};
} // namespace
