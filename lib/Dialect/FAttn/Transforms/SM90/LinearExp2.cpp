//===- LinearExp2.cpp - FP8 probabilities without MUFU.EX2 (sm_90a) -------===//
//
// An e4m3 probability has 3 mantissa bits, so within each power of two a
// linear 2^x rounds to the same byte as the exponential does nearly always
// (Utils/LinearExp2.h): a saturating FMA per score instead of MUFU.EX2. No
// f32 probability is left to add up, so the row sums must come from the
// tensor cores.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Transforms/SM90/LoweringChoices.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h"

#define DEBUG_TYPE "fattn-sm90-linear-exp2"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNSM90LINEAREXP2
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

LogicalResult mlir::fattn::checkSM90Exp2(TiledAttentionOp op, SM90Exp2 exp2) {
  if (exp2 != SM90Exp2::Linear)
    return success();
  FailureOr<SM90ConsumerChoices> consumers = getSM90ConsumerChoices(op);
  if (failed(consumers))
    return failure();
  bool fp8 = hasE4M3Inputs(op);
  bool rowSumsMma = consumers->rowSums == SM90RowSums::Mma &&
                    !sm90RowSumsNeedThreads(op);
  if (!fp8 || !rowSumsMma)
    return op.emitOpError()
           << "linear-exp2 "
           << (fp8 ? "needs the row sums on the tensor cores (row-sum-mma, "
                     "without an LSE or per-block V descales)"
                   : "needs e4m3 inputs (it writes P's e4m3 bytes)");
  return success();
}

LogicalResult mlir::fattn::setSM90Exp2(TiledAttentionOp op, SM90Exp2 exp2) {
  if (failed(checkSM90Exp2(op, exp2)))
    return failure();
  return updateSM90ConsumerChoices(
      op, [&](SM90ConsumerChoices &consumers) { consumers.exp2 = exp2; });
}

namespace {
struct FAttnSM90LinearExp2Pass
    : public fattn::impl::FAttnSM90LinearExp2Base<FAttnSM90LinearExp2Pass> {
  using FAttnSM90LinearExp2Base::FAttnSM90LinearExp2Base;

  void runOnOperation() override {
    if (failed(forEachTiledAttention(getOperation(), [&](TiledAttentionOp op) {
          return setSM90Exp2(op, SM90Exp2::Linear);
        })))
      signalPassFailure();
  }
};
} // namespace
