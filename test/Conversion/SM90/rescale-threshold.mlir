// RUN: fattn-opt %s -split-input-file --fattn-sm90-pipeline="rescale-threshold=8" | FileCheck %s
// RUN: fattn-opt %s -split-input-file --fattn-sm90-pipeline="rescale-threshold=8 intra-wg-overlap=false" | FileCheck %s --check-prefix=SEQ
// RUN: fattn-opt %s -split-input-file --fattn-sm90-pipeline | FileCheck %s --check-prefix=OFF

// Conditional rescaling: a row keeps its running max m unless the tile's
// max exceeds m + 8 / (scale log2 e) (here 8 / (0.0884 * 1.4427) = 62.74),
// so that P = 2^(scale log2 e (s - m)) stays below 2^8; a kept max rescales
// by exactly 1. The warp votes: only when one of its rows moved its max does
// it branch into the block that multiplies O's 64 registers; the other path
// hands O on untouched. The description records the threshold.

// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_m128n128s2(
// CHECK-SAME: \22meta\22:{\22rescale_threshold\22:8}
// The overlapped loop defers O's rescale into the next iteration, after
// S = Q K^T is issued: the factors and the warp's vote ride along the loop
// (false from the prologue).
// CHECK: %[[NO:[0-9]+]] = llvm.mlir.constant(false) : i1
// CHECK: llvm.br ^[[LOOP:bb[0-9]+]](%{{.*}}, %[[NO]] : i32, f32, f32, f32, f32, !llvm.struct<{{.*}}>, !llvm.struct<{{.*}}>, f32, f32, i1)
// CHECK: ^[[LOOP]](%{{[0-9]+}}: i32, %[[M0:[0-9]+]]: f32, %[[M1:[0-9]+]]: f32, {{.*}}, %[[WHEN:[0-9]+]]: i1):
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>
// CHECK: llvm.cond_br %[[WHEN]], ^[[YES:bb[0-9]+]], ^[[JOIN:bb[0-9]+]](%{{[0-9]+}} : !llvm.struct<
// CHECK: ^[[YES]]:
// CHECK-COUNT-64: llvm.fmul %{{[0-9]+}}, %{{[0-9]+}} : f32
// CHECK-NOT: llvm.fmul
// CHECK: llvm.br ^[[JOIN]](%{{[0-9]+}} : !llvm.struct<
// CHECK: ^[[JOIN]](%{{[0-9]+}}: !llvm.struct<
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// This tile's softmax, rows r and r + 8.
// CHECK: %[[T:[0-9]+]] = llvm.mlir.constant(62.7365189 : f32) : f32
// CHECK-NEXT: %[[LIM0:[0-9]+]] = llvm.fadd %[[M0]], %[[T]] : f32
// CHECK-NEXT: %[[G0:[0-9]+]] = llvm.fcmp "ogt" %[[MX0:[0-9]+]], %[[LIM0]] : f32
// CHECK-NEXT: llvm.select %[[G0]], %[[MX0]], %[[M0]] : i1, f32
// CHECK: %[[A0:[0-9]+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-NEXT: %[[ONE:[0-9]+]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK-NEXT: %[[ALPHA0:[0-9]+]] = llvm.select %[[G0]], %[[A0]], %[[ONE]] : i1, f32
// CHECK: llvm.fadd %[[M1]], %{{[0-9]+}} : f32
// CHECK-NEXT: %[[G1:[0-9]+]] = llvm.fcmp "ogt"
// CHECK: %[[ANY:[0-9]+]] = llvm.or %[[G0]], %[[G1]] : i1
// CHECK-NEXT: %[[VOTE:[0-9]+]] = nvvm.vote.sync any %{{[0-9]+}}, %[[ANY]] -> i1
// CHECK: llvm.br ^[[LOOP]](%{{.*}}, %[[ALPHA0]], %{{[0-9]+}}, %[[VOTE]] : i32,
// The last tile's rescale, after the loop.
// CHECK: llvm.cond_br %[[WHEN]], ^{{bb[0-9]+}}, ^{{bb[0-9]+}}(

// The loop without intra-warpgroup overlap: the same branch before P V.
// SEQ-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_m128n128s2(
// SEQ: %[[VOTE:[0-9]+]] = nvvm.vote.sync any
// SEQ: llvm.cond_br %[[VOTE]], ^[[YES:bb[0-9]+]], ^[[JOIN:bb[0-9]+]](
// SEQ: ^[[YES]]:
// SEQ-COUNT-64: llvm.fmul
// SEQ: ^[[JOIN]](%{{[0-9]+}}: !llvm.struct<
// SEQ: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16

// Off (the default): no vote, no kept max, no threshold in the description.
// OFF-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_m128n128s2(
// OFF-NOT: rescale_threshold
// OFF-NOT: nvvm.vote.sync
// OFF-NOT: 62.7365189
// OFF: llvm.return
func.func @bf16(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
