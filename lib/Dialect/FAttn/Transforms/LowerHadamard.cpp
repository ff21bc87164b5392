//===- LowerHadamard.cpp - fast Walsh-Hadamard transform ------------------===//

#include "fattn/Dialect/FAttn/IR/DestinationStyle.h"
#include "fattn/Dialect/FAttn/IR/FAttnQuantOps.h"
#include "fattn/Dialect/FAttn/Transforms/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/Transforms.h"
#include "fattn/Dialect/FAttn/Utils/Float8Emulation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

#define DEBUG_TYPE "fattn-lower-hadamard"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNLOWERHADAMARD
#include "fattn/Dialect/FAttn/Transforms/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

namespace {
/// for (i = 0; i < n; ++i) body(i)
void forRange(OpBuilder &b, Location loc, int64_t n,
              function_ref<void(OpBuilder &, Location, Value)> body) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value upper = arith::ConstantIndexOp::create(b, loc, n);
  scf::ForOp::create(b, loc, zero, upper, one, ValueRange{},
                     [&](OpBuilder &b, Location loc, Value i, ValueRange) {
                       body(b, loc, i);
                       scf::YieldOp::create(b, loc);
                     });
}

struct LowerHadamardRotate : OpRewritePattern<HadamardRotateOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(HadamardRotateOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics())
      return rewriter.notifyMatchFailure(op, "the tensor form (bufferize it)");
    Location loc = op.getLoc();
    auto inType = cast<MemRefType>(op.getInput().getType());
    Type outElem = op.getOutput().getType().getElementType();
    int64_t rank = inType.getRank(), width = inType.getDimSize(rank - 1);
    HadamardRowRotation rotation(rewriter, loc, op.getSigns(), width);

    SmallVector<Value> lbs, ubs, steps;
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (int64_t d = 0; d + 1 < rank; ++d) {
      lbs.push_back(zero);
      ubs.push_back(memref::DimOp::create(rewriter, loc, op.getInput(), d));
      steps.push_back(one);
    }
    scf::buildLoopNest(
        rewriter, loc, lbs, ubs, steps,
        [&](OpBuilder &b, Location loc, ValueRange lead) {
          rotation.rotate(b, loc, op.getInput(), lead);
          forRange(b, loc, width, [&](OpBuilder &b, Location loc, Value c) {
            SmallVector<Value> idx(lead);
            idx.push_back(c);
            memref::StoreOp::create(
                b, loc,
                emitTruncFromF32(b, loc, rotation.load(b, loc, c), outElem),
                op.getOutput(), idx);
          });
        });
    rotation.deallocate(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

struct FAttnLowerHadamardPass
    : public fattn::impl::FAttnLowerHadamardBase<FAttnLowerHadamardPass> {
  void runOnOperation() override {
    if (failed(checkBufferized<HadamardRotateOp>(getOperation(),
                                                 "--fattn-lower-hadamard")))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateLowerHadamardPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

HadamardRowRotation::HadamardRowRotation(OpBuilder &b, Location loc,
                                         Value signs, int64_t width)
    : signs(signs), width(width) {
  scratch =
      memref::AllocOp::create(b, loc, MemRefType::get({width}, b.getF32Type()));
  // 1/sqrt(d) rounded once from double, so that the Python helper
  // (fattn.hadamard_rotate) can use the very same f32 factor.
  norm = arith::ConstantOp::create(
      b, loc,
      b.getF32FloatAttr(static_cast<float>(1.0 / std::sqrt(double(width)))));
}

void HadamardRowRotation::rotate(OpBuilder &b, Location loc, Value input,
                                 ValueRange lead) {
  // scratch = row * signs, in f32.
  forRange(b, loc, width, [&](OpBuilder &b, Location loc, Value c) {
    SmallVector<Value> idx(lead);
    idx.push_back(c);
    Value x = emitExtToF32(b, loc, memref::LoadOp::create(b, loc, input, idx));
    Value s = memref::LoadOp::create(b, loc, signs, c);
    memref::StoreOp::create(b, loc, arith::MulFOp::create(b, loc, x, s),
                            scratch, c);
  });
  // Butterfly stage h pairs element (p / h) * 2h + p % h with the one h
  // further, for p in [0, width / 2).
  for (int64_t h = 1; h < width; h *= 2) {
    forRange(b, loc, width / 2, [&](OpBuilder &b, Location loc, Value p) {
      Value hv = arith::ConstantIndexOp::create(b, loc, h);
      Value block =
          arith::MulIOp::create(b, loc, arith::DivUIOp::create(b, loc, p, hv),
                                arith::ConstantIndexOp::create(b, loc, 2 * h));
      Value lo = arith::AddIOp::create(b, loc, block,
                                       arith::RemUIOp::create(b, loc, p, hv));
      Value hi = arith::AddIOp::create(b, loc, lo, hv);
      Value x = memref::LoadOp::create(b, loc, scratch, lo);
      Value y = memref::LoadOp::create(b, loc, scratch, hi);
      memref::StoreOp::create(b, loc, arith::AddFOp::create(b, loc, x, y),
                              scratch, lo);
      memref::StoreOp::create(b, loc, arith::SubFOp::create(b, loc, x, y),
                              scratch, hi);
    });
  }
}

Value HadamardRowRotation::load(OpBuilder &b, Location loc, Value col) {
  return arith::MulFOp::create(
      b, loc, memref::LoadOp::create(b, loc, scratch, col), norm);
}

void HadamardRowRotation::deallocate(OpBuilder &b, Location loc) {
  memref::DeallocOp::create(b, loc, scratch);
}

void mlir::fattn::populateLowerHadamardPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerHadamardRotate>(patterns.getContext());
}
