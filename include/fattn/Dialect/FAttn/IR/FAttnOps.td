//===- FAttnOps.td - fattn operations -----------------------*- tablegen -*-===//

#ifndef FATTN_DIALECT_FATTN_IR_FATTNOPS_TD
#define FATTN_DIALECT_FATTN_IR_FATTNOPS_TD

include "fattn/Dialect/FAttn/IR/FAttnDialect.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

//===----------------------------------------------------------------------===//
// L0: the entry op.
//===----------------------------------------------------------------------===//

// The accessors of `value_layout` that fattn.attention and
// fattn.tiled_attention share (both carry V and the attribute).
defvar FAttn_ValueLayoutAccessors = [{
    /// Whether V is stored transposed (`value_layout`), and its head dim.
    bool hasTransposedValue() { return getValueLayout().has_value(); }
    int64_t getValueHeadDim() {
      return cast<ShapedType>(getValue().getType())
          .getDimSize(hasTransposedValue() ? 2 : 3);
    }
}];

def FAttn_AttentionOp : FAttn_Op<"attention", [AttrSizedOperandSegments,
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "exact attention: O = softmax(scale * Q K^T + mask) V";
  let description = [{
    Computes exact attention on memrefs or tensors with logical dims [batch,
    heads, seq, head_dim] for Q, K, V and O, and [batch, heads, seq] for the
    optional log-sum-exp output (natural log). Memrefs may have any strided
    layout: BSHD storage is passed as a `memref.transpose` view.

    Destination style: on memrefs the op writes `outs` (and `lse`) and has no
    results; on tensors (every operand a tensor) it returns the new O (and
    LSE) as results of the types of `outs` (and `lse`), listed after `->`.
    One-shot bufferization (`--one-shot-bufferize`) turns the tensor form into
    the memref form, which the lowerings take.

    - GQA/MQA: the query head count is a multiple of the KV head count; query
      head h reads KV head h / (Hq / Hkv). V's head dim may differ from Q/K's.
    - `scale` (default 1/sqrt(head_dim of Q)) multiplies Q K^T; it must be a
      positive finite number.
    - `softcap` > 0 replaces s by softcap * tanh(s / softcap) before masking.
    - Runtime scalars: `scale(%s : f32)` and `softcap(%c : f32)` give the
      scale and the softcap as SSA values instead of attributes (one form
      per value, not both), so that one kernel serves every value: a GPU
      kernel takes them as parameters. A dynamic softcap means "softcap on,
      its value known at run time": the kernel always applies it, so its
      value must be positive (callers check; 0 does not turn it off).
    - Masks follow FlashAttention-2, aligned bottom-right: query i sees key j
      iff i + Sk - Sq - window_left <= j <= i + Sk - Sq + window_right, where
      -1 (or an absent attribute) means unbounded. `causal = true` means
      window_right = 0.
    - A row that sees no key gives O = 0 and LSE = -inf.
    - Element types: f32, f16, bf16 for Q, K, V and O (all equal); f32 for
      LSE. Accumulation is in f32.
    - FP8: Q, K, V in f8E4M3FN with a bf16 output, and optionally their
      `descale(...)` factors (f32): S = scale * (dq Q)(dk K)^T and
      O = softmax(S) (dv V). Each descale is rank 0 (per tensor), rank 2
      [batch, kv_heads] (per batch and KV head, as FlashAttention-3) or rank 3
      [batch, heads, blocks] (per block of `descale_block_q` query rows or
      `descale_block_kv` key/value rows; heads are Q's for dq, KV's for dk, dv).
    - `value_layout = "transposed_wgmma_e4m3_k32"` (FP8 only): V is stored as
      V^T, [batch, kv_heads, head_dim_v, keys] with `keys` >= seq_k a multiple
      of 16, each run of 16 key slots holding keys 16g + (0, 1, 8, 9, 2, 3, 10,
      11, 4, 5, 12, 13, 6, 7, 14, 15): the order in which the sm_90a kernel's
      P V wgmma reads them (`fattn.permute_keys` "wgmma_e4m3_k32"), so that
      TMA copies V^T tiles as they are. Slots past seq_k must hold finite
      values (their probabilities are 0). `fattn.transpose_value_fp8` in
      Python writes this layout.

    Example:

    ```mlir
    fattn.attention ins(%q, %k, %v : memref<2x8x1000x64xf32>, memref<2x2x1000x64xf32>, memref<2x2x1000x64xf32>)
                    outs(%o : memref<2x8x1000x64xf32>) lse(%lse : memref<2x8x1000xf32>)
                    {scale = 0.125 : f32, causal = true, window_left = 128 : i64}
    %out, %lse_out = fattn.attention
        ins(%tq, %tk, %tv : tensor<2x8x1000x64xf32>, tensor<2x2x1000x64xf32>, tensor<2x2x1000x64xf32>)
        outs(%to : tensor<2x8x1000x64xf32>) lse(%tl : tensor<2x8x1000xf32>) {causal = true}
        -> tensor<2x8x1000x64xf32>, tensor<2x8x1000xf32>
    fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>)
                    outs(%o : memref<?x?x?x64xbf16>) scale(%s : f32) softcap(%c : f32)
    ```
  }];

  // Q, K, V and the descales are read; O and LSE written (memref form).
  let arguments = (ins
    FAttn_TensorOrMemRef:$query,
    FAttn_TensorOrMemRef:$key,
    FAttn_TensorOrMemRef:$value,
    FAttn_TensorOrMemRef:$output,
    Optional<FAttn_TensorOrMemRef>:$lse,
    Optional<FAttn_TensorOrMemRef>:$q_descale,
    Optional<FAttn_TensorOrMemRef>:$k_descale,
    Optional<FAttn_TensorOrMemRef>:$v_descale,
    Optional<F32>:$dynamic_scale,
    Optional<F32>:$dynamic_softcap,
    OptionalAttr<F32Attr>:$scale,
    OptionalAttr<BoolAttr>:$causal,
    OptionalAttr<I64Attr>:$window_left,
    OptionalAttr<I64Attr>:$window_right,
    OptionalAttr<F32Attr>:$softcap,
    OptionalAttr<I64Attr>:$descale_block_q,
    OptionalAttr<I64Attr>:$descale_block_kv,
    OptionalAttr<StrAttr>:$value_layout
  );
  // The tensor form's new O, then LSE (none in the memref form).
  let results = (outs Variadic<AnyRankedTensor>:$result_tensors);

  let assemblyFormat = [{
    `ins` `(` $query `,` $key `,` $value `:` type($query) `,` type($key) `,` type($value) `)`
    `outs` `(` $output `:` type($output) `)`
    (`lse` `(` $lse^ `:` type($lse) `)`)?
    (`descale` `(` $q_descale^ `,` $k_descale `,` $v_descale `:` type($q_descale) `,` type($k_descale) `,` type($v_descale) `)`)?
    (`scale` `(` $dynamic_scale^ `:` type($dynamic_scale) `)`)?
    (`softcap` `(` $dynamic_softcap^ `:` type($dynamic_softcap) `)`)?
    attr-dict (`->` type($result_tensors)^)?
  }];

  let hasVerifier = 1;

  let extraClassDeclaration = !strconcat([{
    /// The inits of DestinationStyleOpInterface: O, then LSE when present.
    MutableOperandRange getDpsInitsMutable() {
      return MutableOperandRange(getOperation(),
                                 getODSOperandIndexAndLength(3).first,
                                 getLse() ? 2 : 1);
    }
    /// The scale applied to Q K^T: the attribute, or 1/sqrt(head_dim) (with
    /// a dynamic scale: the operand's value, unknown here).
    float getEffectiveScale();
    /// The window bounds with `causal` folded in; -1 means unbounded.
    int64_t getEffectiveWindowLeft();
    int64_t getEffectiveWindowRight();
    /// The softcap attribute, 0 when absent (also with a dynamic softcap).
    float getEffectiveSoftcap();
    /// Whether the scale or the softcap is an SSA operand.
    bool hasRuntimeScalars() { return getDynamicScale() || getDynamicSoftcap(); }
  }],
      FAttn_ValueLayoutAccessors);
}

//===----------------------------------------------------------------------===//
// L1: the tiled online-softmax form.
//===----------------------------------------------------------------------===//

def FAttn_TiledAttentionOp : FAttn_Op<"tiled_attention", [
    AttrSizedOperandSegments, SingleBlock, NoTerminator,
    RecursiveMemoryEffects]> {
  let summary = "attention as a grid of Q tiles, each looping over KV tiles";
  let description = [{
    The tiled online-softmax form (FlashAttention-2 loop order). The body runs
    once per point of the grid (batch, query head, Q tile), whose extents are
    (batch, heads of Q, ceildiv(seq_q, block_m)); its block arguments are those
    three indices. Iterations are independent: a GPU target maps the grid to
    CTAs, the CPU target to loops. The operands are the memrefs of the
    `fattn.attention` op it came from; the attributes are its resolved
    semantics (window bounds with causal folded in, -1 = unbounded; softcap 0 =
    none). The scale is the `scale` attribute or the f32 operand
    `scale(%s : f32)`; the softcap the `softcap` attribute or the operand
    `softcap(%c : f32)` (softcap on, its value known at run time), not both;
    a GPU kernel takes the operands as parameters.

    ```mlir
    fattn.tiled_attention ins(%q, %k, %v : ...) outs(%o : ...)
        {block_m = 64 : i64, block_n = 64 : i64, scale = 0.125 : f32,
         window_left = -1 : i64, window_right = 0 : i64, softcap = 0.0 : f32} {
    ^bb0(%batch: index, %head: index, %q_tile: index):
      ...
    }
    ```
  }];

  let arguments = (ins
    Arg<AnyMemRef, "queries", [MemRead]>:$query,
    Arg<AnyMemRef, "keys", [MemRead]>:$key,
    Arg<AnyMemRef, "values", [MemRead]>:$value,
    Arg<AnyMemRef, "output", [MemWrite]>:$output,
    Arg<Optional<AnyMemRef>, "log-sum-exp output", [MemWrite]>:$lse,
    Arg<Optional<AnyMemRef>, "query descale", [MemRead]>:$q_descale,
    Arg<Optional<AnyMemRef>, "key descale", [MemRead]>:$k_descale,
    Arg<Optional<AnyMemRef>, "value descale", [MemRead]>:$v_descale,
    Optional<F32>:$dynamic_scale,
    Optional<F32>:$dynamic_softcap,
    I64Attr:$block_m,
    I64Attr:$block_n,
    OptionalAttr<F32Attr>:$scale,
    I64Attr:$window_left,
    I64Attr:$window_right,
    OptionalAttr<F32Attr>:$softcap,
    OptionalAttr<I64Attr>:$descale_block_q,
    OptionalAttr<I64Attr>:$descale_block_kv,
    OptionalAttr<StrAttr>:$value_layout
  );
  let regions = (region SizedRegion<1>:$body);

  let assemblyFormat = [{
    `ins` `(` $query `,` $key `,` $value `:` type($query) `,` type($key) `,` type($value) `)`
    `outs` `(` $output `:` type($output) `)`
    (`lse` `(` $lse^ `:` type($lse) `)`)?
    (`descale` `(` $q_descale^ `,` $k_descale `,` $v_descale `:` type($q_descale) `,` type($k_descale) `,` type($v_descale) `)`)?
    (`scale` `(` $dynamic_scale^ `:` type($dynamic_scale) `)`)?
    (`softcap` `(` $dynamic_softcap^ `:` type($dynamic_softcap) `)`)?
    attr-dict-with-keyword $body
  }];

  let hasVerifier = 1;
  let hasRegionVerifier = 1;

  let extraClassDeclaration = !strconcat([{
    BlockArgument getBatchIndex() { return getBody().getArgument(0); }
    BlockArgument getHeadIndex() { return getBody().getArgument(1); }
    BlockArgument getQTileIndex() { return getBody().getArgument(2); }
    /// Whether the kernel applies a softcap: a positive attribute, or an
    /// operand (whose value is only known at run time).
    bool hasSoftcap() {
      return getDynamicSoftcap() ||
             (getSoftcap() && getSoftcap()->convertToFloat() > 0.0f);
    }
    /// The softcap attribute, 0 when absent.
    float getStaticSoftcap() {
      return getSoftcap() ? getSoftcap()->convertToFloat() : 0.0f;
    }
    /// Whether the scale or the softcap is an SSA operand.
    bool hasRuntimeScalars() { return getDynamicScale() || getDynamicSoftcap(); }
  }],
      FAttn_ValueLayoutAccessors);
}

def FAttn_LoadTileOp : FAttn_Op<"load_tile"> {
  let summary = "load a tile of rows of one (batch, head) into a tile value";
  let description = [{
    Reads rows [row, row + R) of the sequence axis of `source[batch, head]`,
    where the result is an R x D tile. Rows past the end of the sequence read
    as zero, so tails need no special case.

    With `transposed`, `source` is stored keys-last ([batch, head, D, keys],
    a V of `value_layout = "transposed_wgmma_e4m3_k32"`): the result is the
    D x R tile of columns [row, row + R) of `source[batch, head]`, columns
    past the memref's last dim reading as zero.

    ```mlir
    %q = fattn.load_tile %Q[%b, %h, %row] : memref<?x?x?x64xf32> -> tensor<64x64xf32>
    %vt = fattn.load_tile %V[%b, %h, %col] {transposed} : memref<?x?x128x?xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "source", [MemRead]>:$source,
                       Index:$batch, Index:$head, Index:$row,
                       UnitAttr:$transposed);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $source `[` $batch `,` $head `,` $row `]` attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def FAttn_StoreTileOp : FAttn_Op<"store_tile"> {
  let summary = "store the rows of a tile that lie inside the sequence";
  let description = [{
    Writes a rank-2 tile (R x D) into rows [row, row + R) of
    `dest[batch, head]` (a rank-4 memref), or a rank-1 tile (R) into
    `dest[batch, head, row : row + R]` (a rank-3 memref, e.g. the LSE). Rows
    past the end of the sequence are dropped.

    ```mlir
    fattn.store_tile %o, %O[%b, %h, %row] : tensor<64x64xf32>, memref<?x?x?x64xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$tile,
                       Arg<AnyMemRef, "destination", [MemWrite]>:$dest,
                       Index:$batch, Index:$head, Index:$row);
  let assemblyFormat = [{
    $tile `,` $dest `[` $batch `,` $head `,` $row `]` attr-dict `:` type($tile) `,` type($dest)
  }];
  let hasVerifier = 1;
}

def FAttn_LoadDescaleOp : FAttn_Op<"load_descale"> {
  let summary = "the FP8 descale factor of each row of a tile";
  let description = [{
    Returns, for rows [row, row + R) of `head` in `batch`, their descale
    factors: the single value of a rank-0 memref, `source[batch, head]` of a
    rank-2 one, or `source[batch, head, r / block]` of a rank-3 (per-block)
    one. Rows past the last block read the last block's factor (they are
    padding: their products are never stored).

    ```mlir
    %ks = fattn.load_descale %dk[%b, %h, %col] {block = 64 : i64} : memref<?x?x?xf32> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "source", [MemRead]>:$source,
                       Index:$batch, Index:$head, Index:$row,
                       OptionalAttr<I64Attr>:$block);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $source `[` $batch `,` $head `,` $row `]` attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def FAttn_KVTileRangeOp : FAttn_Op<"kv_tile_range", [Pure]> {
  let summary = "the KV tiles a Q tile must visit, and which of them need a mask";
  let description = [{
    For Q tile `q_tile` (rows [q_tile * block_m, min((q_tile + 1) * block_m,
    seq_q))), returns KV tile indices lo <= full_lo <= full_hi <= hi: tiles
    outside [lo, hi) are hidden from every row and are skipped; tiles in
    [full_lo, full_hi) are visible to every row and lie inside seq_k, so they
    need no mask; tiles in [lo, full_lo) and [full_hi, hi) cross the window
    edge, the diagonal or the end of the sequence and are masked.

    ```mlir
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %mb, %sq, %sk
        {block_m = 64 : i64, block_n = 64 : i64, window_left = -1 : i64, window_right = 0 : i64}
    ```
  }];
  let arguments = (ins Index:$q_tile, Index:$seq_q, Index:$seq_k,
                       I64Attr:$block_m, I64Attr:$block_n,
                       I64Attr:$window_left, I64Attr:$window_right);
  let results = (outs Index:$lo, Index:$full_lo, Index:$full_hi, Index:$hi);
  let assemblyFormat = "$q_tile `,` $seq_q `,` $seq_k attr-dict";
  let hasVerifier = 1;
}

def FAttn_MmaOp : FAttn_Op<"mma", [Pure, AttrSizedOperandSegments]> {
  let summary = "tile matrix product with f32 accumulation";
  let description = [{
    result = lhs * rhs (+ acc), or lhs * rhs^T with `transpose_rhs`, accumulated
    in f32. lhs is M x K; rhs is K x N (N x K when transposed). The optional
    `lhs_scale` (M) and `rhs_scale` (one per row of rhs as stored) multiply
    the rows of the operands: the FP8 descale factors.

    ```mlir
    %s = fattn.mma %q, %k {transpose_rhs} : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    %o = fattn.mma %p, %v acc(%acc : tensor<64x64xf32>) : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$lhs, AnyStaticShapeTensor:$rhs,
                       Optional<AnyStaticShapeTensor>:$acc,
                       Optional<AnyStaticShapeTensor>:$lhs_scale,
                       Optional<AnyStaticShapeTensor>:$rhs_scale,
                       UnitAttr:$transpose_rhs);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`acc` `(` $acc^ `:` type($acc) `)`)?
    (`lhs_scale` `(` $lhs_scale^ `:` type($lhs_scale) `)`)?
    (`rhs_scale` `(` $rhs_scale^ `:` type($rhs_scale) `)`)?
    attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def FAttn_MaskOp : FAttn_Op<"mask", [Pure, AllTypesMatch<["scores", "result"]>]> {
  let summary = "set the scores that the mask hides to -inf";
  let description = [{
    Element (i, j) of the scores tile is query row `row + i` and key `col + j`.
    It is set to -inf when the key lies past `seq_k` or outside the window
    (bottom-right aligned: visible iff
    qi + seq_k - seq_q - window_left <= kj <= qi + seq_k - seq_q + window_right,
    -1 = unbounded).

    ```mlir
    %m = fattn.mask %s at [%row, %col] seq_lens(%sq, %sk)
        {window_left = -1 : i64, window_right = 0 : i64} : tensor<64x64xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$scores, Index:$row, Index:$col,
                       Index:$seq_q, Index:$seq_k,
                       I64Attr:$window_left, I64Attr:$window_right);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $scores `at` `[` $row `,` $col `]` `seq_lens` `(` $seq_q `,` $seq_k `)` attr-dict `:` type($scores)
  }];
  let hasVerifier = 1;
}

def FAttn_SoftcapOp : FAttn_Op<"softcap", [Pure, AttrSizedOperandSegments,
    AllTypesMatch<["scores", "result"]>]> {
  let summary = "scale and cap the scores: softcap * tanh(scale * s / softcap)";
  let description = [{
    Used when softcapping is on: the result is already scaled, so the softmax
    ops that follow use scale = 1. The scale and the softcap are each an
    attribute or an f32 operand (a value known at run time), not both.

    ```mlir
    %c = fattn.softcap %s {scale = 0.125 : f32, softcap = 30.0 : f32} : tensor<64x64xf32>
    %d = fattn.softcap %s scale(%sc : f32) softcap(%cap : f32) : tensor<64x64xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$scores,
                       Optional<F32>:$dynamic_scale,
                       Optional<F32>:$dynamic_softcap,
                       OptionalAttr<F32Attr>:$scale,
                       OptionalAttr<F32Attr>:$softcap);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $scores (`scale` `(` $dynamic_scale^ `:` type($dynamic_scale) `)`)?
    (`softcap` `(` $dynamic_softcap^ `:` type($dynamic_softcap) `)`)?
    attr-dict `:` type($scores)
  }];
  let hasVerifier = 1;
}

def FAttn_SoftmaxInitOp : FAttn_Op<"softmax_init", [Pure]> {
  let summary = "the initial online-softmax state: m = -inf, l = 0, acc = 0";
  let description = [{
    ```mlir
    %m, %l, %acc = fattn.softmax_init : tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>
    ```
  }];
  let results = (outs AnyStaticShapeTensor:$max, AnyStaticShapeTensor:$sum,
                      AnyStaticShapeTensor:$acc);
  let assemblyFormat = "attr-dict `:` type($max) `,` type($sum) `,` type($acc)";
  let hasVerifier = 1;
}

def FAttn_SoftmaxUpdateOp : FAttn_Op<"softmax_update", [Pure,
    AllTypesMatch<["max", "sum", "new_max", "new_sum", "alpha"]>]> {
  let summary = "one online-softmax step over a tile of scores";
  let description = [{
    With m the running row max of the (unscaled) scores and l the running row
    sum: new_max = max(m, rowmax(s)), probs = exp(scale * (s - new_max)),
    alpha = exp(scale * (m - new_max)), new_sum = alpha * l + rowsum(probs).
    Rows whose max is still -inf get probs = 0 and alpha = 1 (never NaN). The
    sum is taken over the f32 probabilities, before their conversion to the
    element type of `probs`. `scale` must be positive; it is an attribute or
    an f32 operand (a value known at run time), not both.

    ```mlir
    %p, %m1, %l1, %alpha = fattn.softmax_update %s, %m, %l {scale = 0.125 : f32}
        : tensor<64x64xf32>, tensor<64xf32> -> tensor<64x64xbf16>
    %p2, %m2, %l2, %alpha2 = fattn.softmax_update %s, %m, %l scale(%sc : f32)
        : tensor<64x64xf32>, tensor<64xf32> -> tensor<64x64xbf16>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$scores, AnyStaticShapeTensor:$max,
                       AnyStaticShapeTensor:$sum, Optional<F32>:$dynamic_scale,
                       OptionalAttr<F32Attr>:$scale);
  let results = (outs AnyStaticShapeTensor:$probs, AnyStaticShapeTensor:$new_max,
                      AnyStaticShapeTensor:$new_sum, AnyStaticShapeTensor:$alpha);
  let assemblyFormat = [{
    $scores `,` $max `,` $sum (`scale` `(` $dynamic_scale^ `:` type($dynamic_scale) `)`)?
    attr-dict `:` type($scores) `,` type($max) `->` type($probs)
  }];
  let hasVerifier = 1;
}

def FAttn_RescaleOp : FAttn_Op<"rescale", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "multiply each row of the accumulator by its correction factor";
  let description = [{
    ```mlir
    %acc1 = fattn.rescale %acc, %alpha : tensor<64x64xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$acc, AnyStaticShapeTensor:$alpha);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$acc `,` $alpha attr-dict `:` type($acc) `,` type($alpha)";
  let hasVerifier = 1;
}

def FAttn_FinalizeOp : FAttn_Op<"finalize", [Pure, AllTypesMatch<["max", "sum", "lse"]>]> {
  let summary = "normalize the accumulator and compute the log-sum-exp";
  let description = [{
    output = acc / l and lse = scale * m + log(l) per row; rows with l = 0
    (no visible key) give output = 0 and lse = -inf. The scale is an
    attribute or an f32 operand, not both.

    ```mlir
    %o, %lse = fattn.finalize %acc, %m, %l {scale = 0.125 : f32}
        : tensor<64x64xf32>, tensor<64xf32> -> tensor<64x64xbf16>
    %o2, %lse2 = fattn.finalize %acc, %m, %l scale(%sc : f32)
        : tensor<64x64xf32>, tensor<64xf32> -> tensor<64x64xbf16>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$acc, AnyStaticShapeTensor:$max,
                       AnyStaticShapeTensor:$sum, Optional<F32>:$dynamic_scale,
                       OptionalAttr<F32Attr>:$scale);
  let results = (outs AnyStaticShapeTensor:$output, AnyStaticShapeTensor:$lse);
  let assemblyFormat = [{
    $acc `,` $max `,` $sum (`scale` `(` $dynamic_scale^ `:` type($dynamic_scale) `)`)?
    attr-dict `:` type($acc) `,` type($max) `->` type($output)
  }];
  let hasVerifier = 1;
}

#endif // FATTN_DIALECT_FATTN_IR_FATTNOPS_TD
