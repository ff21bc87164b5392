//===- WarpSpecialize.cpp - producer and consumer warpgroups (sm_90a) -----===//
//
// Splits a planned tiled attention op into a TMA producer warpgroup and
// consumer warpgroups that meet at a K/V ring (FlashAttention-3, section
// 3.1). The three KV loops of --fattn-tile (masked left edge, unmasked
// middle, masked right edge) become one consumer loop that masks only the
// edge tiles: the producer and the consumers walk the same tiles in the same
// order, which is what makes the ring's FIFO pairing line up.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Schedule.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/TMAPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#define DEBUG_TYPE "fattn-warp-specialize"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNWARPSPECIALIZE
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

namespace {
/// The parts of the tiled form (as --fattn-tile builds it) that the rewrite
/// reads.
struct TiledBody {
  KVTileRangeOp range;
  /// The KV loops in order; each one's inits are the previous one's results.
  SmallVector<scf::ForOp> loops;
  /// The loop whose body becomes the consumer loop's: a masked one if any.
  scf::ForOp pattern;
  LoadTileOp keyLoad, valueLoad;
  MaskOp mask;
};
} // namespace

static FailureOr<TiledBody> analyzeTiledBody(TiledAttentionOp op) {
  TiledBody tiled;
  for (Operation &inner : op.getBody().front()) {
    if (isa<WarpSpecializeOp>(inner))
      return op.emitOpError("is already warp-specialized");
    if (auto range = dyn_cast<KVTileRangeOp>(inner)) {
      if (tiled.range)
        return op.emitOpError("expected one fattn.kv_tile_range");
      tiled.range = range;
    } else if (auto loop = dyn_cast<scf::ForOp>(inner)) {
      tiled.loops.push_back(loop);
    }
  }
  if (!tiled.range || tiled.loops.empty())
    return op.emitOpError("expected the form --fattn-tile builds: a "
                          "fattn.kv_tile_range and the KV loops over its tiles");
  for (auto [i, loop] : llvm::enumerate(tiled.loops)) {
    if (i > 0 && loop.getInitArgs() != tiled.loops[i - 1].getResults())
      return op.emitOpError("expected each KV loop to continue the previous "
                            "one's running max, sum and accumulator");
    LoadTileOp key, value;
    MaskOp mask;
    for (Operation &inner : *loop.getBody()) {
      if (auto load = dyn_cast<LoadTileOp>(inner)) {
        if (load.getSource() == op.getKey() && !key)
          key = load;
        else if (load.getSource() == op.getValue() && !value)
          value = load;
        else
          return op.emitOpError("expected each KV loop to load one K tile and "
                                "one V tile");
      } else if (auto m = dyn_cast<MaskOp>(inner)) {
        mask = m;
      }
    }
    if (!key || !value)
      return op.emitOpError("expected each KV loop to load one K tile and one "
                            "V tile");
    if (!tiled.pattern || (mask && !tiled.mask)) {
      tiled.pattern = loop;
      tiled.keyLoad = key;
      tiled.valueLoad = value;
      tiled.mask = mask;
    }
  }
  return tiled;
}

/// Clones `op` at the builder's insertion point after the ops of `loopBody`
/// that it depends on (index arithmetic of the tile row), remapping through
/// `mapping`.
static Value cloneWithLoopDeps(OpBuilder &builder, Operation *op,
                               IRMapping &mapping, Block *loopBody) {
  for (Value operand : op->getOperands()) {
    Operation *def = operand.getDefiningOp();
    if (def && def->getBlock() == loopBody && !mapping.contains(operand))
      cloneWithLoopDeps(builder, def, mapping, loopBody);
  }
  return builder.clone(*op, mapping)->getResult(0);
}

FailureOr<WarpSpecializeOp>
mlir::fattn::warpSpecialize(RewriterBase &rewriter, TiledAttentionOp op,
                            const WarpSpecializeOptions &options) {
  FailureOr<TMAPlan> plan = getTMAPlan(op);
  if (failed(plan))
    return op.emitOpError("has no TMA plan: run --fattn-sm90-tma first");
  if (options.consumers < 1 || options.consumers > 3)
    return op.emitOpError() << "expected 1 to 3 consumer warpgroups, found "
                            << options.consumers;
  if (op.getBlockM() != kConsumerWarpgroupRows * options.consumers)
    return op.emitOpError() << "with " << options.consumers
                            << " consumer warpgroups of "
                            << kConsumerWarpgroupRows
                            << " rows, block_m must be "
                            << kConsumerWarpgroupRows * options.consumers
                            << ", found " << op.getBlockM();
  FailureOr<TiledBody> tiled = analyzeTiledBody(op);
  if (failed(tiled))
    return failure();

  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  Block &body = op.getBody().front();
  scf::ForOp first = tiled->loops.front(), last = tiled->loops.back();
  scf::ForOp pattern = tiled->pattern;
  KVTileRangeOp range = tiled->range;

  rewriter.setInsertionPoint(first);
  auto ringType =
      RingType::get(ctx, plan->stages,
                    {tiled->keyLoad.getType(), tiled->valueLoad.getType()});
  Value ring = rewriter.create<RingCreateOp>(loc, ringType);
  // Register counts of 0 leave the registers alone (no setmaxnreg).
  bool moveRegisters =
      options.producerRegisters != 0 || options.consumerRegisters != 0;
  auto ws = rewriter.create<WarpSpecializeOp>(
      loc, options.consumers, kConsumerWarpgroupRows,
      moveRegisters ? rewriter.getI64IntegerAttr(options.producerRegisters)
                    : IntegerAttr(),
      moveRegisters ? rewriter.getI64IntegerAttr(options.consumerRegisters)
                    : IntegerAttr());
  Block *producer = rewriter.createBlock(&ws.getProducer());
  Block *consumer = rewriter.createBlock(&ws.getConsumer(), {},
                                         {rewriter.getIndexType()}, {loc});

  // Producer: acquire a slot, load K and V of tile j into it.
  rewriter.setInsertionPointToStart(producer);
  Value one = rewriter.create<arith::ConstantIndexOp>(loc, 1);
  auto produce =
      rewriter.create<scf::ForOp>(loc, range.getLo(), range.getHi(), one);
  rewriter.setInsertionPointToStart(produce.getBody());
  IRMapping producerMap;
  producerMap.map(pattern.getInductionVar(), produce.getInductionVar());
  LoadTileOp loads[] = {tiled->keyLoad, tiled->valueLoad};
  for (auto [element, load] : llvm::enumerate(loads)) {
    rewriter.create<RingAcquireOp>(loc, ring, element);
    Value tile =
        cloneWithLoopDeps(rewriter, load, producerMap, pattern.getBody());
    rewriter.create<RingCommitOp>(loc, ring, element, tile);
  }

  // Consumer: the running state's initial values, then one loop over all
  // visible tiles.
  rewriter.setInsertionPointToStart(consumer);
  for (Value init : first.getInitArgs())
    if (auto def = init.getDefiningOp<SoftmaxInitOp>())
      if (def->getBlock() == &body)
        rewriter.moveOpBefore(def, consumer, consumer->end());
  rewriter.setInsertionPointToEnd(consumer);
  Value cOne = rewriter.create<arith::ConstantIndexOp>(loc, 1);
  auto consume = rewriter.create<scf::ForOp>(
      loc, range.getLo(), range.getHi(), cOne, first.getInitArgs(),
      [&](OpBuilder &b, Location loc, Value iv, ValueRange iters) {
        IRMapping m;
        m.map(pattern.getInductionVar(), iv);
        m.map(pattern.getRegionIterArgs(), iters);
        for (Operation &inner : pattern.getBody()->without_terminator()) {
          if (&inner == tiled->keyLoad || &inner == tiled->valueLoad) {
            int64_t element = &inner == tiled->keyLoad ? 0 : 1;
            Value tile = b.create<RingWaitOp>(
                loc, inner.getResult(0).getType(), ring, element);
            m.map(inner.getResult(0), tile);
            continue;
          }
          if (&inner != tiled->mask) {
            b.clone(inner, m);
            // A tile's slot element is free once its last GEMM is issued.
            if (auto mma = dyn_cast<MmaOp>(inner))
              for (auto [element, load] : llvm::enumerate(loads))
                if (mma.getRhs() == load.getResult())
                  b.create<RingReleaseOp>(loc, ring, element);
            continue;
          }
          // Only tiles outside [full_lo, full_hi) have hidden keys.
          Value beforeFull = b.create<arith::CmpIOp>(
              loc, arith::CmpIPredicate::ult, iv, range.getFullLo());
          Value afterFull = b.create<arith::CmpIOp>(
              loc, arith::CmpIPredicate::uge, iv, range.getFullHi());
          Value edge = b.create<arith::OrIOp>(loc, beforeFull, afterFull);
          auto ifOp = b.create<scf::IfOp>(
              loc, edge,
              [&](OpBuilder &tb, Location loc) {
                Value masked = tb.clone(inner, m)->getResult(0);
                tb.create<scf::YieldOp>(loc, masked);
              },
              [&](OpBuilder &eb, Location loc) {
                eb.create<scf::YieldOp>(
                    loc, m.lookup(tiled->mask.getScores()));
              });
          m.map(inner.getResult(0), ifOp.getResult(0));
        }
        auto yield = cast<scf::YieldOp>(pattern.getBody()->getTerminator());
        SmallVector<Value> results;
        for (Value v : yield.getOperands())
          results.push_back(m.lookupOrDefault(v));
        b.create<scf::YieldOp>(loc, results);
      });

  // Finalize and store now read the consumer loop's results.
  rewriter.replaceAllUsesWith(last.getResults(), consume.getResults());
  SmallVector<Operation *> tail;
  for (Operation *it = last->getNextNode(); it; it = it->getNextNode())
    tail.push_back(it);
  for (Operation *moved : tail)
    rewriter.moveOpBefore(moved, consumer, consumer->end());
  for (scf::ForOp loop : llvm::reverse(tiled->loops))
    rewriter.eraseOp(loop);
  return ws;
}

WarpSpecializeOp mlir::fattn::getWarpSpecialize(TiledAttentionOp op) {
  WorkLoopOp loop = getWorkLoop(op);
  Block &body = loop ? loop.getBody().front() : op.getBody().front();
  for (Operation &inner : body)
    if (auto ws = dyn_cast<WarpSpecializeOp>(inner))
      return ws;
  return nullptr;
}

LogicalResult mlir::fattn::forEachWarpSpecialize(
    Operation *root, StringRef what,
    function_ref<LogicalResult(WarpSpecializeOp)> schedule) {
  WalkResult result = root->walk([&](TiledAttentionOp op) {
    WarpSpecializeOp ws = getWarpSpecialize(op);
    if (!ws) {
      op.emitOpError() << "has no consumer warpgroups to " << what
                       << ": run --fattn-warp-specialize first";
      return WalkResult::interrupt();
    }
    return failed(schedule(ws)) ? WalkResult::interrupt()
                                : WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

namespace {
struct FAttnWarpSpecializePass
    : public fattn::impl::FAttnWarpSpecializeBase<FAttnWarpSpecializePass> {
  using FAttnWarpSpecializeBase::FAttnWarpSpecializeBase;

  void runOnOperation() override {
    WarpSpecializeOptions options{consumers, producerRegisters,
                                  consumerRegisters};
    SmallVector<TiledAttentionOp> ops;
    getOperation()->walk([&](TiledAttentionOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (TiledAttentionOp op : ops)
      if (failed(warpSpecialize(rewriter, op, options)))
        return signalPassFailure();
  }
};
} // namespace
