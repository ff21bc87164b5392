// RUN: fattn-opt %s -split-input-file -fattn-lower-rowwise -verify-diagnostics | FileCheck %s
// RUN: fattn-opt %s -split-input-file -fattn-lower-rowwise="dynamic-head-dims-only=true" -verify-diagnostics | FileCheck %s --check-prefix=ONLY

// Row by row: the visible keys [max(0, i + off - 3), min(Sk, i + off + 1))
// of row i, a dot product over the (dynamic) head dim, the online softmax in
// scalars, an f32 accumulator row, then O = acc / l (or 0) and the LSE.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[ACC:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: scf.for %[[B:.*]] =
// CHECK:   scf.for %[[H:.*]] =
// CHECK:     scf.for %[[I:.*]] =
// The window comes from the KV tile range of a one-row tile with one-key
// tiles (KVTileRange.h): left edge, right edge, then the empty-range guard.
// CHECK:       arith.maxsi
// CHECK:       arith.minsi
// CHECK:       %[[EMPTY:.*]] = arith.cmpi slt
// CHECK:       %[[LO:.*]] = arith.select %[[EMPTY]], %c0{{.*}}, %{{.*}} : index
// CHECK:       %[[HI:.*]] = arith.select %[[EMPTY]], %c0{{.*}}, %{{.*}} : index
// CHECK:       %{{.*}}:2 = scf.for %[[J:.*]] = %[[LO]] to %[[HI]]
// CHECK:         scf.for
// CHECK:           arith.mulf
// CHECK:         math.exp
// CHECK:         math.exp
// CHECK:       arith.divf
// CHECK:       math.log
// CHECK: memref.dealloc %[[ACC]]
// CHECK-NOT: fattn.attention
// ONLY-LABEL: func.func @dynamic
// ONLY-NOT: fattn.attention
func.func @dynamic(%q: memref<?x?x?x?xf32>, %k: memref<?x?x?x?xf32>, %v: memref<?x?x?x?xf32>, %o: memref<?x?x?x?xf32>, %lse: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) outs(%o : memref<?x?x?x?xf32>) lse(%lse : memref<?x?x?xf32>) {scale = 0.25 : f32, causal = true, window_left = 3 : i64}
  return
}

// -----

// With dynamic-head-dims-only, ops with static head dims are left for the
// tiled path.
// CHECK-LABEL: func.func @static
// CHECK-NOT: fattn.attention
// ONLY-LABEL: func.func @static
// ONLY: fattn.attention
func.func @static(%q: memref<1x2x9x16xf32>, %o: memref<1x2x9x16xf32>) {
  fattn.attention ins(%q, %q, %q : memref<1x2x9x16xf32>, memref<1x2x9x16xf32>, memref<1x2x9x16xf32>) outs(%o : memref<1x2x9x16xf32>)
  return
}

// -----

func.func @descales(%q: memref<?x?x?x?xf8E4M3FN>, %o: memref<?x?x?x?xbf16>, %d: memref<f32>) {
  // expected-error @+1 {{'fattn.attention' op with descales needs static head dims (the row-wise lowering does not apply descales)}}
  fattn.attention ins(%q, %q, %q : memref<?x?x?x?xf8E4M3FN>, memref<?x?x?x?xf8E4M3FN>, memref<?x?x?x?xf8E4M3FN>) outs(%o : memref<?x?x?x?xbf16>) descale(%d, %d, %d : memref<f32>, memref<f32>, memref<f32>) {scale = 0.25 : f32}
  return
}
