//===- FAttnQuantOps.td - FP8 accuracy ops -----------------*- tablegen -*-===//
//
// Ops that prepare FP8 inputs (FlashAttention-3, section 3.3): kept apart
// from the attention ops so that the tiled form and its users do not depend
// on them.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_IR_FATTNQUANTOPS_TD
#define FATTN_DIALECT_FATTN_IR_FATTNQUANTOPS_TD

include "fattn/Dialect/FAttn/IR/FAttnDialect.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def FAttn_HadamardRotateOp : FAttn_Op<"hadamard_rotate", [
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "incoherent processing: rotate the rows by diag(signs) H / sqrt(d)";
  let description = [{
    Multiplies every row (the last dim, of size d, a power of two) of `input`
    by R = diag(signs) H / sqrt(d), where H is the d x d Walsh-Hadamard matrix
    and `signs` holds +1 or -1 per column: output[..., :] = input[..., :] R.
    R is orthogonal, so rotating Q and K with the same signs leaves Q K^T
    unchanged while spreading outliers across the head dim before FP8
    quantization. Lowered with the fast Walsh-Hadamard transform
    (d log d per row).

    Destination style, like `fattn.attention`: on memrefs it writes `outs`;
    on tensors (every operand a tensor) it returns the rotated rows.

    ```mlir
    fattn.hadamard_rotate ins(%q : memref<?x?x?x128xbf16>) signs(%s : memref<128xf32>)
                          outs(%r : memref<?x?x?x128xf32>)
    %rt = fattn.hadamard_rotate ins(%tq : tensor<?x?x?x128xbf16>) signs(%ts : tensor<128xf32>)
                                outs(%tr : tensor<?x?x?x128xf32>) -> tensor<?x?x?x128xf32>
    ```
  }];
  // `input` (the rows to rotate) and `signs` (+1 or -1 per column) are read;
  // `output` (the rotated rows) written (memref form).
  let arguments = (ins FAttn_TensorOrMemRef:$input,
                       FAttn_TensorOrMemRef:$signs,
                       FAttn_TensorOrMemRef:$output);
  let results = (outs Variadic<AnyRankedTensor>:$result_tensors);
  let assemblyFormat = [{
    `ins` `(` $input `:` type($input) `)` `signs` `(` $signs `:` type($signs) `)`
    `outs` `(` $output `:` type($output) `)` attr-dict
    (`->` type($result_tensors)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    MutableOperandRange getDpsInitsMutable() { return getOutputMutable(); }
  }];
}

def FAttn_QuantizeOp : FAttn_Op<"quantize", [
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "quantize [batch, heads, seq, d] rows to f8E4M3FN with descales";
  let description = [{
    Quantizes `input` (logical dims [batch, heads, seq, d]; f32, f16 or bf16;
    any strided layout, so BSHD storage is passed as a `memref.transpose`
    view) to f8E4M3FN in `output`, and writes the factors that undo the
    scaling to `descale`, in exactly the shapes that `fattn.attention` takes
    for its `descale(...)` operands. The rank of `descale` picks the
    granularity:

    - rank 0: one factor for the whole tensor;
    - rank 2, [batch, groups]: one factor per batch and group of
      heads / groups consecutive heads (groups must divide heads). With
      groups = heads this is per (batch, head), as for K and V; quantizing Q
      of a GQA attention uses groups = the KV head count, since the attention
      reads Q's rank-2 descale per KV head;
    - rank 3, [batch, heads, ceildiv(seq, block)]: one factor per `block`
      consecutive rows of each head (the last block may be shorter), as the
      attention's `descale_block_q` / `descale_block_kv`.

    For each such set of rows, in f32: amax = max |x| (NaN propagates),
    scale = max(amax / 448, 2^-126) and output = x / scale rounded to nearest
    even and saturated to +-448 (as cvt.rn.satfinite.e4m3x2.f32), descale =
    scale. 448 is e4m3's largest finite value. The floor 2^-126 (f32's
    smallest normal) gives an all-zero block a finite, nonzero factor and
    keeps amax / 448 out of the f32 subnormals, where its rounding error
    would be large.

    With `signs(%s)` the rows are first rotated as by `fattn.hadamard_rotate`
    (x diag(signs) H / sqrt(d), in f32, d a power of two), and the amax and
    the rounding apply to the rotated rows: incoherent processing and
    quantization in one op, without an f32 copy of the tensor.

    Destination style, like `fattn.attention`: on memrefs it writes `outs`
    and `descale`; on tensors (every operand a tensor) it returns the e4m3
    values and the descales.

    ```mlir
    fattn.quantize ins(%k : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>)
                   signs(%s : memref<128xf32>)
                   outs(%k8 : memref<?x?x?x128xf8E4M3FN>)
                   descale(%dk : memref<?x?x?xf32>) {block = 128 : i64}
    %v8, %dv = fattn.quantize ins(%v : tensor<2x4x256x128xbf16>)
                              outs(%v8init : tensor<2x4x256x128xf8E4M3FN>)
                              descale(%dvinit : tensor<2x4xf32>)
                              -> tensor<2x4x256x128xf8E4M3FN>, tensor<2x4xf32>
    ```
  }];
  // `input` (the rows to quantize) and `signs` (+1 or -1 per column of the
  // rotation) are read; `output` (e4m3 values) and `descale` (the factors)
  // written (memref form).
  let arguments = (ins FAttn_TensorOrMemRef:$input,
                       Optional<FAttn_TensorOrMemRef>:$signs,
                       FAttn_TensorOrMemRef:$output,
                       FAttn_TensorOrMemRef:$descale,
                       OptionalAttr<I64Attr>:$block);
  let results = (outs Variadic<AnyRankedTensor>:$result_tensors);
  let assemblyFormat = [{
    `ins` `(` $input `:` type($input) `)`
    (`signs` `(` $signs^ `:` type($signs) `)`)?
    `outs` `(` $output `:` type($output) `)`
    `descale` `(` $descale `:` type($descale) `)` attr-dict
    (`->` type($result_tensors)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The inits of DestinationStyleOpInterface: output, then descale.
    MutableOperandRange getDpsInitsMutable() {
      return MutableOperandRange(getOperation(),
                                 getODSOperandIndexAndLength(2).first, 2);
    }
  }];
}

#endif // FATTN_DIALECT_FATTN_IR_FATTNQUANTOPS_TD
