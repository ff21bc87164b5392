// RUN: fattn-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: fattn-opt %s -split-input-file | fattn-opt -split-input-file | FileCheck %s
// RUN: fattn-opt %s -split-input-file -mlir-print-op-generic | fattn-opt -split-input-file | FileCheck %s

// FP8 V stored as V^T (value_layout = "transposed_wgmma_e4m3_k32"):
// [batch, kv_heads, head_dim, keys], keys >= seq_k and a multiple of 16 (here
// seq_k = 100 padded to 112), head dim of V (32) different from Q's (64).
// CHECK-LABEL: func.func @attention_value_layout
// CHECK: fattn.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<2x8x90x64xf8E4M3FN>, memref<2x2x100x64xf8E4M3FN>, memref<2x2x32x112xf8E4M3FN>) outs(%{{.*}} : memref<2x8x90x32xbf16>) descale(%{{.*}}, %{{.*}}, %{{.*}} : memref<f32>, memref<f32>, memref<f32>) {causal = true, value_layout = "transposed_wgmma_e4m3_k32"}
func.func @attention_value_layout(%q: memref<2x8x90x64xf8E4M3FN>, %k: memref<2x2x100x64xf8E4M3FN>, %v: memref<2x2x32x112xf8E4M3FN>, %o: memref<2x8x90x32xbf16>, %dq: memref<f32>, %dk: memref<f32>, %dv: memref<f32>) {
  fattn.attention ins(%q, %k, %v : memref<2x8x90x64xf8E4M3FN>, memref<2x2x100x64xf8E4M3FN>, memref<2x2x32x112xf8E4M3FN>) outs(%o : memref<2x8x90x32xbf16>)
                  descale(%dq, %dk, %dv : memref<f32>, memref<f32>, memref<f32>) {causal = true, value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

// -----

// Dynamic sizes: only V's head dim (dim 2) is static; keys == seq_k exactly
// is fine.
// CHECK-LABEL: func.func @attention_value_layout_dynamic
// CHECK: fattn.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x128x?xf8E4M3FN>) outs(%{{.*}} : memref<?x?x?x128xbf16>) {value_layout = "transposed_wgmma_e4m3_k32"}
// CHECK-LABEL: func.func @attention_value_layout_exact
// CHECK: fattn.attention {{.*}} memref<1x1x16x64xf8E4M3FN>) outs({{.*}}) {value_layout = "transposed_wgmma_e4m3_k32"}
func.func @attention_value_layout_dynamic(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x128x?xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x128x?xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}
func.func @attention_value_layout_exact(%q: memref<1x1x10x16xf8E4M3FN>, %k: memref<1x1x64x16xf8E4M3FN>, %v: memref<1x1x16x64xf8E4M3FN>, %o: memref<1x1x10x16xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<1x1x10x16xf8E4M3FN>, memref<1x1x64x16xf8E4M3FN>, memref<1x1x16x64xf8E4M3FN>) outs(%o : memref<1x1x10x16xbf16>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

// -----

// The tiled form: value_layout on fattn.tiled_attention and a transposed
// load of a D x R tile of V^T.
// CHECK-LABEL: func.func @tiled_value_layout
// CHECK: fattn.tiled_attention ins({{.*}} : memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>, memref<?x?x32x?xf8E4M3FN>) outs({{.*}}) attributes {block_m = 64 : i64, block_n = 64 : i64, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, value_layout = "transposed_wgmma_e4m3_k32", window_left = -1 : i64, window_right = -1 : i64} {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[H:.*]]: index, %[[M:.*]]: index):
// CHECK: %{{.*}} = fattn.load_tile %{{.*}}[%[[B]], %[[H]], %[[M]]] {transposed} : memref<?x?x32x?xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
// The attribute is a unit attribute: a plain load prints without it.
// CHECK: %{{.*}} = fattn.load_tile %{{.*}}[%[[B]], %[[H]], %[[M]]] : memref<?x?x?x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
func.func @tiled_value_layout(%Q: memref<?x?x?x64xf8E4M3FN>, %K: memref<?x?x?x64xf8E4M3FN>, %V: memref<?x?x32x?xf8E4M3FN>, %O: memref<?x?x?x32xbf16>) {
  fattn.tiled_attention ins(%Q, %K, %V : memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>, memref<?x?x32x?xf8E4M3FN>) outs(%O : memref<?x?x?x32xbf16>) attributes {block_m = 64 : i64, block_n = 64 : i64, scale = 0.125 : f32, softcap = 0.0 : f32, value_layout = "transposed_wgmma_e4m3_k32", window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %m: index):
    %vt = fattn.load_tile %V[%b, %h, %m] {transposed} : memref<?x?x32x?xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
    %q = fattn.load_tile %Q[%b, %h, %m] : memref<?x?x?x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  }
  return
}
