// RUN: fattn-opt %s -split-input-file --fattn-sm90-pipeline="block-n=224 row-sum-mma=true" | FileCheck %s
// RUN: fattn-opt %s -split-input-file --fattn-sm90-pipeline="block-n=224 row-sum-mma=true" -verify-diagnostics -o /dev/null

// row-sum-mma on FP8 kernels (see row-sum-mma.mlir for the 16-bit ones).

// FP8 with V stored as V^T: the ones tile is e4m3 1.0 (0x38, 943208504 per
// word), at 139264, after the V^T ring (73728 + 2 stages x 32768 bytes of
// two 128-key atoms); the tile's sums are m64n8k32 wgmmas,
// the first of each tile not adding (7 per 224-key tile). e4m3 wgmma adds to
// its accumulator with fewer bits than f32, so the sums never run over more
// than one tile: l itself is an f32 add after the wait.
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_e4m3_m128n224s2_vt(
// CHECK: llvm.mlir.constant(139264 : i32)
// CHECK: %[[ONE8:[0-9]+]] = llvm.mlir.constant(943208504 : i32) : i32
// CHECK-NEXT: llvm.store %[[ONE8]]
// CHECK-NEXT: nvvm.fence.proxy
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK: "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {$0,$1,$2,$3}, {$4,$5,$6,$7}, $8, 0, 1, 1;"
// CHECK-COUNT-6: "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {$0,$1,$2,$3}, {$4,$5,$6,$7}, $8, 1, 1, 1;"
// CHECK-NEXT: llvm.extractvalue
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.return
func.func @fp8_vt(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x128x?xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x128x?xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

// -----

// V by rows (the producer transposes it into the V^T ring): the same.
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_e4m3_m128n224s2(
// CHECK: llvm.mlir.constant(943208504 : i32)
// CHECK: llvm.store
// CHECK-NEXT: nvvm.fence.proxy
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK-NEXT: llvm.extractvalue
// CHECK: "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {$0,$1,$2,$3}, {$4,$5,$6,$7}, $8, 1, 1, 1;"
// CHECK: llvm.return
func.func @fp8_rows(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
  return
}

// -----

// Per-block V descales: O's rescale carries V's factor, which l must not
// take; the option is ignored, with a warning.
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_e4m3_m128n224s2_ds
// CHECK-NOT: 943208504
// CHECK-NOT: m64n8k32
// CHECK: llvm.return
func.func @fp8_block_v(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  // expected-warning @below {{row-sum-mma is ignored: per-block V descales rescale O by V's factor, which l must not take}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {descale_block_q = 128 : i64, descale_block_kv = 448 : i64}
  return
}
