// RUN: fattn-opt %s -split-input-file --fattn-sm90-pipeline="rescale-threshold=0.8" | FileCheck %s

// Conditional rescaling in the FP8 kernel, whose overlapped loop defers O's
// rescale to the next iteration (after S = Q K^T is issued): the warp's
// vote rides along the loop with the two factors, false from the prologue,
// and the deferred rescale (and the last one, after the loop) branches on
// it.

// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d256_e4m3_m128n128s2_vt(
// CHECK-SAME: \22meta\22:{\22rescale_threshold\22:0.800000012{{[0-9]*}}}
// CHECK: %[[NO:[0-9]+]] = llvm.mlir.constant(false) : i1
// CHECK: llvm.br ^[[LOOP:bb[0-9]+]](%{{.*}}, %[[NO]] : i32, f32, f32, f32, f32, !llvm.struct<{{.*}}>, !llvm.struct<{{.*}}>, f32, f32, i1)
// CHECK: ^[[LOOP]](%{{.*}}: f32, %{{[0-9]+}}: f32, %[[WHEN:[0-9]+]]: i1):
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>
// CHECK: llvm.cond_br %[[WHEN]], ^[[YES:bb[0-9]+]], ^[[JOIN:bb[0-9]+]](
// CHECK: ^[[YES]]:
// CHECK-COUNT-128: llvm.fmul
// CHECK: ^[[JOIN]](%{{[0-9]+}}: !llvm.struct<
// CHECK: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// CHECK: %[[VOTE:[0-9]+]] = nvvm.vote.sync any
// CHECK: llvm.br ^[[LOOP]](%{{.*}}, %[[VOTE]] : i32,
// The last tile's rescale, after the loop.
// CHECK: llvm.cond_br %[[WHEN]], ^{{bb[0-9]+}}, ^{{bb[0-9]+}}(
func.func @fp8_vt(%q: memref<?x?x?x256xf8E4M3FN>, %k: memref<?x?x?x256xf8E4M3FN>, %v: memref<?x?x256x?xf8E4M3FN>, %o: memref<?x?x?x256xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xf8E4M3FN>, memref<?x?x?x256xf8E4M3FN>, memref<?x?x256x?xf8E4M3FN>) outs(%o : memref<?x?x?x256xbf16>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

// -----

// Per-block V descales move O into each tile's descale units: O's rescale
// is never skipped (no branch), while the rows still keep their max.
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d256_e4m3
// CHECK: llvm.fcmp "ogt"
// CHECK-NOT: nvvm.vote.sync
// CHECK: llvm.return
func.func @fp8_block_v(%q: memref<?x?x?x256xf8E4M3FN>, %k: memref<?x?x?x256xf8E4M3FN>, %v: memref<?x?x?x256xf8E4M3FN>, %o: memref<?x?x?x256xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xf8E4M3FN>, memref<?x?x?x256xf8E4M3FN>, memref<?x?x?x256xf8E4M3FN>) outs(%o : memref<?x?x?x256xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {descale_block_q = 128 : i64, descale_block_kv = 128 : i64}
  return
}
