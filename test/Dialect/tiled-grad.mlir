// RUN: fattn-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: fattn-opt %s -split-input-file | fattn-opt -split-input-file | FileCheck %s
// RUN: fattn-opt %s -split-input-file -mlir-print-op-generic | fattn-opt -split-input-file | FileCheck %s

// The tiled backward: its three grids and every tile op of the backward,
// with the forward's (load_tile, mma, softcap, mask, store_tile) among them.
// CHECK-LABEL: func.func @tiled_grad
// CHECK: fattn.tiled_attention_grad ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>, memref<?x?x?x8xbf16>, memref<?x?x?x8xbf16>, memref<?x?x?x8xbf16>, memref<?x?x?xf32>) outs(%{{.*}}, %{{.*}}, %{{.*}} : memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>, memref<?x?x?x8xbf16>) workspace(%{{.*}}, %{{.*}} : memref<?x?x?xf32>, memref<?x?x?x16xf32>) attributes {block_m = 16 : i64, block_n = 8 : i64, deterministic, scale = 2.500000e-01 : f32, softcap = 5.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} preprocess {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[H:.*]]: index, %[[M:.*]]: index):
// CHECK: %[[D:.*]] = fattn.row_dot %{{.*}}, %{{.*}} : tensor<16x8xbf16> -> tensor<16xf32>
// CHECK: fattn.store_tile %[[D]], %{{.*}}[%[[B]], %[[H]], %{{.*}}] : tensor<16xf32>, memref<?x?x?xf32>
// CHECK: } body {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[N:.*]]: index):
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = fattn.q_tile_range %[[N]], %{{.*}}, %{{.*}} {block_m = 16 : i64, block_n = 8 : i64, window_left = -1 : i64, window_right = 0 : i64}
// CHECK: %[[S:.*]] = fattn.mma %{{.*}}, %{{.*}} {transpose_rhs} : tensor<16x16xbf16>, tensor<8x16xbf16> -> tensor<16x8xf32>
// CHECK: %[[C:.*]] = fattn.softcap %[[S]] {scale = 2.500000e-01 : f32, softcap = 5.000000e+00 : f32} : tensor<16x8xf32>
// CHECK: %[[MS:.*]] = fattn.mask %[[C]]
// CHECK: %[[P:.*]] = fattn.grad_probs %[[MS]], %{{.*}} {scale = 1.000000e+00 : f32} : tensor<16x8xf32>, tensor<16xf32>
// CHECK: %[[DV:.*]] = fattn.mma_transpose_lhs %[[P]], %{{.*}} acc(%{{.*}}) : tensor<16x8xf32>, tensor<16x8xbf16> -> tensor<8x8xf32>
// CHECK: %[[DP:.*]] = fattn.mma %{{.*}}, %{{.*}} {transpose_rhs} : tensor<16x8xbf16>, tensor<8x8xbf16> -> tensor<16x8xf32>
// CHECK: %[[DS:.*]] = fattn.grad_scores %[[P]], %[[DP]], %{{.*}} capped(%[[C]] : tensor<16x8xf32>) {softcap = 5.000000e+00 : f32} : tensor<16x8xf32>, tensor<16xf32> -> tensor<16x8xbf16>
// CHECK: %[[DK:.*]] = fattn.mma_transpose_lhs %[[DS]], %{{.*}} acc(%{{.*}}) : tensor<16x8xbf16>, tensor<16x16xbf16> -> tensor<8x16xf32>
// CHECK: %[[DQ:.*]] = fattn.mma %[[DS]], %{{.*}} : tensor<16x8xbf16>, tensor<8x16xbf16> -> tensor<16x16xf32>
// CHECK: fattn.accumulate_tile %[[DQ]], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] {deterministic} : tensor<16x16xf32>, memref<?x?x?x16xf32>
// CHECK: fattn.scale_tile %{{.*}} {scale = 2.500000e-01 : f32} : tensor<8x16xf32> -> tensor<8x16xbf16>
// CHECK: } postprocess {
// CHECK: fattn.scale_tile %{{.*}} {scale = 2.500000e-01 : f32} : tensor<16x16xf32> -> tensor<16x16xbf16>
func.func @tiled_grad(%Q: memref<?x?x?x16xbf16>, %K: memref<?x?x?x16xbf16>, %V: memref<?x?x?x8xbf16>,
                      %O: memref<?x?x?x8xbf16>, %dO: memref<?x?x?x8xbf16>, %LSE: memref<?x?x?xf32>,
                      %dQ: memref<?x?x?x16xbf16>, %dK: memref<?x?x?x16xbf16>, %dV: memref<?x?x?x8xbf16>,
                      %Delta: memref<?x?x?xf32>, %dQacc: memref<?x?x?x16xf32>, %sq: index, %sk: index) {
  fattn.tiled_attention_grad ins(%Q, %K, %V, %O, %dO, %LSE : memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>, memref<?x?x?x8xbf16>, memref<?x?x?x8xbf16>, memref<?x?x?x8xbf16>, memref<?x?x?xf32>)
      outs(%dQ, %dK, %dV : memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>, memref<?x?x?x8xbf16>)
      workspace(%Delta, %dQacc : memref<?x?x?xf32>, memref<?x?x?x16xf32>)
      attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = 5.0 : f32, window_left = -1 : i64, window_right = 0 : i64, deterministic}
  preprocess {
  ^bb0(%b: index, %h: index, %m: index):
    %c16 = arith.constant 16 : index
    %row = arith.muli %m, %c16 : index
    %o = fattn.load_tile %O[%b, %h, %row] : memref<?x?x?x8xbf16> -> tensor<16x8xbf16>
    %do = fattn.load_tile %dO[%b, %h, %row] : memref<?x?x?x8xbf16> -> tensor<16x8xbf16>
    %d = fattn.row_dot %do, %o : tensor<16x8xbf16> -> tensor<16xf32>
    fattn.store_tile %d, %Delta[%b, %h, %row] : tensor<16xf32>, memref<?x?x?xf32>
    %zero = arith.constant dense<0.0> : tensor<16x16xf32>
    fattn.store_tile %zero, %dQacc[%b, %h, %row] : tensor<16x16xf32>, memref<?x?x?x16xf32>
  } body {
  ^bb0(%b: index, %kvh: index, %n: index):
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %col = arith.muli %n, %c8 : index
    %k = fattn.load_tile %K[%b, %kvh, %col] : memref<?x?x?x16xbf16> -> tensor<8x16xbf16>
    %v = fattn.load_tile %V[%b, %kvh, %col] : memref<?x?x?x8xbf16> -> tensor<8x8xbf16>
    %lo, %flo, %fhi, %hi = fattn.q_tile_range %n, %sq, %sk {block_m = 16 : i64, block_n = 8 : i64, window_left = -1 : i64, window_right = 0 : i64}
    %row = arith.muli %fhi, %c16 : index
    %q = fattn.load_tile %Q[%b, %kvh, %row] : memref<?x?x?x16xbf16> -> tensor<16x16xbf16>
    %do = fattn.load_tile %dO[%b, %kvh, %row] : memref<?x?x?x8xbf16> -> tensor<16x8xbf16>
    %lse = fattn.load_tile %LSE[%b, %kvh, %row] : memref<?x?x?xf32> -> tensor<16xf32>
    %d = fattn.load_tile %Delta[%b, %kvh, %row] : memref<?x?x?xf32> -> tensor<16xf32>
    %s = fattn.mma %q, %k {transpose_rhs} : tensor<16x16xbf16>, tensor<8x16xbf16> -> tensor<16x8xf32>
    %c = fattn.softcap %s {scale = 0.25 : f32, softcap = 5.0 : f32} : tensor<16x8xf32>
    %ms = fattn.mask %c at [%row, %col] seq_lens(%sq, %sk) {window_left = -1 : i64, window_right = 0 : i64} : tensor<16x8xf32>
    %p = fattn.grad_probs %ms, %lse {scale = 1.0 : f32} : tensor<16x8xf32>, tensor<16xf32>
    %dv0 = arith.constant dense<0.0> : tensor<8x8xf32>
    %dv = fattn.mma_transpose_lhs %p, %do acc(%dv0) : tensor<16x8xf32>, tensor<16x8xbf16> -> tensor<8x8xf32>
    %dp = fattn.mma %do, %v {transpose_rhs} : tensor<16x8xbf16>, tensor<8x8xbf16> -> tensor<16x8xf32>
    %ds = fattn.grad_scores %p, %dp, %d capped(%c : tensor<16x8xf32>) {softcap = 5.0 : f32} : tensor<16x8xf32>, tensor<16xf32> -> tensor<16x8xbf16>
    %dk0 = arith.constant dense<0.0> : tensor<8x16xf32>
    %dk = fattn.mma_transpose_lhs %ds, %q acc(%dk0) : tensor<16x8xbf16>, tensor<16x16xbf16> -> tensor<8x16xf32>
    %dq = fattn.mma %ds, %k : tensor<16x8xbf16>, tensor<8x16xbf16> -> tensor<16x16xf32>
    fattn.accumulate_tile %dq, %dQacc[%b, %kvh, %row] {deterministic} : tensor<16x16xf32>, memref<?x?x?x16xf32>
    %dk_out = fattn.scale_tile %dk {scale = 0.25 : f32} : tensor<8x16xf32> -> tensor<8x16xbf16>
    fattn.store_tile %dk_out, %dK[%b, %kvh, %col] : tensor<8x16xbf16>, memref<?x?x?x16xbf16>
    %dv_out = fattn.scale_tile %dv {scale = 1.0 : f32} : tensor<8x8xf32> -> tensor<8x8xbf16>
    fattn.store_tile %dv_out, %dV[%b, %kvh, %col] : tensor<8x8xbf16>, memref<?x?x?x8xbf16>
  } postprocess {
  ^bb0(%b: index, %h: index, %m: index):
    %c16 = arith.constant 16 : index
    %row = arith.muli %m, %c16 : index
    %acc = fattn.load_tile %dQacc[%b, %h, %row] : memref<?x?x?x16xf32> -> tensor<16x16xf32>
    %dq = fattn.scale_tile %acc {scale = 0.25 : f32} : tensor<16x16xf32> -> tensor<16x16xbf16>
    fattn.store_tile %dq, %dQ[%b, %h, %row] : tensor<16x16xbf16>, memref<?x?x?x16xbf16>
  }
  return
}

// -----

// f32 without softcap: dS stays f32, no capped scores.
// CHECK-LABEL: func.func @grad_scores_f32
// CHECK: fattn.grad_scores %{{.*}}, %{{.*}}, %{{.*}} {softcap = 0.000000e+00 : f32} : tensor<64x32xf32>, tensor<64xf32> -> tensor<64x32xf32>
// CHECK: fattn.accumulate_tile %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<64x16xf32>, memref<2x4x100x16xf32>
func.func @grad_scores_f32(%p: tensor<64x32xf32>, %dp: tensor<64x32xf32>, %d: tensor<64xf32>, %dq: tensor<64x16xf32>, %acc: memref<2x4x100x16xf32>, %i: index) -> tensor<64x32xf32> {
  %ds = fattn.grad_scores %p, %dp, %d {softcap = 0.0 : f32} : tensor<64x32xf32>, tensor<64xf32> -> tensor<64x32xf32>
  fattn.accumulate_tile %dq, %acc[%i, %i, %i] : tensor<64x16xf32>, memref<2x4x100x16xf32>
  return %ds : tensor<64x32xf32>
}
