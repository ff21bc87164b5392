// RUN: fattn-opt %s -split-input-file -fattn-lower-rowwise="dynamic-head-dims-only=true" -verify-diagnostics | FileCheck %s --check-prefix=ROWWISE

// -fattn-lower-rowwise lowers only what the tiled path cannot (dynamic
// head dims), which a value_layout op with static head dims is not.
// ROWWISE-LABEL: func.func @static_head_dims
// ROWWISE: fattn.attention {{.*}} {value_layout = "transposed_wgmma_e4m3_k32"}
func.func @static_head_dims(%q: memref<?x?x?x64xf8E4M3FN>, %k: memref<?x?x?x64xf8E4M3FN>, %v: memref<?x?x64x?xf8E4M3FN>, %o: memref<?x?x?x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>, memref<?x?x64x?xf8E4M3FN>) outs(%o : memref<?x?x?x64xbf16>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

// -----

// V's head dim is its dim 2: dynamic there sends the op to the row-wise
// lowering, which cannot read V^T.
func.func @dynamic_value_head_dim(%q: memref<?x?x?x64xf8E4M3FN>, %k: memref<?x?x?x64xf8E4M3FN>, %v: memref<?x?x?x?xf8E4M3FN>, %o: memref<?x?x?x?xbf16>) {
  // expected-error @+1 {{'fattn.attention' op with a value_layout is tiled, not lowered row by row (the row-wise lowering reads V by rows): give it static head dims}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x?xf8E4M3FN>) outs(%o : memref<?x?x?x?xbf16>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}
