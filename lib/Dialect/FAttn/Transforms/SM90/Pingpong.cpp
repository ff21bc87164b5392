//===- Pingpong.cpp - alternate consumer warpgroups' GEMMs (sm_90a) -------===//
//
// FlashAttention-3's pingpong scheduling (section 3.2): the two consumer
// warpgroups take turns at the tensor cores, so that one's softmax (MUFU
// exp2, shuffles) overlaps the other's GEMMs. A turn is a run of GEMM issues
// not separated by a softmax; it starts with bar.sync on the warpgroup's own
// named barrier and ends with bar.arrive on the other's. Both warpgroups walk
// the same KV tiles, so their turns pair up one to one.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Schedule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#define DEBUG_TYPE "fattn-pingpong"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNPINGPONG
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

namespace {
/// A run of GEMM issues in one block: [first, last].
struct Turn {
  Operation *first, *last;
};
} // namespace

/// The turns of `block`: maximal runs of fattn.mma ops that no softmax
/// update, and no op holding a region, interrupts.
static SmallVector<Turn> collectTurns(Block &block) {
  SmallVector<Turn> turns;
  std::optional<Turn> open;
  for (Operation &op : block) {
    if (isa<MmaOp>(op)) {
      if (!open)
        open = Turn{&op, &op};
      open->last = &op;
    } else if (isa<SoftmaxUpdateOp>(op) || op.getNumRegions() > 0) {
      if (open)
        turns.push_back(*open);
      open.reset();
    }
  }
  if (open)
    turns.push_back(*open);
  return turns;
}

LogicalResult mlir::fattn::insertPingpongBarriers(RewriterBase &rewriter,
                                                  WarpSpecializeOp ws,
                                                  int64_t barrierBase) {
  if (ws.getConsumers() != 2)
    return ws.emitOpError() << "pingpong alternates two consumer warpgroups, "
                               "found "
                            << ws.getConsumers();
  if (barrierBase < 1 || barrierBase + 1 > 15)
    return ws.emitOpError() << "pingpong needs named barriers barrier-base and "
                               "barrier-base + 1 in [1, 15], found barrier-base "
                            << barrierBase;
  bool already = false;
  ws.getConsumer().walk([&](Operation *op) {
    if (isa<NamedBarrierSyncOp, NamedBarrierArriveOp>(op))
      already = true;
  });
  if (already)
    return ws.emitOpError("the consumer warpgroups are already ordered by "
                          "named barriers");

  const int64_t threads = 2 * 128;
  Location loc = ws.getLoc();
  Block &consumer = ws.getConsumer().front();
  Value wg = ws.getWarpgroupIndex();

  // Warpgroup w waits on barrier base + w and hands over on base + 1 - w.
  rewriter.setInsertionPointToStart(&consumer);
  Value base = rewriter.create<arith::ConstantIndexOp>(loc, barrierBase);
  Value baseNext = rewriter.create<arith::ConstantIndexOp>(loc, barrierBase + 1);
  Value one = rewriter.create<arith::ConstantIndexOp>(loc, 1);
  Value mine = rewriter.create<arith::AddIOp>(loc, base, wg);
  Value other = rewriter.create<arith::SubIOp>(loc, baseNext, wg);
  // Warpgroup 1 hands the first turn to warpgroup 0.
  Value isSecond =
      rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, wg, one);
  rewriter.create<scf::IfOp>(loc, isSecond, [&](OpBuilder &b, Location loc) {
    b.create<NamedBarrierArriveOp>(loc, base, threads);
    b.create<scf::YieldOp>(loc);
  });

  SmallVector<Block *> blocks;
  ws.getConsumer().walk([&](Block *block) { blocks.push_back(block); });
  int64_t count = 0;
  for (Block *block : blocks) {
    for (Turn turn : collectTurns(*block)) {
      rewriter.setInsertionPoint(turn.first);
      rewriter.create<NamedBarrierSyncOp>(loc, mine, threads);
      rewriter.setInsertionPointAfter(turn.last);
      rewriter.create<NamedBarrierArriveOp>(loc, other, threads);
      ++count;
    }
  }
  if (count == 0)
    return ws.emitOpError("found no GEMM in the consumer region to schedule");
  return success();
}

namespace {
struct FAttnPingpongPass
    : public fattn::impl::FAttnPingpongBase<FAttnPingpongPass> {
  using FAttnPingpongBase::FAttnPingpongBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    auto order = [&](WarpSpecializeOp ws) {
      return insertPingpongBarriers(rewriter, ws, barrierBase);
    };
    if (failed(forEachWarpSpecialize(getOperation(), "order", order)))
      signalPassFailure();
  }
};
} // namespace
