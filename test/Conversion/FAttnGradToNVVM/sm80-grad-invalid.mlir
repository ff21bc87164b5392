// RUN: fattn-opt %s -split-input-file --fattn-tile-grad="block-m=64 block-n=128" --convert-fattn-grad-to-nvvm-sm80 -verify-diagnostics

// What the sm_80 backward kernels do not take is a diagnostic on the tiled
// op (at the attention_grad's location). (FP8 has no gradient op at all:
// test/Dialect/invalid-attention-grad.mlir.)

func.func @f32(%q: memref<1x2x64x64xf32>, %k: memref<1x2x64x64xf32>, %v: memref<1x2x64x64xf32>, %o: memref<1x2x64x64xf32>, %do: memref<1x2x64x64xf32>, %lse: memref<1x2x64xf32>, %dq: memref<1x2x64x64xf32>, %dk: memref<1x2x64x64xf32>, %dv: memref<1x2x64x64xf32>) {
  // expected-error @+1 {{'fattn.tiled_attention_grad' op the sm_80 backward kernels take f16 or bf16 tensors, found 'f32'}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<1x2x64x64xf32>, memref<1x2x64x64xf32>, memref<1x2x64x64xf32>, memref<1x2x64x64xf32>, memref<1x2x64x64xf32>, memref<1x2x64xf32>) outs(%dq, %dk, %dv : memref<1x2x64x64xf32>, memref<1x2x64x64xf32>, memref<1x2x64x64xf32>)
  return
}

// -----

func.func @head_dim_144(%q: memref<1x2x64x144xbf16>, %k: memref<1x2x64x144xbf16>, %v: memref<1x2x64x144xbf16>, %o: memref<1x2x64x144xbf16>, %do: memref<1x2x64x144xbf16>, %lse: memref<1x2x64xf32>, %dq: memref<1x2x64x144xbf16>, %dk: memref<1x2x64x144xbf16>, %dv: memref<1x2x64x144xbf16>) {
  // expected-error @+1 {{'fattn.tiled_attention_grad' op the sm_80 backward kernels take head dims that are multiples of 16 up to 128, found 144}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<1x2x64x144xbf16>, memref<1x2x64x144xbf16>, memref<1x2x64x144xbf16>, memref<1x2x64x144xbf16>, memref<1x2x64x144xbf16>, memref<1x2x64xf32>) outs(%dq, %dk, %dv : memref<1x2x64x144xbf16>, memref<1x2x64x144xbf16>, memref<1x2x64x144xbf16>)
  return
}

// -----

func.func @head_dim_40(%q: memref<1x2x64x40xbf16>, %k: memref<1x2x64x40xbf16>, %v: memref<1x2x64x40xbf16>, %o: memref<1x2x64x40xbf16>, %do: memref<1x2x64x40xbf16>, %lse: memref<1x2x64xf32>, %dq: memref<1x2x64x40xbf16>, %dk: memref<1x2x64x40xbf16>, %dv: memref<1x2x64x40xbf16>) {
  // expected-error @+1 {{'fattn.tiled_attention_grad' op the sm_80 backward kernels take head dims that are multiples of 16 up to 128, found 40}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<1x2x64x40xbf16>, memref<1x2x64x40xbf16>, memref<1x2x64x40xbf16>, memref<1x2x64x40xbf16>, memref<1x2x64x40xbf16>, memref<1x2x64xf32>) outs(%dq, %dk, %dv : memref<1x2x64x40xbf16>, memref<1x2x64x40xbf16>, memref<1x2x64x40xbf16>)
  return
}

// -----

func.func @value_head_dim(%q: memref<1x2x64x64xbf16>, %k: memref<1x2x64x64xbf16>, %v: memref<1x2x64x32xbf16>, %o: memref<1x2x64x32xbf16>, %do: memref<1x2x64x32xbf16>, %lse: memref<1x2x64xf32>, %dq: memref<1x2x64x64xbf16>, %dk: memref<1x2x64x64xbf16>, %dv: memref<1x2x64x32xbf16>) {
  // expected-error @+1 {{'fattn.tiled_attention_grad' op the sm_80 backward kernels need one static head dim for Q, K, V, O and their gradients, found 'memref<1x2x64x32xbf16>' beside 'memref<1x2x64x64xbf16>'}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64xf32>) outs(%dq, %dk, %dv : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x32xbf16>)
  return
}

// -----

func.func @strided_rows(%q: memref<1x2x64x64xbf16, strided<[8192, 4096, 64, 2]>>, %k: memref<1x2x64x64xbf16>, %v: memref<1x2x64x64xbf16>, %o: memref<1x2x64x64xbf16>, %do: memref<1x2x64x64xbf16>, %lse: memref<1x2x64xf32>, %dq: memref<1x2x64x64xbf16>, %dk: memref<1x2x64x64xbf16>, %dv: memref<1x2x64x64xbf16>) {
  // expected-error @+1 {{'fattn.tiled_attention_grad' op the sm_80 backward kernels need unit-stride rows (the last dim contiguous), found 'memref<1x2x64x64xbf16, strided<[8192, 4096, 64, 2]>>'}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<1x2x64x64xbf16, strided<[8192, 4096, 64, 2]>>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64xf32>) outs(%dq, %dk, %dv : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>)
  return
}

// -----

func.func @called(%q: memref<1x2x64x64xbf16>, %k: memref<1x2x64x64xbf16>, %v: memref<1x2x64x64xbf16>, %o: memref<1x2x64x64xbf16>, %do: memref<1x2x64x64xbf16>, %lse: memref<1x2x64xf32>, %dq: memref<1x2x64x64xbf16>, %dk: memref<1x2x64x64xbf16>, %dv: memref<1x2x64x64xbf16>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64xf32>) outs(%dq, %dk, %dv : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>)
  return
}
// expected-error @-4 {{'func.func' op is called: the sm_80 backward kernels have no host launch (fattn's runtime launches them)}}
func.func @caller(%q: memref<1x2x64x64xbf16>, %lse: memref<1x2x64xf32>) {
  call @called(%q, %q, %q, %q, %q, %lse, %q, %q, %q) : (memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64xf32>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>) -> ()
  return
}

// -----

// One backward per function: the kernels take their names from it.
func.func @two(%q: memref<1x2x64x64xbf16>, %lse: memref<1x2x64xf32>, %dq: memref<1x2x64x64xbf16>, %dq2: memref<1x2x64x64xbf16>) {
  fattn.attention_grad ins(%q, %q, %q, %q, %q, %lse : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64xf32>) outs(%dq, %dq, %dq : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>)
  // expected-error @+1 {{'fattn.tiled_attention_grad' op is not lowered by --convert-fattn-grad-to-nvvm-sm80: it lowers a function that holds one fattn.tiled_attention_grad, @two holds 2}}
  fattn.attention_grad ins(%q, %q, %q, %q, %q, %lse : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64xf32>) outs(%dq2, %dq2, %dq2 : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>)
  return
}
