//===- FAttnFP8Ops.td - the sm_90a FP8 operand layout ------*- tablegen -*-===//
//
// fp8 wgmma reads both operands K-major, so O += P V on sm_90a needs V^T in
// shared memory, and P straight from the registers of the S = Q K^T
// accumulator is only a valid A operand if the keys are reordered.
// --fattn-fp8-layout writes that decision into the tiled form with these
// ops: a transpose of each V tile that also permutes its keys, and the same
// permutation of the keys of P. Both have a plain meaning on tensors (the
// CPU pipeline executes them), so the permuted form can be checked against
// the unpermuted one: sum_k P[m, pi(k)] V[pi(k), n] = (P V)[m, n].
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_IR_FATTNFP8OPS_TD
#define FATTN_DIALECT_FATTN_IR_FATTNFP8OPS_TD

include "fattn/Dialect/FAttn/IR/FAttnDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def FAttn_PermuteKeysOp : FAttn_Op<"permute_keys",
    [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "reorder the keys (last dim) of a tile by a named permutation";
  let description = [{
    result[..., k] = input[..., pi(k)] along the last dim (the keys of a
    probabilities tile P, or of a vector of per-key factors), where pi is the
    permutation named by `key_permutation`. The permutations known are:

    - `"wgmma_e4m3_k32"`: the order in which an sm_90a thread holds the
      columns of a wgmma f32 accumulator, read as the k slots of the A
      operand of an e4m3 `wgmma ... k32` from registers. Within every 16
      keys, with c = k mod 16: pi(k) = 16 (k / 16) + 2 (c / 4) + (c mod 2) +
      8 ((c mod 4) / 2), i.e. slots 4q .. 4q + 3 hold columns 2q, 2q + 1,
      2q + 8, 2q + 9. The key count must be a multiple of 32 (one k step).

    ```mlir
    %pp = fattn.permute_keys %p {key_permutation = "wgmma_e4m3_k32"} : tensor<128x128xf8E4M3FN>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, StrAttr:$key_permutation);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def FAttn_TransposeTileOp : FAttn_Op<"transpose_tile", [Pure]> {
  let summary = "transpose a K-row tile, permuting its keys";
  let description = [{
    result[n, k] = input[pi(k), n]: the N x D tile `input` (N keys) becomes
    the D x N tile whose rows are keys-contiguous, with the keys reordered by
    the permutation `key_permutation` (see `fattn.permute_keys`). With P's
    keys permuted the same way, `fattn.mma %pp, %vt {transpose_rhs}` equals
    P V. On sm_90a the producer warpgroup does this in shared memory
    (ldmatrix/stmatrix or byte shuffles), since fp8 wgmma reads its B
    operand K-major only.

    ```mlir
    %vt = fattn.transpose_tile %v {key_permutation = "wgmma_e4m3_k32"}
        : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, StrAttr:$key_permutation);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasCanonicalizeMethod = 1;
}

#endif // FATTN_DIALECT_FATTN_IR_FATTNFP8OPS_TD
