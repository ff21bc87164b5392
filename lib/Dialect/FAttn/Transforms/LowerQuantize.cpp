//===- LowerQuantize.cpp - e4m3 block quantization as loops ---------------===//
//
// fattn.quantize becomes, for each descale element, two sweeps over the rows
// it covers: the first folds max |x| into the amax, the second divides by the
// scale and rounds to e4m3. With a fused rotation each sweep rotates the row
// again into a d-element scratch row: twice the (d log d) rotation work, but
// no f32 copy of the whole tensor between the sweeps.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/IR/DestinationStyle.h"
#include "fattn/Dialect/FAttn/IR/FAttnQuantOps.h"
#include "fattn/Dialect/FAttn/Transforms/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/Transforms.h"
#include "fattn/Dialect/FAttn/Utils/Float8Emulation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>
#include <optional>

#define DEBUG_TYPE "fattn-lower-quantize"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNLOWERQUANTIZE
#include "fattn/Dialect/FAttn/Transforms/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

namespace {
/// e4m3's largest finite value.
constexpr float kE4M3Max = 448.0f;

/// The rows one descale element covers: [lo, hi) in batch, head and sequence.
struct RowRange {
  SmallVector<Value, 3> lo, hi;
};

/// The rows of descale element `idx`: everything (rank 0), the heads of one
/// group in one batch (rank 2), or `block` rows of one head (rank 3).
RowRange rowsOfDescale(OpBuilder &b, Location loc, QuantizeOp op,
                       ValueRange dims, ValueRange idx) {
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto add = [&](Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto mul = [&](Value x, Value y) {
    return arith::MulIOp::create(b, loc, x, y);
  };
  Value zero = cst(0), one = cst(1);
  Value descale = op.getDescale();
  switch (idx.size()) {
  case 0:
    return {{zero, zero, zero}, {dims[0], dims[1], dims[2]}};
  case 2: {
    Value groups = memref::DimOp::create(b, loc, descale, 1);
    Value perGroup = arith::DivUIOp::create(b, loc, dims[1], groups);
    Value head = mul(idx[1], perGroup);
    return {{idx[0], head, zero},
            {add(idx[0], one), add(head, perGroup), dims[2]}};
  }
  default: {
    Value block = cst(*op.getBlock());
    Value first = mul(idx[2], block);
    Value last = arith::MinUIOp::create(b, loc, add(first, block), dims[2]);
    return {{idx[0], idx[1], first},
            {add(idx[0], one), add(idx[1], one), last}};
  }
  }
}

struct LowerQuantize : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics())
      return rewriter.notifyMatchFailure(op, "the tensor form (bufferize it)");
    Location loc = op.getLoc();
    Value input = op.getInput(), output = op.getOutput();
    Value descale = op.getDescale();
    auto inType = cast<MemRefType>(op.getInput().getType());
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value, 4> dims;
    for (int64_t d = 0; d < 4; ++d)
      dims.push_back(memref::DimOp::create(rewriter, loc, input, d));
    std::optional<HadamardRowRotation> rotation;
    if (Value signs = op.getSigns())
      rotation.emplace(rewriter, loc, signs, inType.getDimSize(3));

    // Runs `body(row, column, carried)` over the rows of `rows` and all
    // columns, carrying `init`; with a rotation, each row is rotated into the
    // scratch row before its columns.
    using ColumnBody =
        function_ref<Value(OpBuilder &, Location, ValueRange, Value, Value)>;
    auto forEachElement = [&](OpBuilder &b, Location loc, const RowRange &rows,
                              Value init, ColumnBody body) -> Value {
      SmallVector<Value> steps(3, one), inits;
      if (init)
        inits.push_back(init);
      scf::LoopNest nest = scf::buildLoopNest(
          b, loc, rows.lo, rows.hi, steps, inits,
          [&](OpBuilder &b, Location loc, ValueRange row,
              ValueRange carried) -> scf::ValueVector {
            if (rotation)
              rotation->rotate(b, loc, input, row);
            auto columns = scf::ForOp::create(
                b, loc, zero, dims[3], one, carried,
                [&](OpBuilder &b, Location loc, Value col, ValueRange acc) {
                  Value r = body(b, loc, row, col, init ? acc[0] : Value());
                  scf::YieldOp::create(b, loc,
                                       init ? ValueRange{r} : ValueRange{});
                });
            return scf::ValueVector(columns.getResults());
          });
      return init ? nest.results.front() : Value();
    };
    // Element (row, col) of the input, rotated or not, in f32.
    auto element = [&](OpBuilder &b, Location loc, ValueRange row,
                       Value col) -> Value {
      if (rotation)
        return rotation->load(b, loc, col);
      SmallVector<Value> idx(row);
      idx.push_back(col);
      return emitExtToF32(b, loc, memref::LoadOp::create(b, loc, input, idx));
    };

    int64_t rank = cast<MemRefType>(descale.getType()).getRank();
    SmallVector<Value> ubs;
    for (int64_t d = 0; d < rank; ++d)
      ubs.push_back(memref::DimOp::create(rewriter, loc, descale, d));
    scf::buildLoopNest(
        rewriter, loc, SmallVector<Value>(rank, zero), ubs,
        SmallVector<Value>(rank, one),
        [&](OpBuilder &b, Location loc, ValueRange idx) {
          RowRange rows = rowsOfDescale(b, loc, op, dims, idx);
          // amax = max |x| (maximumf propagates NaN).
          Value amax = forEachElement(
              b, loc, rows,
              arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f)),
              [&](OpBuilder &b, Location loc, ValueRange row, Value col,
                  Value acc) -> Value {
                Value a =
                    math::AbsFOp::create(b, loc, element(b, loc, row, col));
                return arith::MaximumFOp::create(b, loc, acc, a);
              });
          // scale = max(amax / 448, smallest normal f32): see the op's
          // description for why there is a floor.
          Value scale = arith::MaximumFOp::create(
              b, loc,
              arith::DivFOp::create(b, loc, amax,
                                    arith::ConstantOp::create(
                                        b, loc, b.getF32FloatAttr(kE4M3Max))),
              arith::ConstantOp::create(
                  b, loc,
                  b.getF32FloatAttr(std::numeric_limits<float>::min())));
          memref::StoreOp::create(b, loc, scale, descale, idx);
          forEachElement(b, loc, rows, Value(),
                         [&](OpBuilder &b, Location loc, ValueRange row,
                             Value col, Value) -> Value {
                           Value x = arith::DivFOp::create(
                               b, loc, element(b, loc, row, col), scale);
                           SmallVector<Value> at(row);
                           at.push_back(col);
                           memref::StoreOp::create(b, loc,
                                                   emitF32ToF8E4M3FN(b, loc, x),
                                                   output, at);
                           return Value();
                         });
        });
    if (rotation)
      rotation->deallocate(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

struct FAttnLowerQuantizePass
    : public fattn::impl::FAttnLowerQuantizeBase<FAttnLowerQuantizePass> {
  void runOnOperation() override {
    if (failed(checkBufferized<QuantizeOp>(getOperation(),
                                           "--fattn-lower-quantize")))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateLowerQuantizePatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::fattn::populateLowerQuantizePatterns(RewritePatternSet &patterns) {
  patterns.add<LowerQuantize>(patterns.getContext());
}
