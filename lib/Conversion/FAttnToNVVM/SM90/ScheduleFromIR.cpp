//===- ScheduleFromIR.cpp - the sm_90a schedule recorded in the IR --------===//

#include "fattn/Conversion/FAttnToNVVM/SM90/ScheduleFromIR.h"
#include "fattn/Conversion/FAttnToNVVM/SM90/FP8LayoutFromIR.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/LoweringChoices.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Schedule.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/TMAPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

#include <optional>

using namespace mlir;
using namespace mlir::fattn;

/// The value of index `v` in consumer warpgroup `wgValue`, where `wg` is the
/// warpgroup index; nullopt when `v` is not a constant expression of it.
static std::optional<int64_t> evaluateIndex(Value v, Value wg,
                                            int64_t wgValue) {
  if (v == wg)
    return wgValue;
  llvm::APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant)))
    return constant.getSExtValue();
  Operation *def = v.getDefiningOp();
  if (!def || !isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def))
    return std::nullopt;
  std::optional<int64_t> a = evaluateIndex(def->getOperand(0), wg, wgValue);
  std::optional<int64_t> b = evaluateIndex(def->getOperand(1), wg, wgValue);
  if (!a || !b)
    return std::nullopt;
  if (isa<arith::AddIOp>(def))
    return *a + *b;
  if (isa<arith::SubIOp>(def))
    return *a - *b;
  return *a * *b;
}

/// Checks the named barriers of `ws` against the protocol the kernel
/// implements (warpgroup w syncs on base + w, hands over on base + 1 - w,
/// warpgroup 1 first arrives on base) and returns base.
static FailureOr<int64_t> readPingpongBase(WarpSpecializeOp ws) {
  Value wg = ws.getWarpgroupIndex();
  std::optional<int64_t> base;
  bool ok = true;
  auto fail = [&](Operation *op, const Twine &what) {
    op->emitOpError() << "is not a pingpong barrier the sm_90a lowering "
                         "implements: "
                      << what;
    ok = false;
  };
  // Arrivals are checked once the syncs have fixed the base.
  SmallVector<std::tuple<Operation *, int64_t, int64_t>> arrivals;
  ws.getConsumer().walk([&](Operation *op) {
    if (!ok || !isa<NamedBarrierSyncOp, NamedBarrierArriveOp>(op))
      return;
    int64_t threads = isa<NamedBarrierSyncOp>(op)
                          ? cast<NamedBarrierSyncOp>(op).getThreads()
                          : cast<NamedBarrierArriveOp>(op).getThreads();
    if (threads != 256)
      return fail(op, "expected the 256 threads of two consumer warpgroups");
    std::optional<int64_t> id0 = evaluateIndex(op->getOperand(0), wg, 0);
    std::optional<int64_t> id1 = evaluateIndex(op->getOperand(0), wg, 1);
    if (!id0 || !id1)
      return fail(op, "expected an id computed from the warpgroup index");
    if (isa<NamedBarrierSyncOp>(op)) {
      // Own barrier: base + w.
      if (*id1 != *id0 + 1)
        return fail(op, "expected to wait on barrier base + warpgroup");
      if (base && *base != *id0)
        return fail(op, "expected one barrier base");
      base = *id0;
      return;
    }
    arrivals.emplace_back(op, *id0, *id1);
  });
  if (!ok)
    return failure();
  if (!base)
    return ws.emitOpError("has named barriers but no warpgroup waits on one");
  // A hand-over goes to the other warpgroup's barrier (base + 1 - w); the
  // only other arrival is warpgroup 1's first one, on base.
  for (auto [op, id0, id1] : arrivals) {
    bool handOver = id0 == *base + 1 && id1 == *base;
    bool first = id0 == *base && id1 == *base;
    if (!handOver && !first) {
      fail(op, "expected to arrive on the other warpgroup's barrier");
      return failure();
    }
  }
  return *base;
}

/// Whether the kernel is persistent: `op` has a fattn.work_loop (which
/// --fattn-persistent-tiles builds) around its fattn.warp_specialize. Each
/// role's loop over work items is built from it; the prefetch across items
/// is the producer warpgroup's, so a work loop without one is an error.
static FailureOr<bool> readWorkLoop(TiledAttentionOp op) {
  WorkLoopOp loop = getWorkLoop(op);
  if (!loop)
    return false;
  if (!getWarpSpecialize(op))
    return loop.emitOpError()
           << "expected a fattn.warp_specialize in its region: the sm_90a "
              "lowering implements the loop over work items with a producer "
              "warpgroup (run --fattn-warp-specialize before "
              "--fattn-persistent-tiles)";
  return true;
}

/// A short description of `v` for a diagnostic: the op that computes it, or
/// which block argument it is.
static std::string describeValue(Value v) {
  if (Operation *def = v.getDefiningOp())
    return ("a value computed by '" + def->getName().getStringRef() + "'")
        .str();
  auto arg = cast<BlockArgument>(v);
  return ("argument " + Twine(arg.getArgNumber()) + " of a block of '" +
          arg.getOwner()->getParentOp()->getName().getStringRef() + "'")
      .str();
}

/// The work item is what the kernel computes once per CTA, or per turn of a
/// persistent CTA's loop: its coordinates are the block arguments (batch,
/// head, Q tile) of the fattn.work_loop, or of the tiled op without one. The
/// kernel derives them from its grid position (or decodes the CTA's item)
/// and gives them to every op of the item, so each op must take them as
/// they are: the KV tile range of the item's Q tile; Q's, O's and the
/// LSE's tiles at the item's batch and head; K's and V's at its batch. The
/// ring outlives the items (its stages and phases run on from one item to
/// the next), so it is created before the loop. Anything else would be
/// lowered as if it were written so: a diagnostic instead.
static LogicalResult readWorkItem(TiledAttentionOp op) {
  WorkLoopOp loop = getWorkLoop(op);
  Block &item = loop ? loop.getBody().front() : op.getBody().front();
  StringRef owner = loop ? "fattn.work_loop" : "fattn.tiled_attention";
  auto expect = [&](Operation *user, Value v, unsigned index,
                    StringRef what) -> LogicalResult {
    if (v == item.getArgument(index))
      return success();
    return user->emitOpError()
           << "expected the work item's " << what << " (argument " << index
           << " of the " << owner
           << "'s block, the one the sm_90a kernel computes), found "
           << describeValue(v);
  };
  WalkResult result = op.getBody().walk([&](Operation *inner) {
    LogicalResult checked = success();
    if (auto range = dyn_cast<KVTileRangeOp>(inner)) {
      checked = expect(range, range.getQTile(), 2, "Q tile");
    } else if (auto load = dyn_cast<LoadTileOp>(inner)) {
      checked = expect(load, load.getBatch(), 0, "batch");
      if (succeeded(checked) && load.getSource() == op.getQuery())
        checked = expect(load, load.getHead(), 1, "head");
    } else if (auto store = dyn_cast<StoreTileOp>(inner)) {
      checked = expect(store, store.getBatch(), 0, "batch");
      if (succeeded(checked))
        checked = expect(store, store.getHead(), 1, "head");
    } else if (auto create = dyn_cast<RingCreateOp>(inner);
               create && loop && loop->isProperAncestor(create)) {
      checked = create.emitOpError()
                << "expected before the fattn.work_loop: the sm_90a kernel "
                   "runs one ring's stages and phases on from one work item "
                   "to the next";
    }
    return failed(checked) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Reads the TMA plan's choices into `options`: the store of O and the
/// boxes, which must be one swizzle atom of the op's element type.
static LogicalResult readTMAPlan(TiledAttentionOp op, const TMAPlan &plan,
                                 SM90Options &options) {
  options.tmaStore = plan.store == SM90OutputStore::TMA;
  Type elem = cast<MemRefType>(op.getQuery().getType()).getElementType();
  if (!elem.isIntOrFloat())
    return success(); // getSM90KernelConfig names the element type.
  int64_t atomCols = plan.swizzle * 8 / elem.getIntOrFloatBitWidth();
  if (plan.boxCols != atomCols)
    return op.emitOpError()
           << "expected TMA boxes of " << atomCols << " columns (one "
           << plan.swizzle << "-byte swizzle atom of " << elem
           << "), found box_cols = " << plan.boxCols;
  return success();
}

/// Reads the lowering choices of the op's plans (LoweringChoices.h) into
/// `options`; getSM90KernelConfig checks them (verifySM90LoweringChoices).
static LogicalResult readLoweringChoices(TiledAttentionOp op,
                                         SM90Options &options) {
  FailureOr<SM90ConsumerChoices> consumers = getSM90ConsumerChoices(op);
  FailureOr<SM90WorkChoices> work = getSM90WorkChoices(op);
  if (failed(consumers) || failed(work))
    return failure();
  options.wideValueMma = consumers->valueMma == SM90ValueMma::Whole;
  options.rowSumMma = consumers->rowSums == SM90RowSums::Mma;
  options.linearExp2 = consumers->exp2 == SM90Exp2::Linear;
  options.rescaleThreshold = consumers->rescaleThreshold;
  options.narrowTail = consumers->narrowTail;
  options.warpgroupKVRanges = consumers->kvRanges == SM90KVRanges::Warpgroup;
  options.reverseQTiles = work->qTileOrder == SM90QTileOrder::Reverse;
  options.qBuffers = work->qBuffers;
  options.splitTail = work->tail == SM90WorkTail::Split;
  options.workOrderTail = work->tail == SM90WorkTail::Pairs;
  return success();
}

LogicalResult mlir::fattn::readSM90Schedule(TiledAttentionOp op,
                                            SM90Options &options) {
  FailureOr<bool> persistent = readWorkLoop(op);
  if (failed(persistent) || failed(readWorkItem(op)) ||
      failed(readLoweringChoices(op, options)))
    return failure();
  // Without a plan, getSM90KernelConfig names what is missing.
  FailureOr<TMAPlan> plan = getTMAPlan(op);
  if (succeeded(plan) && failed(readTMAPlan(op, *plan, options)))
    return failure();
  WarpSpecializeOp ws = getWarpSpecialize(op);
  if (!ws) {
    options.warpSpecialize = false;
    options.consumerWarpgroups = op.getBlockM() / 64;
    options.producerRegisters = 0;
    options.consumerRegisters = 0;
    options.consumerLoop = SM90ConsumerLoop::sequential();
    options.intraWarpgroupOverlap = false;
    options.pingpong = false;
    options.persistent = false;
    return success();
  }
  // The kernel gives each consumer warpgroup the rows of one wgmma (M = 64),
  // warpgroup w rows [64 w, 64 (w + 1)): the rows the IR says it owns.
  if (ws.getConsumerRows() != kConsumerWarpgroupRows)
    return ws.emitOpError()
           << "expected consumer_rows = " << kConsumerWarpgroupRows
           << " (the sm_90a lowering gives each consumer warpgroup the rows "
              "of one wgmma), found "
           << ws.getConsumerRows();
  options.warpSpecialize = true;
  options.persistent = *persistent;
  options.consumerWarpgroups = ws.getConsumers();
  options.producerRegisters = ws.getProducerRegisters().value_or(0);
  options.consumerRegisters = ws.getConsumerRegisters().value_or(0);

  // The ring the passes built is the ring of the TMA plan.
  if (failed(plan))
    return success();
  bool ringMatches = true;
  op.getBody().walk([&](RingCreateOp create) {
    if (create.getRing().getType().getStages() != plan->stages)
      ringMatches = false;
  });
  if (!ringMatches)
    return op.emitOpError("expected the K/V ring to have the stages of the "
                          "TMA plan");

  // The FP8 layout's ops (V's transposes, P's key order) are checked first,
  // with their own messages; the walk of the consumer loop passes over them.
  if (failed(readSM90FP8Layout(op)))
    return failure();
  FailureOr<SM90ConsumerLoop> loop = readSM90ConsumerLoop(ws);
  if (failed(loop))
    return failure();
  options.consumerLoop = std::move(*loop);
  options.intraWarpgroupOverlap = options.consumerLoop.isOverlapped();

  bool hasBarriers = false;
  ws.getConsumer().walk([&](Operation *inner) {
    hasBarriers |= isa<NamedBarrierSyncOp, NamedBarrierArriveOp>(inner);
  });
  options.pingpong = hasBarriers;
  if (hasBarriers) {
    if (ws.getConsumers() != 2)
      return ws.emitOpError("pingpong is implemented for two consumer "
                            "warpgroups");
    FailureOr<int64_t> base = readPingpongBase(ws);
    if (failed(base))
      return failure();
    options.pingpongBarrierBase = *base;
  }
  return success();
}
