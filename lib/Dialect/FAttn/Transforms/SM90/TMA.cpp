//===- TMA.cpp - plan TMA copies and the mbarrier ring (sm_90a) -----------===//

#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/TMAPlan.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "fattn-sm90-tma"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNSM90TMA
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

LogicalResult mlir::fattn::planSM90TMA(TiledAttentionOp op,
                                       const TMAPlan &plan) {
  if (plan.stages < 2)
    return op.emitOpError() << "needs at least 2 TMA stages so that the next "
                               "tile's copy overlaps the current tile's math, "
                               "found "
                            << plan.stages;
  if (plan.swizzle != 128)
    return op.emitOpError() << "implements the 128-byte swizzle only, found "
                            << plan.swizzle;
  auto qType = cast<MemRefType>(op.getQuery().getType());
  Type elem = qType.getElementType();
  unsigned bits = elem.getIntOrFloatBitWidth();
  if (bits != 16 && bits != 8)
    return op.emitOpError() << "TMA with 128B swizzle needs 16-bit or 8-bit "
                               "(FP8) elements, found "
                            << elem;
  // The ring's K tiles alone must fit in shared memory. Checked here, before
  // any byte count of the whole kernel is formed: a huge stage count would
  // overflow those products.
  int64_t headDim = cast<MemRefType>(op.getKey().getType()).getShape().back();
  int64_t rowBytes = 0, tileBytes = 0;
  if (!ShapedType::isDynamic(headDim) &&
      (llvm::MulOverflow(headDim, int64_t(bits / 8), rowBytes) ||
       llvm::MulOverflow(int64_t(op.getBlockN()), rowBytes, tileBytes) ||
       (tileBytes > 0 && plan.stages > kSM90MaxSharedBytes / tileBytes)))
    return op.emitOpError()
           << "needs " << plan.stages << " TMA stages of " << op.getBlockN()
           << "x" << headDim << " K tiles, more than the "
           << kSM90MaxSharedBytes
           << " bytes of shared memory an sm_90a CTA can have: lower stages";
  // A box spans one 128-byte swizzle atom of a row: 64 16-bit elements or
  // 128 FP8 ones (an FP8 row of head dim 128 is a single atom).
  int64_t boxCols = plan.swizzle * 8 / bits;
  op->setAttr(kTMAPlanAttrName,
              SM90TMAPlanAttr::get(op.getContext(), plan.stages, plan.swizzle,
                                   boxCols, plan.store));
  return success();
}

FailureOr<TMAPlan> mlir::fattn::getTMAPlan(TiledAttentionOp op) {
  auto attr = op->getAttrOfType<SM90TMAPlanAttr>(kTMAPlanAttrName);
  if (!attr)
    return failure();
  TMAPlan plan;
  plan.stages = attr.getStages();
  plan.swizzle = attr.getSwizzle();
  plan.boxCols = attr.getBoxCols();
  plan.store = attr.getStore();
  return plan;
}

namespace {
struct FAttnSM90TMAPass
    : public fattn::impl::FAttnSM90TMABase<FAttnSM90TMAPass> {
  using FAttnSM90TMABase::FAttnSM90TMABase;

  void runOnOperation() override {
    TMAPlan plan;
    plan.stages = stages;
    plan.store = tmaStore ? SM90OutputStore::TMA : SM90OutputStore::Registers;
    WalkResult result = getOperation()->walk([&](TiledAttentionOp op) {
      return failed(planSM90TMA(op, plan)) ? WalkResult::interrupt()
                                           : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
