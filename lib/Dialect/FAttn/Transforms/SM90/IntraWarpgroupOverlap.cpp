//===- IntraWarpgroupOverlap.cpp - pipeline the consumer loop (sm_90a) ----===//
//
// FlashAttention-3's intra-warpgroup overlap (section 3.2) as a software
// pipeline of the consumer loop. Splitting one iteration into
//   A(j): wait K_j, S_j = Q K_j^T, mask, softmax -> P_j, m_j, l_j, alpha_j
//   B(j): O = alpha_j O, wait V_j, O += P_j V_j, release slot j
// the loop runs A(lo) in a prologue, then for j in (lo, hi):
//   [Q K_j^T of A(j)], B(j - 1), [softmax of A(j)]
// and B(hi - 1) in an epilogue. The two GEMMs of an iteration are issued
// back to back and the softmax of tile j follows, so on the GPU the softmax
// runs while the tensor cores work (and the pingpong pass can hand them to
// the other warpgroup as one turn).
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Schedule.h"

#include "fattn/Dialect/FAttn/IR/FAttnFP8Ops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

#define DEBUG_TYPE "fattn-intra-wg-overlap"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNINTRAWARPGROUPOVERLAP
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

scf::ForOp mlir::fattn::getConsumerLoop(WarpSpecializeOp ws) {
  scf::ForOp found;
  for (Operation &op : ws.getConsumer().front()) {
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop)
      continue;
    if (found)
      return nullptr;
    found = loop;
  }
  return found;
}

bool mlir::fattn::isConsumerLoopOverlapped(WarpSpecializeOp ws) {
  scf::ForOp loop = getConsumerLoop(ws);
  // The pipelined loop carries P (16-bit probabilities) besides the f32
  // running state.
  return loop && llvm::any_of(loop.getRegionIterArgs(), [](BlockArgument arg) {
           auto type = dyn_cast<RankedTensorType>(arg.getType());
           return type && type.getElementType().getIntOrFloatBitWidth() < 32;
         });
}

namespace {
/// One consumer iteration, split as in the file comment.
struct ConsumerIteration {
  scf::ForOp loop;
  MmaOp scores;        // S = Q K^T
  SoftmaxUpdateOp update;
  /// B: rescale, wait V, P V, release (in order).
  SmallVector<Operation *> stageB;
  /// A, before and after the S GEMM (in order).
  SmallVector<Operation *> stageA1, stageA2;
  /// The values of A that B reads, which cross to the next iteration: P
  /// and alpha first, then any other (an FP8 tile's V descale).
  SmallVector<Value> crossing;
  /// The accumulator iter arg and the B op that produces the next one.
  BlockArgument acc;
  Value nextAcc;
};
} // namespace

/// Puts into B the ops of `body` that only lay out the P V product's
/// operands: P's key permutation and V's per-tile factor splat over the
/// product's columns (a V stored transposed is tiled with them). P and V's
/// factor then cross iterations as they do for a V stored by rows.
static void addOperandPreparation(MmaOp valueMma, Block *body,
                                  llvm::SmallPtrSetImpl<Operation *> &inB) {
  SmallVector<Value> worklist = {valueMma.getLhs()};
  if (Value scale = valueMma.getRhsScale())
    worklist.push_back(scale);
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != body ||
        !isa<PermuteKeysOp, tensor::SplatOp, tensor::ExtractOp,
             arith::ConstantOp>(def) ||
        !llvm::all_of(def->getUsers(),
                      [&](Operation *user) { return inB.contains(user); }))
      continue;
    inB.insert(def);
    llvm::append_range(worklist, def->getOperands());
  }
}

static FailureOr<ConsumerIteration> splitIteration(WarpSpecializeOp ws) {
  ConsumerIteration it;
  it.loop = getConsumerLoop(ws);
  if (!it.loop)
    return ws.emitOpError("expected one KV loop in the consumer region");
  if (isConsumerLoopOverlapped(ws))
    return ws.emitOpError("the consumer loop is already pipelined");
  Block *body = it.loop.getBody();
  MmaOp valueMma;
  RescaleOp rescale;
  for (Operation &op : body->without_terminator()) {
    if (auto mma = dyn_cast<MmaOp>(op)) {
      // P V accumulates into O; S = Q K^T starts from zero. (Both read their
      // rhs transposed when V is stored as V^T.)
      if (mma.getAcc())
        valueMma = mma;
      else
        it.scores = mma;
    } else if (auto update = dyn_cast<SoftmaxUpdateOp>(op)) {
      it.update = update;
    } else if (auto r = dyn_cast<RescaleOp>(op)) {
      rescale = r;
    }
  }
  if (!it.scores || !valueMma || !it.update || !rescale)
    return ws.emitOpError("expected the consumer loop of --fattn-warp-"
                          "specialize (Q K^T, softmax_update, rescale, P V)");
  it.crossing = {it.update.getProbs(), it.update.getAlpha()};
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  // The iter args are (max, sum, acc) in this order (--fattn-tile).
  if (it.loop.getNumRegionIterArgs() != 3)
    return ws.emitOpError("expected the consumer loop to carry max, sum and "
                          "the accumulator");
  it.acc = it.loop.getRegionIterArgs()[2];
  it.nextAcc = yield.getOperand(2);
  if (yield.getOperand(0) != it.update.getNewMax() ||
      yield.getOperand(1) != it.update.getNewSum() ||
      it.nextAcc != valueMma.getResult() || rescale.getAcc() != it.acc)
    return ws.emitOpError("expected the consumer loop to yield the new max, "
                          "sum and P V accumulator");

  // B is the rescale, the V wait, the P V GEMM and V's release; everything
  // else is A.
  auto valueWait = valueMma.getRhs().getDefiningOp<RingWaitOp>();
  if (!valueWait)
    return ws.emitOpError("expected the consumer loop to take V from the ring");
  llvm::SmallPtrSet<Operation *, 8> inB;
  inB.insert(rescale);
  inB.insert(valueMma);
  inB.insert(valueWait);
  addOperandPreparation(valueMma, body, inB);
  for (Operation &op : body->without_terminator())
    if (auto release = dyn_cast<RingReleaseOp>(op);
        release && release.getElement() == valueWait.getElement())
      inB.insert(&op);
  bool afterScores = false;
  for (Operation &op : body->without_terminator()) {
    if (inB.contains(&op)) {
      it.stageB.push_back(&op);
      // B reads the accumulator, values from outside and values of A, which
      // cross to the next iteration (P, alpha, V's descale); not the
      // induction variable or the running max and sum.
      for (Value operand : op.getOperands()) {
        Operation *def = operand.getDefiningOp();
        bool fromA = def && def->getBlock() == body && !inB.contains(def);
        if (fromA && !llvm::is_contained(it.crossing, operand))
          it.crossing.push_back(operand);
        if (isa<BlockArgument>(operand) && operand != it.acc &&
            cast<BlockArgument>(operand).getOwner() == body)
          return ws.emitOpError("expected the P V half of the consumer loop "
                                "to depend only on the accumulator and on "
                                "values that the softmax half computes");
      }
      continue;
    }
    for (Value operand : op.getOperands())
      if (Operation *def = operand.getDefiningOp();
          (def && inB.contains(def)) || operand == it.acc)
        return ws.emitOpError("expected the softmax half of the consumer "
                              "loop not to depend on its P V half or the "
                              "accumulator");
    // K's release follows S = Q K^T in the GEMM half.
    bool releasesKey = isa<RingReleaseOp>(op) && it.stageA2.empty();
    (afterScores && !releasesKey ? it.stageA2 : it.stageA1).push_back(&op);
    if (&op == it.scores)
      afterScores = true;
  }
  return it;
}

LogicalResult mlir::fattn::overlapConsumerLoop(RewriterBase &rewriter,
                                               WarpSpecializeOp ws) {
  FailureOr<ConsumerIteration> split = splitIteration(ws);
  if (failed(split))
    return failure();
  ConsumerIteration &it = *split;
  scf::ForOp loop = it.loop;
  // K of tile j is waited for while tile j - 1 still holds its slot.
  Value ring;
  for (Operation *op : it.stageB)
    if (auto release = dyn_cast<RingReleaseOp>(op))
      ring = release.getRing();
  if (ring && cast<RingType>(ring.getType()).getStages() < 2)
    return ws.emitOpError("intra-warpgroup overlap needs a ring of at least 2 "
                          "stages");

  Location loc = loop.getLoc();
  Value lo = loop.getLowerBound(), hi = loop.getUpperBound(),
        step = loop.getStep();
  ValueRange inits = loop.getInitArgs();
  Value iv = loop.getInductionVar();

  auto cloneAll = [](OpBuilder &b, ArrayRef<Operation *> ops, IRMapping &m) {
    for (Operation *op : ops)
      b.clone(*op, m);
  };
  SmallVector<Operation *> stageA = it.stageA1;
  llvm::append_range(stageA, it.stageA2);

  // Prologue: A(lo) when there is a tile at all. Without one the loop and
  // the epilogue do not run and the running state keeps its initial value;
  // the values crossing to B get zero placeholders that nothing reads.
  rewriter.setInsertionPoint(loop);
  Value nonEmpty =
      rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, lo, hi);
  auto prologue = rewriter.create<scf::IfOp>(
      loc, nonEmpty,
      [&](OpBuilder &b, Location loc) {
        IRMapping m;
        m.map(iv, lo);
        m.map(loop.getRegionIterArgs(), inits);
        cloneAll(b, stageA, m);
        SmallVector<Value> results = {m.lookup(it.update.getNewMax()),
                                      m.lookup(it.update.getNewSum())};
        for (Value v : it.crossing)
          results.push_back(m.lookup(v));
        b.create<scf::YieldOp>(loc, results);
      },
      [&](OpBuilder &b, Location loc) {
        SmallVector<Value> results = {inits[0], inits[1]};
        for (Value v : it.crossing)
          results.push_back(b.create<arith::ConstantOp>(
              loc, cast<TypedAttr>(b.getZeroAttr(v.getType()))));
        b.create<scf::YieldOp>(loc, results);
      });

  // Steady state over (lo, hi): S_j, then P_{j-1} V_{j-1}, then softmax_j.
  Value next = rewriter.create<arith::AddIOp>(loc, lo, step);
  SmallVector<Value> loopInits = {prologue.getResult(0), prologue.getResult(1),
                                  inits[2]};
  llvm::append_range(loopInits, prologue.getResults().drop_front(2));
  auto steady = rewriter.create<scf::ForOp>(
      loc, next, hi, step, loopInits,
      [&](OpBuilder &b, Location loc, Value j, ValueRange iters) {
        IRMapping a;
        a.map(iv, j);
        a.map(loop.getRegionIterArgs()[0], iters[0]);
        a.map(loop.getRegionIterArgs()[1], iters[1]);
        cloneAll(b, it.stageA1, a);
        IRMapping bm;
        bm.map(it.acc, iters[2]);
        bm.map(it.crossing, iters.drop_front(3));
        cloneAll(b, it.stageB, bm);
        cloneAll(b, it.stageA2, a);
        SmallVector<Value> results = {a.lookup(it.update.getNewMax()),
                                      a.lookup(it.update.getNewSum()),
                                      bm.lookup(it.nextAcc)};
        for (Value v : it.crossing)
          results.push_back(a.lookup(v));
        b.create<scf::YieldOp>(loc, results);
      });

  // Epilogue: B(hi - 1).
  auto epilogue = rewriter.create<scf::IfOp>(
      loc, nonEmpty,
      [&](OpBuilder &b, Location loc) {
        IRMapping m;
        m.map(it.acc, steady.getResult(2));
        m.map(it.crossing, steady.getResults().drop_front(3));
        cloneAll(b, it.stageB, m);
        b.create<scf::YieldOp>(loc, m.lookup(it.nextAcc));
      },
      [&](OpBuilder &b, Location loc) {
        b.create<scf::YieldOp>(loc, steady.getResult(2));
      });

  rewriter.replaceOp(loop, ValueRange{steady.getResult(0), steady.getResult(1),
                                      epilogue.getResult(0)});
  return success();
}

namespace {
struct FAttnIntraWarpgroupOverlapPass
    : public fattn::impl::FAttnIntraWarpgroupOverlapBase<
          FAttnIntraWarpgroupOverlapPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    auto pipeline = [&](WarpSpecializeOp ws) {
      return overlapConsumerLoop(rewriter, ws);
    };
    if (failed(forEachWarpSpecialize(getOperation(), "pipeline", pipeline)))
      signalPassFailure();
  }
};
} // namespace
