//===- ScheduleFromIR.h - the sm_90a schedule recorded in the IR -*- C++ -*-===//
//
// The scheduling passes (--fattn-warp-specialize, --fattn-intra-wg-overlap,
// --fattn-pingpong, --fattn-persistent-tiles) decide the kernel's schedule as
// IR; the sm_90a lowering reads it back here and implements it.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_CONVERSION_FATTNTONVVM_SM90_SCHEDULEFROMIR_H
#define FATTN_CONVERSION_FATTNTONVVM_SM90_SCHEDULEFROMIR_H

#include "fattn/Conversion/FAttnToNVVM/SM90/SM90Lowering.h"
#include "fattn/Dialect/FAttn/IR/FAttnScheduleOps.h"

namespace mlir::fattn {

/// Sets the schedule fields of `options` (warpSpecialize,
/// consumerWarpgroups, producer/consumerRegisters, consumerLoop and its
/// shape intraWarpgroupOverlap, pingpong, pingpongBarrierBase, persistent),
/// the store of O (tmaStore) and the lowering choices from the IR of `op`:
/// the TMA plan (#fattn.sm90_tma_plan) says how O leaves, the consumer and
/// work plans (#fattn.sm90_consumer_plan, #fattn.sm90_work_plan; every
/// default without them) set wideValueMma, rowSumMma, linearExp2,
/// rescaleThreshold, narrowTail, warpgroupKVRanges, reverseQTiles, qBuffers,
/// splitTail and workOrderTail; without a fattn.warp_specialize
/// every warpgroup computes and issues its own copies in the plain loop;
/// with one, its attributes and its consumer loop (readSM90ConsumerLoop)
/// decide, and its named barriers must be the pingpong protocol the kernel
/// implements; the ops of the work item (fattn.work_loop's region, or the
/// tiled op's body) must take its coordinates, the block arguments, as they
/// are. Fails with a diagnostic when the IR asks for a schedule that the
/// lowering does not implement.
LogicalResult readSM90Schedule(TiledAttentionOp op, SM90Options &options);

/// The consumers' KV loop of `ws`, op by op (ConsumerLoop.h): the body of
/// its scf.for and, for the loop --fattn-intra-wg-overlap pipelined, the
/// then-blocks of the scf.if before it (prologue) and after it (epilogue).
/// The ring waits of a block come first (before the GEMM issues, turn
/// openings, releases and carried-factor rescales that precede them); every
/// other step keeps its place. Fails with a diagnostic naming the op that
/// the emitter cannot build there.
FailureOr<SM90ConsumerLoop> readSM90ConsumerLoop(WarpSpecializeOp ws);

} // namespace mlir::fattn

#endif // FATTN_CONVERSION_FATTNTONVVM_SM90_SCHEDULEFROMIR_H
