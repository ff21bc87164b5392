//===- FP8Layout.h - the e4m3 wgmma layout of P V (sm_90a) ------*- C++ -*-===//
//
// The rewrite behind --fattn-fp8-layout, usable without the pass.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_TRANSFORMS_SM90_FP8LAYOUT_H
#define FATTN_DIALECT_FATTN_TRANSFORMS_SM90_FP8LAYOUT_H

#include "fattn/Dialect/FAttn/IR/FAttnOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fattn {

/// For a tiled attention op on f8E4M3FN, rewrites every P V product into
/// fattn.mma(fattn.permute_keys(P), fattn.transpose_tile(V)) with the
/// "wgmma_e4m3_k32" key permutation on both sides (in the producer region
/// when `op` is warp-specialized: the ring then carries V^T) and V's
/// per-tile descale on the product's columns. Leaves other element types
/// unchanged. Fails with a diagnostic on `op`, before changing anything,
/// when the layout does not apply (already applied, block_n not a multiple
/// of 32, per-block V descales that vary inside a KV tile, P V not in the
/// form the tiling and scheduling passes build).
LogicalResult applySM90FP8Layout(RewriterBase &rewriter, TiledAttentionOp op);

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_TRANSFORMS_SM90_FP8LAYOUT_H
