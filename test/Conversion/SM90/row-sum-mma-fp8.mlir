// RUN: fattn-opt %s -split-input-file --fattn-sm90-pipeline="block-n=224 row-sum-mma=true" | FileCheck %s

// row-sum-mma on FP8 kernels (see row-sum-mma.mlir for the 16-bit ones).

// FP8 with V stored as V^T: l is eight more columns of the P V wgmma
// (m64n136k32). Each V^T atom of the ring holds 136 rows (17408 bytes): V's
// 128, copied by TMA (32768 bytes expected per 224-key stage, two atoms), and
// eight rows of ones (e4m3 1.0 = 0x38, 943208504 per word) at 16384 bytes
// into the atom, written once: stages 0 and 1, atoms 0 and 1, from the V^T
// ring at 73728.
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_e4m3_m128n224s2_vt(
// CHECK: %[[ONE8:[0-9]+]] = llvm.mlir.constant(943208504 : i32) : i32
// CHECK-NEXT: llvm.mlir.constant(90112 : i32)
// CHECK: llvm.store %[[ONE8]]
// CHECK: llvm.mlir.constant(107520 : i32)
// CHECK: llvm.store %[[ONE8]]
// CHECK: llvm.mlir.constant(124928 : i32)
// CHECK: llvm.store %[[ONE8]]
// CHECK: llvm.mlir.constant(142336 : i32)
// CHECK: llvm.store %[[ONE8]]
// CHECK-NEXT: nvvm.fence.proxy
// CHECK: %[[VBYTES:[0-9]+]] = llvm.mlir.constant(32768 : i32) : i32
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %{{[0-9]+}}, %[[VBYTES]]
// CHECK-NEXT: llvm.mlir.constant(34816 : i32)
// CHECK-COUNT-7: wgmma.mma_async.sync.aligned.m64n136k32.f32.e4m3.e4m3
// CHECK-NOT: m64n8k32
// CHECK: llvm.return
func.func @fp8_vt(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x128x?xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x128x?xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

// -----

// V by rows (the producer transposes it into V^T atoms of 128 rows): l is an
// m64n8k32 wgmma per k step against the ones tile, after the V^T ring.
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_e4m3_m128n224s2(
// CHECK: llvm.mlir.constant(943208504 : i32)
// CHECK: llvm.store
// CHECK-NEXT: nvvm.fence.proxy
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK-NEXT: llvm.extractvalue
// CHECK: "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {$0,$1,$2,$3}, {$4,$5,$6,$7}, $8, 1, 1, 1;"
// CHECK-NOT: m64n136k32
// CHECK: llvm.return
func.func @fp8_rows(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
  return
}

// -----

// Per-block V descales: O's rescale carries V's factor, which l must not
// take; the option is ignored.
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_e4m3_m128n224s2_ds
// CHECK-NOT: 943208504
// CHECK-NOT: m64n8k32
// CHECK-NOT: m64n136k32
// CHECK: llvm.return
func.func @fp8_block_v(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {descale_block_q = 128 : i64, descale_block_kv = 448 : i64}
  return
}
