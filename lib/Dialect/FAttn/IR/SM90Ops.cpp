//===- SM90Ops.cpp - sm_90a target ops (L3) -------------------------------===//

#include "fattn/Dialect/FAttn/IR/FAttnSM90Ops.h"

using namespace mlir;
using namespace mlir::fattn;

#define GET_OP_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnSM90Ops.cpp.inc"

/// The most an mbarrier's arrival count or transaction count holds
/// (PTX: 2^20 - 1).
static constexpr int64_t kMaxMBarrierCount = (int64_t(1) << 20) - 1;

static LogicalResult verifyStages(Operation *op, int64_t stages) {
  if (stages < 1)
    return op->emitOpError() << "expected at least one stage, found " << stages;
  return success();
}

LogicalResult SM90RingStageOp::verify() {
  return verifyStages(*this, getStages());
}

LogicalResult SM90RingPhaseOp::verify() {
  return verifyStages(*this, getStages());
}

LogicalResult SM90RingBarrierOp::verify() {
  int64_t offset = getOffset();
  if (offset < 0 || offset % 8 != 0 || offset > INT32_MAX)
    return emitOpError() << "expected a non-negative 32-bit byte offset that "
                            "is a multiple of 8 (mbarriers are 8 bytes, "
                            "8-byte aligned), found "
                         << offset;
  return success();
}

LogicalResult SM90MBarrierInitOp::verify() {
  int64_t count = getCount();
  if (count < 1 || count > kMaxMBarrierCount)
    return emitOpError() << "expected an arrival count in [1, "
                         << kMaxMBarrierCount << "], found " << count;
  return success();
}

LogicalResult SM90MBarrierArriveExpectTxOp::verify() {
  int64_t bytes = getBytes();
  if (bytes < 1 || bytes > kMaxMBarrierCount)
    return emitOpError() << "expected a transaction count in [1, "
                         << kMaxMBarrierCount << "] bytes, found " << bytes;
  return success();
}

LogicalResult SM90TmaLoadOp::verify() {
  size_t dims = getCoordinates().size();
  if (dims < 1 || dims > 5)
    return emitOpError() << "expected 1 to 5 coordinates (one per dim of "
                            "the tensor map), found "
                         << dims;
  return success();
}
