// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=192" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --convert-fattn-to-nvvm-sm90 | FileCheck %s --check-prefix=TWO
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --convert-fattn-to-nvvm-sm90 | FileCheck %s --check-prefix=ONE

// The softmax sums each row's probabilities as a dependency chain of adds.
// When a thread holds more than 40 scores of a row (block_n > 160: 48 here)
// the lowering keeps two chains, alternating over the row's probabilities,
// and adds them at the end; with 32 (block_n 128) one chain. The first
// probability of the prologue's row 0 follows the rescale factor's exp2.

// TWO-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_m128n192s2(
// TWO: nvvm.shfl.sync bfly
// TWO: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// TWO-NEXT: llvm.intr.fma
// TWO-NEXT: %[[P0:[0-9]+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// TWO-NEXT: llvm.intr.fma
// TWO-NEXT: %[[P1:[0-9]+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// TWO-NEXT: llvm.intr.fma
// TWO-NEXT: %[[P2:[0-9]+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// TWO-NEXT: %[[C0:[0-9]+]] = llvm.fadd %[[P0]], %[[P2]] : f32
// TWO-NEXT: llvm.intr.fma
// TWO-NEXT: %[[P3:[0-9]+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// TWO-NEXT: %[[C1:[0-9]+]] = llvm.fadd %[[P1]], %[[P3]] : f32
// TWO-NEXT: llvm.intr.fma
// TWO-NEXT: %[[P4:[0-9]+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// TWO-NEXT: llvm.fadd %[[C0]], %[[P4]] : f32
// TWO-NEXT: llvm.intr.fma
// TWO-NEXT: %[[P5:[0-9]+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// TWO-NEXT: llvm.fadd %[[C1]], %[[P5]] : f32

// ONE-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_m128n128s2(
// ONE: nvvm.shfl.sync bfly
// ONE: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// ONE-NEXT: llvm.intr.fma
// ONE-NEXT: %[[P0:[0-9]+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// ONE-NEXT: llvm.intr.fma
// ONE-NEXT: %[[P1:[0-9]+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// ONE-NEXT: %[[C:[0-9]+]] = llvm.fadd %[[P0]], %[[P1]] : f32
// ONE-NEXT: llvm.intr.fma
// ONE-NEXT: %[[P2:[0-9]+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// ONE-NEXT: llvm.fadd %[[C]], %[[P2]] : f32
func.func @d128_bf16(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
