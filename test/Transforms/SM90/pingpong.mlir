// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-pingpong | FileCheck %s
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-pingpong="barrier-base=5" | FileCheck %s --check-prefix=SERIAL

// Warpgroup w waits on barrier 1 + w and hands over on 2 - w; warpgroup 1
// hands the first turn to warpgroup 0. One turn per run of GEMMs: the
// prologue's Q K^T, the steady state's Q K^T + P V, the epilogue's P V.
// CHECK-LABEL: func.func @causal
// CHECK: } consumer {
// CHECK-NEXT: ^bb0(%[[WG:.*]]: index):
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[MINE:.*]] = arith.addi %[[C1]], %[[WG]] : index
// CHECK-NEXT: %[[OTHER:.*]] = arith.subi %[[C2]], %[[WG]] : index
// CHECK-NEXT: %[[SECOND:.*]] = arith.cmpi eq, %[[WG]], %[[ONE]] : index
// CHECK-NEXT: scf.if %[[SECOND]] {
// CHECK-NEXT: fattn.named_barrier_arrive %[[C1]], 256
// CHECK: scf.if
// CHECK: fattn.named_barrier_sync %[[MINE]], 256
// CHECK-NEXT: fattn.mma {{.*}} {transpose_rhs}
// CHECK-NEXT: fattn.named_barrier_arrive %[[OTHER]], 256
// CHECK: fattn.softmax_update
// CHECK: scf.for
// CHECK: fattn.named_barrier_sync %[[MINE]], 256
// CHECK-NEXT: fattn.mma {{.*}} {transpose_rhs}
// CHECK-NEXT: fattn.ring_release
// CHECK-NEXT: fattn.rescale
// CHECK-NEXT: fattn.ring_wait
// CHECK-NEXT: fattn.mma {{.*}} acc(
// CHECK-NEXT: fattn.named_barrier_arrive %[[OTHER]], 256
// CHECK: fattn.softmax_update
// CHECK: scf.if
// CHECK: fattn.named_barrier_sync %[[MINE]], 256
// CHECK-NEXT: fattn.mma {{.*}} acc(
// CHECK-NEXT: fattn.named_barrier_arrive %[[OTHER]], 256
// CHECK-NOT: fattn.named_barrier

// Without the overlap each GEMM is its own turn (the softmax separates them).
// SERIAL-LABEL: func.func @causal
// SERIAL: %[[C5:.*]] = arith.constant 5 : index
// SERIAL: scf.for
// SERIAL: fattn.named_barrier_sync
// SERIAL-NEXT: fattn.mma {{.*}} {transpose_rhs}
// SERIAL-NEXT: fattn.named_barrier_arrive
// SERIAL: fattn.softmax_update
// SERIAL: fattn.named_barrier_sync
// SERIAL-NEXT: fattn.mma {{.*}} acc(
// SERIAL-NEXT: fattn.named_barrier_arrive
func.func @causal(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}
