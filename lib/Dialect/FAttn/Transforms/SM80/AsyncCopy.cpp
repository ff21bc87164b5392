//===- AsyncCopy.cpp - plan the sm_80 cp.async shared-memory ring ---------===//
//
// Decides where every tile lives in shared memory and how it gets there: Q
// once, K and V through a ring of `stages` slots filled by 16-byte
// cp.async.cg copies, one commit group per KV tile, so that tile
// j + stages - 1 is in flight while tile j is computed. The decision is
// recorded as a #fattn.sm80_smem_plan that the NVVM conversion implements.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Transforms/SM80/Passes.h"
#include "fattn/Dialect/FAttn/Utils/HeadDims.h"
#include "fattn/Dialect/FAttn/Utils/SM80Layout.h"

#include <algorithm>


#define DEBUG_TYPE "fattn-sm80-async-copy"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNSM80ASYNCCOPY
#include "fattn/Dialect/FAttn/Transforms/SM80/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

namespace {
/// 128 threads issue the copies; the planner checks divisibility for it.
constexpr int64_t kCopyThreads = 128;
} // namespace

LogicalResult mlir::fattn::planSM80AsyncCopy(TiledAttentionOp op,
                                             int64_t stages) {
  auto qType = cast<MemRefType>(op.getQuery().getType());
  auto vType = cast<MemRefType>(op.getValue().getType());
  Type elem = qType.getElementType();
  if (!elem.isBF16() && !elem.isF16())
    return op.emitOpError("sm_80: expected f16 or bf16 elements, found ")
           << elem;
  int64_t headDim = qType.getDimSize(3), headDimV = vType.getDimSize(3);
  if (std::optional<std::string> error =
          sm80HeadDimsError(elem, headDim, headDimV))
    return op.emitOpError() << *error;
  if (op.getLse() &&
      !cast<MemRefType>(op.getLse().getType()).getElementType().isF32())
    return op.emitOpError("sm_80: expected an f32 LSE");
  if (stages < 2 || stages > 4)
    return op.emitOpError("sm_80: expected 2 to 4 stages, found ") << stages;
  int64_t blockM = op.getBlockM(), blockN = op.getBlockN();
  // The 128 threads copy a tile in steps of rows (Q's and K's, and V's
  // where its head dim differs); with the 16 rows of an mma.sync fragment,
  // all powers of two, so the largest is the multiple that each tile needs.
  int64_t multipleM = std::max<int64_t>(
      16, sm80::copyRowsPerStep(headDim, 2, kCopyThreads));
  int64_t multipleN = std::max(
      multipleM, sm80::copyRowsPerStep(headDimV, 2, kCopyThreads));
  if (blockM % multipleM != 0 || blockN % multipleN != 0)
    return op.emitOpError("sm_80: expected block_m a multiple of ")
           << multipleM << " and block_n of " << multipleN
           << " (16, and the rows that 128 threads copy at once in 16-byte "
              "chunks at head dims "
           << headDim << " and " << headDimV << "), found block_m = " << blockM
           << ", block_n = " << blockN;
  // One row pitch for Q, K and V (and O, staged in Q's rows): the wider
  // head dim's.
  sm80::SmemPlan plan = sm80::planSmem(std::max(headDim, headDimV), 2, blockM,
                                       blockN, stages);
  if (plan.totalBytes > kSM80MaxSharedBytes)
    return op.emitOpError("sm_80: needs ")
           << plan.totalBytes << " bytes of shared memory, more than "
           << kSM80MaxSharedBytes;

  op->setAttr(kSM80SmemAttr,
              SM80SmemPlanAttr::get(op.getContext(), stages, plan.rowPitchBytes,
                                    plan.qOffset, plan.kvOffset,
                                    plan.stageBytes, plan.totalBytes));
  return success();
}

namespace {
struct FAttnSM80AsyncCopyPass
    : public fattn::impl::FAttnSM80AsyncCopyBase<FAttnSM80AsyncCopyPass> {
  using FAttnSM80AsyncCopyBase::FAttnSM80AsyncCopyBase;
  void runOnOperation() override {
    WalkResult result = getOperation()->walk([&](TiledAttentionOp op) {
      return failed(planSM80AsyncCopy(op, stages)) ? WalkResult::interrupt()
                                                   : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
