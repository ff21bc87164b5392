//===- FAttnTiledGradOps.td - the tiled backward form ------*- tablegen -*-===//
//
// L1 of the backward pass: `fattn.attention_grad` as the three grids of
// FlashAttention-2's backward (a preprocess grid over Q tiles computing
// D = rowsum(dO * O), the main grid over KV tiles with the Q tiles inside,
// a postprocess grid converting the f32 dQ accumulator), on tile values.
// The bodies use the forward's tile ops (fattn.load_tile, fattn.mma,
// fattn.softcap, fattn.mask, fattn.store_tile) and the ops below where the
// backward needs its own.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_IR_FATTNTILEDGRADOPS_TD
#define FATTN_DIALECT_FATTN_IR_FATTNTILEDGRADOPS_TD

include "fattn/Dialect/FAttn/IR/FAttnDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def FAttn_TiledAttentionGradOp : FAttn_Op<"tiled_attention_grad", [
    SingleBlock, NoTerminator, RecursiveMemoryEffects]> {
  let summary = "the attention backward as grids of tiles (FlashAttention-2)";
  let description = [{
    The tiled form of `fattn.attention_grad`: three grids run one after the
    other, each body once per point of its grid, the points of one grid
    independent of each other (a GPU target maps each grid to a kernel, the
    CPU target to loops):

    - `preprocess`, over (batch, query head, Q tile), ceildiv(seq_q,
      block_m) tiles: D = rowsum(dO * O) into `delta` and zeros into
      `dq_accum`, as FlashAttention-2's preprocess kernel;
    - `body`, over (batch, KV head, KV tile), ceildiv(seq_k, block_n)
      tiles: one KV tile of one KV head, its dK and dV accumulated in f32
      over the Q tiles of every query head of its group that see it (KV
      tiles outside, Q tiles inside: FlashAttention-2's backward order);
      each Q tile's dQ is added into `dq_accum` (`fattn.accumulate_tile`);
    - `postprocess`, over (batch, query head, Q tile): dQ = scale *
      dq_accum, rounded to dQ's element type.

    The operands are those of the `fattn.attention_grad` op it came from
    (memrefs), then the workspaces: `delta`, f32 with LSE's shape, and
    `dq_accum`, f32 with Q's shape. The attributes are its resolved
    semantics (window bounds with causal folded in, -1 = unbounded; softcap
    0 = none). `deterministic` asks that the additions into `dq_accum` of
    the body's grid points happen in a fixed order (the GPU adds with f32
    atomics otherwise); it is also set on each `fattn.accumulate_tile`.

    ```mlir
    fattn.tiled_attention_grad ins(%q, %k, %v, %o, %do, %lse : ...) outs(%dq, %dk, %dv : ...)
        workspace(%delta, %dq_acc : memref<2x8x1000xf32>, memref<2x8x1000x64xf32>)
        attributes {block_m = 64 : i64, block_n = 64 : i64, scale = 0.125 : f32,
                    softcap = 0.0 : f32, window_left = -1 : i64, window_right = 0 : i64}
    preprocess {
    ^bb0(%batch: index, %head: index, %q_tile: index):
      ...
    } body {
    ^bb0(%batch: index, %kv_head: index, %kv_tile: index):
      ...
    } postprocess {
    ^bb0(%batch: index, %head: index, %q_tile: index):
      ...
    }
    ```
  }];

  let arguments = (ins
    Arg<AnyMemRef, "queries", [MemRead]>:$query,
    Arg<AnyMemRef, "keys", [MemRead]>:$key,
    Arg<AnyMemRef, "values", [MemRead]>:$value,
    Arg<AnyMemRef, "the forward's output", [MemRead]>:$output,
    Arg<AnyMemRef, "the output's gradient", [MemRead]>:$grad_output,
    Arg<AnyMemRef, "the forward's log-sum-exp", [MemRead]>:$lse,
    Arg<AnyMemRef, "dQ", [MemWrite]>:$grad_query,
    Arg<AnyMemRef, "dK", [MemWrite]>:$grad_key,
    Arg<AnyMemRef, "dV", [MemWrite]>:$grad_value,
    Arg<AnyMemRef, "D = rowsum(dO * O)", [MemRead, MemWrite]>:$delta,
    Arg<AnyMemRef, "the f32 dQ accumulator", [MemRead, MemWrite]>:$dq_accum,
    I64Attr:$block_m,
    I64Attr:$block_n,
    F32Attr:$scale,
    I64Attr:$window_left,
    I64Attr:$window_right,
    F32Attr:$softcap,
    UnitAttr:$deterministic
  );
  let regions = (region SizedRegion<1>:$preprocess, SizedRegion<1>:$body,
                        SizedRegion<1>:$postprocess);

  let assemblyFormat = [{
    `ins` `(` $query `,` $key `,` $value `,` $output `,` $grad_output `,` $lse
      `:` type($query) `,` type($key) `,` type($value) `,` type($output) `,`
      type($grad_output) `,` type($lse) `)`
    `outs` `(` $grad_query `,` $grad_key `,` $grad_value `:`
      type($grad_query) `,` type($grad_key) `,` type($grad_value) `)`
    `workspace` `(` $delta `,` $dq_accum `:` type($delta) `,` type($dq_accum) `)`
    attr-dict-with-keyword
    `preprocess` $preprocess `body` $body `postprocess` $postprocess
  }];

  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def FAttn_QTileRangeOp : FAttn_Op<"q_tile_range", [Pure]> {
  let summary = "the Q tiles that see a KV tile, and which of them need a mask";
  let description = [{
    The converse of `fattn.kv_tile_range`, for the backward's loop order: for
    KV tile `kv_tile` (keys [kv_tile * block_n, min((kv_tile + 1) * block_n,
    seq_k))), returns Q tile indices lo <= full_lo <= full_hi <= hi: tiles
    outside [lo, hi) hold no row that sees a key of the KV tile and are
    skipped; every row of the tiles in [full_lo, full_hi) lies inside seq_q
    and sees every key of the KV tile, which lies inside seq_k (no mask);
    tiles in [lo, full_lo) (at a right window edge, the diagonal when
    causal; empty without one) and [full_hi, hi) (at the left window edge
    and the ends of the sequences) are masked. A KV tile that crosses the end of seq_k has no unmasked
    Q tile (full_lo = full_hi = lo), since its padding keys must be masked.
    The attributes are the forward's (rows per Q tile, keys per KV tile,
    window bounds).

    ```mlir
    %lo, %full_lo, %full_hi, %hi = fattn.q_tile_range %n, %sq, %sk
        {block_m = 64 : i64, block_n = 64 : i64, window_left = -1 : i64, window_right = 0 : i64}
    ```
  }];
  let arguments = (ins Index:$kv_tile, Index:$seq_q, Index:$seq_k,
                       I64Attr:$block_m, I64Attr:$block_n,
                       I64Attr:$window_left, I64Attr:$window_right);
  let results = (outs Index:$lo, Index:$full_lo, Index:$full_hi, Index:$hi);
  let assemblyFormat = "$kv_tile `,` $seq_q `,` $seq_k attr-dict";
  let hasVerifier = 1;
}

def FAttn_RowDotOp : FAttn_Op<"row_dot", [Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "the dot product of each pair of rows of two tiles, in f32";
  let description = [{
    result[i] = sum_j lhs[i, j] * rhs[i, j], accumulated in f32: the
    backward's D = rowsum(dO * O) of a Q tile.

    ```mlir
    %d = fattn.row_dot %do, %o : tensor<64x64xbf16> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$lhs, AnyStaticShapeTensor:$rhs);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

def FAttn_GradProbsOp : FAttn_Op<"grad_probs",
    [Pure, AllTypesMatch<["scores", "probs"]>]> {
  let summary = "recompute the probabilities from the forward's log-sum-exp";
  let description = [{
    probs = exp(scale * scores - lse) per row (computed as exp2 with log2(e)
    folded in), the forward's softmax recomputed without a pass over the
    row: masked scores (-inf) give 0, and so does every score of a row that
    sees no key (lse = -inf), never NaN. With a softcap the scores are the
    capped ones (`fattn.softcap`, already scaled) and `scale` is 1.

    ```mlir
    %p = fattn.grad_probs %s, %lse {scale = 0.125 : f32} : tensor<64x64xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$scores, AnyStaticShapeTensor:$lse,
                       F32Attr:$scale);
  let results = (outs AnyStaticShapeTensor:$probs);
  let assemblyFormat = "$scores `,` $lse attr-dict `:` type($scores) `,` type($lse)";
  let hasVerifier = 1;
}

def FAttn_GradScoresOp : FAttn_Op<"grad_scores",
    [Pure, AllTypesMatch<["probs", "grad_probs"]>]> {
  let summary = "the gradient of the scores: dS = P * (dP - D)";
  let description = [{
    result = probs * (grad_probs - delta) per row, in f32, times the
    softcap's derivative 1 - (capped / softcap)^2 (= 1 - tanh^2) when
    `softcap` > 0, where `capped` is the tile of capped scores before the
    mask (`fattn.softcap`'s result); then rounded to the result's element
    type, in which both products that read dS (dK += dS^T Q, dQ += dS K)
    take it. `capped` is given exactly when `softcap` > 0. dS is without the
    softmax scale, which dK and dQ take when stored.

    ```mlir
    %ds = fattn.grad_scores %p, %dp, %d {softcap = 0.0 : f32}
        : tensor<64x64xf32>, tensor<64xf32> -> tensor<64x64xbf16>
    %dsc = fattn.grad_scores %p, %dp, %d capped(%c : tensor<64x64xf32>) {softcap = 30.0 : f32}
        : tensor<64x64xf32>, tensor<64xf32> -> tensor<64x64xbf16>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$probs,
                       AnyStaticShapeTensor:$grad_probs,
                       AnyStaticShapeTensor:$delta,
                       Optional<AnyStaticShapeTensor>:$capped,
                       F32Attr:$softcap);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $probs `,` $grad_probs `,` $delta (`capped` `(` $capped^ `:` type($capped) `)`)? attr-dict
      `:` type($probs) `,` type($delta) `->` type($result)
  }];
  let hasVerifier = 1;
}

def FAttn_MmaTransposeLhsOp : FAttn_Op<"mma_transpose_lhs",
    [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "tile matrix product lhs^T * rhs + acc, with f32 accumulation";
  let description = [{
    result = lhs^T * rhs + acc: lhs is K x M, rhs K x N, acc and result
    M x N in f32. The backward's dV += P^T dO and dK += dS^T Q, whose K is
    the Q tile's rows. lhs is f32 or of rhs's element type; an f32 lhs is
    rounded to rhs's element type first (P enters dV's product in the input
    type, as on the GPU, while dS is computed from the f32 P).

    ```mlir
    %dv1 = fattn.mma_transpose_lhs %p, %do acc(%dv) : tensor<64x64xf32>, tensor<64x64xbf16> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$lhs, AnyStaticShapeTensor:$rhs,
                       AnyStaticShapeTensor:$acc);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `acc` `(` $acc `)` attr-dict `:` type($lhs) `,` type($rhs)
      `->` type($result)
  }];
  let hasVerifier = 1;
}

def FAttn_AccumulateTileOp : FAttn_Op<"accumulate_tile"> {
  let summary = "add a tile into the rows of an f32 accumulator in memory";
  let description = [{
    dest[batch, head, row + i, :] += tile[i, :] for the rows inside the
    sequence (rows past its end are dropped): the backward's dQ, to which
    every KV tile adds. The grid points of the backward body add into the
    same rows concurrently: a GPU target adds with f32 atomics, in no fixed
    order, unless `deterministic` is set, which asks for the additions into
    a row tile to happen in increasing KV tile order (bit-identical results
    run to run). The CPU executes them in that order always.

    ```mlir
    fattn.accumulate_tile %dq, %dq_acc[%b, %h, %row] {deterministic} : tensor<64x64xf32>, memref<?x?x?x64xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$tile,
                       Arg<AnyMemRef, "accumulator", [MemRead, MemWrite]>:$dest,
                       Index:$batch, Index:$head, Index:$row,
                       UnitAttr:$deterministic);
  let assemblyFormat = [{
    $tile `,` $dest `[` $batch `,` $head `,` $row `]` attr-dict `:` type($tile) `,` type($dest)
  }];
  let hasVerifier = 1;
}

def FAttn_ScaleTileOp : FAttn_Op<"scale_tile", [Pure]> {
  let summary = "multiply an f32 tile by a constant and round it";
  let description = [{
    result = round(scale * input) to the result's element type (f32, f16 or
    bf16), of the input's shape: the backward's dK = scale * dK_acc, dV and
    dQ = scale * dq_accum on their way out.

    ```mlir
    %dk = fattn.scale_tile %acc {scale = 0.125 : f32} : tensor<64x64xf32> -> tensor<64x64xbf16>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, F32Attr:$scale);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

#endif // FATTN_DIALECT_FATTN_IR_FATTNTILEDGRADOPS_TD
