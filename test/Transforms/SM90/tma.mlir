// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma | FileCheck %s
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=64" --fattn-sm90-tma=stages=3 | FileCheck %s --check-prefix=STAGES
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma="tma-store=true" | FileCheck %s --check-prefix=TMASTORE
// Round trip of the printed plan.
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma | fattn-opt -split-input-file | FileCheck %s

// The plan: a ring of K/V stages, 64-column (128-byte) boxes, 128B swizzle,
// O from registers. It is one attribute of the op: the loads and stores of
// the body carry none.
// CHECK-LABEL: func.func @plan
// CHECK: fattn.tiled_attention {{.*}}fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>
// CHECK: fattn.load_tile %{{.*}} : memref<?x?x?x128xbf16> -> tensor<128x128xbf16>
// CHECK: scf.for
// CHECK: fattn.load_tile %{{.*}} : memref<?x?x?x128xbf16> -> tensor<128x128xbf16>
// CHECK: fattn.mma
// CHECK: fattn.load_tile %{{.*}} : memref<?x?x?x128xbf16> -> tensor<128x128xbf16>
// CHECK: fattn.store_tile %{{.*}} : tensor<128x128xbf16>, memref<?x?x?x128xbf16>
// STAGES-LABEL: func.func @plan
// STAGES: fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 3, swizzle = 128, box_cols = 64, store = registers>
// TMASTORE-LABEL: func.func @plan
// TMASTORE: fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = tma>
func.func @plan(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}

// -----

// The plan's store is O's; the LSE always leaves from registers.
// CHECK-LABEL: func.func @plan_lse_f16
// CHECK: fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>
// CHECK-COUNT-2: fattn.store_tile %{{.*}} : tensor<
func.func @plan_lse_f16(%q: memref<?x?x?x64xf16>, %k: memref<?x?x?x64xf16>, %v: memref<?x?x?x64xf16>, %o: memref<?x?x?x64xf16>, %lse: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf16>, memref<?x?x?x64xf16>, memref<?x?x?x64xf16>) outs(%o : memref<?x?x?x64xf16>) lse(%lse : memref<?x?x?xf32>) {causal = true}
  return
}

// -----

// FP8: a 128-byte swizzle atom holds 128 e4m3 columns, so the boxes are
// 128 columns wide (a head dim 128 row is one atom).
// CHECK-LABEL: func.func @plan_fp8
// CHECK: fattn.tiled_attention {{.*}}fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 128, store = registers>
// STAGES-LABEL: func.func @plan_fp8
// STAGES: fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 3, swizzle = 128, box_cols = 128, store = registers>
// TMASTORE-LABEL: func.func @plan_fp8
// TMASTORE: fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 128, store = tma>
func.func @plan_fp8(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
