// RUN: fattn-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of fattn.attention_grad (the messages it
// shares with fattn.attention name the same operands).
func.func @mixed_kinds(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{'fattn.attention_grad' op expected grad_output to be a memref as query is (all operands tensors or all memrefs), found 'tensor<2x8x100x32xf32>'}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, tensor<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @query_fp8(%q: memref<2x8x100x64xf8E4M3FN>, %k: memref<2x2x90x64xf8E4M3FN>, %v: memref<2x2x90x32xf8E4M3FN>, %o: memref<2x8x100x32xbf16>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected query element type to be f32, f16 or bf16 (the gradient has no FP8 form), found 'f8E4M3FN'}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf8E4M3FN>, memref<2x2x90x64xf8E4M3FN>, memref<2x2x90x32xf8E4M3FN>, memref<2x8x100x32xbf16>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @query_i32(%q: memref<2x8x100x64xi32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected query element type to be f32, f16 or bf16 (the gradient has no FP8 form), found 'i32'}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xi32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @query_rank(%q: memref<8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected query to be a rank-4 memref [batch, heads, seq, head_dim], found rank 3}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @key_rank(%q: memref<2x8x100x64xf32>, %k: memref<2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected key to be a rank-4 memref [batch, heads, seq, head_dim], found rank 3}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @value_rank(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected value to be a rank-4 memref [batch, heads, seq, head_dim], found rank 2}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @output_rank(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected output to be a rank-4 memref [batch, heads, seq, head_dim], found rank 3}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @key_element_type(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf16>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected key element type to match query ('f32'), found 'f16'}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf16>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @value_element_type(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xbf16>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected value element type to match query ('f32'), found 'bf16'}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xbf16>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @output_element_type(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf16>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected output element type to be 'f32' (the query's), found 'f16'}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf16>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @key_batch(%q: memref<2x8x100x64xf32>, %k: memref<3x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected key batch size (3) to match query batch size (2)}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<3x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @output_batch(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<1x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected output batch size (1) to match query batch size (2)}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<1x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @output_heads(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x4x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected output head count (4) to match query head count (8)}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x4x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @output_seq(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x99x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected output sequence length (99) to match query sequence length (100)}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x99x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @key_head_dim(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x32xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected key head dim (32) to match query head dim (64)}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x32xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @value_batch(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<1x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected value batch size (1) to match query batch size (2)}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<1x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @value_heads(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x1x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected value head count (1) to match key head count (2)}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x1x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @value_seq(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x91x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected value sequence length (91) to match key sequence length (90)}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x91x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @output_head_dim(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x16xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected output head dim (16) to match value head dim (32)}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x16xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @gqa_group(%q: memref<2x8x100x64xf32>, %k: memref<2x3x90x64xf32>, %v: memref<2x3x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x3x90x64xf32>, %dv: memref<2x3x90x32xf32>) {
  // expected-error @+1 {{expected query head count (8) to be a multiple of key/value head count (3)}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x3x90x64xf32>, memref<2x3x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x3x90x64xf32>, memref<2x3x90x32xf32>)
  return
}

// -----

func.func @lse_rank(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100x1xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected lse to be a rank-3 memref [batch, heads, seq], found rank 4}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x1xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @lse_element_type(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf16>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected lse element type to be f32, found 'f16'}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf16>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @lse_seq(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x64xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected lse sequence length (64) to match query sequence length (100)}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x64xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @grad_output_rank(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected grad_output to be a rank-4 memref like output, found rank 3}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @grad_output_element_type(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf16>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected grad_output element type to match output ('f32'), found 'f16'}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf16>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @grad_output_seq(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x50x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected grad_output sequence length (50) to match output sequence length (100)}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x50x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @grad_query_head_dim(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x32xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected grad_query head dim (32) to match query head dim (64)}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x32xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @grad_key_heads(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x8x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected grad_key head count (8) to match key head count (2)}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x8x90x64xf32>, memref<2x2x90x32xf32>)
  return
}

// -----

func.func @grad_value_element_type(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xbf16>) {
  // expected-error @+1 {{expected grad_value element type to match value ('f32'), found 'bf16'}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xbf16>)
  return
}

// -----

func.func @grad_value_rank(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32x1xf32>) {
  // expected-error @+1 {{expected grad_value to be a rank-4 memref like value, found rank 5}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32x1xf32>)
  return
}

// -----

func.func @scale(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected scale to be a positive finite number, found -1.000000e+00}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) {scale = -1.0 : f32}
  return
}

// -----

func.func @softcap(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected softcap to be a finite number >= 0 (0 = none), found -2.000000e+00}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) {softcap = -2.0 : f32}
  return
}

// -----

func.func @window_left(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected window_left to be -1 (unbounded) or >= 0, found -2}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) {window_left = -2 : i64}
  return
}

// -----

func.func @window_right(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected window_right to be -1 (unbounded) or >= 0, found -5}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) {window_right = -5 : i64}
  return
}

// -----

func.func @causal_window_right(%q: memref<2x8x100x64xf32>, %k: memref<2x2x90x64xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x64xf32>, %dk: memref<2x2x90x64xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected window_right to be 0 or absent when causal = true, found 4}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x64xf32>, memref<2x2x90x64xf32>, memref<2x2x90x32xf32>) {causal = true, window_right = 4 : i64}
  return
}

// -----

func.func @dynamic_head_dim_scale(%q: memref<2x8x100x?xf32>, %k: memref<2x2x90x?xf32>, %v: memref<2x2x90x32xf32>, %o: memref<2x8x100x32xf32>, %do: memref<2x8x100x32xf32>, %lse: memref<2x8x100xf32>, %dq: memref<2x8x100x?xf32>, %dk: memref<2x2x90x?xf32>, %dv: memref<2x2x90x32xf32>) {
  // expected-error @+1 {{expected a static query head dim or an explicit scale, found head dim ?}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x?xf32>, memref<2x2x90x?xf32>, memref<2x2x90x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100x32xf32>, memref<2x8x100xf32>) outs(%dq, %dk, %dv : memref<2x8x100x?xf32>, memref<2x2x90x?xf32>, memref<2x2x90x32xf32>)
  return
}
