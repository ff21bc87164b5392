// RUN: fattn-opt %s -split-input-file -fattn-tile="block-m=64 block-n=64" -verify-diagnostics | FileCheck %s

// An FP8 V stored as V^T (value_layout = "transposed_wgmma_e4m3_k32") is
// tiled straight into the layout of --fattn-fp8-layout: V is read as D x N
// tiles of V^T ({transposed}), P's keys are permuted like V^T's
// ("wgmma_e4m3_k32"), and the product reads V^T transposed back
// ({transpose_rhs}) with V's factor of the tile splat over its D columns.
// Head dims 64 (Q, K) and 32 (V) tell the V^T tile (32x64) from a row tile
// (64x32).

// Before: V is [batch, kv_heads, head_dim = 32, keys = 112 >= seq_k = 100].
// After:
// CHECK-LABEL: func.func @per_tensor
// CHECK: fattn.tiled_attention ins(%{{.*}}, %{{.*}}, %[[VMEM:.*]] : memref<1x4x100x64xf8E4M3FN>, memref<1x2x100x64xf8E4M3FN>, memref<1x2x32x112xf8E4M3FN>) outs(%{{.*}} : memref<1x4x100x32xbf16>) descale(%{{.*}}, %{{.*}}, %[[DV:.*]] : memref<f32>, memref<f32>, memref<f32>) attributes {block_m = 64 : i64, block_n = 64 : i64, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, value_layout = "transposed_wgmma_e4m3_k32", window_left = -1 : i64, window_right = -1 : i64}
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %{{.*}}: index, %{{.*}}: index):
// CHECK: scf.for
// CHECK:   %[[COL:.*]] = arith.muli %{{.*}}, %c64
// CHECK:   %[[K:.*]] = fattn.load_tile %{{.*}}[%[[B]], %[[KVH:.*]], %[[COL]]] : memref<1x2x100x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
// S = Q K^T is unchanged.
// CHECK:   fattn.mma %{{.*}}, %[[K]] lhs_scale(%{{.*}} : tensor<64xf32>) rhs_scale(%{{.*}} : tensor<64xf32>) {transpose_rhs} : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
// CHECK:   %[[P:.*]], %[[M1:.*]], %[[L1:.*]], %{{.*}} = fattn.softmax_update {{.*}} -> tensor<64x64xf8E4M3FN>
// CHECK:   %[[R:.*]] = fattn.rescale
// CHECK:   %[[VT:.*]] = fattn.load_tile %[[VMEM]][%[[B]], %[[KVH]], %[[COL]]] {transposed} : memref<1x2x32x112xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
// CHECK:   %[[DVT:.*]] = fattn.load_descale %[[DV]][%[[B]], %[[KVH]], %[[COL]]] : memref<f32> -> tensor<64xf32>
// CHECK:   %[[PP:.*]] = fattn.permute_keys %[[P]] {key_permutation = "wgmma_e4m3_k32"} : tensor<64x64xf8E4M3FN>
// CHECK:   %[[F:.*]] = tensor.extract %[[DVT]][%{{.*}}] : tensor<64xf32>
// CHECK:   %[[FS:.*]] = tensor.splat %[[F]] : tensor<32xf32>
// CHECK:   %[[O:.*]] = fattn.mma %[[PP]], %[[VT]] acc(%[[R]] : tensor<64x32xf32>) rhs_scale(%[[FS]] : tensor<32xf32>) {transpose_rhs} : tensor<64x64xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x32xf32>
// CHECK:   scf.yield %[[M1]], %[[L1]], %[[O]]
// The masked tail loop reads V^T alike.
// CHECK: scf.for
// CHECK: fattn.mask
// CHECK: fattn.load_tile %[[VMEM]]{{.*}} {transposed} : memref<1x2x32x112xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
// CHECK: fattn.permute_keys
// CHECK: fattn.mma {{.*}} {transpose_rhs} : tensor<64x64xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x32xf32>
// CHECK: fattn.finalize
// CHECK-NOT: fattn.transpose_tile
// CHECK-NOT: fattn.attention
func.func @per_tensor(%q: memref<1x4x100x64xf8E4M3FN>, %k: memref<1x2x100x64xf8E4M3FN>, %v: memref<1x2x32x112xf8E4M3FN>, %o: memref<1x4x100x32xbf16>, %dq: memref<f32>, %dk: memref<f32>, %dv: memref<f32>) {
  fattn.attention ins(%q, %k, %v : memref<1x4x100x64xf8E4M3FN>, memref<1x2x100x64xf8E4M3FN>, memref<1x2x32x112xf8E4M3FN>) outs(%o : memref<1x4x100x32xbf16>) descale(%dq, %dk, %dv : memref<f32>, memref<f32>, memref<f32>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

// -----

// No descales: no factor, nothing to splat.
// CHECK-LABEL: func.func @no_descale
// CHECK: %[[VT:.*]] = fattn.load_tile %arg2[{{.*}}] {transposed} : memref<?x?x128x?xf8E4M3FN> -> tensor<128x64xf8E4M3FN>
// CHECK-NEXT: %[[PP:.*]] = fattn.permute_keys %{{.*}} {key_permutation = "wgmma_e4m3_k32"} : tensor<64x64xf8E4M3FN>
// CHECK-NEXT: fattn.mma %[[PP]], %[[VT]] acc(%{{.*}} : tensor<64x128xf32>) {transpose_rhs} : tensor<64x64xf8E4M3FN>, tensor<128x64xf8E4M3FN> -> tensor<64x128xf32>
// CHECK-NOT: tensor.splat
// CHECK-NOT: tensor.extract
// CHECK-LABEL: func.func @rows_unchanged
// A V stored by rows keeps the plain product (--fattn-fp8-layout permutes it later).
// CHECK: %[[V:.*]] = fattn.load_tile %arg2[{{.*}}] : memref<?x?x?x128xf8E4M3FN> -> tensor<64x128xf8E4M3FN>
// CHECK-NEXT: fattn.mma %{{.*}}, %[[V]] acc(%{{.*}} : tensor<64x128xf32>) : tensor<64x64xf8E4M3FN>, tensor<64x128xf8E4M3FN> -> tensor<64x128xf32>
// CHECK-NOT: fattn.permute_keys
// CHECK-NOT: transposed
func.func @no_descale(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x128x?xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x128x?xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) {causal = true, value_layout = "transposed_wgmma_e4m3_k32"}
  return
}
func.func @rows_unchanged(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}

// -----

// Per-block V descales of 128 keys: two 64-key tiles per block, so one
// factor per tile (its first key's).
// CHECK-LABEL: func.func @per_block
// CHECK: %[[DVT:.*]] = fattn.load_descale %arg6[{{.*}}] {block = 128 : i64} : memref<?x?x?xf32> -> tensor<64xf32>
// CHECK: %[[PP:.*]] = fattn.permute_keys
// CHECK: %[[F:.*]] = tensor.extract %[[DVT]][%{{.*}}] : tensor<64xf32>
// CHECK: %[[FS:.*]] = tensor.splat %[[F]] : tensor<64xf32>
// CHECK: fattn.mma %[[PP]], %{{.*}} acc(%{{.*}} : tensor<64x64xf32>) rhs_scale(%[[FS]] : tensor<64xf32>) {transpose_rhs}
func.func @per_block(%q: memref<?x?x?x64xf8E4M3FN>, %k: memref<?x?x?x64xf8E4M3FN>, %v: memref<?x?x64x?xf8E4M3FN>, %o: memref<?x?x?x64xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>, memref<?x?x64x?xf8E4M3FN>) outs(%o : memref<?x?x?x64xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {descale_block_q = 16 : i64, descale_block_kv = 128 : i64, value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

// -----

// A block of 96 keys would change V's factor inside a 64-key tile, which a
// factor per column of V^T cannot express.
func.func @per_block_partial(%q: memref<?x?x?x64xf8E4M3FN>, %k: memref<?x?x?x64xf8E4M3FN>, %v: memref<?x?x64x?xf8E4M3FN>, %o: memref<?x?x?x64xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  // expected-error @+1 {{'fattn.attention' op cannot be tiled: value_layout = "transposed_wgmma_e4m3_k32" needs one V descale per KV tile: descale_block_kv (96) must be a multiple of block-n (64)}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>, memref<?x?x64x?xf8E4M3FN>) outs(%o : memref<?x?x?x64xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {descale_block_q = 16 : i64, descale_block_kv = 96 : i64, value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

// -----

// Per (batch, KV head) descales have one factor for every tile: any block-n.
// CHECK-LABEL: func.func @per_head
// CHECK: fattn.tiled_attention
// CHECK: tensor.splat
func.func @per_head(%q: memref<?x?x?x64xf8E4M3FN>, %k: memref<?x?x?x64xf8E4M3FN>, %v: memref<?x?x64x?xf8E4M3FN>, %o: memref<?x?x?x64xbf16>, %dq: memref<?x?xf32>, %dk: memref<?x?xf32>, %dv: memref<?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>, memref<?x?x64x?xf8E4M3FN>) outs(%o : memref<?x?x?x64xbf16>) descale(%dq, %dk, %dv : memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}
