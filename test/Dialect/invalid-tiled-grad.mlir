// RUN: fattn-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the tiled backward form (the operand,
// scale, softcap and window checks it shares with fattn.attention_grad and
// fattn.tiled_attention once each).

func.func @f(%q: memref<?x?x?x16xf8E4M3FN>, %k: memref<?x?x?x16xf8E4M3FN>, %v: memref<?x?x?x16xf8E4M3FN>, %o: memref<?x?x?x16xf8E4M3FN>, %do: memref<?x?x?x16xf8E4M3FN>, %lse: memref<?x?x?xf32>, %dq: memref<?x?x?x16xf8E4M3FN>, %dk: memref<?x?x?x16xf8E4M3FN>, %dv: memref<?x?x?x16xf8E4M3FN>, %delta: memref<?x?x?xf32>, %acc: memref<?x?x?x16xf32>) {
  // expected-error @+1 {{'fattn.tiled_attention_grad' op expected query element type to be f32, f16 or bf16, found 'f8E4M3FN'}}
  fattn.tiled_attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x16xf8E4M3FN>, memref<?x?x?x16xf8E4M3FN>, memref<?x?x?x16xf8E4M3FN>, memref<?x?x?x16xf8E4M3FN>, memref<?x?x?x16xf8E4M3FN>, memref<?x?x?xf32>) outs(%dq, %dk, %dv : memref<?x?x?x16xf8E4M3FN>, memref<?x?x?x16xf8E4M3FN>, memref<?x?x?x16xf8E4M3FN>) workspace(%delta, %acc : memref<?x?x?xf32>, memref<?x?x?x16xf32>) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} preprocess {
  ^bb0(%b: index, %h: index, %m: index):
  } body {
  ^bb0(%b: index, %h: index, %m: index):
  } postprocess {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @f(%q: memref<?x?x?x16xf32>, %k: memref<?x?x?x8xf32>, %v: memref<?x?x?x16xf32>, %o: memref<?x?x?x16xf32>, %do: memref<?x?x?x16xf32>, %lse: memref<?x?x?xf32>, %dq: memref<?x?x?x16xf32>, %dk: memref<?x?x?x16xf32>, %dv: memref<?x?x?x16xf32>, %delta: memref<?x?x?xf32>, %acc: memref<?x?x?x16xf32>) {
  // expected-error @+1 {{expected key head dim (8) to match query head dim (16)}}
  fattn.tiled_attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x16xf32>, memref<?x?x?x8xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?xf32>) outs(%dq, %dk, %dv : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) workspace(%delta, %acc : memref<?x?x?xf32>, memref<?x?x?x16xf32>) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} preprocess {
  ^bb0(%b: index, %h: index, %m: index):
  } body {
  ^bb0(%b: index, %h: index, %m: index):
  } postprocess {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @f(%q: memref<?x?x?x16xf32>, %k: memref<?x?x?x16xf32>, %v: memref<?x?x?x16xf32>, %o: memref<?x?x?x16xf32>, %do: memref<?x?x?x16xf32>, %lse: memref<?x?x?xf32>, %dq: memref<?x?x?x16xf32>, %dk: memref<?x?x?x8xf32>, %dv: memref<?x?x?x16xf32>, %delta: memref<?x?x?xf32>, %acc: memref<?x?x?x16xf32>) {
  // expected-error @+1 {{'fattn.tiled_attention_grad' op expected grad_key head dim (8) to match key head dim (16)}}
  fattn.tiled_attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?xf32>) outs(%dq, %dk, %dv : memref<?x?x?x16xf32>, memref<?x?x?x8xf32>, memref<?x?x?x16xf32>) workspace(%delta, %acc : memref<?x?x?xf32>, memref<?x?x?x16xf32>) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} preprocess {
  ^bb0(%b: index, %h: index, %m: index):
  } body {
  ^bb0(%b: index, %h: index, %m: index):
  } postprocess {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @f(%q: memref<?x?x?x16xf32>, %k: memref<?x?x?x16xf32>, %v: memref<?x?x?x16xf32>, %o: memref<?x?x?x16xf32>, %do: memref<?x?x?x16xf32>, %lse: memref<?x?x?xf32>, %dq: memref<?x?x?x16xf32>, %dk: memref<?x?x?x16xf32>, %dv: memref<?x?x?x16xf32>, %delta: memref<?x?x?x?xf32>, %acc: memref<?x?x?x16xf32>) {
  // expected-error @+1 {{expected the delta workspace to be f32 with the shape of lse ('memref<?x?x?xf32>'), found 'memref<?x?x?x?xf32>'}}
  fattn.tiled_attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?xf32>) outs(%dq, %dk, %dv : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) workspace(%delta, %acc : memref<?x?x?x?xf32>, memref<?x?x?x16xf32>) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} preprocess {
  ^bb0(%b: index, %h: index, %m: index):
  } body {
  ^bb0(%b: index, %h: index, %m: index):
  } postprocess {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @f(%q: memref<?x?x?x16xf32>, %k: memref<?x?x?x16xf32>, %v: memref<?x?x?x16xf32>, %o: memref<?x?x?x16xf32>, %do: memref<?x?x?x16xf32>, %lse: memref<?x?x?xf32>, %dq: memref<?x?x?x16xf32>, %dk: memref<?x?x?x16xf32>, %dv: memref<?x?x?x16xf32>, %delta: memref<?x?x?xf32>, %acc: memref<?x?x?x16xbf16>) {
  // expected-error @+1 {{expected the dq_accum workspace to be f32 with the shape of query ('memref<?x?x?x16xf32>'), found 'memref<?x?x?x16xbf16>'}}
  fattn.tiled_attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?xf32>) outs(%dq, %dk, %dv : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) workspace(%delta, %acc : memref<?x?x?xf32>, memref<?x?x?x16xbf16>) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} preprocess {
  ^bb0(%b: index, %h: index, %m: index):
  } body {
  ^bb0(%b: index, %h: index, %m: index):
  } postprocess {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @f(%q: memref<?x?x?x16xf32>, %k: memref<?x?x?x16xf32>, %v: memref<?x?x?x16xf32>, %o: memref<?x?x?x16xf32>, %do: memref<?x?x?x16xf32>, %lse: memref<?x?x?xf32>, %dq: memref<?x?x?x16xf32>, %dk: memref<?x?x?x16xf32>, %dv: memref<?x?x?x16xf32>, %delta: memref<?x?x?xf32>, %acc: memref<?x?x?x16xf32>) {
  // expected-error @+1 {{expected scale to be a positive finite number, found -2.500000e-01}}
  fattn.tiled_attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?xf32>) outs(%dq, %dk, %dv : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) workspace(%delta, %acc : memref<?x?x?xf32>, memref<?x?x?x16xf32>) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = -0.25 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} preprocess {
  ^bb0(%b: index, %h: index, %m: index):
  } body {
  ^bb0(%b: index, %h: index, %m: index):
  } postprocess {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @f(%q: memref<?x?x?x16xf32>, %k: memref<?x?x?x16xf32>, %v: memref<?x?x?x16xf32>, %o: memref<?x?x?x16xf32>, %do: memref<?x?x?x16xf32>, %lse: memref<?x?x?xf32>, %dq: memref<?x?x?x16xf32>, %dk: memref<?x?x?x16xf32>, %dv: memref<?x?x?x16xf32>, %delta: memref<?x?x?xf32>, %acc: memref<?x?x?x16xf32>) {
  // expected-error @+1 {{expected softcap to be a finite number >= 0 (0 = none), found -1.000000e+00}}
  fattn.tiled_attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?xf32>) outs(%dq, %dk, %dv : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) workspace(%delta, %acc : memref<?x?x?xf32>, memref<?x?x?x16xf32>) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = -1.0 : f32, window_left = -1 : i64, window_right = -1 : i64} preprocess {
  ^bb0(%b: index, %h: index, %m: index):
  } body {
  ^bb0(%b: index, %h: index, %m: index):
  } postprocess {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @f(%q: memref<?x?x?x16xf32>, %k: memref<?x?x?x16xf32>, %v: memref<?x?x?x16xf32>, %o: memref<?x?x?x16xf32>, %do: memref<?x?x?x16xf32>, %lse: memref<?x?x?xf32>, %dq: memref<?x?x?x16xf32>, %dk: memref<?x?x?x16xf32>, %dv: memref<?x?x?x16xf32>, %delta: memref<?x?x?xf32>, %acc: memref<?x?x?x16xf32>) {
  // expected-error @+1 {{expected window_right to be -1 (unbounded) or >= 0, found -3}}
  fattn.tiled_attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?xf32>) outs(%dq, %dk, %dv : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) workspace(%delta, %acc : memref<?x?x?xf32>, memref<?x?x?x16xf32>) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -3 : i64} preprocess {
  ^bb0(%b: index, %h: index, %m: index):
  } body {
  ^bb0(%b: index, %h: index, %m: index):
  } postprocess {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @f(%q: memref<?x?x?x16xf32>, %k: memref<?x?x?x16xf32>, %v: memref<?x?x?x16xf32>, %o: memref<?x?x?x16xf32>, %do: memref<?x?x?x16xf32>, %lse: memref<?x?x?xf32>, %dq: memref<?x?x?x16xf32>, %dk: memref<?x?x?x16xf32>, %dv: memref<?x?x?x16xf32>, %delta: memref<?x?x?xf32>, %acc: memref<?x?x?x16xf32>) {
  // expected-error @+1 {{expected positive block sizes, found block_m = 16, block_n = 0}}
  fattn.tiled_attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?xf32>) outs(%dq, %dk, %dv : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) workspace(%delta, %acc : memref<?x?x?xf32>, memref<?x?x?x16xf32>) attributes {block_m = 16 : i64, block_n = 0 : i64, scale = 0.25 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} preprocess {
  ^bb0(%b: index, %h: index, %m: index):
  } body {
  ^bb0(%b: index, %h: index, %m: index):
  } postprocess {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @f(%q: memref<?x?x?x16xf32>, %k: memref<?x?x?x16xf32>, %v: memref<?x?x?x16xf32>, %o: memref<?x?x?x16xf32>, %do: memref<?x?x?x16xf32>, %lse: memref<?x?x?xf32>, %dq: memref<?x?x?x16xf32>, %dk: memref<?x?x?x16xf32>, %dv: memref<?x?x?x16xf32>, %delta: memref<?x?x?xf32>, %acc: memref<?x?x?x16xf32>) {
  // expected-error @+1 {{expected the preprocess region to take three index arguments (batch, head, q_tile), found 2 argument(s)}}
  fattn.tiled_attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?xf32>) outs(%dq, %dk, %dv : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) workspace(%delta, %acc : memref<?x?x?xf32>, memref<?x?x?x16xf32>) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} preprocess {
  ^bb0(%b: index, %h: index):
  } body {
  ^bb0(%b: index, %h: index, %n: index):
  } postprocess {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @f(%q: memref<?x?x?x16xf32>, %k: memref<?x?x?x16xf32>, %v: memref<?x?x?x16xf32>, %o: memref<?x?x?x16xf32>, %do: memref<?x?x?x16xf32>, %lse: memref<?x?x?xf32>, %dq: memref<?x?x?x16xf32>, %dk: memref<?x?x?x16xf32>, %dv: memref<?x?x?x16xf32>, %delta: memref<?x?x?xf32>, %acc: memref<?x?x?x16xf32>) {
  // expected-error @+1 {{expected the body region to take three index arguments (batch, kv_head, kv_tile), found 3 argument(s)}}
  fattn.tiled_attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?xf32>) outs(%dq, %dk, %dv : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) workspace(%delta, %acc : memref<?x?x?xf32>, memref<?x?x?x16xf32>) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} preprocess {
  ^bb0(%b: index, %h: index, %m: index):
  } body {
  ^bb0(%b: index, %h: index, %n: i32):
  } postprocess {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @f(%q: memref<?x?x?x16xf32>, %k: memref<?x?x?x16xf32>, %v: memref<?x?x?x16xf32>, %o: memref<?x?x?x16xf32>, %do: memref<?x?x?x16xf32>, %lse: memref<?x?x?xf32>, %dq: memref<?x?x?x16xf32>, %dk: memref<?x?x?x16xf32>, %dv: memref<?x?x?x16xf32>, %delta: memref<?x?x?xf32>, %acc: memref<?x?x?x16xf32>) {
  // expected-error @+1 {{expected the postprocess region to take three index arguments (batch, head, q_tile), found 1 argument(s)}}
  fattn.tiled_attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?xf32>) outs(%dq, %dk, %dv : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) workspace(%delta, %acc : memref<?x?x?xf32>, memref<?x?x?x16xf32>) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} preprocess {
  ^bb0(%b: index, %h: index, %m: index):
  } body {
  ^bb0(%b: index, %h: index, %n: index):
  } postprocess {
  ^bb0(%b: index):
  }
  return
}

// -----

func.func @f(%i: index) {
  // expected-error @+1 {{'fattn.q_tile_range' op expected positive block sizes, found block_m = 0, block_n = 8}}
  %lo, %flo, %fhi, %hi = fattn.q_tile_range %i, %i, %i {block_m = 0 : i64, block_n = 8 : i64, window_left = -1 : i64, window_right = 0 : i64}
  return
}

// -----

func.func @f(%i: index) {
  // expected-error @+1 {{'fattn.q_tile_range' op expected window_left to be -1 (unbounded) or >= 0, found -2}}
  %lo, %flo, %fhi, %hi = fattn.q_tile_range %i, %i, %i {block_m = 16 : i64, block_n = 8 : i64, window_left = -2 : i64, window_right = 0 : i64}
  return
}

// -----

func.func @f(%x: tensor<16xbf16>) {
  // expected-error @+1 {{'fattn.row_dot' op expected rank-2 tiles of f32, f16 or bf16, found 'tensor<16xbf16>'}}
  %d = fattn.row_dot %x, %x : tensor<16xbf16> -> tensor<16xf32>
  return
}

// -----

func.func @f(%x: tensor<16x8xbf16>) {
  // expected-error @+1 {{'fattn.row_dot' op expected the result to be tensor<16xf32>, found 'tensor<8xf32>'}}
  %d = fattn.row_dot %x, %x : tensor<16x8xbf16> -> tensor<8xf32>
  return
}

// -----

func.func @f(%s: tensor<16x8xbf16>, %l: tensor<16xf32>) {
  // expected-error @+1 {{'fattn.grad_probs' op expected the scores to be a rank-2 f32 tile, found 'tensor<16x8xbf16>'}}
  %p = fattn.grad_probs %s, %l {scale = 1.0 : f32} : tensor<16x8xbf16>, tensor<16xf32>
  return
}

// -----

func.func @f(%s: tensor<16x8xf32>, %l: tensor<8xf32>) {
  // expected-error @+1 {{'fattn.grad_probs' op expected the log-sum-exp to be tensor<16xf32>, found 'tensor<8xf32>'}}
  %p = fattn.grad_probs %s, %l {scale = 1.0 : f32} : tensor<16x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @f(%s: tensor<16x8xf32>, %l: tensor<16xf32>) {
  // expected-error @+1 {{'fattn.grad_probs' op expected scale to be a positive finite number, found 0.000000e+00}}
  %p = fattn.grad_probs %s, %l {scale = 0.0 : f32} : tensor<16x8xf32>, tensor<16xf32>
  return
}

// -----

func.func @f(%p: tensor<16x8xf16>, %d: tensor<16xf32>) {
  // expected-error @+1 {{'fattn.grad_scores' op expected the probabilities to be a rank-2 f32 tile, found 'tensor<16x8xf16>'}}
  %ds = fattn.grad_scores %p, %p, %d {softcap = 0.0 : f32} : tensor<16x8xf16>, tensor<16xf32> -> tensor<16x8xf16>
  return
}

// -----

func.func @f(%p: tensor<16x8xf32>, %d: tensor<16xf16>) {
  // expected-error @+1 {{'fattn.grad_scores' op expected delta to be tensor<16xf32>, found 'tensor<16xf16>'}}
  %ds = fattn.grad_scores %p, %p, %d {softcap = 0.0 : f32} : tensor<16x8xf32>, tensor<16xf16> -> tensor<16x8xf16>
  return
}

// -----

func.func @f(%p: tensor<16x8xf32>, %d: tensor<16xf32>) {
  // expected-error @+1 {{'fattn.grad_scores' op expected softcap to be a finite number >= 0 (0 = none), found -2.000000e+00}}
  %ds = fattn.grad_scores %p, %p, %d capped(%p : tensor<16x8xf32>) {softcap = -2.0 : f32} : tensor<16x8xf32>, tensor<16xf32> -> tensor<16x8xf16>
  return
}

// -----

func.func @f(%p: tensor<16x8xf32>, %d: tensor<16xf32>) {
  // expected-error @+1 {{'fattn.grad_scores' op expected the capped scores exactly when softcap > 0, found softcap = 5.000000e+00 and none}}
  %ds = fattn.grad_scores %p, %p, %d {softcap = 5.0 : f32} : tensor<16x8xf32>, tensor<16xf32> -> tensor<16x8xf16>
  return
}

// -----

func.func @f(%p: tensor<16x8xf32>, %d: tensor<16xf32>, %c: tensor<16x4xf32>) {
  // expected-error @+1 {{'fattn.grad_scores' op expected the capped scores to be 'tensor<16x8xf32>', found 'tensor<16x4xf32>'}}
  %ds = fattn.grad_scores %p, %p, %d capped(%c : tensor<16x4xf32>) {softcap = 5.0 : f32} : tensor<16x8xf32>, tensor<16xf32> -> tensor<16x8xf16>
  return
}

// -----

func.func @f(%p: tensor<16x8xf32>, %d: tensor<16xf32>) {
  // expected-error @+1 {{'fattn.grad_scores' op expected a result of shape 16x8 in f32, f16 or bf16, found 'tensor<8x16xbf16>'}}
  %ds = fattn.grad_scores %p, %p, %d {softcap = 0.0 : f32} : tensor<16x8xf32>, tensor<16xf32> -> tensor<8x16xbf16>
  return
}

// -----

func.func @f(%a: tensor<16xf32>, %b: tensor<16x8xbf16>, %c: tensor<8x8xf32>) {
  // expected-error @+1 {{'fattn.mma_transpose_lhs' op expected rank-2 operands}}
  %r = fattn.mma_transpose_lhs %a, %b acc(%c) : tensor<16xf32>, tensor<16x8xbf16> -> tensor<8x8xf32>
  return
}

// -----

func.func @f(%a: tensor<16x8xf32>, %b: tensor<16x8xbf16>, %c: tensor<8x8xbf16>) {
  // expected-error @+1 {{'fattn.mma_transpose_lhs' op expected the result to be a rank-2 f32 tile, found 'tensor<8x8xbf16>'}}
  %r = fattn.mma_transpose_lhs %a, %b acc(%c) : tensor<16x8xf32>, tensor<16x8xbf16> -> tensor<8x8xbf16>
  return
}

// -----

func.func @f(%a: tensor<16x8xf16>, %b: tensor<16x8xbf16>, %c: tensor<8x8xf32>) {
  // expected-error @+1 {{'fattn.mma_transpose_lhs' op expected rhs of f32, f16 or bf16 and lhs of f32 or rhs's element type, found 'f16' and 'bf16'}}
  %r = fattn.mma_transpose_lhs %a, %b acc(%c) : tensor<16x8xf16>, tensor<16x8xbf16> -> tensor<8x8xf32>
  return
}

// -----

func.func @f(%a: tensor<32x8xf32>, %b: tensor<16x8xbf16>, %c: tensor<8x8xf32>) {
  // expected-error @+1 {{'fattn.mma_transpose_lhs' op expected the rows of lhs (32) and rhs (16) to match: both are the reduction}}
  %r = fattn.mma_transpose_lhs %a, %b acc(%c) : tensor<32x8xf32>, tensor<16x8xbf16> -> tensor<8x8xf32>
  return
}

// -----

func.func @f(%a: tensor<16x8xf32>, %b: tensor<16x4xbf16>, %c: tensor<8x8xf32>) {
  // expected-error @+1 {{'fattn.mma_transpose_lhs' op expected a 8x4 result, found 8x8}}
  %r = fattn.mma_transpose_lhs %a, %b acc(%c) : tensor<16x8xf32>, tensor<16x4xbf16> -> tensor<8x8xf32>
  return
}

// -----

func.func @f(%t: tensor<16x16xbf16>, %m: memref<?x?x?x16xf32>, %i: index) {
  // expected-error @+1 {{'fattn.accumulate_tile' op expected the tile to be a rank-2 f32 tile, found 'tensor<16x16xbf16>'}}
  fattn.accumulate_tile %t, %m[%i, %i, %i] : tensor<16x16xbf16>, memref<?x?x?x16xf32>
  return
}

// -----

func.func @f(%t: tensor<16x16xf32>, %m: memref<?x?x?x16xbf16>, %i: index) {
  // expected-error @+1 {{'fattn.accumulate_tile' op expected a rank-4 f32 accumulator, found 'memref<?x?x?x16xbf16>'}}
  fattn.accumulate_tile %t, %m[%i, %i, %i] : tensor<16x16xf32>, memref<?x?x?x16xbf16>
  return
}

// -----

func.func @f(%t: tensor<16x8xf32>, %m: memref<?x?x?x16xf32>, %i: index) {
  // expected-error @+1 {{'fattn.accumulate_tile' op expected tile columns (8) to match the accumulator's head dim (16)}}
  fattn.accumulate_tile %t, %m[%i, %i, %i] : tensor<16x8xf32>, memref<?x?x?x16xf32>
  return
}

// -----

func.func @f(%t: tensor<16x8xbf16>) {
  // expected-error @+1 {{'fattn.scale_tile' op expected an f32 input, found 'tensor<16x8xbf16>'}}
  %r = fattn.scale_tile %t {scale = 1.0 : f32} : tensor<16x8xbf16> -> tensor<16x8xbf16>
  return
}

// -----

func.func @f(%t: tensor<16x8xf32>) {
  // expected-error @+1 {{'fattn.scale_tile' op expected a result of the input's shape in f32, f16 or bf16, found 'tensor<16x8xf8E4M3FN>'}}
  %r = fattn.scale_tile %t {scale = 1.0 : f32} : tensor<16x8xf32> -> tensor<16x8xf8E4M3FN>
  return
}

// -----

func.func @f(%t: tensor<16x8xf32>) {
  // expected-error @+1 {{'fattn.scale_tile' op expected a finite scale, found INF}}
  %r = fattn.scale_tile %t {scale = 0x7F800000 : f32} : tensor<16x8xf32> -> tensor<16x8xbf16>
  return
}
