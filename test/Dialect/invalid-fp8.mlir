// RUN: fattn-opt %s -split-input-file -verify-diagnostics

// One case per FP8 verifier message of fattn.attention.

func.func @f(%q: memref<2x8x100x64xf8E4M3FN>, %k: memref<2x2x90x64xf8E4M3FN>, %v: memref<2x2x90x32xf8E4M3FN>, %o: memref<2x8x100x32xf16>) {
  // expected-error @+1 {{expected output element type to be 'bf16' for f8E4M3FN inputs, found 'f16'}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf8E4M3FN>, memref<2x2x90x64xf8E4M3FN>, memref<2x2x90x32xf8E4M3FN>) outs(%o : memref<2x8x100x32xf16>) 
  return
}

// -----

func.func @f(%q: memref<2x8x100x64xbf16>, %k: memref<2x2x90x64xbf16>, %v: memref<2x2x90x32xbf16>, %o: memref<2x8x100x32xbf16>, %dq: memref<f32>, %dk: memref<f32>, %dv: memref<f32>) {
  // expected-error @+1 {{expected f8E4M3FN query, key and value with descale operands, found 'bf16'}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xbf16>, memref<2x2x90x64xbf16>, memref<2x2x90x32xbf16>) outs(%o : memref<2x8x100x32xbf16>) descale(%dq, %dk, %dv : memref<f32>, memref<f32>, memref<f32>) 
  return
}

// -----

func.func @f(%q: memref<2x8x100x64xf8E4M3FN>, %k: memref<2x2x90x64xf8E4M3FN>, %v: memref<2x2x90x32xf8E4M3FN>, %o: memref<2x8x100x32xbf16>, %dq: memref<f16>, %dk: memref<f32>, %dv: memref<f32>) {
  // expected-error @+1 {{expected q_descale element type to be f32, found 'f16'}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf8E4M3FN>, memref<2x2x90x64xf8E4M3FN>, memref<2x2x90x32xf8E4M3FN>) outs(%o : memref<2x8x100x32xbf16>) descale(%dq, %dk, %dv : memref<f16>, memref<f32>, memref<f32>) 
  return
}

// -----

func.func @f(%q: memref<2x8x100x64xf8E4M3FN>, %k: memref<2x2x90x64xf8E4M3FN>, %v: memref<2x2x90x32xf8E4M3FN>, %o: memref<2x8x100x32xbf16>, %dq: memref<f32>, %dk: memref<2xf32>, %dv: memref<f32>) {
  // expected-error @+1 {{expected k_descale to be rank 0 (per tensor), 2 ([batch, kv_heads]) or 3 ([batch, heads, blocks]), found rank 1}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf8E4M3FN>, memref<2x2x90x64xf8E4M3FN>, memref<2x2x90x32xf8E4M3FN>) outs(%o : memref<2x8x100x32xbf16>) descale(%dq, %dk, %dv : memref<f32>, memref<2xf32>, memref<f32>) 
  return
}

// -----

func.func @f(%q: memref<2x8x100x64xf8E4M3FN>, %k: memref<2x2x90x64xf8E4M3FN>, %v: memref<2x2x90x32xf8E4M3FN>, %o: memref<2x8x100x32xbf16>, %dq: memref<3x2xf32>, %dk: memref<2x2xf32>, %dv: memref<2x2xf32>) {
  // expected-error @+1 {{expected q_descale batch size (3) to match query batch size (2)}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf8E4M3FN>, memref<2x2x90x64xf8E4M3FN>, memref<2x2x90x32xf8E4M3FN>) outs(%o : memref<2x8x100x32xbf16>) descale(%dq, %dk, %dv : memref<3x2xf32>, memref<2x2xf32>, memref<2x2xf32>) 
  return
}

// -----

func.func @f(%q: memref<2x8x100x64xf8E4M3FN>, %k: memref<2x2x90x64xf8E4M3FN>, %v: memref<2x2x90x32xf8E4M3FN>, %o: memref<2x8x100x32xbf16>, %dq: memref<2x2xf32>, %dk: memref<2x2xf32>, %dv: memref<2x4xf32>) {
  // expected-error @+1 {{expected v_descale head count (4) to match key head count (2)}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf8E4M3FN>, memref<2x2x90x64xf8E4M3FN>, memref<2x2x90x32xf8E4M3FN>) outs(%o : memref<2x8x100x32xbf16>) descale(%dq, %dk, %dv : memref<2x2xf32>, memref<2x2xf32>, memref<2x4xf32>) 
  return
}

// -----

func.func @f(%q: memref<2x8x100x64xf8E4M3FN>, %k: memref<2x2x90x64xf8E4M3FN>, %v: memref<2x2x90x32xf8E4M3FN>, %o: memref<2x8x100x32xbf16>, %dq: memref<2x8x2xf32>, %dk: memref<f32>, %dv: memref<f32>) {
  // expected-error @+1 {{expected descale_block_q for the per-block q_descale}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf8E4M3FN>, memref<2x2x90x64xf8E4M3FN>, memref<2x2x90x32xf8E4M3FN>) outs(%o : memref<2x8x100x32xbf16>) descale(%dq, %dk, %dv : memref<2x8x2xf32>, memref<f32>, memref<f32>) 
  return
}

// -----

func.func @f(%q: memref<2x8x100x64xf8E4M3FN>, %k: memref<2x2x90x64xf8E4M3FN>, %v: memref<2x2x90x32xf8E4M3FN>, %o: memref<2x8x100x32xbf16>, %dq: memref<2x2x2xf32>, %dk: memref<f32>, %dv: memref<f32>) {
  // expected-error @+1 {{expected q_descale head count (2) to match query head count (8)}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf8E4M3FN>, memref<2x2x90x64xf8E4M3FN>, memref<2x2x90x32xf8E4M3FN>) outs(%o : memref<2x8x100x32xbf16>) descale(%dq, %dk, %dv : memref<2x2x2xf32>, memref<f32>, memref<f32>) {descale_block_q = 64 : i64}
  return
}

// -----

func.func @f(%q: memref<2x8x100x64xf8E4M3FN>, %k: memref<2x2x90x64xf8E4M3FN>, %v: memref<2x2x90x32xf8E4M3FN>, %o: memref<2x8x100x32xbf16>, %dq: memref<f32>, %dk: memref<2x2x5xf32>, %dv: memref<f32>) {
  // expected-error @+1 {{expected k_descale block count (5) to be ceildiv(key sequence length, descale_block_kv) = 6}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf8E4M3FN>, memref<2x2x90x64xf8E4M3FN>, memref<2x2x90x32xf8E4M3FN>) outs(%o : memref<2x8x100x32xbf16>) descale(%dq, %dk, %dv : memref<f32>, memref<2x2x5xf32>, memref<f32>) {descale_block_kv = 16 : i64}
  return
}

// -----

func.func @f(%q: memref<2x8x100x64xf8E4M3FN>, %k: memref<2x2x90x64xf8E4M3FN>, %v: memref<2x2x90x32xf8E4M3FN>, %o: memref<2x8x100x32xbf16>, %dq: memref<f32>, %dk: memref<f32>, %dv: memref<f32>) {
  // expected-error @+1 {{expected a positive descale_block_q, found 0}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf8E4M3FN>, memref<2x2x90x64xf8E4M3FN>, memref<2x2x90x32xf8E4M3FN>) outs(%o : memref<2x8x100x32xbf16>) descale(%dq, %dk, %dv : memref<f32>, memref<f32>, memref<f32>) {descale_block_q = 0 : i64}
  return
}
