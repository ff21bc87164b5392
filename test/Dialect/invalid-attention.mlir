// RUN: fattn-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of fattn.attention.

func.func @query_rank(%q: memref<8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{'fattn.attention' op expected query to be a rank-4 memref [batch, heads, seq, head_dim], found rank 3}}
  fattn.attention ins(%q, %k, %v : memref<8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>)
  return
}

// -----

func.func @key_rank(%q: memref<2x8x100x64xf32>, %k: memref<1x2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{expected key to be a rank-4 memref [batch, heads, seq, head_dim], found rank 5}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<1x2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>)
  return
}

// -----

func.func @value_rank(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<90x32xf32>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{expected value to be a rank-4 memref [batch, heads, seq, head_dim], found rank 2}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<90x32xf32>) outs(%o : memref<2x8x100x32xf32>)
  return
}

// -----

func.func @output_rank(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<8x100x32xf32>) {
  // expected-error @+1 {{expected output to be a rank-4 memref [batch, heads, seq, head_dim], found rank 3}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<8x100x32xf32>)
  return
}

// -----

func.func @lse_rank(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %lse: memref<2x8x100x1xf32>) {
  // expected-error @+1 {{expected lse to be a rank-3 memref [batch, heads, seq], found rank 4}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>) lse(%lse : memref<2x8x100x1xf32>)
  return
}

// -----

func.func @query_elem(%q: memref<2x8x100x64xi32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{expected query element type to be f32, f16, bf16 or f8E4M3FN, found 'i32'}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xi32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>)
  return
}

// -----

func.func @key_elem(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf16>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{expected key element type to match query ('f32'), found 'f16'}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf16>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>)
  return
}

// -----

func.func @value_elem(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xbf16>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{expected value element type to match query ('f32'), found 'bf16'}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xbf16>) outs(%o : memref<2x8x100x32xf32>)
  return
}

// -----

func.func @output_elem(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf16>) {
  // expected-error @+1 {{expected output element type to be 'f32' (the query's), found 'f16'}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf16>)
  return
}

// -----

func.func @lse_elem(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf16>) {
  // expected-error @+1 {{expected lse element type to be f32, found 'f16'}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>) lse(%lse : memref<2x8x100xf16>)
  return
}

// -----

func.func @key_batch(%q: memref<2x8x100x64xf32>, %k: memref<3x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{expected key batch size (3) to match query batch size (2)}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<3x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>)
  return
}

// -----

func.func @value_batch(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<1x2x90x32xf32>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{expected value batch size (1) to match query batch size (2)}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<1x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>)
  return
}

// -----

func.func @output_batch(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<4x8x100x32xf32>) {
  // expected-error @+1 {{expected output batch size (4) to match query batch size (2)}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<4x8x100x32xf32>)
  return
}

// -----

func.func @value_heads(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x4x90x32xf32>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{expected value head count (4) to match key head count (2)}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x4x90x32xf32>) outs(%o : memref<2x8x100x32xf32>)
  return
}

// -----

func.func @output_heads(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x6x100x32xf32>) {
  // expected-error @+1 {{expected output head count (6) to match query head count (8)}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x6x100x32xf32>)
  return
}

// -----

func.func @value_seq(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x91x32xf32>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{expected value sequence length (91) to match key sequence length (90)}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x91x32xf32>) outs(%o : memref<2x8x100x32xf32>)
  return
}

// -----

func.func @output_seq(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x99x32xf32>) {
  // expected-error @+1 {{expected output sequence length (99) to match query sequence length (100)}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x99x32xf32>)
  return
}

// -----

func.func @key_head_dim(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x32xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{expected key head dim (32) to match query head dim (64)}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x32xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>)
  return
}

// -----

func.func @output_head_dim(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x64xf32>) {
  // expected-error @+1 {{expected output head dim (64) to match value head dim (32)}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x64xf32>)
  return
}

// -----

func.func @gqa(%q: memref<2x8x100x64xf32>, %k: memref<2x3x90x64xf32>, %v: memref<2x3x90x32xf32>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{expected query head count (8) to be a multiple of key/value head count (3)}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x3x90x64xf32>, memref<2x3x90x32xf32>) outs(%o : memref<2x8x100x32xf32>)
  return
}

// -----

func.func @lse_batch(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %lse: memref<1x8x100xf32>) {
  // expected-error @+1 {{expected lse batch size (1) to match query batch size (2)}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>) lse(%lse : memref<1x8x100xf32>)
  return
}

// -----

func.func @lse_heads(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %lse: memref<2x2x100xf32>) {
  // expected-error @+1 {{expected lse head count (2) to match query head count (8)}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>) lse(%lse : memref<2x2x100xf32>)
  return
}

// -----

func.func @lse_seq(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %lse: memref<2x8x90xf32>) {
  // expected-error @+1 {{expected lse sequence length (90) to match query sequence length (100)}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>) lse(%lse : memref<2x8x90xf32>)
  return
}

// -----

func.func @scale_negative(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{expected scale to be a positive finite number, found -1.000000e+00}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>) {scale = -1.0 : f32}
  return
}

// -----

func.func @scale_zero(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{expected scale to be a positive finite number, found 0.000000e+00}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>) {scale = 0.0 : f32}
  return
}

// -----

func.func @scale_inf(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{expected scale to be a positive finite number, found INF}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>) {scale = 0x7F800000 : f32}
  return
}

// -----

func.func @softcap_negative(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{expected softcap to be a finite number >= 0 (0 = none), found -3.000000e+00}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>) {softcap = -3.0 : f32}
  return
}

// -----

func.func @window_left(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{expected window_left to be -1 (unbounded) or >= 0, found -2}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>) {window_left = -2 : i64}
  return
}

// -----

func.func @window_right(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{expected window_right to be -1 (unbounded) or >= 0, found -5}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>) {window_right = -5 : i64}
  return
}

// -----

func.func @causal_window_right(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{expected window_right to be 0 or absent when causal = true, found 4}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>) {causal = true, window_right = 4 : i64}
  return
}

// -----

func.func @dynamic_head_dim_no_scale(%q: memref<2x8x100x?xf32>, %k: memref<2x2x90x?xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{expected a static query head dim or an explicit scale, found head dim ?}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x?xf32>, memref<2x2x90x?xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>)
  return
}

// -----

// A tensor query with memref K, V, O: the tensor form takes tensors only (tensor-form.mlir).
func.func @not_a_memref(%q: tensor<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>) {
  // expected-error @+1 {{'fattn.attention' op expected key to be a tensor as query is (all operands tensors or all memrefs), found 'memref<2x2x90x64xf32>'}}
  fattn.attention ins(%q, %k, %v : tensor<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>)
  return
}

// -----

func.func @scale_attribute_and_operand(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %s: f32) {
  // expected-error @+1 {{expected the scale as an attribute or an operand, not both}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>) scale(%s : f32) {scale = 0.5 : f32}
  return
}

// -----

func.func @softcap_attribute_and_operand(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %c: f32) {
  // expected-error @+1 {{expected the softcap as an attribute or an operand, not both}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) outs(%o : memref<2x8x100x32xf32>) softcap(%c : f32) {softcap = 5.0 : f32}
  return
}
