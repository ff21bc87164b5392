//===- TMAPlan.h - the TMA plan of a tiled attention op ---------*- C++ -*-===//
//
// --fattn-sm90-tma decides how the tiles of a `fattn.tiled_attention` move
// between global and shared memory on sm_90a and records it as a typed
// attribute, which the sm_90a lowering implements:
//
//   fattn.tiled_attention ... {fattn.sm90.tma = #fattn.sm90_tma_plan<
//       stages = 2, swizzle = 128, box_cols = 64, store = registers>}
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_TRANSFORMS_SM90_TMAPLAN_H
#define FATTN_DIALECT_FATTN_TRANSFORMS_SM90_TMAPLAN_H

#include "fattn/Dialect/FAttn/IR/FAttnAttrs.h"
#include "fattn/Dialect/FAttn/IR/FAttnOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fattn {

/// The #fattn.sm90_tma_plan of a planned op.
inline constexpr llvm::StringLiteral kTMAPlanAttrName = "fattn.sm90.tma";

/// Shared memory an sm_90a CTA can have (the opt-in maximum, 227 KiB).
inline constexpr int64_t kSM90MaxSharedBytes = 227 * 1024;

struct TMAPlan {
  int64_t stages = 2;
  /// Swizzle of the shared-memory tiles in bytes (only 128 is implemented).
  int64_t swizzle = 128;
  /// Columns of one TMA box: one 128-byte swizzle atom (64 16-bit elements,
  /// 128 FP8 ones). planSM90TMA derives it from the element type.
  int64_t boxCols = 64;
  /// How O leaves: from registers, or by TMA stores from shared memory.
  SM90OutputStore store = SM90OutputStore::Registers;
};

/// Plans `op`: validates it (16-bit or FP8 elements, stages >= 2, a K ring that
/// fits in shared memory) and attaches the plan above (`plan.boxCols` is
/// derived from the element type). Fails with a diagnostic on `op`.
LogicalResult planSM90TMA(TiledAttentionOp op, const TMAPlan &plan);

/// The plan attached to `op`, or failure when there is none (or the
/// attribute is not a #fattn.sm90_tma_plan).
FailureOr<TMAPlan> getTMAPlan(TiledAttentionOp op);

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_TRANSFORMS_SM90_TMAPLAN_H
