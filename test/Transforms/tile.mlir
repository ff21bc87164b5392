// RUN: fattn-opt %s -split-input-file -fattn-tile="block-m=64 block-n=32" -verify-diagnostics | FileCheck %s

// No mask: no left-edge loop; the unmasked loop, then a masked loop for the
// sequence tail (seq_k = 1000 is not a multiple of 32); scale defaults to
// 1/sqrt(64).
// CHECK-LABEL: func.func @no_mask
// CHECK: fattn.tiled_attention ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<2x8x1000x64xf32>, memref<2x8x1000x64xf32>, memref<2x8x1000x64xf32>) outs(%{{.*}} : memref<2x8x1000x64xf32>) attributes {block_m = 64 : i64, block_n = 32 : i64, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = -1 : i64}
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[H:.*]]: index, %[[MT:.*]]: index):
// CHECK: %[[SQ:.*]] = memref.dim %{{.*}}, %c2
// CHECK: %[[SK:.*]] = memref.dim %{{.*}}, %c2
// CHECK: %[[ROW:.*]] = arith.muli %[[MT]], %c64
// CHECK: %[[Q:.*]] = fattn.load_tile %{{.*}}[%[[B]], %[[H]], %[[ROW]]] {{.*}} -> tensor<64x64xf32>
// CHECK: %[[LO:.*]], %[[FLO:.*]], %[[FHI:.*]], %[[HI:.*]] = fattn.kv_tile_range %[[MT]], %[[SQ]], %[[SK]] {block_m = 64 : i64, block_n = 32 : i64, window_left = -1 : i64, window_right = -1 : i64}
// CHECK: %[[M0:.*]], %[[L0:.*]], %[[A0:.*]] = fattn.softmax_init : tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>
// CHECK: %[[FULL:.*]]:3 = scf.for %[[N:.*]] = %[[FLO]] to %[[FHI]] step %{{.*}} iter_args(%[[M:.*]] = %[[M0]], %[[L:.*]] = %[[L0]], %[[ACC:.*]] = %[[A0]])
// CHECK:   %[[COL:.*]] = arith.muli %[[N]], %c32
// CHECK:   %[[K:.*]] = fattn.load_tile %{{.*}}[%[[B]], %{{.*}}, %[[COL]]] {{.*}} -> tensor<32x64xf32>
// CHECK:   %[[S:.*]] = fattn.mma %[[Q]], %[[K]] {transpose_rhs} : tensor<64x64xf32>, tensor<32x64xf32> -> tensor<64x32xf32>
// CHECK-NOT: fattn.mask
// CHECK:   %[[P:.*]], %[[M1:.*]], %[[L1:.*]], %[[ALPHA:.*]] = fattn.softmax_update %[[S]], %[[M]], %[[L]] {scale = 1.250000e-01 : f32}
// CHECK:   %[[R:.*]] = fattn.rescale %[[ACC]], %[[ALPHA]]
// CHECK:   %[[V:.*]] = fattn.load_tile %{{.*}}[%[[B]], %{{.*}}, %[[COL]]] {{.*}} -> tensor<32x64xf32>
// CHECK:   %[[PV:.*]] = fattn.mma %[[P]], %[[V]] acc(%[[R]] : tensor<64x64xf32>)
// CHECK:   scf.yield %[[M1]], %[[L1]], %[[PV]]
// CHECK: %[[TAIL:.*]]:3 = scf.for %{{.*}} = %[[FHI]] to %[[HI]] step %{{.*}} iter_args(%{{.*}} = %[[FULL]]#0, %{{.*}} = %[[FULL]]#1, %{{.*}} = %[[FULL]]#2)
// CHECK:   fattn.mask %{{.*}} at[%[[ROW]], %{{.*}}] seq_lens(%[[SQ]], %[[SK]]) {window_left = -1 : i64, window_right = -1 : i64}
// CHECK: %[[OUT:.*]], %{{.*}} = fattn.finalize %[[TAIL]]#2, %[[TAIL]]#0, %[[TAIL]]#1 {scale = 1.250000e-01 : f32}
// CHECK: fattn.store_tile %[[OUT]], %{{.*}}[%[[B]], %[[H]], %[[ROW]]]
// CHECK-NOT: fattn.store_tile
// CHECK-NOT: fattn.attention
func.func @no_mask(%q: memref<2x8x1000x64xf32>, %k: memref<2x8x1000x64xf32>, %v: memref<2x8x1000x64xf32>, %o: memref<2x8x1000x64xf32>) {
  fattn.attention ins(%q, %k, %v : memref<2x8x1000x64xf32>, memref<2x8x1000x64xf32>, memref<2x8x1000x64xf32>) outs(%o : memref<2x8x1000x64xf32>)
  return
}

// -----

// Causal: window_right = 0 is folded in; the LSE is stored.
// CHECK-LABEL: func.func @causal_lse
// CHECK: fattn.tiled_attention {{.*}} lse(%{{.*}} : memref<1x4x100xf32>) attributes {block_m = 64 : i64, block_n = 32 : i64, scale = 5.000000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64}
// CHECK: fattn.kv_tile_range {{.*}} {block_m = 64 : i64, block_n = 32 : i64, window_left = -1 : i64, window_right = 0 : i64}
// CHECK-COUNT-2: scf.for
// CHECK-NOT: scf.for
// CHECK: %[[OUT:.*]], %[[LSE:.*]] = fattn.finalize
// CHECK: fattn.store_tile %[[OUT]]
// CHECK: fattn.store_tile %[[LSE]], %{{.*}} : tensor<64xf32>, memref<1x4x100xf32>
func.func @causal_lse(%q: memref<1x4x100x16xf16>, %k: memref<1x4x100x16xf16>, %v: memref<1x4x100x16xf16>, %o: memref<1x4x100x16xf16>, %lse: memref<1x4x100xf32>) {
  fattn.attention ins(%q, %k, %v : memref<1x4x100x16xf16>, memref<1x4x100x16xf16>, memref<1x4x100x16xf16>) outs(%o : memref<1x4x100x16xf16>) lse(%lse : memref<1x4x100xf32>) {scale = 0.5 : f32, causal = true}
  return
}

// -----

// A left window edge adds the masked loop before the unmasked one; the three
// loops cover [lo, full_lo), [full_lo, full_hi), [full_hi, hi) in order.
// CHECK-LABEL: func.func @window
// CHECK: %[[LO:.*]], %[[FLO:.*]], %[[FHI:.*]], %[[HI:.*]] = fattn.kv_tile_range {{.*}} {block_m = 64 : i64, block_n = 32 : i64, window_left = 100 : i64, window_right = 8 : i64}
// CHECK: %[[R0:.*]]:3 = scf.for %{{.*}} = %[[LO]] to %[[FLO]]
// CHECK:   fattn.mask {{.*}} {window_left = 100 : i64, window_right = 8 : i64}
// CHECK: %[[R1:.*]]:3 = scf.for %{{.*}} = %[[FLO]] to %[[FHI]] {{.*}} iter_args(%{{.*}} = %[[R0]]#0, %{{.*}} = %[[R0]]#1, %{{.*}} = %[[R0]]#2)
// CHECK-NOT: fattn.mask
// CHECK: %[[R2:.*]]:3 = scf.for %{{.*}} = %[[FHI]] to %[[HI]] {{.*}} iter_args(%{{.*}} = %[[R1]]#0, %{{.*}} = %[[R1]]#1, %{{.*}} = %[[R1]]#2)
// CHECK:   fattn.mask
// CHECK: fattn.finalize %[[R2]]#2, %[[R2]]#0, %[[R2]]#1
func.func @window(%q: memref<1x2x300x32xbf16>, %k: memref<1x2x300x32xbf16>, %v: memref<1x2x300x32xbf16>, %o: memref<1x2x300x32xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<1x2x300x32xbf16>, memref<1x2x300x32xbf16>, memref<1x2x300x32xbf16>) outs(%o : memref<1x2x300x32xbf16>) {window_left = 100 : i64, window_right = 8 : i64}
  return
}

// -----

// GQA (8 query heads over 2 KV heads) with Sq != Sk, dynamic sizes and
// different head dims for Q/K and V: K and V tiles are read at head h / 4;
// P takes V's element type.
// CHECK-LABEL: func.func @gqa_dynamic
// CHECK: ^bb0(%[[B:.*]]: index, %[[H:.*]]: index, %{{.*}}: index):
// CHECK: %[[SQ:.*]] = memref.dim %[[QM:.*]], %c2
// CHECK: %[[SK:.*]] = memref.dim %[[KM:.*]], %c2
// CHECK: %[[HQ:.*]] = memref.dim %[[QM]], %c1
// CHECK: %[[HKV:.*]] = memref.dim %[[KM]], %c1
// CHECK: %[[GROUP:.*]] = arith.divui %[[HQ]], %[[HKV]]
// CHECK: %[[KVH:.*]] = arith.divui %[[H]], %[[GROUP]]
// CHECK: fattn.load_tile %[[QM]][%[[B]], %[[H]], %{{.*}}] {{.*}} -> tensor<64x96xbf16>
// CHECK: scf.for
// CHECK:   fattn.load_tile %[[KM]][%[[B]], %[[KVH]], %{{.*}}] {{.*}} -> tensor<32x96xbf16>
// CHECK:   fattn.softmax_update {{.*}} -> tensor<64x32xbf16>
// CHECK:   fattn.load_tile %{{.*}}[%[[B]], %[[KVH]], %{{.*}}] {{.*}} -> tensor<32x64xbf16>
// CHECK:   fattn.mma {{.*}} : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
// CHECK: fattn.finalize {{.*}} -> tensor<64x64xbf16>
func.func @gqa_dynamic(%q: memref<?x?x?x96xbf16>, %k: memref<?x?x?x96xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x96xbf16>, memref<?x?x?x96xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) {causal = true}
  return
}

// -----

// Softcap: fattn.softcap applies the scale, so the softmax and the LSE use 1.
// CHECK-LABEL: func.func @softcap
// CHECK: fattn.mma
// CHECK-NEXT: %[[C:.*]] = fattn.softcap %{{.*}} {scale = 2.500000e-01 : f32, softcap = 2.000000e+01 : f32}
// CHECK-NEXT: fattn.softmax_update %[[C]], {{.*}} {scale = 1.000000e+00 : f32}
// CHECK: fattn.finalize {{.*}} {scale = 1.000000e+00 : f32}
func.func @softcap(%q: memref<1x1x64x16xf32>, %k: memref<1x1x64x16xf32>, %v: memref<1x1x64x16xf32>, %o: memref<1x1x64x16xf32>) {
  fattn.attention ins(%q, %k, %v : memref<1x1x64x16xf32>, memref<1x1x64x16xf32>, memref<1x1x64x16xf32>) outs(%o : memref<1x1x64x16xf32>) {scale = 0.25 : f32, softcap = 20.0 : f32}
  return
}

// -----

func.func @dynamic_head_dim(%q: memref<1x1x64x?xf32>, %k: memref<1x1x64x?xf32>, %v: memref<1x1x64x16xf32>, %o: memref<1x1x64x16xf32>) {
  // expected-error @+1 {{'fattn.attention' op cannot be tiled: the head dims of query and value must be static}}
  fattn.attention ins(%q, %k, %v : memref<1x1x64x?xf32>, memref<1x1x64x?xf32>, memref<1x1x64x16xf32>) outs(%o : memref<1x1x64x16xf32>) {scale = 0.25 : f32}
  return
}

// -----

// FP8: Q's descales are loaded once per Q tile (per (batch, KV head): at the
// KV head), K's and V's per KV tile (per block: at their own head); they
// scale the two products; P is rounded to e4m3 like V; O is bf16.
// CHECK-LABEL: func.func @fp8_descales
// CHECK: fattn.tiled_attention {{.*}} descale(%{{.*}}, %{{.*}}, %{{.*}} : memref<2x2xf32>, memref<2x2x4xf32>, memref<2x2x4xf32>) attributes {block_m = 64 : i64, block_n = 32 : i64, descale_block_kv = 32 : i64,
// CHECK: ^bb0(%[[B:.*]]: index, %[[H:.*]]: index, %{{.*}}: index):
// CHECK: %[[KVH:.*]] = arith.divui %[[H]], %{{.*}}
// CHECK: %[[Q:.*]] = fattn.load_tile {{.*}} -> tensor<64x64xf8E4M3FN>
// CHECK: %[[QS:.*]] = fattn.load_descale %{{.*}}[%[[B]], %[[KVH]], %{{.*}}] : memref<2x2xf32> -> tensor<64xf32>
// CHECK: scf.for
// CHECK:   %[[K:.*]] = fattn.load_tile {{.*}} -> tensor<32x64xf8E4M3FN>
// CHECK:   %[[KS:.*]] = fattn.load_descale %{{.*}}[%[[B]], %[[KVH]], %{{.*}}] {block = 32 : i64} : memref<2x2x4xf32> -> tensor<32xf32>
// CHECK:   fattn.mma %[[Q]], %[[K]] lhs_scale(%[[QS]] : tensor<64xf32>) rhs_scale(%[[KS]] : tensor<32xf32>) {transpose_rhs}
// CHECK:   fattn.softmax_update {{.*}} -> tensor<64x32xf8E4M3FN>
// CHECK:   %[[VS:.*]] = fattn.load_descale {{.*}} {block = 32 : i64} : memref<2x2x4xf32> -> tensor<32xf32>
// CHECK:   fattn.mma %{{.*}}, %{{.*}} acc(%{{.*}} : tensor<64x64xf32>) rhs_scale(%[[VS]] : tensor<32xf32>) : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN>
// CHECK: fattn.finalize {{.*}} -> tensor<64x64xbf16>
func.func @fp8_descales(%q: memref<2x4x100x64xf8E4M3FN>, %k: memref<2x2x100x64xf8E4M3FN>, %v: memref<2x2x100x64xf8E4M3FN>, %o: memref<2x4x100x64xbf16>, %dq: memref<2x2xf32>, %dk: memref<2x2x4xf32>, %dv: memref<2x2x4xf32>) {
  fattn.attention ins(%q, %k, %v : memref<2x4x100x64xf8E4M3FN>, memref<2x2x100x64xf8E4M3FN>, memref<2x2x100x64xf8E4M3FN>) outs(%o : memref<2x4x100x64xbf16>)
                  descale(%dq, %dk, %dv : memref<2x2xf32>, memref<2x2x4xf32>, memref<2x2x4xf32>) {descale_block_kv = 32 : i64}
  return
}

// -----

// Runtime scalars: the tiled op takes the operands; fattn.softcap scales
// and caps with them, and the softmax and the LSE use scale 1.
// CHECK-LABEL: func.func @runtime_scale_softcap
// CHECK-SAME: %[[SC:[^:]*]]: f32, %[[CAP:[^:]*]]: f32)
// CHECK: fattn.tiled_attention {{.*}} scale(%[[SC]] : f32) softcap(%[[CAP]] : f32) attributes {block_m = 64 : i64, block_n = 32 : i64, window_left = -1 : i64, window_right = 0 : i64}
// CHECK: fattn.softcap %{{.*}} scale(%[[SC]] : f32) softcap(%[[CAP]] : f32) : tensor<64x32xf32>
// CHECK: fattn.softmax_update %{{.*}}, %{{.*}}, %{{.*}} {scale = 1.000000e+00 : f32}
// CHECK: fattn.finalize %{{.*}}, %{{.*}}, %{{.*}} {scale = 1.000000e+00 : f32}
func.func @runtime_scale_softcap(%q: memref<1x4x100x16xf16>, %k: memref<1x4x100x16xf16>, %v: memref<1x4x100x16xf16>, %o: memref<1x4x100x16xf16>, %s: f32, %c: f32) {
  fattn.attention ins(%q, %k, %v : memref<1x4x100x16xf16>, memref<1x4x100x16xf16>, memref<1x4x100x16xf16>) outs(%o : memref<1x4x100x16xf16>) scale(%s : f32) softcap(%c : f32) {causal = true}
  return
}

// -----

// A runtime scale without a softcap goes to the softmax and the LSE.
// CHECK-LABEL: func.func @runtime_scale
// CHECK-SAME: %[[SC:[^:]*]]: f32)
// CHECK: fattn.tiled_attention {{.*}} scale(%[[SC]] : f32) attributes {block_m = 64 : i64, block_n = 32 : i64, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = -1 : i64}
// CHECK-NOT: fattn.softcap
// CHECK: fattn.softmax_update %{{.*}}, %{{.*}}, %{{.*}} scale(%[[SC]] : f32) :
// CHECK: fattn.finalize %{{.*}}, %{{.*}}, %{{.*}} scale(%[[SC]] : f32) :
func.func @runtime_scale(%q: memref<1x4x100x16xf16>, %k: memref<1x4x100x16xf16>, %v: memref<1x4x100x16xf16>, %o: memref<1x4x100x16xf16>, %s: f32) {
  fattn.attention ins(%q, %k, %v : memref<1x4x100x16xf16>, memref<1x4x100x16xf16>, memref<1x4x100x16xf16>) outs(%o : memref<1x4x100x16xf16>) scale(%s : f32)
  return
}
