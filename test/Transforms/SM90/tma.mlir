// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma | FileCheck %s
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=64" --fattn-sm90-tma=stages=3 | FileCheck %s --check-prefix=STAGES

// The plan: a ring of K/V stages, 64-column (128-byte) boxes, 128B swizzle;
// Q on its own barrier, K and V on separate full barriers; O from registers.
// CHECK-LABEL: func.func @plan
// CHECK: fattn.tiled_attention {{.*}}fattn.sm90.tma = {box_cols = 64 : i64, stages = 2 : i64, swizzle = 128 : i64}
// CHECK: fattn.load_tile %{{.*}} {fattn.sm90.tma_load = {barrier = "q", box_rows = 128 : i64, operand = "q"}}
// CHECK: scf.for
// CHECK: fattn.load_tile %{{.*}} {fattn.sm90.tma_load = {barrier = "full_k", box_rows = 128 : i64, operand = "k"}}
// CHECK: fattn.mma
// CHECK: fattn.load_tile %{{.*}} {fattn.sm90.tma_load = {barrier = "full_v", box_rows = 128 : i64, operand = "v"}}
// CHECK: fattn.store_tile %{{.*}} {fattn.sm90.store = "registers"}
// STAGES-LABEL: func.func @plan
// STAGES: fattn.sm90.tma = {box_cols = 64 : i64, stages = 3 : i64, swizzle = 128 : i64}
// STAGES: fattn.sm90.tma_load = {barrier = "full_k", box_rows = 64 : i64, operand = "k"}
func.func @plan(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}

// -----

// The LSE store is planned like O's.
// CHECK-LABEL: func.func @plan_lse_f16
// CHECK-COUNT-2: fattn.store_tile %{{.*}} {fattn.sm90.store = "registers"}
func.func @plan_lse_f16(%q: memref<?x?x?x64xf16>, %k: memref<?x?x?x64xf16>, %v: memref<?x?x?x64xf16>, %o: memref<?x?x?x64xf16>, %lse: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf16>, memref<?x?x?x64xf16>, memref<?x?x?x64xf16>) outs(%o : memref<?x?x?x64xf16>) lse(%lse : memref<?x?x?xf32>) {causal = true}
  return
}

// -----

// FP8: a 128-byte swizzle atom holds 128 e4m3 columns, so the boxes are
// 128 columns wide (a head dim 128 row is one atom).
// CHECK-LABEL: func.func @plan_fp8
// CHECK: fattn.tiled_attention {{.*}}fattn.sm90.tma = {box_cols = 128 : i64, stages = 2 : i64, swizzle = 128 : i64}
// CHECK: fattn.load_tile %{{.*}} {fattn.sm90.tma_load = {barrier = "q", box_rows = 128 : i64, operand = "q"}} : memref<?x?x?x128xf8E4M3FN>
// STAGES-LABEL: func.func @plan_fp8
// STAGES: fattn.sm90.tma = {box_cols = 128 : i64, stages = 3 : i64, swizzle = 128 : i64}
func.func @plan_fp8(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
