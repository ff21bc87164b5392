//===- Transforms.h - reusable fattn rewrites -------------------*- C++ -*-===//
//
// The functions behind the target-independent passes, for pipelines, other
// passes and the C API.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_TRANSFORMS_TRANSFORMS_H
#define FATTN_DIALECT_FATTN_TRANSFORMS_TRANSFORMS_H

#include "fattn/Dialect/FAttn/IR/FAttnGradOps.h"
#include "fattn/Dialect/FAttn/IR/FAttnOps.h"
#include "fattn/Dialect/FAttn/IR/FAttnTiledGradOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fattn {

struct TileSizes {
  int64_t blockM = 64;
  int64_t blockN = 64;
};

/// Replaces `op` with its tiled online-softmax form. Fails, with a diagnostic
/// on `op`, when the head dims are dynamic or the tile sizes are not positive.
FailureOr<TiledAttentionOp> tileAttention(RewriterBase &rewriter,
                                          AttentionOp op, TileSizes sizes);

/// Replaces `op` (memref form) with the tiled FlashAttention-2 backward in
/// scf loops and linalg.generic ops on memrefs, KV tiles of `sizes.blockN`
/// keys outside and Q tiles of `sizes.blockM` rows inside. Fails, with a
/// diagnostic on `op`, on the tensor form or non-positive tile sizes.
LogicalResult lowerAttentionGrad(RewriterBase &rewriter, AttentionGradOp op,
                                 TileSizes sizes);

/// Replaces `op` (memref form) with its tiled backward form and the f32
/// workspaces it needs (allocated before it, freed after it). Fails, with a
/// diagnostic on `op`, on the tensor form, dynamic head dims or non-positive
/// tile sizes.
FailureOr<TiledAttentionGradOp> tileAttentionGrad(RewriterBase &rewriter,
                                                  AttentionGradOp op,
                                                  TileSizes sizes);

/// Replaces `pvContraction`, when it is the P V product of attention written
/// as linalg ops on tensors (the forms --fattn-raise-attention describes),
/// by fattn.attention in the tensor form; fails, leaving the IR unchanged,
/// when it cannot prove the two equivalent.
FailureOr<AttentionOp> raiseAttention(RewriterBase &rewriter,
                                      Operation *pvContraction);

/// Marks the private functions that fattn-lower-tiled-to-linalg outlines the
/// grid of a fattn.tiled_attention into (the CPU pipeline frees their
/// temporaries).
inline constexpr llvm::StringLiteral kCPUKernelAttrName = "fattn.cpu_kernel";

/// Patterns lowering the tile ops inside a fattn.tiled_attention body to
/// tensor and bufferization ops and linalg.generic on tensors. The grid op
/// itself is outlined by the pass (a symbol-table change, not a pattern).
void populateLowerTiledToLinalgPatterns(RewritePatternSet &patterns);

/// Patterns lowering the backward's tile ops (fattn.q_tile_range,
/// fattn.row_dot, fattn.grad_probs, fattn.grad_scores,
/// fattn.mma_transpose_lhs, fattn.accumulate_tile, fattn.scale_tile) to
/// tensor and bufferization ops and linalg.generic on tensors; the grid op
/// is outlined by fattn-lower-tiled-grad-to-linalg.
void populateLowerTiledGradToLinalgPatterns(RewritePatternSet &patterns);

/// Patterns lowering fattn.permute_keys and fattn.transpose_tile (the fp8
/// layout of --fattn-fp8-layout) to tensor.generate gathers.
void populateLowerFP8LayoutPatterns(RewritePatternSet &patterns);

/// Pattern lowering fattn.hadamard_rotate to scf loops (fast Walsh-Hadamard).
void populateLowerHadamardPatterns(RewritePatternSet &patterns);

/// Pattern lowering fattn.quantize to scf loops (amax, then e4m3 rounding).
void populateLowerQuantizePatterns(RewritePatternSet &patterns);

/// Emits R = diag(signs) H / sqrt(d) one row at a time, with the fast
/// Walsh-Hadamard transform in an f32 scratch row: the lowering of
/// fattn.hadamard_rotate and of fattn.quantize's fused rotation, which must
/// agree to the bit.
class HadamardRowRotation {
public:
  /// Allocates the scratch row (d = `width`, a power of two) at the builder's
  /// insertion point; `signs` is the memref<d x f32> of +1/-1.
  HadamardRowRotation(OpBuilder &b, Location loc, Value signs, int64_t width);

  /// Fills the scratch row with row `lead` of `input` (indices of all but the
  /// last dim) times diag(signs) H, in f32: log2(d) butterfly stages.
  void rotate(OpBuilder &b, Location loc, Value input, ValueRange lead);

  /// Element `col` of the rotated row: scratch[col] * (1 / sqrt(d)), f32.
  Value load(OpBuilder &b, Location loc, Value col);

  /// Frees the scratch row.
  void deallocate(OpBuilder &b, Location loc);

private:
  Value signs, scratch, norm;
  int64_t width;
};

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_TRANSFORMS_TRANSFORMS_H
