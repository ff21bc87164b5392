// RUN: fattn-opt %s -split-input-file --fattn-sm90-pipeline="block-n=128" -verify-diagnostics

// The FP8 configurations the sm_90a kernel does not implement, each with its
// diagnostic.

func.func @head_dim_64(%q: memref<?x?x?x64xf8E4M3FN>, %k: memref<?x?x?x64xf8E4M3FN>, %v: memref<?x?x?x64xf8E4M3FN>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op the sm_90a FP8 kernel needs a head dim that is a multiple of 128 (whole 128-byte rows), found 64}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>) outs(%o : memref<?x?x?x64xbf16>)
  return
}
