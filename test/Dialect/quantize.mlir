// RUN: fattn-opt %s -split-input-file | FileCheck %s
// RUN: fattn-opt %s -split-input-file | fattn-opt -split-input-file | FileCheck %s
// RUN: fattn-opt %s -split-input-file -mlir-print-op-generic | fattn-opt -split-input-file | FileCheck %s

// Per tensor, from a strided BSHD view of bf16 data.
// CHECK-LABEL: func.func @per_tensor
// CHECK: fattn.quantize ins(%{{.*}} : memref<2x4x16x64xbf16, strided<[4096, 64, 256, 1]>>) outs(%{{.*}} : memref<2x4x16x64xf8E4M3FN>) descale(%{{.*}} : memref<f32>)
// CHECK-NOT: block
func.func @per_tensor(%x: memref<2x4x16x64xbf16, strided<[4096, 64, 256, 1]>>, %y: memref<2x4x16x64xf8E4M3FN>, %d: memref<f32>) {
  fattn.quantize ins(%x : memref<2x4x16x64xbf16, strided<[4096, 64, 256, 1]>>) outs(%y : memref<2x4x16x64xf8E4M3FN>) descale(%d : memref<f32>)
  return
}

// -----

// Per group of heads (Q of a GQA attention with 2 KV heads), dynamic sizes.
// CHECK-LABEL: func.func @per_group
// CHECK: fattn.quantize ins(%{{.*}} : memref<?x?x?x32xf16>) outs(%{{.*}} : memref<?x?x?x32xf8E4M3FN>) descale(%{{.*}} : memref<?x2xf32>)
func.func @per_group(%x: memref<?x?x?x32xf16>, %y: memref<?x?x?x32xf8E4M3FN>, %d: memref<?x2xf32>) {
  fattn.quantize ins(%x : memref<?x?x?x32xf16>) outs(%y : memref<?x?x?x32xf8E4M3FN>) descale(%d : memref<?x2xf32>)
  return
}

// -----

// Per block, rotated first.
// CHECK-LABEL: func.func @per_block_rotated
// CHECK: fattn.quantize ins(%{{.*}} : memref<1x2x100x128xf32>) signs(%{{.*}} : memref<128xf32>) outs(%{{.*}} : memref<1x2x100x128xf8E4M3FN>) descale(%{{.*}} : memref<1x2x2xf32>) {block = 64 : i64}
func.func @per_block_rotated(%x: memref<1x2x100x128xf32>, %s: memref<128xf32>, %y: memref<1x2x100x128xf8E4M3FN>, %d: memref<1x2x2xf32>) {
  fattn.quantize ins(%x : memref<1x2x100x128xf32>) signs(%s : memref<128xf32>) outs(%y : memref<1x2x100x128xf8E4M3FN>) descale(%d : memref<1x2x2xf32>) {block = 64 : i64}
  return
}
