// RUN: fattn-opt %s -fattn-lower-tiled-to-linalg | FileCheck %s

// The CPU lowering of a transposed load: the D x R tile of columns
// [col, col + R) of V^T[b, h] ([.., D, keys]); the columns that exist
// (min(keys - col, R), at least 0) are inserted into a zero tile.
// CHECK-LABEL: func.func @load_transposed
// CHECK-SAME: (%[[V:.*]]: memref<?x?x32x?xf8E4M3FN>, %[[B:.*]]: index, %[[H:.*]]: index, %[[COL:.*]]: index)
// CHECK: %[[KEYS:.*]] = memref.dim %[[V]], %c3
// CHECK: %[[LEFT:.*]] = arith.subi %[[KEYS]], %[[COL]]
// CHECK: %[[MIN:.*]] = arith.minsi %[[LEFT]], %c64
// CHECK: %[[N:.*]] = arith.maxsi %[[MIN]], %c0
// CHECK: %[[VIEW:.*]] = memref.subview %[[V]][%[[B]], %[[H]], 0, %[[COL]]] [1, 1, 32, %[[N]]] [1, 1, 1, 1] : memref<?x?x32x?xf8E4M3FN> to memref<32x?xf8E4M3FN, strided<[?, 1], offset: ?>>
// CHECK: %[[PART:.*]] = bufferization.to_tensor %[[VIEW]] restrict : memref<32x?xf8E4M3FN, strided<[?, 1], offset: ?>> to tensor<32x?xf8E4M3FN>
// CHECK: %[[ZERO:.*]] = linalg.fill {{.*}} -> tensor<32x64xf8E4M3FN>
// CHECK: %[[T:.*]] = tensor.insert_slice %[[PART]] into %[[ZERO]][0, 0] [32, %[[N]]] [1, 1] : tensor<32x?xf8E4M3FN> into tensor<32x64xf8E4M3FN>
// CHECK: return %[[T]]
func.func @load_transposed(%V: memref<?x?x32x?xf8E4M3FN>, %b: index, %h: index, %col: index) -> tensor<32x64xf8E4M3FN> {
  %t = fattn.load_tile %V[%b, %h, %col] {transposed} : memref<?x?x32x?xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  return %t : tensor<32x64xf8E4M3FN>
}
