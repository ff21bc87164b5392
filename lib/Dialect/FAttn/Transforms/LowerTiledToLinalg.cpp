//===- LowerTiledToLinalg.cpp - tiled form -> scf + linalg on tensors -----===//
//
// The target-independent execution of the tiled online-softmax form. Each
// tile op becomes linalg.generic ops on tensors with the same numerics as the
// GPU kernels (f32 accumulation, exp2 with the scale folded in, P converted
// to the element type of V before the second product); one-shot
// bufferization and the standard lowerings then take it to LLVM.
//
//===----------------------------------------------------------------------===//

#include "CPUKernel.h"
#include "fattn/Dialect/FAttn/Transforms/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/Transforms.h"
#include "fattn/Dialect/FAttn/Utils/Float8Emulation.h"
#include "fattn/Dialect/FAttn/Utils/KVTileRangeBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <limits>

#define DEBUG_TYPE "fattn-lower-tiled-to-linalg"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNLOWERTILEDTOLINALG
#include "fattn/Dialect/FAttn/Transforms/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

namespace {
using utils::IteratorType;
constexpr float kLog2E = 1.4426950408889634f;

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

Value f32Const(OpBuilder &b, Location loc, float value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

Value negInf(OpBuilder &b, Location loc) {
  return f32Const(b, loc, -std::numeric_limits<float>::infinity());
}

/// A tensor of `type` filled with `value`.
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   float value) {
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  Value cst = isa<Float8E4M3FNType>(type.getElementType())
                  ? emitF32ToF8E4M3FN(b, loc, f32Const(b, loc, value))
                  : arith::ConstantOp::create(
                        b, loc, b.getFloatAttr(type.getElementType(), value));
  return linalg::FillOp::create(b, loc, cst, empty).getResult(0);
}

Value emptyLike(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

/// Maps of a rank-2 iteration space (i, j): the whole tile and its rows.
struct TileMaps {
  AffineMap tile, row;
  explicit TileMaps(MLIRContext *ctx) {
    AffineExpr i, j;
    bindDims(ctx, i, j);
    tile = AffineMap::get(2, 0, {i, j}, ctx);
    row = AffineMap::get(2, 0, {i}, ctx);
  }
};

/// Elementwise generic over an M x N tile: inputs and outputs are given with
/// their maps (tile or row).
linalg::GenericOp
tileGeneric(OpBuilder &b, Location loc, TypeRange results, ValueRange inputs,
            ValueRange outputs, ArrayRef<AffineMap> maps,
            ArrayRef<IteratorType> iterators,
            function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  return linalg::GenericOp::create(b, loc, results, inputs, outputs, maps,
                                   iterators, body);
}

//===----------------------------------------------------------------------===//
// Grid and memory
//===----------------------------------------------------------------------===//

/// Moves `op` into a new private function (a CPU "kernel", marked with
/// kCPUKernelAttrName) whose body is the loop nest (batch, head, q_tile) over
/// the grid, and calls it in place of `op` (CPUKernel.h).
void outlineTiledAttention(TiledAttentionOp op, SymbolTable &symbolTable) {
  int64_t blockM = op.getBlockM();
  // Q is the op's first operand.
  auto extents = [&](OpBuilder &b, Location loc, ValueRange args) {
    return buildGridExtents(b, loc, args[0], blockM);
  };
  outlineCPUKernel(op, "fattn_cpu_kernel", {{&op.getBody(), extents}},
                   symbolTable);
}

/// How many of the `count` indices from `first` on lie below dim `dim` of
/// `mem`: clamp(size - first, 0, count).
Value clippedCount(OpBuilder &b, Location loc, Value mem, int64_t dim,
                   Value first, int64_t count) {
  Value size = memref::DimOp::create(b, loc, mem, dim);
  Value left = arith::SubIOp::create(b, loc, size, first);
  Value inside = arith::MinSIOp::create(
      b, loc, left, arith::ConstantIndexOp::create(b, loc, count));
  return arith::MaxSIOp::create(b, loc, inside,
                                arith::ConstantIndexOp::create(b, loc, 0));
}

/// The rows [row, row + tileRows) of `mem[batch, head]` clipped to the
/// sequence, as a rank-reduced subview, and the clipped row count.
std::pair<Value, Value> clippedRows(OpBuilder &b, Location loc, Value mem,
                                    Value batch, Value head, Value row,
                                    RankedTensorType tile) {
  auto memType = cast<MemRefType>(mem.getType());
  Value rows = clippedCount(b, loc, mem, 2, row, tile.getDimSize(0));

  SmallVector<OpFoldResult> offsets = {batch, head, row};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(1),
                                     rows};
  SmallVector<int64_t> shape = {ShapedType::kDynamic};
  if (tile.getRank() == 2) {
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(tile.getDimSize(1)));
    shape.push_back(tile.getDimSize(1));
  }
  SmallVector<OpFoldResult> strides(memType.getRank(), b.getIndexAttr(1));
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      shape, memType, offsets, sizes, strides);
  Value view =
      memref::SubViewOp::create(b, loc, viewType, mem, offsets, sizes, strides);
  return {view, rows};
}

/// Offsets, sizes and strides of the first `rows` rows of a tile.
void leadingRows(OpBuilder &b, RankedTensorType tile, Value rows,
                 SmallVectorImpl<OpFoldResult> &offsets,
                 SmallVectorImpl<OpFoldResult> &sizes,
                 SmallVectorImpl<OpFoldResult> &strides) {
  offsets.assign(tile.getRank(), b.getIndexAttr(0));
  strides.assign(tile.getRank(), b.getIndexAttr(1));
  sizes.assign({rows});
  if (tile.getRank() == 2)
    sizes.push_back(b.getIndexAttr(tile.getDimSize(1)));
}

/// A `transposed` load: the D x R tile of columns [col, col + R) of
/// mem[batch, head] ([.., D, keys]), as the view of the columns that exist
/// and their count.
std::pair<Value, Value> clippedColumns(OpBuilder &b, Location loc, Value mem,
                                       Value batch, Value head, Value col,
                                       RankedTensorType tile) {
  auto memType = cast<MemRefType>(mem.getType());
  Value cols = clippedCount(b, loc, mem, 3, col, tile.getDimSize(1));
  SmallVector<OpFoldResult> offsets = {batch, head, b.getIndexAttr(0), col};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(1),
                                     b.getIndexAttr(tile.getDimSize(0)), cols};
  SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      {tile.getDimSize(0), ShapedType::kDynamic}, memType, offsets, sizes,
      strides);
  Value view =
      memref::SubViewOp::create(b, loc, viewType, mem, offsets, sizes, strides);
  return {view, cols};
}

/// Rows past the sequence (columns past the keys of a transposed load) read
/// as zero: the tile starts zero-filled and the clipped part is inserted.
struct LowerLoadTile : OpRewritePattern<LoadTileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LoadTileOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType tile = tensorType(op.getResult());
    Value view;
    SmallVector<OpFoldResult> offsets, sizes, strides;
    if (op.getTransposed()) {
      auto [columns, count] =
          clippedColumns(rewriter, loc, op.getSource(), op.getBatch(),
                         op.getHead(), op.getRow(), tile);
      view = columns;
      offsets.assign(2, rewriter.getIndexAttr(0));
      sizes = {rewriter.getIndexAttr(tile.getDimSize(0)), count};
      strides.assign(2, rewriter.getIndexAttr(1));
    } else {
      auto [rows, count] =
          clippedRows(rewriter, loc, op.getSource(), op.getBatch(),
                      op.getHead(), op.getRow(), tile);
      view = rows;
      leadingRows(rewriter, tile, count, offsets, sizes, strides);
    }
    auto viewType = cast<MemRefType>(view.getType());
    auto partType =
        RankedTensorType::get(viewType.getShape(), tile.getElementType());
    // The inputs are only read, so the tensor may be marked restrict.
    Value part = bufferization::ToTensorOp::create(rewriter, loc, partType,
                                                   view, /*restrict=*/true);
    Value full = filledTensor(rewriter, loc, tile, 0.0f);
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(op, part, full, offsets,
                                                       sizes, strides);
    return success();
  }
};

/// Only the rows inside the sequence are written.
struct LowerStoreTile : OpRewritePattern<StoreTileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StoreTileOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType tile = tensorType(op.getTile());
    auto [view, rows] = clippedRows(rewriter, loc, op.getDest(), op.getBatch(),
                                    op.getHead(), op.getRow(), tile);
    SmallVector<OpFoldResult> offsets, sizes, strides;
    leadingRows(rewriter, tile, rows, offsets, sizes, strides);
    Value part = tensor::ExtractSliceOp::create(rewriter, loc, op.getTile(),
                                                offsets, sizes, strides);
    bufferization::MaterializeInDestinationOp::create(
        rewriter, loc, /*result=*/Type(), part, view, /*restrict=*/true,
        /*writable=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Each row's factor is a load: the single value, [batch, head], or
/// [batch, head, min(row / block, blocks - 1)].
struct LowerLoadDescale : OpRewritePattern<LoadDescaleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LoadDescaleOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value source = op.getSource();
    int64_t rank = op.getSource().getType().getRank();
    std::optional<int64_t> block = op.getBlock();
    rewriter.replaceOpWithNewOp<tensor::GenerateOp>(
        op, op.getResult().getType(), ValueRange{},
        [&](OpBuilder &b, Location loc, ValueRange idx) {
          SmallVector<Value> indices;
          if (rank >= 2)
            indices = {op.getBatch(), op.getHead()};
          if (rank == 3) {
            Value row = arith::AddIOp::create(b, loc, op.getRow(), idx[0]);
            Value blockIdx = arith::DivUIOp::create(
                b, loc, row, arith::ConstantIndexOp::create(b, loc, *block));
            Value blocks = memref::DimOp::create(b, loc, source, 2);
            Value last = arith::SubIOp::create(
                b, loc, blocks, arith::ConstantIndexOp::create(b, loc, 1));
            indices.push_back(arith::MinUIOp::create(b, loc, blockIdx, last));
          }
          tensor::YieldOp::create(
              b, loc,
              memref::LoadOp::create(b, loc, source, indices).getResult());
        });
    return success();
  }
};

struct LowerKVTileRange : OpRewritePattern<KVTileRangeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(KVTileRangeOp op,
                                PatternRewriter &rewriter) const override {
    KVTileRangeParams params{static_cast<int64_t>(op.getBlockM()),
                             static_cast<int64_t>(op.getBlockN()),
                             static_cast<int64_t>(op.getWindowLeft()),
                             static_cast<int64_t>(op.getWindowRight())};
    KVTileRange<Value> range =
        buildKVTileRange(rewriter, op.getLoc(), op.getQTile(), op.getSeqQ(),
                         op.getSeqK(), params);
    rewriter.replaceOp(op, {range.lo, range.fullLo, range.fullHi, range.hi});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Tile math
//===----------------------------------------------------------------------===//

struct LowerMma : OpRewritePattern<MmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MmaOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType result = tensorType(op.getResult());
    Value init =
        op.getAcc() ? op.getAcc() : filledTensor(rewriter, loc, result, 0.0f);
    AffineExpr m, n, k;
    bindDims(ctx, m, n, k);
    AffineMap lhsMap = AffineMap::get(3, 0, {m, k}, ctx);
    AffineMap rhsMap = op.getTransposeRhs() ? AffineMap::get(3, 0, {n, k}, ctx)
                                            : AffineMap::get(3, 0, {k, n}, ctx);
    AffineMap outMap = AffineMap::get(3, 0, {m, n}, ctx);
    SmallVector<Value> inputs = {op.getLhs(), op.getRhs()};
    SmallVector<AffineMap> maps = {lhsMap, rhsMap};
    // Row scales: lhs rows are m; rhs rows (as stored) are n when transposed,
    // k otherwise.
    if (Value scale = op.getLhsScale()) {
      inputs.push_back(scale);
      maps.push_back(AffineMap::get(3, 0, {m}, ctx));
    }
    if (Value scale = op.getRhsScale()) {
      inputs.push_back(scale);
      maps.push_back(AffineMap::get(3, 0, {op.getTransposeRhs() ? n : k}, ctx));
    }
    maps.push_back(outMap);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, result, inputs, init, maps,
        {IteratorType::parallel, IteratorType::parallel,
         IteratorType::reduction},
        [](OpBuilder &b, Location loc, ValueRange args) {
          // Sequenced so that the IR does not depend on argument evaluation
          // order.
          Value lhs = emitExtToF32(b, loc, args[0]);
          Value rhs = emitExtToF32(b, loc, args[1]);
          Value prod = arith::MulFOp::create(b, loc, lhs, rhs);
          for (Value scale : args.drop_front(2).drop_back())
            prod = arith::MulFOp::create(b, loc, prod, scale);
          Value sum = arith::AddFOp::create(b, loc, args.back(), prod);
          linalg::YieldOp::create(b, loc, sum);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct LowerMask : OpRewritePattern<MaskOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaskOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = tensorType(op.getScores());
    TileMaps maps(rewriter.getContext());
    int64_t windowLeft = op.getWindowLeft(), windowRight = op.getWindowRight();
    Value offset =
        arith::SubIOp::create(rewriter, loc, op.getSeqK(), op.getSeqQ());
    Value row = op.getRow(), col = op.getCol(), seqK = op.getSeqK();
    auto generic = tileGeneric(
        rewriter, loc, type, op.getScores(), emptyLike(rewriter, loc, type),
        {maps.tile, maps.tile},
        {IteratorType::parallel, IteratorType::parallel},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value qi = arith::AddIOp::create(b, loc, row,
                                           linalg::IndexOp::create(b, loc, 0));
          Value kj = arith::AddIOp::create(b, loc, col,
                                           linalg::IndexOp::create(b, loc, 1));
          Value visible = buildKeyVisible(b, loc, qi, kj, offset, seqK,
                                          windowLeft, windowRight);
          Value masked =
              arith::SelectOp::create(b, loc, visible, args[0], negInf(b, loc));
          linalg::YieldOp::create(b, loc, masked);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// A scalar factor of a tile op's elementwise body: a constant, built in the
/// body where it is used (`constant`), or a value computed once before the
/// op from its runtime operands (`dynamic`).
struct TileScalar {
  float constant = 0.0f;
  Value dynamic;

  Value in(OpBuilder &b, Location loc) const {
    return dynamic ? dynamic : f32Const(b, loc, constant);
  }
};

/// `factor` times the op's scale: its attribute or its operand.
TileScalar scaledBy(OpBuilder &b, Location loc, FloatAttr scale,
                    Value dynamicScale, float factor) {
  if (!dynamicScale)
    return {static_cast<float>(scale.getValueAsDouble()) * factor, Value()};
  if (factor == 1.0f)
    return {0.0f, dynamicScale};
  return {0.0f,
          arith::MulFOp::create(b, loc, dynamicScale, f32Const(b, loc, factor))};
}

struct LowerSoftcap : OpRewritePattern<SoftcapOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftcapOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = tensorType(op.getScores());
    TileMaps maps(rewriter.getContext());
    // softcap * tanh(s * inner), inner = scale / softcap.
    TileScalar cap = scaledBy(rewriter, loc, op.getSoftcapAttr(),
                              op.getDynamicSoftcap(), 1.0f);
    TileScalar inner;
    if (cap.dynamic || op.getDynamicScale()) {
      Value scale = scaledBy(rewriter, loc, op.getScaleAttr(),
                             op.getDynamicScale(), 1.0f)
                        .in(rewriter, loc);
      inner.dynamic = arith::DivFOp::create(rewriter, loc, scale,
                                            cap.in(rewriter, loc));
    } else {
      inner.constant = static_cast<float>(op.getScaleAttr().getValueAsDouble()) /
                       cap.constant;
    }
    auto generic = tileGeneric(
        rewriter, loc, type, op.getScores(), emptyLike(rewriter, loc, type),
        {maps.tile, maps.tile},
        {IteratorType::parallel, IteratorType::parallel},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value x = arith::MulFOp::create(b, loc, args[0], inner.in(b, loc));
          Value t = math::TanhOp::create(b, loc, x);
          linalg::YieldOp::create(
              b, loc,
              arith::MulFOp::create(b, loc, t, cap.in(b, loc)).getResult());
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct LowerSoftmaxInit : OpRewritePattern<SoftmaxInitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxInitOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    float inf = std::numeric_limits<float>::infinity();
    rewriter.replaceOp(
        op, {filledTensor(rewriter, loc, tensorType(op.getMax()), -inf),
             filledTensor(rewriter, loc, tensorType(op.getSum()), 0.0f),
             filledTensor(rewriter, loc, tensorType(op.getAcc()), 0.0f)});
    return success();
  }
};

/// The max that probabilities are taken against: 0 for rows that have seen
/// no key yet, so exp2(-inf - m) stays 0 instead of NaN.
Value safeMax(OpBuilder &b, Location loc, Value max) {
  Value isNegInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, max,
                                         negInf(b, loc));
  return arith::SelectOp::create(b, loc, isNegInf, f32Const(b, loc, 0.0f), max);
}

struct LowerSoftmaxUpdate : OpRewritePattern<SoftmaxUpdateOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxUpdateOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileMaps maps(rewriter.getContext());
    RankedTensorType scoresType = tensorType(op.getScores());
    RankedTensorType rowType = tensorType(op.getMax());
    Type probsElemType = tensorType(op.getProbs()).getElementType();
    TileScalar scaleLog2 = scaledBy(rewriter, loc, op.getScaleAttr(),
                                    op.getDynamicScale(), kLog2E);
    SmallVector<IteratorType> elementwise = {IteratorType::parallel,
                                             IteratorType::parallel};
    SmallVector<IteratorType> rowReduction = {IteratorType::parallel,
                                              IteratorType::reduction};

    // new_max = max(m, rowmax(s)).
    Value newMax =
        tileGeneric(rewriter, loc, rowType, op.getScores(), op.getMax(),
                    {maps.tile, maps.row}, rowReduction,
                    [](OpBuilder &b, Location loc, ValueRange args) {
                      linalg::YieldOp::create(
                          b, loc,
                          arith::MaxNumFOp::create(b, loc, args[0], args[1])
                              .getResult());
                    })
            .getResult(0);

    // p = exp2(scale * log2(e) * (s - new_max)), in f32.
    Value probs =
        tileGeneric(
            rewriter, loc, scoresType, ValueRange{op.getScores(), newMax},
            emptyLike(rewriter, loc, scoresType),
            {maps.tile, maps.row, maps.tile}, elementwise,
            [&](OpBuilder &b, Location loc, ValueRange args) {
              Value diff = arith::SubFOp::create(b, loc, args[0],
                                                 safeMax(b, loc, args[1]));
              Value x =
                  arith::MulFOp::create(b, loc, diff, scaleLog2.in(b, loc));
              linalg::YieldOp::create(
                  b, loc, math::Exp2Op::create(b, loc, x).getResult());
            })
            .getResult(0);

    // rowsum(p), over the f32 probabilities.
    Value rowSum =
        tileGeneric(
            rewriter, loc, rowType, probs,
            filledTensor(rewriter, loc, rowType, 0.0f), {maps.tile, maps.row},
            rowReduction,
            [](OpBuilder &b, Location loc, ValueRange args) {
              linalg::YieldOp::create(
                  b, loc,
                  arith::AddFOp::create(b, loc, args[0], args[1]).getResult());
            })
            .getResult(0);

    // alpha = exp2(scale * log2(e) * (m - new_max)) (1 while new_max = -inf);
    // new_sum = alpha * l + rowsum.
    AffineMap vec = AffineMap::getMultiDimIdentityMap(1, rewriter.getContext());
    auto rowUpdate = linalg::GenericOp::create(
        rewriter, loc, TypeRange{rowType, rowType},
        ValueRange{op.getMax(), newMax, op.getSum(), rowSum},
        ValueRange{emptyLike(rewriter, loc, rowType),
                   emptyLike(rewriter, loc, rowType)},
        SmallVector<AffineMap>(6, vec), {IteratorType::parallel},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value diff =
              arith::SubFOp::create(b, loc, args[0], safeMax(b, loc, args[1]));
          Value x = arith::MulFOp::create(b, loc, diff, scaleLog2.in(b, loc));
          Value alpha = math::Exp2Op::create(b, loc, x);
          Value newSum = arith::AddFOp::create(
              b, loc, arith::MulFOp::create(b, loc, alpha, args[2]), args[3]);
          linalg::YieldOp::create(b, loc, ValueRange{alpha, newSum});
        });

    if (!probsElemType.isF32()) {
      RankedTensorType narrow = tensorType(op.getProbs());
      probs =
          tileGeneric(
              rewriter, loc, narrow, probs, emptyLike(rewriter, loc, narrow),
              {maps.tile, maps.tile}, elementwise,
              [&](OpBuilder &b, Location loc, ValueRange args) {
                linalg::YieldOp::create(
                    b, loc, emitTruncFromF32(b, loc, args[0], probsElemType));
              })
              .getResult(0);
    }
    rewriter.replaceOp(
        op, {probs, newMax, rowUpdate.getResult(1), rowUpdate.getResult(0)});
    return success();
  }
};

struct LowerRescale : OpRewritePattern<RescaleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RescaleOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileMaps maps(rewriter.getContext());
    RankedTensorType type = tensorType(op.getAcc());
    auto generic = tileGeneric(
        rewriter, loc, type, ValueRange{op.getAcc(), op.getAlpha()},
        emptyLike(rewriter, loc, type), {maps.tile, maps.row, maps.tile},
        {IteratorType::parallel, IteratorType::parallel},
        [](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(
              b, loc,
              arith::MulFOp::create(b, loc, args[0], args[1]).getResult());
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct LowerFinalize : OpRewritePattern<FinalizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FinalizeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileMaps maps(rewriter.getContext());
    RankedTensorType outType = tensorType(op.getOutput());
    RankedTensorType rowType = tensorType(op.getMax());
    Type outElemType = outType.getElementType();
    TileScalar scale =
        scaledBy(rewriter, loc, op.getScaleAttr(), op.getDynamicScale(), 1.0f);
    auto hasKeys = [](OpBuilder &b, Location loc, Value sum) {
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, sum,
                                   f32Const(b, loc, 0.0f));
    };

    // O = acc / l, or 0 for rows that saw no key.
    Value out =
        tileGeneric(
            rewriter, loc, outType, ValueRange{op.getAcc(), op.getSum()},
            emptyLike(rewriter, loc, outType), {maps.tile, maps.row, maps.tile},
            {IteratorType::parallel, IteratorType::parallel},
            [&](OpBuilder &b, Location loc, ValueRange args) {
              Value div = arith::DivFOp::create(b, loc, args[0], args[1]);
              Value o =
                  arith::SelectOp::create(b, loc, hasKeys(b, loc, args[1]), div,
                                          f32Const(b, loc, 0.0f));
              linalg::YieldOp::create(b, loc,
                                      emitTruncFromF32(b, loc, o, outElemType));
            })
            .getResult(0);

    // LSE = scale * m + log(l), or -inf.
    AffineMap vec = AffineMap::getMultiDimIdentityMap(1, rewriter.getContext());
    Value lse =
        linalg::GenericOp::create(
            rewriter, loc, rowType, ValueRange{op.getMax(), op.getSum()},
            emptyLike(rewriter, loc, rowType), {vec, vec, vec},
            {IteratorType::parallel},
            [&](OpBuilder &b, Location loc, ValueRange args) {
              Value scaled =
                  arith::MulFOp::create(b, loc, args[0], scale.in(b, loc));
              Value value = arith::AddFOp::create(
                  b, loc, scaled, math::LogOp::create(b, loc, args[1]));
              Value lse = arith::SelectOp::create(
                  b, loc, hasKeys(b, loc, args[1]), value, negInf(b, loc));
              linalg::YieldOp::create(b, loc, lse);
            })
            .getResult(0);
    rewriter.replaceOp(op, {out, lse});
    return success();
  }
};

struct FAttnLowerTiledToLinalgPass
    : public fattn::impl::FAttnLowerTiledToLinalgBase<
          FAttnLowerTiledToLinalgPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbolTable(module);
    SmallVector<TiledAttentionOp> grids;
    module.walk([&](TiledAttentionOp op) { grids.push_back(op); });
    for (TiledAttentionOp op : grids) {
      if (!op->getParentOfType<func::FuncOp>()) {
        op.emitOpError("must be inside a func.func to be lowered");
        return signalPassFailure();
      }
      outlineTiledAttention(op, symbolTable);
    }

    RewritePatternSet patterns(&getContext());
    populateLowerTiledToLinalgPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    WalkResult leftover = getOperation()->walk([](Operation *op) {
      if (isa<FAttnDialect>(op->getDialect())) {
        op->emitOpError("was not lowered by fattn-lower-tiled-to-linalg");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (leftover.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace

void mlir::fattn::populateLowerTiledToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<LowerLoadDescale, LowerLoadTile, LowerStoreTile, LowerKVTileRange,
           LowerMma, LowerMask, LowerSoftcap, LowerSoftmaxInit,
           LowerSoftmaxUpdate, LowerRescale, LowerFinalize>(
          patterns.getContext());
}
