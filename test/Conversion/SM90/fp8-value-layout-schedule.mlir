// RUN: not fattn-opt %s --fattn-sm90-pipeline="block-n=128 warp-specialize=false" 2>&1 | FileCheck %s

// A V stored as V^T needs no transpose, but the FP8 kernel still takes its
// copies from the producer warpgroup.
// CHECK: error: 'fattn.tiled_attention' op the sm_90a FP8 kernel needs warp specialization: its producer warpgroup issues the copies (run --fattn-warp-specialize)
func.func @no_producer(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x128x?xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x128x?xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}
