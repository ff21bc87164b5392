// RUN: fattn-opt %s --fattn-sm90-pipeline="block-n=96" -verify-diagnostics
// RUN: not fattn-opt %s --fattn-sm90-pipeline="block-n=128 warp-specialize=false" 2>&1 | FileCheck %s

// FP8 tiles of 96 keys: the V transpose works on 64-key halves. Without
// warp specialization there is no producer warpgroup to transpose V.
// CHECK: error: 'fattn.tiled_attention' op the sm_90a FP8 kernel needs warp specialization: its producer warpgroup transposes V (run --fattn-warp-specialize)
func.func @block_n_96(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op the sm_90a FP8 kernel needs block_n a multiple of 64 (the V transpose), found 96}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
