//===- LowerFP8Layout.cpp - the fp8 layout ops as tensor gathers ----------===//
//
// fattn.permute_keys and fattn.transpose_tile are data movement on the GPU
// (byte permutes, a shared-memory transpose); on tensors they are gathers.
// Lowering them lets the CPU pipeline execute the tiled form after
// --fattn-fp8-layout and compare it with the unpermuted one.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/IR/FAttnFP8Ops.h"
#include "fattn/Dialect/FAttn/Transforms/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "fattn-lower-fp8-layout"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNLOWERFP8LAYOUT
#include "fattn/Dialect/FAttn/Transforms/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

namespace {
/// pi(key) of the permutation `name` as index arithmetic: a permutation maps
/// each chunk of getKeyPermutationMultiple(name) keys onto itself, so one
/// constant table of a chunk, built from getKeySource (the function the GPU
/// lowering and the unit tests use), serves every chunk.
Value emitKeySource(OpBuilder &b, Location loc, StringRef name, Value key) {
  int64_t chunk = *getKeyPermutationMultiple(name);
  SmallVector<int64_t> table;
  for (int64_t slot = 0; slot < chunk; ++slot)
    table.push_back(getKeySource(name, slot));
  auto tableType = RankedTensorType::get({chunk}, b.getI64Type());
  Value sources = arith::ConstantOp::create(
      b, loc, DenseIntElementsAttr::get(tableType, table));
  Value chunkSize = arith::ConstantIndexOp::create(b, loc, chunk);
  Value base = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, key, chunkSize), chunkSize);
  Value slot = arith::RemUIOp::create(b, loc, key, chunkSize);
  Value source = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      tensor::ExtractOp::create(b, loc, sources, slot));
  return arith::AddIOp::create(b, loc, base, source);
}

/// result[..., k] = input[..., pi(k)].
struct LowerPermuteKeys : OpRewritePattern<PermuteKeysOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PermuteKeysOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<tensor::GenerateOp>(
        op, op.getResult().getType(), ValueRange{},
        [&](OpBuilder &b, Location loc, ValueRange idx) {
          SmallVector<Value> source(idx);
          source.back() =
              emitKeySource(b, loc, op.getKeyPermutation(), idx.back());
          tensor::YieldOp::create(
              b, loc, tensor::ExtractOp::create(b, loc, op.getInput(), source));
        });
    return success();
  }
};

/// result[n, k] = input[pi(k), n].
struct LowerTransposeTile : OpRewritePattern<TransposeTileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeTileOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<tensor::GenerateOp>(
        op, op.getResult().getType(), ValueRange{},
        [&](OpBuilder &b, Location loc, ValueRange idx) {
          Value key = emitKeySource(b, loc, op.getKeyPermutation(), idx[1]);
          tensor::YieldOp::create(
              b, loc,
              tensor::ExtractOp::create(b, loc, op.getInput(),
                                        ValueRange{key, idx[0]}));
        });
    return success();
  }
};

struct FAttnLowerFP8LayoutPass
    : public fattn::impl::FAttnLowerFP8LayoutBase<FAttnLowerFP8LayoutPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateLowerFP8LayoutPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::fattn::populateLowerFP8LayoutPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerPermuteKeys, LowerTransposeTile>(patterns.getContext());
}
