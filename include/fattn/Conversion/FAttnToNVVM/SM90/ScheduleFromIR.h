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

namespace mlir::fattn {

/// Sets the schedule fields of `options` (warpSpecialize,
/// consumerWarpgroups, producer/consumerRegisters, intraWarpgroupOverlap,
/// pingpong, pingpongBarrierBase, persistent) and the store of O (tmaStore)
/// from the IR of `op`: the TMA plan (#fattn.sm90_tma_plan) says how O
/// leaves; without a fattn.warp_specialize every warpgroup computes and
/// issues its own copies; with one, its attributes, the shape of its
/// consumer loop and its named barriers decide. Fails with a diagnostic when the IR asks for a
/// schedule that the lowering does not implement.
LogicalResult readSM90Schedule(TiledAttentionOp op, SM90Options &options);

} // namespace mlir::fattn

#endif // FATTN_CONVERSION_FATTNTONVVM_SM90_SCHEDULEFROMIR_H
