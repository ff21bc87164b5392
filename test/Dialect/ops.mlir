// RUN: fattn-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: fattn-opt %s -split-input-file | fattn-opt -split-input-file | FileCheck %s
// RUN: fattn-opt %s -split-input-file -mlir-print-op-generic | fattn-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @attention_all_attrs
// CHECK: fattn.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<2x8x1000x64xf32>, memref<2x2x1000x64xf32>, memref<2x2x1000x64xf32>) outs(%{{.*}} : memref<2x8x1000x64xf32>) lse(%{{.*}} : memref<2x8x1000xf32>) {causal = true, scale = 1.250000e-01 : f32, softcap = 3.000000e+01 : f32, window_left = 128 : i64, window_right = 0 : i64}
func.func @attention_all_attrs(%q: memref<2x8x1000x64xf32>, %k: memref<2x2x1000x64xf32>, %v: memref<2x2x1000x64xf32>, %o: memref<2x8x1000x64xf32>, %lse: memref<2x8x1000xf32>) {
  fattn.attention ins(%q, %k, %v : memref<2x8x1000x64xf32>, memref<2x2x1000x64xf32>, memref<2x2x1000x64xf32>)
                  outs(%o : memref<2x8x1000x64xf32>) lse(%lse : memref<2x8x1000xf32>)
                  {scale = 0.125 : f32, causal = true, window_left = 128 : i64, window_right = 0 : i64, softcap = 30.0 : f32}
  return
}

// -----

// No LSE, no attributes, dynamic sizes, strided BSHD views, bf16, MLA-style head dims.
// CHECK-LABEL: func.func @attention_dynamic_strided
// CHECK: fattn.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<?x?x?x192xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x192xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%{{.*}} : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>){{$}}
func.func @attention_dynamic_strided(%q: memref<?x?x?x192xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x192xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x192xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x192xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>)
                  outs(%o : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>)
  return
}

// -----

// CHECK-LABEL: func.func @attention_f16_window
// CHECK: fattn.attention {{.*}} {window_left = 16 : i64, window_right = 4 : i64}
func.func @attention_f16_window(%q: memref<1x4x33x32xf16>, %k: memref<1x1x65x32xf16>, %v: memref<1x1x65x32xf16>, %o: memref<1x4x33x32xf16>) {
  fattn.attention ins(%q, %k, %v : memref<1x4x33x32xf16>, memref<1x1x65x32xf16>, memref<1x1x65x32xf16>)
                  outs(%o : memref<1x4x33x32xf16>) {window_left = 16 : i64, window_right = 4 : i64}
  return
}

// -----

// Every op of the tiled form.
// CHECK-LABEL: func.func @tiled_form
// CHECK: fattn.tiled_attention ins({{.*}}) outs({{.*}}) lse({{.*}}) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 2.500000e-01 : f32, softcap = 5.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[H:.*]]: index, %[[M:.*]]: index):
// CHECK: %[[Q:.*]] = fattn.load_tile %{{.*}}[%[[B]], %[[H]], %{{.*}}] : memref<?x?x?x16xf32> -> tensor<16x16xf32>
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = fattn.kv_tile_range %[[M]], %{{.*}}, %{{.*}} {block_m = 16 : i64, block_n = 8 : i64, window_left = -1 : i64, window_right = 0 : i64}
// CHECK: %[[MAX:.*]], %[[SUM:.*]], %[[ACC:.*]] = fattn.softmax_init : tensor<16xf32>, tensor<16xf32>, tensor<16x16xf32>
// CHECK: %[[K:.*]] = fattn.load_tile
// CHECK: %[[S:.*]] = fattn.mma %[[Q]], %[[K]] {transpose_rhs} : tensor<16x16xf32>, tensor<8x16xf32> -> tensor<16x8xf32>
// CHECK: %[[C:.*]] = fattn.softcap %[[S]] {scale = 2.500000e-01 : f32, softcap = 5.000000e+00 : f32} : tensor<16x8xf32>
// CHECK: %[[MS:.*]] = fattn.mask %[[C]] at[%{{.*}}, %{{.*}}] seq_lens(%{{.*}}, %{{.*}}) {window_left = -1 : i64, window_right = 0 : i64} : tensor<16x8xf32>
// CHECK: %[[P:.*]], %[[M1:.*]], %[[L1:.*]], %[[ALPHA:.*]] = fattn.softmax_update %[[MS]], %[[MAX]], %[[SUM]] {scale = 1.000000e+00 : f32} : tensor<16x8xf32>, tensor<16xf32> -> tensor<16x8xf32>
// CHECK: %[[R:.*]] = fattn.rescale %[[ACC]], %[[ALPHA]] : tensor<16x16xf32>, tensor<16xf32>
// CHECK: %[[O:.*]] = fattn.mma %[[P]], %{{.*}} acc(%[[R]] : tensor<16x16xf32>) : tensor<16x8xf32>, tensor<8x16xf32> -> tensor<16x16xf32>
// CHECK: %[[OUT:.*]], %[[LSE:.*]] = fattn.finalize %[[O]], %[[M1]], %[[L1]] {scale = 1.000000e+00 : f32} : tensor<16x16xf32>, tensor<16xf32> -> tensor<16x16xf32>
// CHECK: fattn.store_tile %[[OUT]], %{{.*}}[%[[B]], %[[H]], %{{.*}}] : tensor<16x16xf32>, memref<?x?x?x16xf32>
// CHECK: fattn.store_tile %[[LSE]], %{{.*}}[%[[B]], %[[H]], %{{.*}}] : tensor<16xf32>, memref<?x?x?xf32>
func.func @tiled_form(%Q: memref<?x?x?x16xf32>, %K: memref<?x?x?x16xf32>, %V: memref<?x?x?x16xf32>, %O: memref<?x?x?x16xf32>, %LSE: memref<?x?x?xf32>, %sq: index, %sk: index) {
  fattn.tiled_attention ins(%Q, %K, %V : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) outs(%O : memref<?x?x?x16xf32>) lse(%LSE : memref<?x?x?xf32>) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = 5.0 : f32, window_left = -1 : i64, window_right = 0 : i64} {
  ^bb0(%b: index, %h: index, %m: index):
    %c16 = arith.constant 16 : index
    %row = arith.muli %m, %c16 : index
    %q = fattn.load_tile %Q[%b, %h, %row] : memref<?x?x?x16xf32> -> tensor<16x16xf32>
    %lo, %flo, %fhi, %hi = fattn.kv_tile_range %m, %sq, %sk {block_m = 16 : i64, block_n = 8 : i64, window_left = -1 : i64, window_right = 0 : i64}
    %max, %sum, %acc = fattn.softmax_init : tensor<16xf32>, tensor<16xf32>, tensor<16x16xf32>
    %k = fattn.load_tile %K[%b, %h, %lo] : memref<?x?x?x16xf32> -> tensor<8x16xf32>
    %s = fattn.mma %q, %k {transpose_rhs} : tensor<16x16xf32>, tensor<8x16xf32> -> tensor<16x8xf32>
    %c = fattn.softcap %s {scale = 0.25 : f32, softcap = 5.0 : f32} : tensor<16x8xf32>
    %ms = fattn.mask %c at [%row, %lo] seq_lens(%sq, %sk) {window_left = -1 : i64, window_right = 0 : i64} : tensor<16x8xf32>
    %p, %m1, %l1, %alpha = fattn.softmax_update %ms, %max, %sum {scale = 1.0 : f32} : tensor<16x8xf32>, tensor<16xf32> -> tensor<16x8xf32>
    %r = fattn.rescale %acc, %alpha : tensor<16x16xf32>, tensor<16xf32>
    %v = fattn.load_tile %V[%b, %h, %lo] : memref<?x?x?x16xf32> -> tensor<8x16xf32>
    %o = fattn.mma %p, %v acc(%r : tensor<16x16xf32>) : tensor<16x8xf32>, tensor<8x16xf32> -> tensor<16x16xf32>
    %out, %lse = fattn.finalize %o, %m1, %l1 {scale = 1.0 : f32} : tensor<16x16xf32>, tensor<16xf32> -> tensor<16x16xf32>
    fattn.store_tile %out, %O[%b, %h, %row] : tensor<16x16xf32>, memref<?x?x?x16xf32>
    fattn.store_tile %lse, %LSE[%b, %h, %row] : tensor<16xf32>, memref<?x?x?xf32>
  }
  return
}

// -----

// Narrow probabilities and output for bf16 inputs.
// CHECK-LABEL: func.func @tiled_bf16
// CHECK: fattn.softmax_update {{.*}} -> tensor<64x64xbf16>
// CHECK: fattn.finalize {{.*}} -> tensor<64x128xbf16>
func.func @tiled_bf16(%s: tensor<64x64xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>, %acc: tensor<64x128xf32>) -> (tensor<64x64xbf16>, tensor<64x128xbf16>) {
  %p, %m1, %l1, %alpha = fattn.softmax_update %s, %m, %l {scale = 0.088 : f32} : tensor<64x64xf32>, tensor<64xf32> -> tensor<64x64xbf16>
  %o, %lse = fattn.finalize %acc, %m1, %l1 {scale = 0.088 : f32} : tensor<64x128xf32>, tensor<64xf32> -> tensor<64x128xbf16>
  return %p, %o : tensor<64x64xbf16>, tensor<64x128xbf16>
}

// -----

// FP8 with per-block descales.
// CHECK-LABEL: func.func @attention_fp8
// CHECK: fattn.attention ins({{.*}} : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%{{.*}} : memref<?x?x?x128xbf16>) descale(%{{.*}}, %{{.*}}, %{{.*}} : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {causal = true, descale_block_kv = 128 : i64, descale_block_q = 64 : i64}
func.func @attention_fp8(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
                  descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>)
                  {causal = true, descale_block_q = 64 : i64, descale_block_kv = 128 : i64}
  return
}

// -----

// CHECK-LABEL: func.func @tiled_fp8_ops
// CHECK: %[[QS:.*]] = fattn.load_descale %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<2x4xf32> -> tensor<64xf32>
// CHECK: %[[KS:.*]] = fattn.load_descale %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] {block = 32 : i64} : memref<2x4x8xf32> -> tensor<32xf32>
// CHECK: fattn.mma %{{.*}}, %{{.*}} lhs_scale(%[[QS]] : tensor<64xf32>) rhs_scale(%[[KS]] : tensor<32xf32>) {transpose_rhs} : tensor<64x128xf8E4M3FN>, tensor<32x128xf8E4M3FN> -> tensor<64x32xf32>
func.func @tiled_fp8_ops(%q: tensor<64x128xf8E4M3FN>, %k: tensor<32x128xf8E4M3FN>, %dq: memref<2x4xf32>, %dk: memref<2x4x8xf32>, %i: index) -> tensor<64x32xf32> {
  %qs = fattn.load_descale %dq[%i, %i, %i] : memref<2x4xf32> -> tensor<64xf32>
  %ks = fattn.load_descale %dk[%i, %i, %i] {block = 32 : i64} : memref<2x4x8xf32> -> tensor<32xf32>
  %s = fattn.mma %q, %k lhs_scale(%qs : tensor<64xf32>) rhs_scale(%ks : tensor<32xf32>) {transpose_rhs} : tensor<64x128xf8E4M3FN>, tensor<32x128xf8E4M3FN> -> tensor<64x32xf32>
  return %s : tensor<64x32xf32>
}
