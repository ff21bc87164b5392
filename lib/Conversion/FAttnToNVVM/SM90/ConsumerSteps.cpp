//===- ConsumerSteps.cpp - sm_90a kernel: the KV loop's L2 ops, in order --===//
//
// Builds the steps of one block of the consumers' KV loop (ConsumerLoop.h:
// the L2 ops of the loop's body, prologue or epilogue) in their order. Each
// fattn.mma is issued as an async wgmma group where it stands; the group is
// waited for (wgmma.wait_group with the younger groups left in flight) at
// the first use of its result, or at the block's end; a fattn.ring_release
// of a tile that a wgmma in flight still reads arrives once that wgmma
// completed. Named barriers are built where they stand.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

using namespace mlir;
using namespace mlir::fattn;
using namespace mlir::fattn::sm90;

using Step = SM90ConsumerStep;

void SM90KernelEmitter::emitKVSteps(ArrayRef<Step> steps, KVBlock &b) {
  for (Step step : steps) {
    switch (step) {
    case Step::WaitKey:
      if (b.keyPhase)
        waitBarrier(barrier(layout.fullKBar(), b.keyStage), b.keyPhase);
      else
        waitBarrier(barrier(layout.fullKBar(), b.keyStage),
                    phaseOf(b.keyOrdinal));
      break;
    case Step::WaitValue:
      if (b.valuePhase)
        waitBarrier(barrier(fullValueBar(), b.valueStage), b.valuePhase);
      else
        waitBarrier(barrier(fullValueBar(), b.valueStage),
                    phaseOf(b.valueOrdinal));
      break;
    case Step::BarrierSync:
      pingpongSync();
      break;
    case Step::BarrierArrive:
      pingpongArrive();
      break;
    case Step::IssueScores:
      b.s = issueQK(b.keyStage, *b.scores);
      b.inFlight.push_back(Step::IssueScores);
      b.fenced = true;
      break;
    case Step::IssueProduct: {
      SmallVector<Value> &o = accumulator(b);
      // P of this block's softmax, or the previous tile's, carried in.
      if (b.p.empty())
        b.p = b.carriedP ? unpack(b.carriedP, tile.numP) : b.sm.packedP;
      // A wgmma.fence before the first wgmma of the group, and again when
      // the accumulator registers were written since the last one.
      o = issuePV(o, b.p, b.valueStage, /*fence=*/!b.fenced, *b.product);
      b.inFlight.push_back(Step::IssueProduct);
      b.fenced = true;
      break;
    }
    case Step::ReleaseKey:
    case Step::ReleaseValue: {
      Step gemm =
          step == Step::ReleaseKey ? Step::IssueScores : Step::IssueProduct;
      if (llvm::is_contained(b.inFlight, gemm))
        b.pendingReleases.push_back(step);
      else
        releaseSlot(b, step);
      break;
    }
    case Step::Rescale: {
      SmallVector<Value> &o = accumulator(b);
      if (b.rescalesThisTile) {
        // This tile's factors (the plain loop).
        rescaleOWhen(o,
                     rescaleFactors(b.sm, b.dvp, b.descales.value,
                                    b.valueDescale),
                     b.sm.rescale);
        b.fenced = false;
      } else if (defersRescale()) {
        // The previous tile's, carried into the block.
        rescaleOWhen(o, b.carriedFactors, b.carriedWhen);
        b.fenced = false;
      }
      // Otherwise the previous iteration rescaled O already, at its end
      // (emitOverlappedLoop), and the prologue's O is zero.
      break;
    }
    case Step::Softcap:
    case Step::Mask:
      // The first use of S; the softcap and the mask themselves are built
      // with the softmax (emitSoftmax).
      completeScores(b);
      break;
    case Step::Softmax: {
      completeScores(b);
      b.sm = emitSoftmax(b.s, b.j, b.oldMax, b.oldSum, b.descales, *b.scores);
      b.fenced = false;
      // e4m3 P is packed only once the P V in flight has completed: packed
      // during it (cvt + prmt), ptxas places P in registers that the
      // in-flight wgmma still reads and serializes every wgmma (C7513). The
      // exp2s, the bulk of the softmax, still overlap the GEMM. 16-bit P is
      // packed right away (packed after the wait, it measured the same,
      // docs/PERF.md).
      if (cfg.isFP8() && llvm::is_contained(b.inFlight, Step::IssueProduct))
        b.packAfterProduct = true;
      else
        b.sm.packedP = packProbabilities(b.sm.probabilities);
      // Factors that cross the back edge (the overlapped loop's body) are
      // computed with the softmax.
      if (b.carriesFactors)
        b.factor = rescaleFactors(b.sm, b.dvp, b.descales.value,
                                  b.valueDescale);
      break;
    }
    }
  }
  // Every GEMM of the block completes in it.
  completeScores(b);
  completeProduct(b);
}

SmallVector<Value> &SM90KernelEmitter::accumulator(KVBlock &b) {
  if (b.o.empty())
    b.o = unpack(b.carriedAcc, numAcc);
  return b.o;
}

void SM90KernelEmitter::releaseSlot(KVBlock &b, Step release) {
  if (release == Step::ReleaseKey) {
    SM90KernelEmitter::release(layout.emptyKBar(), b.keyStage);
    return;
  }
  SM90KernelEmitter::release(emptyValueBar(), b.valueStage);
  emitLoadAhead(b.valueOrdinal);
}

/// Waits for the wgmma group `gemm` of `b`, leaving the groups issued after
/// it in flight, and returns whether it was in flight.
bool SM90KernelEmitter::waitForGroup(KVBlock &b, Step gemm) {
  auto it = llvm::find(b.inFlight, gemm);
  if (it == b.inFlight.end())
    return false;
  waitGroup(static_cast<int>(b.inFlight.end() - it - 1));
  b.inFlight.erase(it);
  b.fenced = false;
  return true;
}

void SM90KernelEmitter::flushReleases(KVBlock &b, Step release) {
  if (!llvm::is_contained(b.pendingReleases, release))
    return;
  llvm::erase(b.pendingReleases, release);
  releaseSlot(b, release);
}

void SM90KernelEmitter::completeScores(KVBlock &b) {
  if (!waitForGroup(b, Step::IssueScores))
    return;
  b.s = pack(fenceValues(unpack(b.s, b.scores->numS)), b.scores->sType);
  flushReleases(b, Step::ReleaseKey);
}

void SM90KernelEmitter::completeProduct(KVBlock &b) {
  if (!waitForGroup(b, Step::IssueProduct))
    return;
  b.o = fenceValues(b.o);
  foldRowSums(b.o);
  // P's registers become the next P V's A operand.
  if (b.packAfterProduct) {
    b.sm.packedP = packProbabilities(b.sm.probabilities);
    b.packAfterProduct = false;
  }
  flushReleases(b, Step::ReleaseValue);
}
