//===- TMAPlan.h - the TMA plan of a tiled attention op ---------*- C++ -*-===//
//
// --fattn-sm90-tma decides how the tiles of a `fattn.tiled_attention` reach
// shared memory on sm_90a and records it as attributes, which the sm_90a
// lowering implements:
//
//   fattn.tiled_attention ... {fattn.sm90.tma = {stages = 2 : i64,
//                              swizzle = 128 : i64, box_cols = 64 : i64}}
//   fattn.load_tile ... {fattn.sm90.tma_load = {barrier = "full_k",
//                        box_rows = 128 : i64, operand = "k"}}
//   fattn.store_tile ... {fattn.sm90.store = "registers"}
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_TRANSFORMS_SM90_TMAPLAN_H
#define FATTN_DIALECT_FATTN_TRANSFORMS_SM90_TMAPLAN_H

#include "fattn/Dialect/FAttn/IR/FAttnOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fattn {

inline constexpr llvm::StringLiteral kTMAPlanAttrName = "fattn.sm90.tma";
inline constexpr llvm::StringLiteral kTMALoadAttrName = "fattn.sm90.tma_load";
inline constexpr llvm::StringLiteral kSM90StoreAttrName = "fattn.sm90.store";

/// Shared memory an sm_90a CTA can have (the opt-in maximum, 227 KiB).
inline constexpr int64_t kSM90MaxSharedBytes = 227 * 1024;

struct TMAPlan {
  int64_t stages = 2;
  /// Swizzle of the shared-memory tiles in bytes (only 128 is implemented).
  int64_t swizzle = 128;
  /// Columns of one TMA box: one 128-byte swizzle atom (64 16-bit elements,
  /// 128 FP8 ones). planSM90TMA derives it from the element type.
  int64_t boxCols = 64;
};

/// Plans `op`: validates it (16-bit or FP8 elements, stages >= 2, a K ring that
/// fits in shared memory) and attaches the attributes above. Fails with a
/// diagnostic on `op`.
LogicalResult planSM90TMA(TiledAttentionOp op, const TMAPlan &plan);

/// The plan attached to `op`, or failure when there is none.
FailureOr<TMAPlan> getTMAPlan(TiledAttentionOp op);

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_TRANSFORMS_SM90_TMAPLAN_H
