// RUN: fattn-opt %s -split-input-file --fattn-sm90-pipeline -verify-diagnostics

// Window bounds and descale blocks the kernel's 32-bit index arithmetic
// cannot hold, each with its diagnostic.

func.func @window_left_2_32(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op the sm_90a lowering needs window_left at most 1073741824 (2^30, the kernels' key indices are 32-bit), found 4294967296; -1 is an unbounded window}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) {window_left = 4294967296 : i64}
  return
}

// -----

func.func @window_right_2_30_plus_1(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op the sm_90a lowering needs window_right at most 1073741824 (2^30, the kernels' key indices are 32-bit), found 1073741825; -1 is an unbounded window}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) {window_left = 0 : i64, window_right = 1073741825 : i64}
  return
}

// -----

func.func @descale_block_q_2_31(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  // expected-error @below {{'fattn.tiled_attention' op the sm_90a FP8 kernel needs descale_block_q at most 2147483647 (2^31 - 1, its row indices are 32-bit), found 2147483648}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {descale_block_q = 2147483648 : i64, descale_block_kv = 128 : i64}
  return
}

// -----

func.func @descale_block_kv_2_32(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  // expected-error @below {{'fattn.tiled_attention' op the sm_90a FP8 kernel needs descale_block_kv at most 2147483647 (2^31 - 1, its row indices are 32-bit), found 4294967296}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {descale_block_q = 64 : i64, descale_block_kv = 4294967296 : i64}
  return
}
