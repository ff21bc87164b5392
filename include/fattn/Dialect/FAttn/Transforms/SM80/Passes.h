//===- Passes.h - fattn sm_80 passes ----------------------------*- C++ -*-===//

#ifndef FATTN_DIALECT_FATTN_TRANSFORMS_SM80_PASSES_H
#define FATTN_DIALECT_FATTN_TRANSFORMS_SM80_PASSES_H

#include "fattn/Dialect/FAttn/IR/FAttnAttrs.h"
#include "fattn/Dialect/FAttn/IR/FAttnOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fattn {

/// Names of the sm_80 plans on a fattn.tiled_attention (read by the NVVM
/// conversion): a #fattn.sm80_smem_plan and a #fattn.sm80_mma_plan.
constexpr llvm::StringLiteral kSM80SmemAttr = "fattn.sm80.smem";
constexpr llvm::StringLiteral kSM80MmaAttr = "fattn.sm80.mma";

/// Largest dynamic shared memory of one CTA on sm_80 (A100: 163 KiB).
constexpr int64_t kSM80MaxSharedBytes = 163 * 1024;

/// Records the cp.async ring plan on `op` (diagnostic + failure when the
/// configuration does not fit sm_80).
LogicalResult planSM80AsyncCopy(TiledAttentionOp op, int64_t stages);
/// Records the mma.sync fragment assignment on `op`.
LogicalResult assignSM80Fragments(TiledAttentionOp op, int64_t warps);

#define GEN_PASS_DECL
#include "fattn/Dialect/FAttn/Transforms/SM80/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fattn/Dialect/FAttn/Transforms/SM80/Passes.h.inc"

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_TRANSFORMS_SM80_PASSES_H
