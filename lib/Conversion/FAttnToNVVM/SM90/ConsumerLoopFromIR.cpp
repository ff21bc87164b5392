//===- ConsumerLoopFromIR.cpp - the consumers' KV loop read off L2 --------===//
//
// Reads the consumer region's KV loop (and the overlapped loop's prologue
// and epilogue) op by op into the steps the emitter builds
// (ConsumerLoop.h), and rejects what the emitter cannot build, naming the
// op.
//
//===----------------------------------------------------------------------===//

#include "fattn/Conversion/FAttnToNVVM/SM90/ConsumerLoop.h"
#include "fattn/Conversion/FAttnToNVVM/SM90/ScheduleFromIR.h"
#include "fattn/Dialect/FAttn/IR/FAttnFP8Ops.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Schedule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::fattn;

using Step = SM90ConsumerStep;

const char *mlir::fattn::stringifySM90ConsumerStep(Step step) {
  switch (step) {
  case Step::WaitKey:
    return "fattn.ring_wait of K";
  case Step::WaitValue:
    return "fattn.ring_wait of V";
  case Step::BarrierSync:
    return "fattn.named_barrier_sync";
  case Step::BarrierArrive:
    return "fattn.named_barrier_arrive";
  case Step::IssueScores:
    return "fattn.mma of S = Q K^T";
  case Step::IssueProduct:
    return "fattn.mma of O += P V";
  case Step::ReleaseKey:
    return "fattn.ring_release of K";
  case Step::ReleaseValue:
    return "fattn.ring_release of V";
  case Step::Rescale:
    return "fattn.rescale";
  case Step::Softcap:
    return "fattn.softcap";
  case Step::Mask:
    return "fattn.mask";
  case Step::Softmax:
    return "fattn.softmax_update";
  }
  return "?";
}

SM90ConsumerLoop SM90ConsumerLoop::sequential() {
  SM90ConsumerLoop loop;
  loop.body = {Step::WaitKey,   Step::IssueScores, Step::ReleaseKey,
               Step::Mask,      Step::Softmax,     Step::Rescale,
               Step::WaitValue, Step::IssueProduct, Step::ReleaseValue};
  return loop;
}

namespace {
/// Which block of the loop is read: the steps each must have.
enum class LoopPart { SequentialBody, OverlappedBody, Prologue, Epilogue };

const char *partName(LoopPart part) {
  switch (part) {
  case LoopPart::SequentialBody:
  case LoopPart::OverlappedBody:
    return "the consumer KV loop's body";
  case LoopPart::Prologue:
    return "the overlapped KV loop's prologue";
  case LoopPart::Epilogue:
    return "the overlapped KV loop's epilogue";
  }
  return "?";
}

/// The ring's halves: slot 0 holds K, slot 1 V.
constexpr int64_t kKeySlot = 0, kValueSlot = 1;

/// The steps of one block, with the op each came from.
struct BlockSteps {
  SmallVector<Step> steps;
  SmallVector<Operation *> ops;
  void add(Step step, Operation *op) {
    steps.push_back(step);
    ops.push_back(op);
  }
};

/// Whether `ifOp` is the scf.if around fattn.mask that the schedule passes
/// build: the mask and yields only.
bool isMaskBranch(scf::IfOp ifOp) {
  bool hasMask = false, other = false;
  ifOp->walk([&](Operation *inner) {
    if (inner == ifOp.getOperation() || isa<scf::YieldOp>(inner))
      return;
    if (isa<MaskOp>(inner))
      hasMask = true;
    else
      other = true;
  });
  return hasMask && !other;
}

/// The ring slot whose fattn.ring_wait defines `tile`, or -1.
int64_t waitedSlot(Value tile) {
  if (auto wait = tile.getDefiningOp<RingWaitOp>())
    return wait.getElement();
  return -1;
}

/// Reads `block`'s ops into steps; fails on an op the emitter cannot build.
FailureOr<BlockSteps> readBlock(Block &block, LoopPart part) {
  BlockSteps out;
  for (Operation &op : block) {
    auto unsupported = [&](const Twine &why) {
      return op.emitOpError() << "cannot be built by the sm_90a lowering in "
                              << partName(part) << ": " << why;
    };
    // Index math and the FP8 descales, which the emitter computes (and
    // reads) itself; P's key order (the FP8 layout, FP8LayoutFromIR.cpp).
    if (isa<arith::ArithDialect, tensor::TensorDialect>(op.getDialect()) ||
        isa<scf::YieldOp, LoadDescaleOp, PermuteKeysOp>(op))
      continue;
    if (auto wait = dyn_cast<RingWaitOp>(op)) {
      int64_t slot = wait.getElement();
      if (slot != kKeySlot && slot != kValueSlot)
        return unsupported("expected slot 0 (K) or 1 (V)");
      out.add(slot == kKeySlot ? Step::WaitKey : Step::WaitValue, &op);
    } else if (auto release = dyn_cast<RingReleaseOp>(op)) {
      int64_t slot = release.getElement();
      if (slot != kKeySlot && slot != kValueSlot)
        return unsupported("expected slot 0 (K) or 1 (V)");
      out.add(slot == kKeySlot ? Step::ReleaseKey : Step::ReleaseValue, &op);
    } else if (isa<NamedBarrierSyncOp>(op)) {
      out.add(Step::BarrierSync, &op);
    } else if (isa<NamedBarrierArriveOp>(op)) {
      out.add(Step::BarrierArrive, &op);
    } else if (auto mma = dyn_cast<MmaOp>(op)) {
      bool product = static_cast<bool>(mma.getAcc());
      int64_t slot = waitedSlot(mma.getRhs());
      if (!product && (slot != kKeySlot || !mma.getTransposeRhs()))
        return unsupported("expected S = Q K^T on the K tile of a "
                           "fattn.ring_wait of slot 0 (transpose_rhs)");
      if (product && slot != kValueSlot)
        return unsupported("expected O += P V on the V tile of a "
                           "fattn.ring_wait of slot 1");
      out.add(product ? Step::IssueProduct : Step::IssueScores, &op);
    } else if (isa<RescaleOp>(op)) {
      out.add(Step::Rescale, &op);
    } else if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      if (!isMaskBranch(ifOp))
        return unsupported("expected only the scf.if around fattn.mask");
      out.add(Step::Mask, &op);
    } else if (isa<SoftcapOp>(op)) {
      out.add(Step::Softcap, &op);
    } else if (isa<SoftmaxUpdateOp>(op)) {
      out.add(Step::Softmax, &op);
    } else {
      return unsupported("expected ring, named barrier, fattn.mma, "
                         "fattn.softcap, fattn.mask, fattn.softmax_update or "
                         "fattn.rescale ops");
    }
  }
  return out;
}

/// Checks that `read` has each step its part needs exactly once, releases
/// after the GEMM that reads the tile, and turns that close where they open.
LogicalResult checkBlock(const BlockSteps &read, LoopPart part,
                         Block &block, Operation *where) {
  SmallVector<Step> needed;
  bool scores = part != LoopPart::Epilogue;
  bool product = part != LoopPart::Prologue;
  if (scores)
    needed.append({Step::WaitKey, Step::IssueScores, Step::ReleaseKey,
                   Step::Mask, Step::Softmax});
  if (product)
    needed.append({Step::Rescale, Step::WaitValue, Step::IssueProduct,
                   Step::ReleaseValue});
  for (Step step : {Step::WaitKey, Step::IssueScores, Step::ReleaseKey,
                    Step::Softcap, Step::Mask, Step::Softmax, Step::Rescale,
                    Step::WaitValue, Step::IssueProduct, Step::ReleaseValue}) {
    int64_t count = llvm::count(read.steps, step);
    int64_t expected = llvm::is_contained(needed, step) ? 1 : 0;
    // The softcap is the kernel's (SM90KernelConfig::softcap): at most one.
    if (step == Step::Softcap && scores && count <= 1)
      continue;
    if (count != expected)
      return where->emitOpError()
             << "expected " << expected << " " << stringifySM90ConsumerStep(step)
             << " in " << partName(part) << ", found " << count;
  }
  auto position = [&](Step step) {
    return llvm::find(read.steps, step) - read.steps.begin();
  };
  // The emitter hands a slot back once the wgmma that reads it completed.
  auto releaseAfter = [&](Step release, Step mma) -> LogicalResult {
    if (position(release) > position(mma))
      return success();
    return read.ops[position(release)]->emitOpError()
           << "releases its slot before the fattn.mma that reads it";
  };
  if (scores && failed(releaseAfter(Step::ReleaseKey, Step::IssueScores)))
    return failure();
  if (product && failed(releaseAfter(Step::ReleaseValue, Step::IssueProduct)))
    return failure();
  // The rescale of the plain loop takes this tile's factors; the overlapped
  // loop's takes the previous tile's, carried into the block.
  if (product) {
    auto rescale = cast<RescaleOp>(read.ops[position(Step::Rescale)]);
    Operation *def = rescale.getAlpha().getDefiningOp();
    bool fresh = def && def->getBlock() == &block &&
                 isa<SoftmaxUpdateOp>(def);
    bool carried = !def || !where->isAncestor(def);
    if (part == LoopPart::SequentialBody && !fresh)
      return rescale.emitOpError()
             << "expected the factors of this tile's fattn.softmax_update "
                "in the consumer KV loop's body";
    if (part != LoopPart::SequentialBody && !carried)
      return rescale.emitOpError()
             << "expected the previous tile's factors in " << partName(part)
             << " (the overlapped loop rescales before P V)";
  }
  // Pingpong: each turn opens and closes in the block.
  bool open = false;
  for (auto [step, op] : llvm::zip(read.steps, read.ops)) {
    if (step == Step::BarrierSync) {
      if (open)
        return op->emitOpError() << "opens a GEMM turn before the previous "
                                    "one closed (fattn.named_barrier_arrive)";
      open = true;
    } else if (step == Step::BarrierArrive) {
      if (!open)
        return op->emitOpError()
               << "closes a GEMM turn that no fattn.named_barrier_sync "
                  "opened in "
               << partName(part);
      open = false;
    }
  }
  if (open)
    return where->emitOpError()
           << "expected each GEMM turn in " << partName(part)
           << " to close with a fattn.named_barrier_arrive";
  return success();
}

/// The ring waits go first: each fattn.ring_wait moves up past the GEMM
/// issues, turn openings, releases and (`pastRescale`: carried-factor)
/// rescales before it, so that a warpgroup waits for the tiles of its GEMMs
/// before it opens their turn. It stops at another wait (the ring's order),
/// a named_barrier_arrive and every op that computes on this block's
/// results.
SmallVector<Step> waitsFirst(ArrayRef<Step> steps, bool pastRescale) {
  SmallVector<Step> out(steps);
  auto passable = [&](Step s) {
    return s == Step::BarrierSync || s == Step::IssueScores ||
           s == Step::IssueProduct || s == Step::ReleaseKey ||
           s == Step::ReleaseValue || (pastRescale && s == Step::Rescale);
  };
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] != Step::WaitKey && out[i] != Step::WaitValue)
      continue;
    for (size_t k = i; k > 0 && passable(out[k - 1]); --k)
      std::swap(out[k - 1], out[k]);
  }
  return out;
}

FailureOr<SmallVector<Step>> readPart(Block &block, LoopPart part,
                                      Operation *where) {
  FailureOr<BlockSteps> read = readBlock(block, part);
  if (failed(read) || failed(checkBlock(*read, part, block, where)))
    return failure();
  return waitsFirst(read->steps, part != LoopPart::SequentialBody);
}

/// Whether `op` holds a fattn.mma.
bool holdsGemm(Operation &op) {
  bool found = false;
  op.walk([&](MmaOp) { found = true; });
  return found;
}
} // namespace

FailureOr<SM90ConsumerLoop>
mlir::fattn::readSM90ConsumerLoop(WarpSpecializeOp ws) {
  scf::ForOp loop = getConsumerLoop(ws);
  if (!loop)
    return ws.emitOpError("expected one KV loop in the consumer region");
  // The overlapped loop's prologue and epilogue: the GEMMs outside the loop,
  // in an scf.if before it and one after it.
  scf::IfOp prologue, epilogue;
  for (Operation &op : ws.getConsumer().front()) {
    if (&op == loop.getOperation() || !holdsGemm(op))
      continue;
    auto ifOp = dyn_cast<scf::IfOp>(op);
    bool before = op.isBeforeInBlock(loop);
    scf::IfOp &slot = before ? prologue : epilogue;
    if (!ifOp || slot)
      return op.emitOpError()
             << "cannot be built by the sm_90a lowering: expected the "
                "consumers' GEMMs in the KV loop, and outside it only in the "
                "overlapped loop's prologue and epilogue (an scf.if before "
                "and one after it)";
    slot = ifOp;
  }
  if (static_cast<bool>(prologue) != static_cast<bool>(epilogue)) {
    Operation *one = prologue ? prologue.getOperation() : epilogue;
    return one->emitOpError()
           << "cannot be built by the sm_90a lowering: expected the "
              "overlapped loop's prologue and epilogue together";
  }
  SM90ConsumerLoop result;
  bool overlapped = static_cast<bool>(prologue);
  LoopPart bodyPart =
      overlapped ? LoopPart::OverlappedBody : LoopPart::SequentialBody;
  FailureOr<SmallVector<Step>> body =
      readPart(*loop.getBody(), bodyPart, loop);
  if (failed(body))
    return failure();
  result.body = std::move(*body);
  if (!overlapped)
    return result;
  for (auto [ifOp, part, steps] :
       {std::tuple(prologue, LoopPart::Prologue, &result.prologue),
        std::tuple(epilogue, LoopPart::Epilogue, &result.epilogue)}) {
    bool elseGemm = false;
    ifOp.getElseRegion().walk([&](MmaOp) { elseGemm = true; });
    if (elseGemm)
      return ifOp.emitOpError() << "cannot be built by the sm_90a lowering: "
                                   "expected no fattn.mma in the else branch of "
                                << partName(part);
    FailureOr<SmallVector<Step>> read =
        readPart(*ifOp.thenBlock(), part, ifOp);
    if (failed(read))
      return failure();
    *steps = std::move(*read);
  }
  return result;
}
