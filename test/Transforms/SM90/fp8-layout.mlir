// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-fp8-layout | FileCheck %s
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-pingpong --fattn-fp8-layout | FileCheck %s --check-prefix=OVERLAP
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=64 block-n=64" --fattn-fp8-layout | FileCheck %s --check-prefix=TILED

// Warp-specialized: the producer loads V into its staging buffer, takes the
// ring slot, writes V^T with the keys permuted into it and commits that; the
// ring's V element becomes V^T (head dim x keys). The consumers permute P's
// keys alike and multiply by V^T transposed back (K-major B operand).
// CHECK-LABEL: func.func @causal
// CHECK: %[[Q:.*]] = fattn.load_tile %arg0
// CHECK: %[[RING:.*]] = fattn.ring_create : <2, tensor<128x128xf8E4M3FN>, tensor<64x128xf8E4M3FN>>
// CHECK: producer {
// CHECK:   scf.for
// CHECK-NEXT: fattn.ring_acquire %[[RING]][0]
// CHECK-NEXT: %[[ROW:.*]] = arith.muli
// CHECK-NEXT: %[[K:.*]] = fattn.load_tile %arg1[{{.*}}, %[[ROW]]] {{.*}} -> tensor<128x128xf8E4M3FN>
// CHECK-NEXT: fattn.ring_commit %[[RING]][0], %[[K]]
// CHECK-NEXT: %[[V:.*]] = fattn.load_tile %arg2[{{.*}}, %[[ROW]]] : memref<?x?x?x64xf8E4M3FN> -> tensor<128x64xf8E4M3FN>
// CHECK-NEXT: fattn.ring_acquire %[[RING]][1]
// CHECK-NEXT: %[[VT:.*]] = fattn.transpose_tile %[[V]] {key_permutation = "wgmma_e4m3_k32"} : tensor<128x64xf8E4M3FN> -> tensor<64x128xf8E4M3FN>
// CHECK-NEXT: fattn.ring_commit %[[RING]][1], %[[VT]] : <2, tensor<128x128xf8E4M3FN>, tensor<64x128xf8E4M3FN>>, tensor<64x128xf8E4M3FN>
// CHECK-NEXT: }
// CHECK: } consumer {
// CHECK: scf.for
// CHECK: %[[KT:.*]] = fattn.ring_wait %[[RING]][0] {{.*}} -> tensor<128x128xf8E4M3FN>
// CHECK-NEXT: fattn.mma %[[Q]], %[[KT]] {transpose_rhs}
// CHECK: %[[P:.*]], %{{.*}}, %{{.*}}, %{{.*}} = fattn.softmax_update {{.*}} -> tensor<128x128xf8E4M3FN>
// CHECK-NEXT: %[[RS:.*]] = fattn.rescale
// CHECK-NEXT: %[[W:.*]] = fattn.ring_wait %[[RING]][1] : <2, tensor<128x128xf8E4M3FN>, tensor<64x128xf8E4M3FN>> -> tensor<64x128xf8E4M3FN>
// CHECK-NEXT: %[[PP:.*]] = fattn.permute_keys %[[P]] {key_permutation = "wgmma_e4m3_k32"} : tensor<128x128xf8E4M3FN>
// CHECK-NEXT: %[[O:.*]] = fattn.mma %[[PP]], %[[W]] acc(%[[RS]] : tensor<128x64xf32>) {transpose_rhs} : tensor<128x128xf8E4M3FN>, tensor<64x128xf8E4M3FN> -> tensor<128x64xf32>
// CHECK-NEXT: fattn.ring_release %[[RING]][1]
// CHECK-NEXT: scf.yield %{{.*}}, %{{.*}}, %[[O]]
// CHECK-NOT: fattn.permute_keys
// CHECK: fattn.finalize

// Unscheduled: each KV loop transposes its own V tile (the consumers would).
// TILED-LABEL: func.func @causal
// TILED-COUNT-2: fattn.transpose_tile %{{.*}} {key_permutation = "wgmma_e4m3_k32"} : tensor<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
// TILED-NOT: fattn.transpose_tile
// TILED: fattn.finalize
func.func @causal(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x64xf8E4M3FN>, %o: memref<?x?x?x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>) outs(%o : memref<?x?x?x64xbf16>) {causal = true}
  return
}

// -----

// Pipelined and pingponged consumers: P V runs in the steady loop (on the
// P and V descale the loop carries from the previous tile) and in the
// epilogue; both get P permuted right before the product, inside the
// pingpong turn. V's per-tile factor (blocks of 256 keys, two tiles each)
// moves from V's rows to the product's columns. Q K^T is untouched.
// CHECK-LABEL: func.func @descales
// OVERLAP-LABEL: func.func @descales
// OVERLAP: %[[RING:.*]] = fattn.ring_create : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
// OVERLAP: fattn.transpose_tile
// OVERLAP: } consumer {
// OVERLAP: %[[LOOP:.*]]:6 = scf.for {{.*}} iter_args({{.*}}, %[[P:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %[[DV:.*]] = %{{.*}})
// OVERLAP: fattn.mma %{{.*}}, %{{.*}} lhs_scale(%{{.*}} : tensor<128xf32>) rhs_scale(%{{.*}} : tensor<128xf32>) {transpose_rhs}
// OVERLAP: %[[RS:.*]] = fattn.rescale
// OVERLAP-NEXT: %[[W:.*]] = fattn.ring_wait %[[RING]][1]
// OVERLAP-NEXT: %[[PP:.*]] = fattn.permute_keys %[[P]] {key_permutation = "wgmma_e4m3_k32"}
// OVERLAP-NEXT: %[[C0:.*]] = arith.constant 0 : index
// OVERLAP-NEXT: %[[F:.*]] = tensor.extract %[[DV]][%[[C0]]] : tensor<128xf32>
// OVERLAP-NEXT: %[[COLS:.*]] = tensor.splat %[[F]] : tensor<128xf32>
// OVERLAP-NEXT: fattn.mma %[[PP]], %[[W]] acc(%[[RS]] : tensor<128x128xf32>) rhs_scale(%[[COLS]] : tensor<128xf32>) {transpose_rhs}
// OVERLAP-NEXT: fattn.named_barrier_arrive
// OVERLAP-NEXT: fattn.ring_release %[[RING]][1]
// OVERLAP: scf.if
// OVERLAP: %[[ERS:.*]] = fattn.rescale %[[LOOP]]#2, %[[LOOP]]#4
// OVERLAP-NEXT: %[[EW:.*]] = fattn.ring_wait %[[RING]][1]
// OVERLAP-NEXT: fattn.named_barrier_sync
// OVERLAP-NEXT: %[[EPP:.*]] = fattn.permute_keys %[[LOOP]]#3
// OVERLAP-NEXT: %[[EC0:.*]] = arith.constant 0 : index
// OVERLAP-NEXT: %[[EF:.*]] = tensor.extract %[[LOOP]]#5[%[[EC0]]]
// OVERLAP-NEXT: %[[ECOLS:.*]] = tensor.splat %[[EF]]
// OVERLAP-NEXT: fattn.mma %[[EPP]], %[[EW]] acc(%[[ERS]] : tensor<128x128xf32>) rhs_scale(%[[ECOLS]] : tensor<128xf32>) {transpose_rhs}
// OVERLAP: fattn.finalize
// TILED-LABEL: func.func @descales
// TILED-COUNT-2: fattn.transpose_tile %{{.*}} : tensor<64x128xf8E4M3FN> -> tensor<128x64xf8E4M3FN>
// TILED-NOT: fattn.transpose_tile
func.func @descales(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?xf32>, %dk: memref<?x?xf32>, %dv: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
                  descale(%dq, %dk, %dv : memref<?x?xf32>, memref<?x?xf32>, memref<?x?x?xf32>) {descale_block_kv = 256 : i64}
  return
}

// -----

// bf16 (and f16) keep V as stored and P in accumulator order: no-op.
// CHECK-LABEL: func.func @bf16_unchanged
// CHECK: fattn.ring_create : <2, tensor<128x128xbf16>, tensor<128x128xbf16>>
// CHECK: %[[V:.*]] = fattn.load_tile %arg2
// CHECK-NEXT: fattn.ring_commit %{{.*}}[1], %[[V]]
// CHECK: %[[W:.*]] = fattn.ring_wait %{{.*}}[1]
// CHECK-NEXT: fattn.mma %[[P:.*]], %[[W]] acc(%{{.*}} : tensor<128x128xf32>) : tensor<128x128xbf16>, tensor<128x128xbf16>
// CHECK-NOT: fattn.permute_keys
// CHECK-NOT: fattn.transpose_tile
// OVERLAP-LABEL: func.func @bf16_unchanged
// OVERLAP-NOT: fattn.permute_keys
// OVERLAP-NOT: fattn.transpose_tile
// OVERLAP: return
// TILED-LABEL: func.func @bf16_unchanged
// TILED-NOT: fattn.permute_keys
// TILED-NOT: fattn.transpose_tile
// TILED: return
func.func @bf16_unchanged(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
