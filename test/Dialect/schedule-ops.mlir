// RUN: fattn-opt %s | fattn-opt | FileCheck %s

// CHECK-LABEL: func.func @roles
// CHECK: %[[RING:.*]] = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x32xbf16>>
// CHECK: fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
// CHECK:   fattn.ring_acquire %[[RING]][0] : <2, tensor<64x64xbf16>, tensor<64x32xbf16>>
// CHECK:   fattn.ring_commit %[[RING]][0], %{{.*}} : <2, tensor<64x64xbf16>, tensor<64x32xbf16>>, tensor<64x64xbf16>
// CHECK:   fattn.ring_commit %[[RING]][1], %{{.*}} : <2, tensor<64x64xbf16>, tensor<64x32xbf16>>, tensor<64x32xbf16>
// CHECK: } consumer {
// CHECK: ^bb0(%[[WG:.*]]: index):
// CHECK:   fattn.named_barrier_sync %[[WG]], 256
// CHECK:   %{{.*}} = fattn.ring_wait %[[RING]][1] : <2, tensor<64x64xbf16>, tensor<64x32xbf16>> -> tensor<64x32xbf16>
// CHECK:   fattn.ring_release %[[RING]][1]
// CHECK:   fattn.named_barrier_arrive %{{.*}}, 128
func.func @roles(%k: tensor<64x64xbf16>, %v: tensor<64x32xbf16>) {
  %ring = fattn.ring_create : !fattn.ring<2, tensor<64x64xbf16>, tensor<64x32xbf16>>
  fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64, consumer_registers = 240 : i64} producer {
    fattn.ring_acquire %ring[0] : !fattn.ring<2, tensor<64x64xbf16>, tensor<64x32xbf16>>
    fattn.ring_commit %ring[0], %k : !fattn.ring<2, tensor<64x64xbf16>, tensor<64x32xbf16>>, tensor<64x64xbf16>
    fattn.ring_commit %ring[1], %v : !fattn.ring<2, tensor<64x64xbf16>, tensor<64x32xbf16>>, tensor<64x32xbf16>
  } consumer {
  ^bb0(%wg: index):
    fattn.named_barrier_sync %wg, 256
    %t = fattn.ring_wait %ring[1] : !fattn.ring<2, tensor<64x64xbf16>, tensor<64x32xbf16>> -> tensor<64x32xbf16>
    fattn.ring_release %ring[1] : !fattn.ring<2, tensor<64x64xbf16>, tensor<64x32xbf16>>
    %c3 = arith.constant 3 : index
    fattn.named_barrier_arrive %c3, 128
  }
  return
}

// The loop of a persistent CTA over its work items: the ring outside it, the
// item's coordinates as its block arguments.
// CHECK-LABEL: func.func @work_loop
// CHECK: fattn.tiled_attention
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT: %[[RING:.*]] = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
// CHECK-NEXT: fattn.work_loop {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[H:.*]]: index, %[[M:.*]]: index):
// CHECK: fattn.load_tile %{{.*}}[%[[B]], %[[H]], %{{.*}}]
// CHECK: fattn.warp_specialize
func.func @work_loop(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.tiled_attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%grid_b: index, %grid_h: index, %grid_m: index):
    %ring = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
    fattn.work_loop {
    ^bb0(%b: index, %h: index, %m: index):
      %c128 = arith.constant 128 : index
      %row = arith.muli %m, %c128 : index
      %tile = fattn.load_tile %q[%b, %h, %row] : memref<?x?x?x64xbf16> -> tensor<128x64xbf16>
      fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 2 : i64} producer {
        fattn.ring_acquire %ring[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
      } consumer {
      ^bb0(%wg: index):
        fattn.ring_release %ring[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
      }
    }
  }
  return
}
