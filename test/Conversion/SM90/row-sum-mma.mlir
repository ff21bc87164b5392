// RUN: fattn-opt %s -split-input-file --fattn-sm90-pipeline="row-sum-mma=true" | FileCheck %s
// RUN: fattn-opt %s -split-input-file --fattn-sm90-pipeline | FileCheck %s --check-prefix=OFF
// RUN: fattn-opt %s -split-input-file --fattn-sm90-pipeline="row-sum-mma=true" -verify-diagnostics -o /dev/null

// row-sum-mma: each tile's row sums P 1 on the tensor cores. Every thread
// writes a word of a 1024-byte tile of ones (1.0 in the element type) before
// the barrier that ends the setup, behind a proxy fence (wgmma reads through
// the async proxy). Each k step of P V is followed by an m64n8 wgmma of the
// same P against that tile (K-major: the immediates end in 0) into an
// accumulator of the tile alone (the first step's scale-d is 0). After the
// wait for P V, its registers 0 and 2 (rows r and r + 8; every column holds
// the row's sum) are added to l, which rides after O's 64 registers and is
// rescaled with O. The softmax adds no probabilities, and the epilogue reads
// l (registers 64 and 65) without the quad's shuffles.

// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_m128n128s2(
// CHECK: %[[ONE:[0-9]+]] = llvm.mlir.constant(1065369472 : i32) : i32
// CHECK: llvm.store %[[ONE]], %{{[0-9]+}} : i32, !llvm.ptr<3>
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.barrier0
// The prologue's softmax: the rescale factor's exp2, then one exp2 per
// probability and no adds between them.
// CHECK: nvvm.shfl.sync
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-NEXT: llvm.intr.fma
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-NEXT: llvm.intr.fma
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-NEXT: llvm.intr.fma
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// The loop's P V: O's wgmma, then the tile's sums on the same A registers,
// the first without adding to its accumulator, the seven others adding.
// CHECK: "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, 1, 1, 1, 1;", "{{[^"]*}}" %[[A0:[0-9]+]], %[[A1:[0-9]+]], %[[A2:[0-9]+]], %[[A3:[0-9]+]],
// CHECK: "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0,$1,$2,$3}, {$4,$5,$6,$7}, $8, 0, 1, 1, 0;", "=f,=f,=f,=f,r,r,r,r,l,0,1,2,3" %[[A0]], %[[A1]], %[[A2]], %[[A3]],
// CHECK-COUNT-6: $8, 1, 1, 1, 0;"
// CHECK: %[[SUMS:[0-9]+]] = llvm.inline_asm has_side_effects asm_dialect = att "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0,$1,$2,$3}, {$4,$5,$6,$7}, $8, 1, 1, 1, 0;"
// CHECK-NEXT: %[[S0:[0-9]+]] = llvm.extractvalue %[[SUMS]][0]
// CHECK-NEXT: llvm.extractvalue %[[SUMS]][1]
// CHECK-NEXT: %[[S2:[0-9]+]] = llvm.extractvalue %[[SUMS]][2]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// After the wait: l += the tile's sums (behind a register fence).
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: %[[OLD0:[0-9]+]] = llvm.extractvalue %[[O:[0-9]+]][64]
// CHECK-NEXT: %[[OLD1:[0-9]+]] = llvm.extractvalue %[[O]][65]
// CHECK-NEXT: %[[F:[0-9]+]] = llvm.inline_asm has_side_effects asm_dialect = att "", "=f,=f,0,1" %[[S0]], %[[S2]]
// CHECK-NEXT: %[[N0:[0-9]+]] = llvm.extractvalue %[[F]][0]
// CHECK-NEXT: %[[N1:[0-9]+]] = llvm.extractvalue %[[F]][1]
// CHECK-NEXT: llvm.fadd %[[OLD0]], %[[N0]] : f32
// CHECK-NEXT: llvm.fadd %[[OLD1]], %[[N1]] : f32
// Epilogue (the block of the final max, sum and accumulator): l straight
// from the accumulator.
// CHECK: ^bb{{[0-9]+}}(%{{[0-9]+}}: f32, %{{[0-9]+}}: f32, %{{[0-9]+}}: f32, %{{[0-9]+}}: f32, %[[ACC:[0-9]+]]: !llvm.struct<
// CHECK: %[[L0:[0-9]+]] = llvm.extractvalue %[[ACC]][64]
// CHECK-NOT: nvvm.shfl.sync
// CHECK: %[[L1:[0-9]+]] = llvm.extractvalue %[[ACC]][65]
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.fcmp "ogt" %[[L0]]
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.fcmp "ogt" %[[L1]]

// Off (the default): no ones, no m64n8, the quad adds l up.
// OFF-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_m128n128s2(
// OFF-NOT: 1065369472
// OFF-NOT: m64n8k16
// OFF: nvvm.shfl.sync bfly
// OFF: llvm.fcmp "ogt"
func.func @bf16(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}

// -----

// An LSE needs the sums of the unrounded probabilities: the option is
// ignored, with a warning (no ones tile, no m64n8 wgmma).
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_m128n128s2_lse(
// CHECK-NOT: 1065369472
// CHECK-NOT: m64n8k16
// CHECK: llvm.return
func.func @lse(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>, %lse: memref<?x?x?xf32>) {
  // expected-warning @below {{row-sum-mma is ignored: the LSE needs the sums of the unrounded probabilities}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) lse(%lse : memref<?x?x?xf32>)
  return
}
