//===- Transforms.h - reusable fattn rewrites -------------------*- C++ -*-===//
//
// The functions behind the target-independent passes, for pipelines, other
// passes and the C API.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_TRANSFORMS_TRANSFORMS_H
#define FATTN_DIALECT_FATTN_TRANSFORMS_TRANSFORMS_H

#include "fattn/Dialect/FAttn/IR/FAttnOps.h"
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

/// Marks the private functions that fattn-lower-tiled-to-linalg outlines the
/// grid of a fattn.tiled_attention into (the CPU pipeline frees their
/// temporaries).
inline constexpr llvm::StringLiteral kCPUKernelAttrName = "fattn.cpu_kernel";

/// Patterns lowering the tile ops inside a fattn.tiled_attention body to
/// tensor and bufferization ops and linalg.generic on tensors. The grid op
/// itself is outlined by the pass (a symbol-table change, not a pattern).
void populateLowerTiledToLinalgPatterns(RewritePatternSet &patterns);

/// Pattern lowering fattn.hadamard_rotate to scf loops (fast Walsh-Hadamard).
void populateLowerHadamardPatterns(RewritePatternSet &patterns);

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_TRANSFORMS_TRANSFORMS_H
