// RUN: fattn-opt %s -split-input-file --fattn-sm80-pipeline -verify-diagnostics

// Window bounds the kernel's 32-bit key arithmetic cannot hold.

func.func @window_left_2_32(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op the sm_80 lowering needs window_left at most 1073741824 (2^30, the kernels' key indices are 32-bit), found 4294967296; -1 is an unbounded window}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) {window_left = 4294967296 : i64}
  return
}

// -----

func.func @window_right_2_31(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op the sm_80 lowering needs window_right at most 1073741824 (2^30, the kernels' key indices are 32-bit), found 2147483648; -1 is an unbounded window}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) {window_right = 2147483648 : i64}
  return
}
