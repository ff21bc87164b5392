// RUN: fattn-opt %s --fattn-tile-grad="block-m=64 block-n=128" | FileCheck %s

// The backward example of docs/IR.md (L1, "Backward"): the lines the
// document shows, in order. Change both together.
// CHECK: fattn.tiled_attention_grad ins({{.*}}) outs({{.*}}) workspace(%alloc, %alloc_0 : memref<1x2x256xf32>, memref<1x2x256x128xf32>) attributes {block_m = 64 : i64, block_n = 128 : i64, scale = 0.0883883461 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} preprocess {
// CHECK-NEXT: ^bb0(%arg9: index, %arg10: index, %arg11: index):
// CHECK: %3 = fattn.row_dot %2, %1 : tensor<64x128xbf16> -> tensor<64xf32>
// CHECK: } body {
// CHECK-NEXT: ^bb0(%arg9: index, %arg10: index, %arg11: index):
// CHECK: %lo, %full_lo, %full_hi, %hi = fattn.q_tile_range %arg11, %dim, %dim_2 {block_m = 64 : i64, block_n = 128 : i64, window_left = -1 : i64, window_right = 0 : i64}
// CHECK: %5:2 = scf.for %arg12 = %c0 to %0 step %c1 iter_args(
// CHECK: %9:2 = scf.for %arg15 = %lo to %full_lo step %c1_8 iter_args(
// CHECK: %17 = fattn.mma %13, %2 {transpose_rhs} : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xf32>
// CHECK-NEXT: %18 = fattn.mask %17 at[%12, %1] seq_lens(%dim, %dim_2) {window_left = -1 : i64, window_right = 0 : i64} : tensor<64x128xf32>
// CHECK-NEXT: %19 = fattn.grad_probs %18, %15 {scale = 0.0883883461 : f32} : tensor<64x128xf32>, tensor<64xf32>
// CHECK-NEXT: %20 = fattn.mma_transpose_lhs %19, %14 acc(%arg17) : tensor<64x128xf32>, tensor<64x128xbf16> -> tensor<128x128xf32>
// CHECK-NEXT: %21 = fattn.mma %14, %3 {transpose_rhs} : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xf32>
// CHECK-NEXT: %22 = fattn.grad_scores %19, %21, %16 {softcap = 0.000000e+00 : f32} : tensor<64x128xf32>, tensor<64xf32> -> tensor<64x128xbf16>
// CHECK-NEXT: %23 = fattn.mma_transpose_lhs %22, %13 acc(%arg16) : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
// CHECK-NEXT: %24 = fattn.mma %22, %2 : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xf32>
// CHECK-NEXT: fattn.accumulate_tile %24, %alloc_0[%arg9, %8, %12] : tensor<64x128xf32>, memref<1x2x256x128xf32>
// CHECK-NEXT: scf.yield %23, %20 : tensor<128x128xf32>, tensor<128x128xf32>
// CHECK: %6 = fattn.scale_tile %5#0 {scale = 0.0883883461 : f32} : tensor<128x128xf32> -> tensor<128x128xbf16>
// CHECK: } postprocess {
// CHECK: %2 = fattn.scale_tile %1 {scale = 0.0883883461 : f32} : tensor<64x128xf32> -> tensor<64x128xbf16>
func.func @attn_grad(%q: memref<1x2x256x128xbf16>, %k: memref<1x2x256x128xbf16>, %v: memref<1x2x256x128xbf16>, %o: memref<1x2x256x128xbf16>, %do: memref<1x2x256x128xbf16>, %lse: memref<1x2x256xf32>, %dq: memref<1x2x256x128xbf16>, %dk: memref<1x2x256x128xbf16>, %dv: memref<1x2x256x128xbf16>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<1x2x256x128xbf16>, memref<1x2x256x128xbf16>, memref<1x2x256x128xbf16>, memref<1x2x256x128xbf16>, memref<1x2x256x128xbf16>, memref<1x2x256xf32>) outs(%dq, %dk, %dv : memref<1x2x256x128xbf16>, memref<1x2x256x128xbf16>, memref<1x2x256x128xbf16>) {causal = true}
  return
}
