// RUN: fattn-opt %s -split-input-file -verify-diagnostics

// One case per message about the tensor form: operands all tensors or all
// memrefs, and one result per tensor init.

func.func @memref_key(%q: tensor<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>) {
  // expected-error @+1 {{'fattn.attention' op expected key to be a tensor as query is (all operands tensors or all memrefs), found 'memref<1x2x8x16xf32>'}}
  %r = fattn.attention ins(%q, %k, %q : tensor<1x2x8x16xf32>, memref<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return
}

// -----

func.func @tensor_output(%q: memref<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>) {
  // expected-error @+1 {{'fattn.attention' op expected output to be a memref as query is (all operands tensors or all memrefs), found 'tensor<1x2x8x16xf32>'}}
  %r = fattn.attention ins(%q, %q, %q : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return
}

// -----

func.func @memref_lse(%q: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>, %l: memref<1x2x8xf32>) {
  // expected-error @+1 {{'fattn.attention' op expected lse to be a tensor as query is (all operands tensors or all memrefs), found 'memref<1x2x8xf32>'}}
  %r = fattn.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) lse(%l : memref<1x2x8xf32>) -> tensor<1x2x8x16xf32>
  return
}

// -----

func.func @memref_descale(%q: tensor<1x2x8x16xf8E4M3FN>, %o: tensor<1x2x8x16xbf16>, %d: tensor<f32>, %dm: memref<f32>) {
  // expected-error @+1 {{'fattn.attention' op expected v_descale to be a tensor as query is (all operands tensors or all memrefs), found 'memref<f32>'}}
  %r = fattn.attention ins(%q, %q, %q : tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>) outs(%o : tensor<1x2x8x16xbf16>) descale(%d, %d, %dm : tensor<f32>, tensor<f32>, memref<f32>) -> tensor<1x2x8x16xbf16>
  return
}

// -----

// The verifier's shape messages name the kind found.
func.func @tensor_rank(%q: tensor<2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>) {
  // expected-error @+1 {{'fattn.attention' op expected query to be a rank-4 tensor [batch, heads, seq, head_dim], found rank 3}}
  %r = fattn.attention ins(%q, %k, %k : tensor<2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return
}

// -----

func.func @missing_result(%q: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>) {
  // expected-error @+1 {{'fattn.attention' op expected the number of tensor results (0) to be equal to the number of output tensors (1)}}
  fattn.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>)
  return
}

// -----

func.func @missing_lse_result(%q: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  // expected-error @+1 {{'fattn.attention' op expected the number of tensor results (1) to be equal to the number of output tensors (2)}}
  %r = fattn.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) lse(%l : tensor<1x2x8xf32>) -> tensor<1x2x8x16xf32>
  return
}

// -----

func.func @result_on_memrefs(%q: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>) {
  // expected-error @+1 {{'fattn.attention' op expected the number of tensor results (1) to be equal to the number of output tensors (0)}}
  %r = fattn.attention ins(%q, %q, %q : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) outs(%o : memref<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return
}

// -----

func.func @result_type(%q: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>) {
  // expected-error @+1 {{'fattn.attention' op expected type of operand #3 ('tensor<1x2x8x16xf32>') to match type of corresponding result ('tensor<1x2x8x16xf16>')}}
  %r = fattn.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf16>
  return
}

// -----

func.func @quantize_memref_descale(%x: tensor<1x4x16x64xbf16>, %y: tensor<1x4x16x64xf8E4M3FN>, %d: memref<f32>) {
  // expected-error @+1 {{'fattn.quantize' op expected descale to be a tensor as input is (all operands tensors or all memrefs), found 'memref<f32>'}}
  %r = fattn.quantize ins(%x : tensor<1x4x16x64xbf16>) outs(%y : tensor<1x4x16x64xf8E4M3FN>) descale(%d : memref<f32>) -> tensor<1x4x16x64xf8E4M3FN>
  return
}

// -----

func.func @quantize_tensor_signs(%x: memref<1x4x16x64xbf16>, %s: tensor<64xf32>, %y: memref<1x4x16x64xf8E4M3FN>, %d: memref<f32>) {
  // expected-error @+1 {{'fattn.quantize' op expected signs to be a memref as input is (all operands tensors or all memrefs), found 'tensor<64xf32>'}}
  fattn.quantize ins(%x : memref<1x4x16x64xbf16>) signs(%s : tensor<64xf32>) outs(%y : memref<1x4x16x64xf8E4M3FN>) descale(%d : memref<f32>)
  return
}

// -----

func.func @quantize_signs_type(%x: tensor<1x4x16x64xbf16>, %s: tensor<64xf16>, %y: tensor<1x4x16x64xf8E4M3FN>, %d: tensor<f32>) {
  // expected-error @+1 {{'fattn.quantize' op operand #1 must be 1D tensor of 32-bit float values, but got 'tensor<64xf16>'}}
  %r:2 = fattn.quantize ins(%x : tensor<1x4x16x64xbf16>) signs(%s : tensor<64xf16>) outs(%y : tensor<1x4x16x64xf8E4M3FN>) descale(%d : tensor<f32>) -> tensor<1x4x16x64xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @hadamard_memref_output(%x: tensor<4x8xf32>, %s: tensor<8xf32>, %y: memref<4x8xf32>) {
  // expected-error @+1 {{'fattn.hadamard_rotate' op expected output to be a tensor as input is (all operands tensors or all memrefs), found 'memref<4x8xf32>'}}
  fattn.hadamard_rotate ins(%x : tensor<4x8xf32>) signs(%s : tensor<8xf32>) outs(%y : memref<4x8xf32>)
  return
}

// -----

func.func @hadamard_signs_rank(%x: tensor<4x8xf32>, %s: tensor<1x8xf32>, %y: tensor<4x8xf32>) {
  // expected-error @+1 {{'fattn.hadamard_rotate' op operand #1 must be 1D tensor of 32-bit float values, but got 'tensor<1x8xf32>'}}
  %r = fattn.hadamard_rotate ins(%x : tensor<4x8xf32>) signs(%s : tensor<1x8xf32>) outs(%y : tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}
