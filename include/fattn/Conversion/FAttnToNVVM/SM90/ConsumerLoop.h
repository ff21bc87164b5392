//===- ConsumerLoop.h - the consumers' KV loop as the L2 IR orders it -*- C++ -*-===//
//
// The consumer warpgroups' KV loop of the sm_90a kernel is built from the L2
// consumer loop (fattn.warp_specialize's consumer region) op by op: each op
// of the loop's body, and of the overlapped loop's prologue and epilogue,
// becomes one step, in the order of the IR, and the emitter builds each step
// where it comes (ConsumerSteps.cpp). readSM90ConsumerLoop
// (ScheduleFromIR.h) reads the steps off the IR.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_CONVERSION_FATTNTONVVM_SM90_CONSUMERLOOP_H
#define FATTN_CONVERSION_FATTNTONVVM_SM90_CONSUMERLOOP_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mlir::fattn {

/// One op of the L2 consumer loop, as the emitter builds it.
enum class SM90ConsumerStep : uint8_t {
  /// fattn.ring_wait of the K half (slot 0) or of the V half (slot 1): the
  /// mbarrier wait for the tile's full barrier.
  WaitKey,
  WaitValue,
  /// fattn.named_barrier_sync / _arrive: pingpong's turn opens on the
  /// warpgroup's own barrier, closes on the other's (bar.sync / bar.arrive).
  BarrierSync,
  BarrierArrive,
  /// fattn.mma: S = Q K^T, or O += P V; each issued as one group of async
  /// wgmma, waited for at the first use of its result.
  IssueScores,
  IssueProduct,
  /// fattn.ring_release of the K or V half: the arrival on the empty
  /// barrier, once the wgmma that reads the tile has completed.
  ReleaseKey,
  ReleaseValue,
  /// fattn.rescale of O by the softmax's factors.
  Rescale,
  /// fattn.softcap: like Mask, the scores' wgmma completes here; the cap
  /// itself is built with the softmax.
  Softcap,
  /// The scf.if around fattn.mask: the scores' wgmma completes here; the
  /// mask of the edge tiles itself is built with the softmax.
  Mask,
  /// fattn.softmax_update.
  Softmax,
};

/// The name of the L2 op a step stands for (diagnostics, debugging).
const char *stringifySM90ConsumerStep(SM90ConsumerStep step);

/// The consumers' KV loop: the steps of its body, and for the loop that
/// --fattn-intra-wg-overlap pipelined, of its prologue (the first tile's S
/// and softmax) and epilogue (the last tile's P V), in the order the kernel
/// runs them.
struct SM90ConsumerLoop {
  llvm::SmallVector<SM90ConsumerStep> prologue, body, epilogue;

  /// The overlapped shape: P and the rescale factors cross iterations.
  bool isOverlapped() const { return !prologue.empty(); }
  /// The loop that --fattn-warp-specialize builds (S, its softmax, O's
  /// rescale, P V), without pingpong's turns: the kernel without a producer
  /// warpgroup, whose IR has no consumer region, runs it.
  static SM90ConsumerLoop sequential();
};

} // namespace mlir::fattn

#endif // FATTN_CONVERSION_FATTNTONVVM_SM90_CONSUMERLOOP_H
