// RUN: fattn-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: fattn-opt %s -split-input-file | fattn-opt -split-input-file | FileCheck %s
// RUN: fattn-opt %s -split-input-file -mlir-print-op-generic | fattn-opt -split-input-file | FileCheck %s

// The scale and the softcap as SSA operands (runtime scalars), on memrefs.
// CHECK-LABEL: func.func @attention_runtime_scalars
// CHECK-SAME: (%{{.*}}: memref<?x?x?x64xbf16>, %{{.*}}: memref<?x?x?x64xbf16>, %{{.*}}: memref<?x?x?x64xbf16>, %{{.*}}: memref<?x?x?x64xbf16>, %[[S:.*]]: f32, %[[C:.*]]: f32)
// CHECK: fattn.attention ins({{.*}}) outs(%{{.*}} : memref<?x?x?x64xbf16>) scale(%[[S]] : f32) softcap(%[[C]] : f32) {causal = true}
func.func @attention_runtime_scalars(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>, %s: f32, %c: f32) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>)
                  outs(%o : memref<?x?x?x64xbf16>) scale(%s : f32) softcap(%c : f32) {causal = true}
  return
}

// -----

// A dynamic scale needs no static head dim; the softcap stays an attribute.
// CHECK-LABEL: func.func @attention_runtime_scale
// CHECK: fattn.attention ins({{.*}}) outs(%{{.*}} : memref<?x?x?x?xf32>) lse(%{{.*}} : memref<?x?x?xf32>) scale(%{{.*}} : f32) {softcap = 3.000000e+01 : f32}
func.func @attention_runtime_scale(%q: memref<?x?x?x?xf32>, %k: memref<?x?x?x?xf32>, %v: memref<?x?x?x?xf32>, %o: memref<?x?x?x?xf32>, %lse: memref<?x?x?xf32>, %s: f32) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>)
                  outs(%o : memref<?x?x?x?xf32>) lse(%lse : memref<?x?x?xf32>) scale(%s : f32) {softcap = 30.0 : f32}
  return
}

// -----

// The tensor form carries the operands.
// CHECK-LABEL: func.func @attention_tensor_softcap
// CHECK: %{{.*}} = fattn.attention ins({{.*}}) outs(%{{.*}} : tensor<1x2x64x32xf16>) softcap(%{{.*}} : f32) -> tensor<1x2x64x32xf16>
func.func @attention_tensor_softcap(%q: tensor<1x2x64x32xf16>, %k: tensor<1x2x64x32xf16>, %v: tensor<1x2x64x32xf16>, %o: tensor<1x2x64x32xf16>, %c: f32) -> tensor<1x2x64x32xf16> {
  %r = fattn.attention ins(%q, %k, %v : tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16>)
                       outs(%o : tensor<1x2x64x32xf16>) softcap(%c : f32) -> tensor<1x2x64x32xf16>
  return %r : tensor<1x2x64x32xf16>
}

// -----

// The tiled form and the tile ops with runtime scalars.
// CHECK-LABEL: func.func @tiled_runtime_scalars
// CHECK: fattn.tiled_attention ins({{.*}}) outs({{.*}}) scale(%[[S:.*]] : f32) softcap(%[[CAP:.*]] : f32) attributes {block_m = 16 : i64, block_n = 8 : i64, window_left = -1 : i64, window_right = 0 : i64} {
// CHECK: fattn.softcap %{{.*}} scale(%[[S]] : f32) softcap(%[[CAP]] : f32) : tensor<16x8xf32>
// CHECK: fattn.softcap %{{.*}} softcap(%[[CAP]] : f32) {scale = 5.000000e-01 : f32} : tensor<16x8xf32>
// CHECK: fattn.softmax_update %{{.*}}, %{{.*}}, %{{.*}} scale(%[[S]] : f32) : tensor<16x8xf32>, tensor<16xf32> -> tensor<16x8xf32>
// CHECK: fattn.finalize %{{.*}}, %{{.*}}, %{{.*}} scale(%[[S]] : f32) : tensor<16x16xf32>, tensor<16xf32> -> tensor<16x16xf32>
func.func @tiled_runtime_scalars(%Q: memref<?x?x?x16xf32>, %K: memref<?x?x?x16xf32>, %V: memref<?x?x?x16xf32>, %O: memref<?x?x?x16xf32>, %scale: f32, %cap: f32) {
  fattn.tiled_attention ins(%Q, %K, %V : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) outs(%O : memref<?x?x?x16xf32>) scale(%scale : f32) softcap(%cap : f32) attributes {block_m = 16 : i64, block_n = 8 : i64, window_left = -1 : i64, window_right = 0 : i64} {
  ^bb0(%b: index, %h: index, %mt: index):
    %q = fattn.load_tile %Q[%b, %h, %mt] : memref<?x?x?x16xf32> -> tensor<16x16xf32>
    %k = fattn.load_tile %K[%b, %h, %mt] : memref<?x?x?x16xf32> -> tensor<8x16xf32>
    %s = fattn.mma %q, %k {transpose_rhs} : tensor<16x16xf32>, tensor<8x16xf32> -> tensor<16x8xf32>
    %c = fattn.softcap %s scale(%scale : f32) softcap(%cap : f32) : tensor<16x8xf32>
    %c2 = fattn.softcap %c softcap(%cap : f32) {scale = 0.5 : f32} : tensor<16x8xf32>
    %max, %sum, %acc = fattn.softmax_init : tensor<16xf32>, tensor<16xf32>, tensor<16x16xf32>
    %p, %m1, %l1, %alpha = fattn.softmax_update %c2, %max, %sum scale(%scale : f32) : tensor<16x8xf32>, tensor<16xf32> -> tensor<16x8xf32>
    %out, %lse = fattn.finalize %acc, %m1, %l1 scale(%scale : f32) : tensor<16x16xf32>, tensor<16xf32> -> tensor<16x16xf32>
    fattn.store_tile %out, %O[%b, %h, %mt] : tensor<16x16xf32>, memref<?x?x?x16xf32>
  }
  return
}
