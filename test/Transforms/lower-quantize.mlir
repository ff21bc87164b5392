// RUN: fattn-opt %s -split-input-file -fattn-lower-quantize | FileCheck %s

// Per tensor: no loops over the (rank-0) descale; one sweep folds max |x|
// into the amax, then scale = max(amax / 448, 2^-126) is stored and a second
// sweep divides by it and rounds to e4m3 (integer ops from Float8Emulation).
// CHECK-LABEL: func.func @per_tensor
// CHECK-SAME: (%[[X:.*]]: memref<2x4x16x64xbf16, strided<[4096, 64, 256, 1]>>, %[[Y:.*]]: memref<2x4x16x64xf8E4M3FN>, %[[D:.*]]: memref<f32>)
// CHECK-DAG: %[[MAX:.*]] = arith.constant 4.480000e+02 : f32
// CHECK-DAG: %[[FLOOR:.*]] = arith.constant 1.17549435E-38 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[AMAX:.*]] = scf.for %[[B:.*]] = %c0 to %c2 step %c1 iter_args(%[[A0:.*]] = %[[ZERO]]) -> (f32)
// CHECK:   scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args
// CHECK:     scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args
// CHECK:       scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK:         %[[V:.*]] = memref.load %[[X]]
// CHECK:         %[[F:.*]] = arith.extf %[[V]] : bf16 to f32
// CHECK:         %[[ABS:.*]] = math.absf %[[F]] : f32
// CHECK:         %[[M:.*]] = arith.maximumf %[[ACC]], %[[ABS]] : f32
// CHECK:         scf.yield %[[M]] : f32
// CHECK: %[[R:.*]] = arith.divf %[[AMAX]], %[[MAX]] : f32
// CHECK: %[[SCALE:.*]] = arith.maximumf %[[R]], %[[FLOOR]] : f32
// CHECK: memref.store %[[SCALE]], %[[D]][] : memref<f32>
// CHECK: scf.for %[[B2:.*]] = %c0 to %c2
// CHECK:   scf.for %[[H2:.*]] = %c0 to %c4
// CHECK:     scf.for %[[S2:.*]] = %c0 to %c16
// CHECK:       scf.for %[[C2:.*]] = %c0 to %c64
// CHECK:         %[[V2:.*]] = memref.load %[[X]][%[[B2]], %[[H2]], %[[S2]], %[[C2]]]
// CHECK:         %[[F2:.*]] = arith.extf %[[V2]] : bf16 to f32
// CHECK:         %[[Q:.*]] = arith.divf %[[F2]], %[[SCALE]] : f32
// CHECK:         math.roundeven
// CHECK:         %[[BYTE:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK:         %[[E:.*]] = arith.bitcast %[[BYTE]] : i8 to f8E4M3FN
// CHECK:         memref.store %[[E]], %[[Y]][%[[B2]], %[[H2]], %[[S2]], %[[C2]]]
// CHECK-NOT: fattn.quantize
func.func @per_tensor(%x: memref<2x4x16x64xbf16, strided<[4096, 64, 256, 1]>>, %y: memref<2x4x16x64xf8E4M3FN>, %d: memref<f32>) {
  fattn.quantize ins(%x : memref<2x4x16x64xbf16, strided<[4096, 64, 256, 1]>>) outs(%y : memref<2x4x16x64xf8E4M3FN>) descale(%d : memref<f32>)
  return
}

// -----

// Per group of heads: element (b, g) covers batch b, heads [g * H/G, (g+1) * H/G).
// CHECK-LABEL: func.func @per_group
// CHECK-SAME: (%[[X:.*]]: memref<?x?x?x32xf16>, %{{.*}}: memref<?x?x?x32xf8E4M3FN>, %[[D:.*]]: memref<?x2xf32>)
// CHECK-DAG: %[[HEADS:.*]] = memref.dim %[[X]], %c1
// CHECK-DAG: %[[SEQ:.*]] = memref.dim %[[X]], %c2
// CHECK-DAG: %[[BATCH:.*]] = memref.dim %[[D]], %c0
// CHECK: scf.for %[[B:.*]] = %c0 to %[[BATCH]] step %c1
// CHECK:   scf.for %[[G:.*]] = %c0 to %c2 step %c1
// CHECK:     %[[PER:.*]] = arith.divui %[[HEADS]], %c2 : index
// CHECK:     %[[H0:.*]] = arith.muli %[[G]], %[[PER]] : index
// CHECK:     %[[B1:.*]] = arith.addi %[[B]], %c1 : index
// CHECK:     %[[H1:.*]] = arith.addi %[[H0]], %[[PER]] : index
// CHECK:     scf.for %{{.*}} = %[[B]] to %[[B1]] step %c1 iter_args
// CHECK:       scf.for %{{.*}} = %[[H0]] to %[[H1]] step %c1 iter_args
// CHECK:         scf.for %{{.*}} = %c0 to %[[SEQ]] step %c1 iter_args
// CHECK:     memref.store %{{.*}}, %[[D]][%[[B]], %[[G]]] : memref<?x2xf32>
func.func @per_group(%x: memref<?x?x?x32xf16>, %y: memref<?x?x?x32xf8E4M3FN>, %d: memref<?x2xf32>) {
  fattn.quantize ins(%x : memref<?x?x?x32xf16>) outs(%y : memref<?x?x?x32xf8E4M3FN>) descale(%d : memref<?x2xf32>)
  return
}

// -----

// Per block with the rotation: block (b, h, n) covers rows
// [n * 64, min(n * 64 + 64, seq)); each sweep rotates every row into one f32
// scratch row first (signs, log2(4) = 2 butterfly stages), then reads it
// times 1/sqrt(4).
// CHECK-LABEL: func.func @per_block_rotated
// CHECK-SAME: (%[[X:.*]]: memref<1x2x100x4xf32>, %[[S:.*]]: memref<4xf32>, %[[Y:.*]]: memref<1x2x100x4xf8E4M3FN>, %[[D:.*]]: memref<1x2x2xf32>)
// CHECK-DAG: %[[NORM:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[T:.*]] = memref.alloc() : memref<4xf32>
// CHECK: scf.for %[[B:.*]] = %c0 to %c1 step %c1
// CHECK:   scf.for %[[H:.*]] = %c0 to %c2 step %c1
// CHECK:     scf.for %[[N:.*]] = %c0 to %c2 step %c1
// CHECK:       %[[FIRST:.*]] = arith.muli %[[N]], %c64 : index
// CHECK:       %[[END:.*]] = arith.addi %[[FIRST]], %c64 : index
// CHECK:       %[[LAST:.*]] = arith.minui %[[END]], %c100 : index
// CHECK:       scf.for %{{.*}} = %[[FIRST]] to %[[LAST]] step %c1 iter_args
// CHECK:         scf.for %[[C:.*]] = %c0 to %c4 step %c1
// CHECK:           memref.load %[[S]][%[[C]]]
// CHECK:           memref.store %{{.*}}, %[[T]][%[[C]]]
// CHECK-COUNT-2:   scf.for %{{.*}} = %c0 to %c2 step %c1
// CHECK:         scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args
// CHECK:           %[[R:.*]] = memref.load %[[T]]
// CHECK:           %[[RN:.*]] = arith.mulf %[[R]], %[[NORM]] : f32
// CHECK:           math.absf %[[RN]]
// CHECK:       memref.store %[[SCALE:.*]], %[[D]][%[[B]], %[[H]], %[[N]]]
// CHECK:       scf.for %{{.*}} = %[[FIRST]] to %[[LAST]] step %c1
// CHECK:         scf.for %{{.*}} = %c0 to %c4 step %c1
// CHECK:           memref.load %[[S]]
// CHECK-COUNT-2:   scf.for %{{.*}} = %c0 to %c2 step %c1
// CHECK:         scf.for %{{.*}} = %c0 to %c4 step %c1
// CHECK:           %[[R2:.*]] = memref.load %[[T]]
// CHECK:           %[[RN2:.*]] = arith.mulf %[[R2]], %[[NORM]] : f32
// CHECK:           arith.divf %[[RN2]], %[[SCALE]] : f32
// CHECK:           memref.store %{{.*}}, %[[Y]]
// CHECK: memref.dealloc %[[T]] : memref<4xf32>
func.func @per_block_rotated(%x: memref<1x2x100x4xf32>, %s: memref<4xf32>, %y: memref<1x2x100x4xf8E4M3FN>, %d: memref<1x2x2xf32>) {
  fattn.quantize ins(%x : memref<1x2x100x4xf32>) signs(%s : memref<4xf32>) outs(%y : memref<1x2x100x4xf8E4M3FN>) descale(%d : memref<1x2x2xf32>) {block = 64 : i64}
  return
}
