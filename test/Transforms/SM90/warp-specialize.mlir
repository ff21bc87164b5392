// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize | FileCheck %s
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=192 block-n=128" --fattn-sm90-tma=stages=3 --fattn-warp-specialize="consumers=3 producer-registers=32 consumer-registers=160" | FileCheck %s --check-prefix=THREE

// Causal: the producer fills a 2-stage K/V ring over [lo, hi); the consumers
// run one loop over the same tiles, masking only tiles outside
// [full_lo, full_hi), and hand K back after Q K^T and V after P V.
// CHECK-LABEL: func.func @causal
// CHECK: %[[Q:.*]] = fattn.load_tile %arg0
// CHECK: %[[LO:.*]], %[[FLO:.*]], %[[FHI:.*]], %[[HI:.*]] = fattn.kv_tile_range
// CHECK: %[[RING:.*]] = fattn.ring_create : <2, tensor<128x128xbf16>, tensor<128x128xbf16>>
// CHECK: fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
// CHECK:   scf.for %[[PJ:.*]] = %[[LO]] to %[[HI]]
// CHECK-NEXT: fattn.ring_acquire %[[RING]][0]
// CHECK-NEXT: %[[ROW:.*]] = arith.muli %[[PJ]]
// CHECK-NEXT: %[[K:.*]] = fattn.load_tile %arg1[%{{.*}}, %{{.*}}, %[[ROW]]] :
// CHECK-NEXT: fattn.ring_commit %[[RING]][0], %[[K]]
// CHECK-NEXT: fattn.ring_acquire %[[RING]][1]
// CHECK-NEXT: %[[V:.*]] = fattn.load_tile %arg2[%{{.*}}, %{{.*}}, %[[ROW]]] :
// CHECK-NEXT: fattn.ring_commit %[[RING]][1], %[[V]]
// CHECK-NOT: fattn.mma
// CHECK: } consumer {
// CHECK-NEXT: ^bb0(%{{.*}}: index):
// CHECK-NEXT: %[[M0:.*]], %[[L0:.*]], %[[A0:.*]] = fattn.softmax_init
// CHECK: %[[R:.*]]:3 = scf.for %[[J:.*]] = %[[LO]] to %[[HI]] {{.*}} iter_args(%[[M:.*]] = %[[M0]], %[[L:.*]] = %[[L0]], %[[ACC:.*]] = %[[A0]])
// CHECK: %[[KT:.*]] = fattn.ring_wait %[[RING]][0] : <2, tensor<128x128xbf16>, tensor<128x128xbf16>> -> tensor<128x128xbf16>
// CHECK-NEXT: %[[S:.*]] = fattn.mma %[[Q]], %[[KT]] {transpose_rhs}
// CHECK-NEXT: fattn.ring_release %[[RING]][0]
// CHECK-NEXT: %[[BEFORE:.*]] = arith.cmpi ult, %[[J]], %[[FLO]]
// CHECK-NEXT: %[[AFTER:.*]] = arith.cmpi uge, %[[J]], %[[FHI]]
// CHECK-NEXT: %[[EDGE:.*]] = arith.ori %[[BEFORE]], %[[AFTER]]
// CHECK-NEXT: %[[SM:.*]] = scf.if %[[EDGE]]
// CHECK-NEXT: fattn.mask %[[S]]
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[S]]
// CHECK: %[[P:.*]], %[[NM:.*]], %[[NL:.*]], %[[ALPHA:.*]] = fattn.softmax_update %[[SM]], %[[M]], %[[L]]
// CHECK-NEXT: %[[RS:.*]] = fattn.rescale %[[ACC]], %[[ALPHA]]
// CHECK-NEXT: %[[VT:.*]] = fattn.ring_wait %[[RING]][1]
// CHECK-NEXT: %[[O:.*]] = fattn.mma %[[P]], %[[VT]] acc(%[[RS]]
// CHECK-NEXT: fattn.ring_release %[[RING]][1]
// CHECK-NEXT: scf.yield %[[NM]], %[[NL]], %[[O]]
// CHECK: %[[OUT:.*]], %{{.*}} = fattn.finalize %[[R]]#2, %[[R]]#0, %[[R]]#1
// CHECK-NEXT: fattn.store_tile %[[OUT]]{{.*$}}
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: return
// THREE-LABEL: func.func @causal
// THREE: fattn.ring_create : <3, tensor<128x128xbf16>, tensor<128x128xbf16>>
// THREE: fattn.warp_specialize attributes {consumer_registers = 160 : i64, consumer_rows = 64 : i64, consumers = 3 : i64, producer_registers = 32 : i64}
func.func @causal(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}

// -----

// A sliding window has a masked left edge too: the three KV loops of
// --fattn-tile become one. Softcap and LSE ride along unchanged.
// CHECK-LABEL: func.func @window_softcap_lse
// CHECK: fattn.warp_specialize
// CHECK: } consumer {
// CHECK-COUNT-1: scf.for
// CHECK: fattn.softcap
// CHECK: scf.if
// CHECK-NEXT: fattn.mask
// CHECK-NOT: scf.for
// CHECK: fattn.finalize
// CHECK-COUNT-2: fattn.store_tile
func.func @window_softcap_lse(%q: memref<?x?x?x64xf16>, %k: memref<?x?x?x64xf16>, %v: memref<?x?x?x64xf16>, %o: memref<?x?x?x64xf16>, %lse: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf16>, memref<?x?x?x64xf16>, memref<?x?x?x64xf16>) outs(%o : memref<?x?x?x64xf16>) lse(%lse : memref<?x?x?xf32>) {window_left = 100 : i64, window_right = 20 : i64, softcap = 30.0 : f32}
  return
}

// -----

// Register counts of 0: no setmaxnreg, the op carries none.
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize="producer-registers=0 consumer-registers=0" | FileCheck %s --check-prefix=NOREGS
// NOREGS-LABEL: func.func @keep_registers
// NOREGS: fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 2 : i64} producer {
func.func @keep_registers(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>)
  return
}

// -----

// FP8: the producer also transposes V (--fattn-fp8-layout) and fits in the
// same 24 registers as a TMA issuer; the consumers keep 240. The descales
// are loaded in the consumer region.
// CHECK-LABEL: func.func @fp8_registers
// CHECK: fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64}
// CHECK: } consumer {
// CHECK: fattn.load_descale
func.func @fp8_registers(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<f32>, %dk: memref<f32>, %dv: memref<f32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<f32>, memref<f32>, memref<f32>)
  return
}
