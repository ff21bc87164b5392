//===- ScheduleOps.cpp - sm_90a schedule ops ------------------------------===//

#include "fattn/Dialect/FAttn/IR/FAttnScheduleOps.h"
#include "fattn/Dialect/FAttn/IR/FAttnOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::fattn;

#define GET_TYPEDEF_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnScheduleTypes.cpp.inc"

#define GET_OP_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnScheduleOps.cpp.inc"

void FAttnDialect::registerScheduleTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "fattn/Dialect/FAttn/IR/FAttnScheduleTypes.cpp.inc"
      >();
}

LogicalResult RingType::verify(function_ref<InFlightDiagnostic()> emitError,
                               int64_t stages, ArrayRef<Type> elementTypes) {
  if (stages < 1)
    return emitError() << "expected at least one stage, found " << stages;
  if (elementTypes.empty())
    return emitError() << "expected at least one element type";
  for (Type t : elementTypes) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.hasStaticShape())
      return emitError() << "expected statically shaped tensor elements, "
                            "found "
                         << t;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// WarpSpecializeOp
//===----------------------------------------------------------------------===//

/// setmaxnreg takes multiples of 8 in [24, 256].
static LogicalResult checkRegisterCount(Operation *op, StringRef what,
                                        int64_t count) {
  if (count < 24 || count > 256 || count % 8 != 0)
    return op->emitOpError() << "expected " << what
                             << " to be a multiple of 8 in [24, 256] "
                                "(setmaxnreg), found "
                             << count;
  return success();
}

LogicalResult WarpSpecializeOp::verify() {
  std::optional<int64_t> producer = getProducerRegisters(),
                         consumer = getConsumerRegisters();
  if (producer.has_value() != consumer.has_value())
    return emitOpError("expected both producer_registers and "
                       "consumer_registers, or neither");
  if (producer) {
    if (failed(checkRegisterCount(*this, "producer_registers", *producer)) ||
        failed(checkRegisterCount(*this, "consumer_registers", *consumer)))
      return failure();
    // 128 threads per warpgroup. A CTA starts with the registers its
    // launch bound gives every thread (64K 32-bit registers per SM shared
    // out, a multiple of 8 each); setmaxnreg only moves them between its
    // warps, and a setmaxnreg.inc that asks for more waits forever.
    int64_t threads = 128 * (1 + getConsumers());
    int64_t available = threads * (std::min<int64_t>(65536 / threads, 256) / 8 * 8);
    int64_t total = 128 * (*producer + getConsumers() * *consumer);
    if (total > available)
      return emitOpError() << "needs " << total
                           << " registers for one producer and "
                           << getConsumers()
                           << " consumer warpgroups, more than the "
                           << available << " that a CTA of " << threads
                           << " threads starts with (setmaxnreg only moves "
                              "registers between its warps)";
  }
  // The consumers' rows tile the Q tile: each row has one owner.
  if (auto tiled = (*this)->getParentOfType<TiledAttentionOp>()) {
    // The warpgroups run the whole CTA (or each of its work items): the
    // lowering finds them nowhere else.
    if (!isa<TiledAttentionOp, WorkLoopOp>((*this)->getParentOp()))
      return emitOpError("expected to be directly in the body of its "
                         "fattn.tiled_attention or of its fattn.work_loop");
    // The kernel has one producer warpgroup and one set of consumers: the
    // lowering builds them from one op.
    WalkResult other = tiled.getBody().walk([&](WarpSpecializeOp op) {
      return op == *this ? WalkResult::advance() : WalkResult::interrupt();
    });
    if (other.wasInterrupted())
      return emitOpError("expected one fattn.warp_specialize per "
                         "fattn.tiled_attention");
    int64_t rows = getConsumers() * getConsumerRows();
    if (rows != tiled.getBlockM())
      return emitOpError() << "expected the consumer warpgroups' rows to make "
                              "up the Q tile's block_m = "
                           << tiled.getBlockM() << ", found " << getConsumers()
                           << " x consumer_rows = " << getConsumerRows();
  }
  if (!getProducer().front().args_empty())
    return emitOpError("expected a producer region without arguments");
  Block &consumerBlock = getConsumer().front();
  if (consumerBlock.getNumArguments() != 1 ||
      !consumerBlock.getArgument(0).getType().isIndex())
    return emitOpError("expected the consumer region to take the consumer "
                       "warpgroup index (one index argument)");
  return success();
}

//===----------------------------------------------------------------------===//
// WorkLoopOp
//===----------------------------------------------------------------------===//

LogicalResult WorkLoopOp::verify() {
  auto tiled = dyn_cast<TiledAttentionOp>((*this)->getParentOp());
  if (!tiled)
    return emitOpError("expected to be directly in the body of a "
                       "fattn.tiled_attention");
  Block &body = getBody().front();
  if (body.getNumArguments() != 3 ||
      !llvm::all_of(body.getArgumentTypes(),
                    [](Type t) { return t.isIndex(); }))
    return emitOpError() << "expected the region to take the work item's "
                            "batch, head and Q tile (3 index arguments), "
                            "found "
                         << body.getNumArguments() << " argument(s)";
  for (Operation &sibling : tiled.getBody().front())
    if (&sibling != getOperation() && isa<WorkLoopOp>(sibling))
      return emitOpError("expected one fattn.work_loop per "
                         "fattn.tiled_attention");
  // Inside the loop the tiled op's block arguments are the CTA's grid
  // coordinates, not the item's: a use of one would compute another item.
  Block &gridBlock = tiled.getBody().front();
  WalkResult result = getBody().walk([&](Operation *inner) {
    for (Value operand : inner->getOperands()) {
      auto arg = dyn_cast<BlockArgument>(operand);
      if (!arg || arg.getOwner() != &gridBlock)
        continue;
      InFlightDiagnostic diag =
          emitOpError() << "expected the work item's coordinates from the "
                           "region's arguments, found a use of the "
                           "fattn.tiled_attention's argument #"
                        << arg.getArgNumber() << " (a grid coordinate)";
      diag.attachNote(inner->getLoc()) << "used here";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Ring ops
//===----------------------------------------------------------------------===//

/// Ring ops run in one role: `producer` (true) or consumer region of a
/// fattn.warp_specialize.
static LogicalResult checkRole(Operation *op, bool producer) {
  auto ws = op->getParentOfType<WarpSpecializeOp>();
  Region *role = !ws        ? nullptr
                 : producer ? &ws.getProducer()
                            : &ws.getConsumer();
  if (!role || !role->isAncestor(op->getParentRegion()))
    return op->emitOpError() << "expected to be inside the "
                             << (producer ? "producer" : "consumer")
                             << " region of a fattn.warp_specialize";
  return success();
}

static LogicalResult checkElement(Operation *op, RingType ring,
                                  int64_t element, Type tile = {}) {
  int64_t count = ring.getElementTypes().size();
  if (element < 0 || element >= count)
    return op->emitOpError() << "element " << element
                             << " is out of range for a ring of " << count
                             << " element type(s)";
  if (tile && ring.getElementTypes()[element] != tile)
    return op->emitOpError() << "expected a tile of type "
                             << ring.getElementTypes()[element]
                             << " for element " << element << ", found "
                             << tile;
  return success();
}

LogicalResult RingAcquireOp::verify() {
  if (failed(checkRole(*this, true)))
    return failure();
  return checkElement(*this, getRing().getType(), getElement());
}

LogicalResult RingCommitOp::verify() {
  if (failed(checkRole(*this, true)))
    return failure();
  return checkElement(*this, getRing().getType(), getElement(),
                      getTile().getType());
}

LogicalResult RingWaitOp::verify() {
  if (failed(checkRole(*this, false)))
    return failure();
  return checkElement(*this, getRing().getType(), getElement(),
                      getTile().getType());
}

LogicalResult RingReleaseOp::verify() {
  if (failed(checkRole(*this, false)))
    return failure();
  return checkElement(*this, getRing().getType(), getElement());
}

//===----------------------------------------------------------------------===//
// Named barriers
//===----------------------------------------------------------------------===//

static LogicalResult verifyNamedBarrier(Operation *op, Value id,
                                        int64_t threads) {
  if (threads <= 0 || threads % 32 != 0 || threads > 1024)
    return op->emitOpError() << "expected a thread count that is a positive "
                                "multiple of 32 (at most 1024), found "
                             << threads;
  llvm::APInt value;
  if (matchPattern(id, m_ConstantInt(&value))) {
    int64_t v = value.getSExtValue();
    if (v == 0)
      return op->emitOpError("barrier 0 is the CTA-wide barrier; named "
                             "barriers are 1 to 15");
    if (v < 0 || v > 15)
      return op->emitOpError() << "expected a barrier id in [1, 15], found "
                               << v;
  }
  return checkRole(op, false);
}

LogicalResult NamedBarrierSyncOp::verify() {
  return verifyNamedBarrier(*this, getId(), getThreads());
}

LogicalResult NamedBarrierArriveOp::verify() {
  return verifyNamedBarrier(*this, getId(), getThreads());
}
