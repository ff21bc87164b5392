// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap | FileCheck %s

// Prologue A(lo): Q K^T and softmax of the first tile, when there is one.
// CHECK-LABEL: func.func @causal
// CHECK: %[[RING:.*]] = fattn.ring_create
// CHECK: } consumer {
// CHECK: %[[M0:.*]], %[[L0:.*]], %[[A0:.*]] = fattn.softmax_init
// CHECK: %[[ANY:.*]] = arith.cmpi slt, %[[LO:.*]], %[[HI:.*]] : index
// CHECK-NEXT: %[[PRO:.*]]:4 = scf.if %[[ANY]]
// CHECK: fattn.ring_wait %[[RING]][0]
// CHECK-NEXT: fattn.mma {{.*}} {transpose_rhs}
// CHECK: %[[P0:.*]], %[[M1:.*]], %[[L1:.*]], %[[AL1:.*]] = fattn.softmax_update %{{.*}}, %[[M0]], %[[L0]]
// CHECK-NEXT: scf.yield %[[M1]], %[[L1]], %[[P0]], %[[AL1]]
// CHECK: } else {
// CHECK: scf.yield %[[M0]], %[[L0]], %{{.*}}, %{{.*}} : tensor<128xf32>, tensor<128xf32>, tensor<128x128xbf16>, tensor<128xf32>
// Steady state over (lo, hi): S_j, then O += P_{j-1} V_{j-1}, then softmax_j;
// P and alpha cross iterations.
// CHECK: %[[NEXT:.*]] = arith.addi %[[LO]], %{{.*}}
// CHECK-NEXT: %[[R:.*]]:5 = scf.for %{{.*}} = %[[NEXT]] to %[[HI]] {{.*}} iter_args(%[[M:.*]] = %[[PRO]]#0, %[[L:.*]] = %[[PRO]]#1, %[[ACC:.*]] = %[[A0]], %[[PP:.*]] = %[[PRO]]#2, %[[AP:.*]] = %[[PRO]]#3)
// CHECK: %[[K:.*]] = fattn.ring_wait %[[RING]][0]
// CHECK-NEXT: %[[S:.*]] = fattn.mma %{{.*}}, %[[K]] {transpose_rhs}
// CHECK-NEXT: fattn.ring_release %[[RING]][0]
// CHECK-NEXT: %[[RS:.*]] = fattn.rescale %[[ACC]], %[[AP]]
// CHECK-NEXT: %[[V:.*]] = fattn.ring_wait %[[RING]][1]
// CHECK-NEXT: %[[O:.*]] = fattn.mma %[[PP]], %[[V]] acc(%[[RS]]
// CHECK-NEXT: fattn.ring_release %[[RING]][1]
// CHECK: fattn.mask %[[S]]
// CHECK: %[[P:.*]], %[[NM:.*]], %[[NL:.*]], %[[AL:.*]] = fattn.softmax_update %{{.*}}, %[[M]], %[[L]]
// CHECK-NEXT: scf.yield %[[NM]], %[[NL]], %[[O]], %[[P]], %[[AL]]
// Epilogue B(hi - 1): the last tile's P V.
// CHECK: %[[EPI:.*]] = scf.if %[[ANY]]
// CHECK-NEXT: %[[RS2:.*]] = fattn.rescale %[[R]]#2, %[[R]]#4
// CHECK-NEXT: %[[V2:.*]] = fattn.ring_wait %[[RING]][1]
// CHECK-NEXT: %[[O2:.*]] = fattn.mma %[[R]]#3, %[[V2]] acc(%[[RS2]]
// CHECK-NEXT: fattn.ring_release %[[RING]][1]
// CHECK-NEXT: scf.yield %[[O2]]
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[R]]#2
// CHECK: fattn.finalize %[[EPI]], %[[R]]#0, %[[R]]#1
func.func @causal(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}
