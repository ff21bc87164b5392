//===- RowSumMma.cpp - the softmax's row sums on the tensor cores ---------===//
//
// Added up by the consumer threads, a row's sum costs one dependent add per
// probability; as P times a tile of ones, the tensor cores compute it from
// the P registers that O's wgmma reads. That sum is of P rounded to the
// element type: it keeps O / l consistent but is not the exact sum an LSE
// needs, and per-block V descales rescale O by a factor l must not take.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Transforms/SM90/LoweringChoices.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h"

#define DEBUG_TYPE "fattn-sm90-row-sum-mma"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNSM90ROWSUMMMA
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

LogicalResult mlir::fattn::setSM90RowSums(TiledAttentionOp op,
                                          SM90RowSums rowSums) {
  // A choice, not semantics: the kernel keeps the adds, and says why.
  if (rowSums == SM90RowSums::Mma)
    if (std::optional<StringRef> why = sm90RowSumsNeedThreads(op)) {
      op.emitWarning() << "row-sum-mma is ignored: " << *why;
      return success();
    }
  return updateSM90ConsumerChoices(
      op, [&](SM90ConsumerChoices &consumers) { consumers.rowSums = rowSums; });
}

namespace {
struct FAttnSM90RowSumMmaPass
    : public fattn::impl::FAttnSM90RowSumMmaBase<FAttnSM90RowSumMmaPass> {
  using FAttnSM90RowSumMmaBase::FAttnSM90RowSumMmaBase;

  void runOnOperation() override {
    if (failed(forEachTiledAttention(getOperation(), [&](TiledAttentionOp op) {
          return setSM90RowSums(op, SM90RowSums::Mma);
        })))
      signalPassFailure();
  }
};
} // namespace
