//===- LoweringChoices.h - the sm_90a lowering choices in the IR -*- C++ -*-===//
//
// The choices of the sm_90a kernel that are not its schedule's shape (how
// the consumers compute, how the CTAs take their work items) are recorded
// on a `fattn.tiled_attention` as two typed attributes, one parameter per
// pass, which the sm_90a lowering reads:
//
//   fattn.sm90.consumers = #fattn.sm90_consumer_plan<row_sums = mma, ...>
//   fattn.sm90.work = #fattn.sm90_work_plan<q_buffers = 2, tail = split>
//
// Each setter checks its choice against the op and the decisions recorded
// before it, and fails with a diagnostic on the op; the lowering checks
// every recorded choice again with the same rules
// (verifySM90LoweringChoices), since hand-written IR can carry any.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_TRANSFORMS_SM90_LOWERINGCHOICES_H
#define FATTN_DIALECT_FATTN_TRANSFORMS_SM90_LOWERINGCHOICES_H

#include "fattn/Dialect/FAttn/IR/FAttnAttrs.h"
#include "fattn/Dialect/FAttn/IR/FAttnOps.h"

#include <optional>

namespace mlir::fattn {

/// The #fattn.sm90_consumer_plan of a tiled op.
inline constexpr llvm::StringLiteral kConsumerPlanAttrName =
    "fattn.sm90.consumers";
/// The #fattn.sm90_work_plan of a tiled op.
inline constexpr llvm::StringLiteral kWorkPlanAttrName = "fattn.sm90.work";

/// The parameters of a #fattn.sm90_consumer_plan (its defaults here).
struct SM90ConsumerChoices {
  SM90ValueMma valueMma = SM90ValueMma::Whole;
  SM90RowSums rowSums = SM90RowSums::Threads;
  SM90Exp2 exp2 = SM90Exp2::Mufu;
  float rescaleThreshold = 0.0f;
  int64_t narrowTail = 0;
  SM90KVRanges kvRanges = SM90KVRanges::WorkItem;
};

/// The parameters of a #fattn.sm90_work_plan (its defaults here).
struct SM90WorkChoices {
  SM90QTileOrder qTileOrder = SM90QTileOrder::Reverse;
  int64_t qBuffers = 1;
  SM90WorkTail tail = SM90WorkTail::None;
};

/// The recorded plans of `op`, or every default without the attribute.
/// Fail with a diagnostic on `op` when the attribute is of another kind.
FailureOr<SM90ConsumerChoices> getSM90ConsumerChoices(TiledAttentionOp op);
FailureOr<SM90WorkChoices> getSM90WorkChoices(TiledAttentionOp op);

/// Record `choices` as the op's plan.
void setSM90ConsumerChoices(TiledAttentionOp op,
                            const SM90ConsumerChoices &choices);
void setSM90WorkChoices(TiledAttentionOp op, const SM90WorkChoices &choices);

/// Applies `change` to the op's recorded plan (or the defaults) and records
/// the result; fails, recording nothing, when the plan is of another kind.
LogicalResult
updateSM90ConsumerChoices(TiledAttentionOp op,
                          function_ref<void(SM90ConsumerChoices &)> change);
LogicalResult updateSM90WorkChoices(TiledAttentionOp op,
                                    function_ref<void(SM90WorkChoices &)> change);

// The setters, one per pass. Each records one parameter of a plan.

/// --fattn-sm90-q-tile-order.
LogicalResult setSM90QTileOrder(TiledAttentionOp op, SM90QTileOrder order);
/// --fattn-sm90-q-buffers: 1, or 2 with persistent tiles.
LogicalResult setSM90QBuffers(TiledAttentionOp op, int64_t buffers);
/// --fattn-sm90-work-tail.
LogicalResult setSM90WorkTail(TiledAttentionOp op, SM90WorkTail tail);
/// --fattn-sm90-value-mma.
LogicalResult setSM90ValueMma(TiledAttentionOp op, SM90ValueMma valueMma);
/// --fattn-sm90-row-sum-mma. Where the kernel must add the sums itself (an
/// LSE, per-block V descales) it warns that the choice is ignored and
/// records nothing.
LogicalResult setSM90RowSums(TiledAttentionOp op, SM90RowSums rowSums);
/// --fattn-sm90-linear-exp2 (after --fattn-sm90-row-sum-mma).
LogicalResult setSM90Exp2(TiledAttentionOp op, SM90Exp2 exp2);
/// --fattn-sm90-rescale-threshold.
LogicalResult setSM90RescaleThreshold(TiledAttentionOp op, float threshold);
/// --fattn-sm90-narrow-tail (after the schedule passes).
LogicalResult setSM90NarrowTail(TiledAttentionOp op, int64_t keys);
/// --fattn-sm90-warpgroup-kv-ranges (after the schedule passes and the
/// work tail).
LogicalResult setSM90KVRanges(TiledAttentionOp op, SM90KVRanges ranges);

// The rules, each on the op with its recorded decisions (the choice itself
// given); they fail with a diagnostic on the op.

LogicalResult checkSM90QBuffers(TiledAttentionOp op, int64_t buffers);
LogicalResult checkSM90WorkTail(TiledAttentionOp op, SM90WorkTail tail);
LogicalResult checkSM90Exp2(TiledAttentionOp op, SM90Exp2 exp2);
LogicalResult checkSM90RescaleThreshold(TiledAttentionOp op, float threshold);
LogicalResult checkSM90NarrowTail(TiledAttentionOp op, int64_t keys);
LogicalResult checkSM90KVRanges(TiledAttentionOp op, SM90KVRanges ranges);
/// Why the kernel of `op` must add its row sums itself, or nullopt.
std::optional<StringRef> sm90RowSumsNeedThreads(TiledAttentionOp op);

/// Checks every recorded choice of `op` with the rules above, and the TMA
/// plan's O store against the Q buffers.
LogicalResult verifySM90LoweringChoices(TiledAttentionOp op);

// Facts of the op that the rules read.

/// Q, K and V are f8E4M3FN.
bool hasE4M3Inputs(TiledAttentionOp op);
/// A causal mask or a window: the work items differ in their KV tiles.
bool isMaskedAttention(TiledAttentionOp op);
/// The rank of a descale operand; -1 without one.
int64_t descaleRank(Value descale);

/// Applies `set` to every fattn.tiled_attention under `root`, each op
/// getting its diagnostic; fails when one did. The passes' bodies.
LogicalResult
forEachTiledAttention(Operation *root,
                      function_ref<LogicalResult(TiledAttentionOp)> set);

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_TRANSFORMS_SM90_LOWERINGCHOICES_H
