//===- Schedule.h - sm_90a scheduling transforms ----------------*- C++ -*-===//
//
// The rewrites behind --fattn-warp-specialize, --fattn-intra-wg-overlap,
// --fattn-pingpong and --fattn-persistent-tiles, usable without the passes
// (e.g. by a compiler that embeds fattn and schedules its own way). Each
// fails with a diagnostic on the op when the IR is not in the form it
// expects, leaving it unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_TRANSFORMS_SM90_SCHEDULE_H
#define FATTN_DIALECT_FATTN_TRANSFORMS_SM90_SCHEDULE_H

#include "fattn/Dialect/FAttn/IR/FAttnOps.h"
#include "fattn/Dialect/FAttn/IR/FAttnScheduleOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fattn {

/// The rows of the Q tile that --fattn-warp-specialize gives each consumer
/// warpgroup (fattn.warp_specialize's consumer_rows): the M of one wgmma.
inline constexpr int64_t kConsumerWarpgroupRows = 64;

struct WarpSpecializeOptions {
  int64_t consumers = 2;
  int64_t producerRegisters = 24;
  int64_t consumerRegisters = 240;
};

/// Rewrites the body of `op` (planned by --fattn-sm90-tma) into a
/// fattn.warp_specialize: a producer loop that fills a K/V ring and one
/// consumer loop over the visible KV tiles that masks only edge tiles.
FailureOr<WarpSpecializeOp> warpSpecialize(RewriterBase &rewriter,
                                           TiledAttentionOp op,
                                           const WarpSpecializeOptions &options);

/// The fattn.warp_specialize in the body of `op` (or of its
/// fattn.work_loop), or null.
WarpSpecializeOp getWarpSpecialize(TiledAttentionOp op);

/// Calls `schedule` on the fattn.warp_specialize of every tiled attention op
/// under `root`; a tiled op without one gets "has no consumer warpgroups to
/// <what>: run --fattn-warp-specialize first". Stops at the first failure.
LogicalResult
forEachWarpSpecialize(Operation *root, StringRef what,
                      function_ref<LogicalResult(WarpSpecializeOp)> schedule);

/// The KV loop of the consumer region of `ws` (the only scf.for directly in
/// it), or null.
scf::ForOp getConsumerLoop(WarpSpecializeOp ws);

/// Pipelines the consumer loop of `ws`: each iteration issues Q K^T of tile
/// j and P V of tile j - 1 before the softmax of tile j.
LogicalResult overlapConsumerLoop(RewriterBase &rewriter, WarpSpecializeOp ws);

/// True when the consumer loop of `ws` has been pipelined by
/// overlapConsumerLoop (it carries P from one iteration to the next).
bool isConsumerLoopOverlapped(WarpSpecializeOp ws);

/// Wraps each run of GEMM issues in the consumer region of `ws` in a
/// named-barrier handshake between its two consumer warpgroups.
LogicalResult insertPingpongBarriers(RewriterBase &rewriter,
                                     WarpSpecializeOp ws, int64_t barrierBase);

/// Makes the kernel of `op` persistent: wraps its body, but for the K/V
/// ring (created before it), in a fattn.work_loop whose region arguments
/// replace the op's grid coordinates. Returns the existing loop when there
/// is one. Fails with a diagnostic on `op` when it has no
/// fattn.warp_specialize: the producer warpgroup is what prefetches the next
/// work item while the consumers finish the current one.
FailureOr<WorkLoopOp> buildWorkLoop(RewriterBase &rewriter,
                                    TiledAttentionOp op);

/// The fattn.work_loop in the body of `op`, or null.
WorkLoopOp getWorkLoop(TiledAttentionOp op);

/// True when `op` has a fattn.work_loop (the kernel is persistent).
bool hasPersistentTiles(TiledAttentionOp op);

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_TRANSFORMS_SM90_SCHEDULE_H
