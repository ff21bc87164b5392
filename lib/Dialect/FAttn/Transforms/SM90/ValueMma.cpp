//===- ValueMma.cpp - the wgmma of O += P V (sm_90a) ----------------------===//
//
// One wgmma over the whole head dim issues fewest instructions, but keeps
// the whole accumulator in flight; one per 64-column atom fits where that
// would exceed the consumer threads' registers.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Transforms/SM90/LoweringChoices.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h"

#define DEBUG_TYPE "fattn-sm90-value-mma"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNSM90VALUEMMA
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

LogicalResult mlir::fattn::setSM90ValueMma(TiledAttentionOp op,
                                           SM90ValueMma valueMma) {
  return updateSM90ConsumerChoices(
      op, [&](SM90ConsumerChoices &consumers) { consumers.valueMma = valueMma; });
}

namespace {
struct FAttnSM90ValueMmaPass
    : public fattn::impl::FAttnSM90ValueMmaBase<FAttnSM90ValueMmaPass> {
  using FAttnSM90ValueMmaBase::FAttnSM90ValueMmaBase;

  void runOnOperation() override {
    if (failed(forEachTiledAttention(getOperation(), [&](TiledAttentionOp op) {
          return setSM90ValueMma(op, form);
        })))
      signalPassFailure();
  }
};
} // namespace
