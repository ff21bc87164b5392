//===- FAttnGradOps.td - the attention backward pass -------*- tablegen -*-===//
//
// The gradient of `fattn.attention`, kept apart from the forward ops so that
// the tiled forward form and its users do not depend on it.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_IR_FATTNGRADOPS_TD
#define FATTN_DIALECT_FATTN_IR_FATTNGRADOPS_TD

include "fattn/Dialect/FAttn/IR/FAttnDialect.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def FAttn_AttentionGradOp : FAttn_Op<"attention_grad", [
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "gradients of exact attention: dQ, dK, dV from O, dO and LSE";
  let description = [{
    The backward pass of `fattn.attention` with the same attributes: given
    Q, K, V, the forward's output O and log-sum-exp LSE (natural log, as
    `fattn.attention`'s `lse(...)` writes it) and the gradient dO of a loss
    with respect to O, writes dQ, dK and dV (FlashAttention-2, section 3.2):

    - P = exp(S - LSE) with S = scale * Q K^T (softcap * tanh(S / softcap)
      when `softcap` > 0) and the forward's mask (masked entries P = 0);
    - D = rowsum(dO * O);
    - dV = P^T dO; dP = dO V^T; dS = P * (dP - D), times 1 - tanh^2 (the
      softcap's derivative) when `softcap` > 0;
    - dK = scale * dS^T Q; dQ = scale * dS K.

    A row that sees no key (LSE = -inf) contributes nothing; a key that no
    row sees gets dK = dV = 0. GQA/MQA: dK and dV of a KV head are summed
    over the query heads that read it.

    Operands as `fattn.attention`'s: logical dims [batch, heads, seq,
    head_dim] for Q, K, V, O, dO, dQ, dK, dV and [batch, heads, seq] for LSE
    (f32), any strided layout, dynamic batch, heads and seqs (and head dims,
    with an explicit `scale`). dO has O's shape and element type; dQ, dK, dV
    those of Q, K, V. Element types f32, f16 or bf16 (no FP8), accumulation
    in f32. `deterministic` asks the GPU kernels for a fixed accumulation
    order of dQ (bit-identical results run to run); the CPU lowering is
    always deterministic.

    Destination style, like `fattn.attention`: on memrefs it writes `outs`;
    on tensors (every operand a tensor) it returns dQ, dK and dV. Every
    element of dQ, dK and dV is written; their old contents are not read.

    ```mlir
    fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x1000x64xbf16>, memref<2x2x1000x64xbf16>,
                                 memref<2x2x1000x64xbf16>, memref<2x8x1000x64xbf16>, memref<2x8x1000x64xbf16>,
                                 memref<2x8x1000xf32>)
                         outs(%dq, %dk, %dv : memref<2x8x1000x64xbf16>, memref<2x2x1000x64xbf16>,
                                 memref<2x2x1000x64xbf16>)
                         {causal = true, scale = 0.125 : f32, deterministic}
    ```
  }];

  // Q, K, V, O, dO and LSE are read; dQ, dK and dV written (memref form).
  let arguments = (ins
    FAttn_TensorOrMemRef:$query,
    FAttn_TensorOrMemRef:$key,
    FAttn_TensorOrMemRef:$value,
    FAttn_TensorOrMemRef:$output,
    FAttn_TensorOrMemRef:$grad_output,
    FAttn_TensorOrMemRef:$lse,
    FAttn_TensorOrMemRef:$grad_query,
    FAttn_TensorOrMemRef:$grad_key,
    FAttn_TensorOrMemRef:$grad_value,
    OptionalAttr<F32Attr>:$scale,
    OptionalAttr<BoolAttr>:$causal,
    OptionalAttr<I64Attr>:$window_left,
    OptionalAttr<I64Attr>:$window_right,
    OptionalAttr<F32Attr>:$softcap,
    UnitAttr:$deterministic
  );
  // The tensor form's dQ, dK, dV (none in the memref form).
  let results = (outs Variadic<AnyRankedTensor>:$result_tensors);

  let assemblyFormat = [{
    `ins` `(` $query `,` $key `,` $value `,` $output `,` $grad_output `,` $lse
      `:` type($query) `,` type($key) `,` type($value) `,` type($output) `,`
      type($grad_output) `,` type($lse) `)`
    `outs` `(` $grad_query `,` $grad_key `,` $grad_value `:`
      type($grad_query) `,` type($grad_key) `,` type($grad_value) `)`
    attr-dict (`->` type($result_tensors)^)?
  }];

  let hasVerifier = 1;

  let extraClassDeclaration = [{
    /// The inits of DestinationStyleOpInterface: dQ, dK, dV.
    MutableOperandRange getDpsInitsMutable() {
      return MutableOperandRange(getOperation(), 6, 3);
    }
    /// The scale applied to Q K^T: the attribute, or 1/sqrt(head_dim).
    float getEffectiveScale();
    /// The window bounds with `causal` folded in; -1 means unbounded.
    int64_t getEffectiveWindowLeft();
    int64_t getEffectiveWindowRight();
    /// The softcap, 0 when absent.
    float getEffectiveSoftcap();
  }];
}

#endif // FATTN_DIALECT_FATTN_IR_FATTNGRADOPS_TD
