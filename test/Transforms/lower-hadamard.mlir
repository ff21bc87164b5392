// RUN: fattn-opt %s -fattn-lower-hadamard | FileCheck %s

// A loop nest over the leading dims; per row: signs into an f32 scratch row,
// log2(8) = 3 butterfly stages of 4 pairs, then the 1/sqrt(8) scale and the
// conversion to the output type.
// CHECK-LABEL: func.func @rotate
// CHECK-SAME: (%[[X:.*]]: memref<?x8xbf16>, %[[S:.*]]: memref<8xf32>, %[[Y:.*]]: memref<?x8xf16>)
// CHECK-DAG: %[[NORM:.*]] = arith.constant 0.353553385 : f32
// CHECK: %[[T:.*]] = memref.alloc() : memref<8xf32>
// CHECK: scf.for %[[R:.*]] = %c0 to %{{.*}} step %c1
// CHECK:   scf.for %[[C:.*]] = %c0 to %c8 step %c1
// CHECK:     %[[XV:.*]] = memref.load %[[X]][%[[R]], %[[C]]]
// CHECK:     %[[XF:.*]] = arith.extf %[[XV]] : bf16 to f32
// CHECK:     %[[SV:.*]] = memref.load %[[S]][%[[C]]]
// CHECK:     %[[P:.*]] = arith.mulf %[[XF]], %[[SV]]
// CHECK:     memref.store %[[P]], %[[T]][%[[C]]]
// CHECK-COUNT-3: scf.for %{{.*}} = %c0 to %c4 step %c1
// CHECK:   scf.for %[[C2:.*]] = %c0 to %c8 step %c1
// CHECK:     %[[V:.*]] = memref.load %[[T]][%[[C2]]]
// CHECK:     %[[W:.*]] = arith.mulf %[[V]], %[[NORM]]
// CHECK:     %[[WT:.*]] = arith.truncf %[[W]] : f32 to f16
// CHECK:     memref.store %[[WT]], %[[Y]][%[[R]], %[[C2]]]
// CHECK: memref.dealloc %[[T]]
// CHECK-NOT: fattn.hadamard_rotate
func.func @rotate(%x: memref<?x8xbf16>, %s: memref<8xf32>, %y: memref<?x8xf16>) {
  fattn.hadamard_rotate ins(%x : memref<?x8xbf16>) signs(%s : memref<8xf32>) outs(%y : memref<?x8xf16>)
  return
}
