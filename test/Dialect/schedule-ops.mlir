// RUN: fattn-opt %s | fattn-opt | FileCheck %s

// CHECK-LABEL: func.func @roles
// CHECK: %[[RING:.*]] = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x32xbf16>>
// CHECK: fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
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
  fattn.warp_specialize attributes {consumers = 2 : i64, producer_registers = 24 : i64, consumer_registers = 240 : i64} producer {
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
