// --fattn-fp8-layout leaves a V stored as V^T (value_layout) alone: --fattn-tile
// built its layout already (P permuted, V^T read transposed back), so the IR
// is the same before and after the pass, in the tiled form and warp-specialized.
// RUN: fattn-opt %s --fattn-tile="block-m=64 block-n=64" -o %t.tiled.mlir
// RUN: fattn-opt %t.tiled.mlir --fattn-fp8-layout -o %t.tiled.fp8.mlir
// RUN: diff %t.tiled.mlir %t.tiled.fp8.mlir
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize -o %t.ws.mlir
// RUN: fattn-opt %t.ws.mlir --fattn-fp8-layout -o %t.ws.fp8.mlir
// RUN: diff %t.ws.mlir %t.ws.fp8.mlir
// RUN: FileCheck %s --check-prefix=TILED < %t.tiled.fp8.mlir
// RUN: FileCheck %s < %t.ws.fp8.mlir
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-fp8-layout | FileCheck %s --check-prefix=OVERLAP

// The tiled form: one permutation of P per product, none of V.
// TILED-LABEL: func.func @per_block
// TILED-NOT: fattn.transpose_tile
// TILED: fattn.load_tile %arg2{{.*}} {transposed} : memref<?x?x64x?xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
// TILED-NEXT: fattn.load_descale %arg6
// TILED-NEXT: fattn.permute_keys
// TILED-NOT: fattn.permute_keys
// TILED: fattn.mma {{.*}} {transpose_rhs} : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
// TILED: fattn.load_tile %arg2{{.*}} {transposed}
// TILED-NEXT: fattn.load_descale %arg6
// TILED-NEXT: fattn.permute_keys
// TILED-NOT: fattn.permute_keys
// TILED: fattn.finalize
// TILED-NOT: fattn.transpose_tile

// Warp-specialized: the producer commits the V^T tile that TMA loads (head
// dim 64 x 128 keys) into the ring as it is: no staging tile, no transpose.
// CHECK-LABEL: func.func @per_block
// CHECK: %[[RING:.*]] = fattn.ring_create : <2, tensor<128x64xf8E4M3FN>, tensor<64x128xf8E4M3FN>>
// CHECK: producer {
// CHECK:   fattn.ring_acquire %[[RING]][1]
// CHECK-NEXT: %[[VT:.*]] = fattn.load_tile %arg2[{{.*}}] {transposed} : memref<?x?x64x?xf8E4M3FN> -> tensor<64x128xf8E4M3FN>
// CHECK-NEXT: fattn.ring_commit %[[RING]][1], %[[VT]] : {{.*}}, tensor<64x128xf8E4M3FN>
// CHECK-NEXT: }
// CHECK: } consumer {
// CHECK: %[[W:.*]] = fattn.ring_wait %[[RING]][1] {{.*}} -> tensor<64x128xf8E4M3FN>
// CHECK: %[[PP:.*]] = fattn.permute_keys %{{.*}} {key_permutation = "wgmma_e4m3_k32"} : tensor<128x128xf8E4M3FN>
// CHECK: %[[F:.*]] = tensor.splat %{{.*}} : tensor<64xf32>
// CHECK-NEXT: fattn.mma %[[PP]], %[[W]] acc(%{{.*}} : tensor<128x64xf32>) rhs_scale(%[[F]] : tensor<64xf32>) {transpose_rhs} : tensor<128x128xf8E4M3FN>, tensor<64x128xf8E4M3FN> -> tensor<128x64xf32>
// CHECK-NOT: fattn.transpose_tile

// --fattn-intra-wg-overlap tells P V (it accumulates) from S = Q K^T (both
// read their rhs transposed) and keeps P's permutation and V's factor splat
// in the P V half: P (unpermuted) and V's per-tile factors (a tensor) cross
// iterations, the P V of the previous tile permutes and splats them.
// OVERLAP-LABEL: func.func @per_block
// OVERLAP: } consumer {
// OVERLAP: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[ACC:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}, %[[ALPHA:.*]] = %{{.*}}, %[[DV:.*]] = %{{.*}}) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>, tensor<128x128xf8E4M3FN>, tensor<128xf32>, tensor<128xf32>)
// OVERLAP: %[[S:.*]] = fattn.mma %{{.*}}, %{{.*}} lhs_scale({{.*}}) rhs_scale({{.*}}) {transpose_rhs} : tensor<128x64xf8E4M3FN>, tensor<128x64xf8E4M3FN> -> tensor<128x128xf32>
// OVERLAP: %[[R:.*]] = fattn.rescale %[[ACC]], %[[ALPHA]]
// OVERLAP-NEXT: %[[W:.*]] = fattn.ring_wait %{{.*}}[1] {{.*}} -> tensor<64x128xf8E4M3FN>
// OVERLAP-NEXT: %[[PP:.*]] = fattn.permute_keys %[[P]] {key_permutation = "wgmma_e4m3_k32"}
// OVERLAP: %[[F:.*]] = tensor.extract %[[DV]][%{{.*}}] : tensor<128xf32>
// OVERLAP-NEXT: %[[FS:.*]] = tensor.splat %[[F]] : tensor<64xf32>
// OVERLAP-NEXT: fattn.mma %[[PP]], %[[W]] acc(%[[R]] : tensor<128x64xf32>) rhs_scale(%[[FS]] : tensor<64xf32>) {transpose_rhs}
// OVERLAP: fattn.mask %[[S]]
// OVERLAP: %[[PN:.*]], %{{.*}}, %{{.*}}, %{{.*}} = fattn.softmax_update
// OVERLAP-NEXT: %[[DVN:.*]] = fattn.load_descale %arg6
// OVERLAP-NEXT: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[PN]], %{{.*}}, %[[DVN]] :
func.func @per_block(%q: memref<?x?x?x64xf8E4M3FN>, %k: memref<?x?x?x64xf8E4M3FN>, %v: memref<?x?x64x?xf8E4M3FN>, %o: memref<?x?x?x64xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>, memref<?x?x64x?xf8E4M3FN>) outs(%o : memref<?x?x?x64xbf16>)
                  descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {causal = true, descale_block_q = 128 : i64, descale_block_kv = 128 : i64, value_layout = "transposed_wgmma_e4m3_k32"}
  return
}
