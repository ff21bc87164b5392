//===- LowerTiledGradToLinalg.cpp - tiled backward -> scf + linalg --------===//
//
// The CPU execution of fattn.tiled_attention_grad: its three grids become
// three loop nests, in order, in one outlined CPU kernel; its tile ops become
// linalg.generic ops on tensors with the GPU's numerics (f32 accumulation,
// exp2 with log2(e) folded in, P and dS rounded to the input element type
// before their products), next to the forward's tile ops lowered by
// populateLowerTiledToLinalgPatterns. One-shot bufferization then takes the
// kernel to memrefs, as it does the forward's.
//
//===----------------------------------------------------------------------===//

#include "CPUKernel.h"
#include "fattn/Dialect/FAttn/IR/FAttnTiledGradOps.h"
#include "fattn/Dialect/FAttn/Transforms/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/Transforms.h"
#include "fattn/Dialect/FAttn/Utils/Float8Emulation.h"
#include "fattn/Dialect/FAttn/Utils/KVTileRangeBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/Support/MathExtras.h"

#include <limits>

#define DEBUG_TYPE "fattn-lower-tiled-grad-to-linalg"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNLOWERTILEDGRADTOLINALG
#include "fattn/Dialect/FAttn/Transforms/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;
using mlir::utils::IteratorType;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

Value constF32(OpBuilder &b, Location loc, float value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

Value emptyOf(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

/// The maps of an (i, j) iteration space: the tile, its rows.
struct RowMaps {
  AffineMap tile, row;
  explicit RowMaps(MLIRContext *ctx)
      : tile(AffineMap::getMultiDimIdentityMap(2, ctx)),
        row(AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx)) {}
};

/// A linalg.generic over the (i, j) elements of a tile, parallel in i and
/// `inner` in j, with one result of `result`'s type initialized by `init`.
Value rowGeneric(OpBuilder &b, Location loc, ValueRange inputs, Value init,
                 ArrayRef<AffineMap> maps, IteratorType inner,
                 function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  return linalg::GenericOp::create(
             b, loc, init.getType(), inputs, init, maps,
             {IteratorType::parallel, inner},
             [&](OpBuilder &b, Location loc, ValueRange args) {
               linalg::YieldOp::create(b, loc, body(b, loc, args));
             })
      .getResult(0);
}

/// Replaces `op`, whose one result is an M x N tile, by a linalg.generic
/// computing each element from `inputs` (M x N tiles, or M-row vectors read
/// at the element's row).
void replaceByElementwise(
    PatternRewriter &rewriter, Operation *op, ValueRange inputs,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  RowMaps maps(rewriter.getContext());
  SmallVector<AffineMap> indexing;
  for (Value input : inputs)
    indexing.push_back(typeOf(input).getRank() == 1 ? maps.row : maps.tile);
  indexing.push_back(maps.tile);
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  Value init = emptyOf(rewriter, op->getLoc(), result);
  rewriter.replaceOp(op, rowGeneric(rewriter, op->getLoc(), inputs, init,
                                    indexing, IteratorType::parallel, body));
}

//===----------------------------------------------------------------------===//
// The grids
//===----------------------------------------------------------------------===//

/// Moves the three grids of `op` into a new private function (a CPU kernel,
/// CPUKernel.h) as three loop nests in order, and calls it in place of `op`.
func::FuncOp outlineTiledAttentionGrad(TiledAttentionGradOp op,
                                       SymbolTable &symbolTable) {
  // Q tiles of the query heads (Q is operand 0); KV tiles of the KV heads
  // (K is operand 1).
  auto over = [](unsigned operand, int64_t block) {
    return [operand, block](OpBuilder &b, Location loc, ValueRange args) {
      return buildGridExtents(b, loc, args[operand], block);
    };
  };
  int64_t blockM = op.getBlockM(), blockN = op.getBlockN();
  return outlineCPUKernel(op, "fattn_cpu_grad_kernel",
                          {{&op.getPreprocess(), over(0, blockM)},
                           {&op.getBody(), over(1, blockN)},
                           {&op.getPostprocess(), over(0, blockM)}},
                          symbolTable);
}

LogicalResult lowerQTileRange(QTileRangeOp op, PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  // The forward's parameters (I64Attr accessors return uint64_t).
  int64_t blockN = op.getBlockN();
  KVTileRange<Value> range =
      buildQTileRange(rewriter, loc, op.getKvTile(), op.getSeqQ(), op.getSeqK(),
                      {static_cast<int64_t>(op.getBlockM()), blockN,
                       static_cast<int64_t>(op.getWindowLeft()),
                       static_cast<int64_t>(op.getWindowRight())});
  // The range counts the keys inside seq_k only; a KV tile that crosses
  // its end also holds padding keys, which only the mask hides.
  Value end = arith::MulIOp::create(
      rewriter, loc,
      arith::AddIOp::create(rewriter, loc, op.getKvTile(),
                            arith::ConstantIndexOp::create(rewriter, loc, 1)),
      arith::ConstantIndexOp::create(rewriter, loc, blockN));
  Value crossesEnd = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::sgt, end, op.getSeqK());
  auto unlessCrossing = [&](Value full) -> Value {
    return arith::SelectOp::create(rewriter, loc, crossesEnd, range.lo, full);
  };
  rewriter.replaceOp(op, {range.lo, unlessCrossing(range.fullLo),
                          unlessCrossing(range.fullHi), range.hi});
  return success();
}

/// dest[batch, head, row : row + n] += tile[0 : n] with n the rows inside
/// the sequence: the rows are read as a tensor, summed with the tile's and
/// written back.
LogicalResult lowerAccumulateTile(AccumulateTileOp op,
                                  PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  RankedTensorType tile = typeOf(op.getTile());
  int64_t columns = tile.getDimSize(1);
  Value dest = op.getDest();
  Value seq = memref::DimOp::create(rewriter, loc, dest, 2);
  Value left = arith::SubIOp::create(rewriter, loc, seq, op.getRow());
  Value rows = arith::MaxSIOp::create(
      rewriter, loc, arith::ConstantIndexOp::create(rewriter, loc, 0),
      arith::MinSIOp::create(
          rewriter, loc, left,
          arith::ConstantIndexOp::create(rewriter, loc, tile.getDimSize(0))));
  OpFoldResult one = rewriter.getIndexAttr(1);
  SmallVector<OpFoldResult> offsets = {op.getBatch(), op.getHead(), op.getRow(),
                                       rewriter.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {one, one, rows,
                                     rewriter.getIndexAttr(columns)};
  SmallVector<OpFoldResult> strides(4, one);
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      {ShapedType::kDynamic, columns}, cast<MemRefType>(dest.getType()),
      offsets, sizes, strides);
  Value view = memref::SubViewOp::create(rewriter, loc, viewType, dest, offsets,
                                         sizes, strides);
  auto partType = RankedTensorType::get({ShapedType::kDynamic, columns},
                                        rewriter.getF32Type());
  Value current = bufferization::ToTensorOp::create(rewriter, loc, partType,
                                                    view, /*restrict=*/true);
  Value part = tensor::ExtractSliceOp::create(
      rewriter, loc, op.getTile(),
      SmallVector<OpFoldResult>(2, rewriter.getIndexAttr(0)),
      {rows, rewriter.getIndexAttr(columns)},
      SmallVector<OpFoldResult>(2, one));
  Value init = tensor::EmptyOp::create(rewriter, loc, partType.getShape(),
                                       rewriter.getF32Type(), rows);
  RowMaps maps(rewriter.getContext());
  Value sum = rowGeneric(
      rewriter, loc, ValueRange{current, part}, init,
      {maps.tile, maps.tile, maps.tile}, IteratorType::parallel,
      [](OpBuilder &b, Location loc, ValueRange args) {
        return arith::AddFOp::create(b, loc, args[0], args[1]).getResult();
      });
  bufferization::MaterializeInDestinationOp::create(
      rewriter, loc, /*result=*/Type(), sum, view, /*restrict=*/true,
      /*writable=*/true);
  rewriter.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// Tile math
//===----------------------------------------------------------------------===//

/// D[i] = sum_j lhs[i, j] * rhs[i, j] in f32.
LogicalResult lowerRowDot(RowDotOp op, PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  RowMaps maps(rewriter.getContext());
  Value zeros =
      linalg::FillOp::create(rewriter, loc, constF32(rewriter, loc, 0.0f),
                             emptyOf(rewriter, loc, typeOf(op.getResult())))
          .getResult(0);
  rewriter.replaceOp(
      op, rowGeneric(
              rewriter, loc, ValueRange{op.getLhs(), op.getRhs()}, zeros,
              {maps.tile, maps.tile, maps.row}, IteratorType::reduction,
              [](OpBuilder &b, Location loc, ValueRange args) {
                Value x = emitExtToF32(b, loc, args[0]);
                Value y = emitExtToF32(b, loc, args[1]);
                Value prod = arith::MulFOp::create(b, loc, x, y);
                return arith::AddFOp::create(b, loc, args[2], prod).getResult();
              }));
  return success();
}

/// P = exp2((scale * s - lse) * log2(e)), 0 on rows with lse = -inf.
LogicalResult lowerGradProbs(GradProbsOp op, PatternRewriter &rewriter) {
  float scale = op.getScale().convertToFloat();
  replaceByElementwise(
      rewriter, op, {op.getScores(), op.getLse()},
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value s = args[0], lse = args[1];
        if (scale != 1.0f)
          s = arith::MulFOp::create(b, loc, s, constF32(b, loc, scale));
        Value x =
            arith::MulFOp::create(b, loc, arith::SubFOp::create(b, loc, s, lse),
                                  constF32(b, loc, llvm::numbers::log2ef));
        Value p = math::Exp2Op::create(b, loc, x);
        Value seesKeys = arith::CmpFOp::create(
            b, loc, arith::CmpFPredicate::OGT, lse,
            constF32(b, loc, -std::numeric_limits<float>::infinity()));
        return arith::SelectOp::create(b, loc, seesKeys, p,
                                       constF32(b, loc, 0.0f));
      });
  return success();
}

/// dS = P (dP - D) (1 - (capped / softcap)^2), rounded.
LogicalResult lowerGradScores(GradScoresOp op, PatternRewriter &rewriter) {
  Type elemType = typeOf(op.getResult()).getElementType();
  SmallVector<Value> inputs = {op.getProbs(), op.getGradProbs(), op.getDelta()};
  if (op.getCapped())
    inputs.push_back(op.getCapped());
  float inverseCap =
      op.getCapped() ? 1.0f / op.getSoftcap().convertToFloat() : 0.0f;
  replaceByElementwise(
      rewriter, op, inputs, [&](OpBuilder &b, Location loc, ValueRange args) {
        Value ds = arith::MulFOp::create(
            b, loc, args[0], arith::SubFOp::create(b, loc, args[1], args[2]));
        if (inverseCap != 0.0f) {
          Value t = arith::MulFOp::create(b, loc, args[3],
                                          constF32(b, loc, inverseCap));
          Value slope =
              arith::SubFOp::create(b, loc, constF32(b, loc, 1.0f),
                                    arith::MulFOp::create(b, loc, t, t));
          ds = arith::MulFOp::create(b, loc, ds, slope);
        }
        return emitTruncFromF32(b, loc, ds, elemType);
      });
  return success();
}

/// result[m, n] = acc[m, n] + sum_k round(lhs[k, m]) * rhs[k, n].
LogicalResult lowerMmaTransposeLhs(MmaTransposeLhsOp op,
                                   PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr m, n, k;
  bindDims(ctx, m, n, k);
  Type rhsElem = typeOf(op.getRhs()).getElementType();
  bool roundLhs = typeOf(op.getLhs()).getElementType() != rhsElem;
  auto generic = linalg::GenericOp::create(
      rewriter, loc, op.getResult().getType(),
      ValueRange{op.getLhs(), op.getRhs()}, op.getAcc(),
      {AffineMap::get(3, 0, {k, m}, ctx), AffineMap::get(3, 0, {k, n}, ctx),
       AffineMap::get(3, 0, {m, n}, ctx)},
      {IteratorType::parallel, IteratorType::parallel, IteratorType::reduction},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value x = args[0];
        if (roundLhs)
          x = emitTruncFromF32(b, loc, x, rhsElem);
        x = emitExtToF32(b, loc, x);
        Value y = emitExtToF32(b, loc, args[1]);
        Value prod = arith::MulFOp::create(b, loc, x, y);
        linalg::YieldOp::create(
            b, loc, arith::AddFOp::create(b, loc, args[2], prod).getResult());
      });
  rewriter.replaceOp(op, generic.getResults());
  return success();
}

/// round(scale * x) elementwise.
LogicalResult lowerScaleTile(ScaleTileOp op, PatternRewriter &rewriter) {
  Type elemType = typeOf(op.getResult()).getElementType();
  float scale = op.getScale().convertToFloat();
  replaceByElementwise(rewriter, op, op.getInput(),
                       [&](OpBuilder &b, Location loc, ValueRange args) {
                         Value x = args[0];
                         if (scale != 1.0f)
                           x = arith::MulFOp::create(b, loc, x,
                                                     constF32(b, loc, scale));
                         return emitTruncFromF32(b, loc, x, elemType);
                       });
  return success();
}

struct FAttnLowerTiledGradToLinalgPass
    : public fattn::impl::FAttnLowerTiledGradToLinalgBase<
          FAttnLowerTiledGradToLinalgPass> {
  void runOnOperation() override {
    SymbolTable symbolTable(getOperation());
    SmallVector<func::FuncOp> kernels;
    // Post-order: each op is replaced by a call once visited.
    WalkResult outlined = getOperation().walk([&](TiledAttentionGradOp op) {
      if (!op->getParentOfType<func::FuncOp>()) {
        op.emitOpError("must be inside a func.func to be lowered");
        return WalkResult::interrupt();
      }
      kernels.push_back(outlineTiledAttentionGrad(op, symbolTable));
      return WalkResult::advance();
    });
    if (outlined.wasInterrupted())
      return signalPassFailure();

    RewritePatternSet patterns(&getContext());
    populateLowerTiledToLinalgPatterns(patterns);
    populateLowerTiledGradToLinalgPatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    for (func::FuncOp kernel : kernels) {
      if (failed(applyPatternsGreedily(kernel, frozen)))
        return signalPassFailure();
      WalkResult leftover = kernel.walk([](Operation *op) {
        if (!isa<FAttnDialect>(op->getDialect()))
          return WalkResult::advance();
        op->emitOpError("was not lowered by fattn-lower-tiled-grad-to-linalg");
        return WalkResult::interrupt();
      });
      if (leftover.wasInterrupted())
        return signalPassFailure();
    }
  }
};
} // namespace

void mlir::fattn::populateLowerTiledGradToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add(lowerQTileRange);
  patterns.add(lowerAccumulateTile);
  patterns.add(lowerRowDot);
  patterns.add(lowerGradProbs);
  patterns.add(lowerGradScores);
  patterns.add(lowerMmaTransposeLhs);
  patterns.add(lowerScaleTile);
}
