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
include "mlir/Interfaces/SideEffectInterfaces.td"

def FAttn_HadamardRotateOp : FAttn_Op<"hadamard_rotate"> {
  let summary = "incoherent processing: rotate the rows by diag(signs) H / sqrt(d)";
  let description = [{
    Multiplies every row (the last dim, of size d, a power of two) of `input`
    by R = diag(signs) H / sqrt(d), where H is the d x d Walsh-Hadamard matrix
    and `signs` holds +1 or -1 per column: output[..., :] = input[..., :] R.
    R is orthogonal, so rotating Q and K with the same signs leaves Q K^T
    unchanged while spreading outliers across the head dim before FP8
    quantization. Lowered with the fast Walsh-Hadamard transform
    (d log d per row).

    ```mlir
    fattn.hadamard_rotate ins(%q : memref<?x?x?x128xbf16>) signs(%s : memref<128xf32>)
                          outs(%r : memref<?x?x?x128xf32>)
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "rows to rotate", [MemRead]>:$input,
                       Arg<MemRefRankOf<[F32], [1]>, "+1 or -1 per column",
                           [MemRead]>:$signs,
                       Arg<AnyMemRef, "rotated rows", [MemWrite]>:$output);
  let assemblyFormat = [{
    `ins` `(` $input `:` type($input) `)` `signs` `(` $signs `:` type($signs) `)`
    `outs` `(` $output `:` type($output) `)` attr-dict
  }];
  let hasVerifier = 1;
}

#endif // FATTN_DIALECT_FATTN_IR_FATTNQUANTOPS_TD
