// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k" -o %t.mlir
// RUN: mlir-opt %t.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.isa.mlir %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k persistent=true" -o %t.pt.mlir
// RUN: mlir-opt %t.pt.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.pt.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.pt.isa.mlir %t.pt.ptx
// RUN: FileCheck %s --check-prefix=DIRECT < %t.pt.ptx
// A pingpong barrier base that reaches the epilogue's barriers (12 + w):
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize \
// RUN:   --fattn-intra-wg-overlap --fattn-pingpong="barrier-base=11" --convert-fattn-to-nvvm-sm90 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COLLIDE

// Head dim 96 (held out of the library, padded to 128 columns), causal, LSE,
// one CTA per Q tile: each consumer warpgroup writes O / l into its rows of
// Q's buffer (4-byte shared stores), meets its 128 threads on named barrier
// 12 + w, and copies 16-byte units out (the padding columns are not stored).
// The LSE keeps its two 4-byte stores (rows r and r + 8); nothing else
// writes 4 bytes to global.
// CHECK: .entry k(
// CHECK-NOT: st.global
// CHECK: wgmma.mma_async
// CHECK-NOT: st.global
// CHECK: st.shared.b32
// CHECK-NOT: st.global
// CHECK: bar.sync {{%r[0-9]+}}, 128;
// CHECK-NOT: st.global
// CHECK: ld.shared.v4.b32
// CHECK-COUNT-8: st.global.v4.b32
// CHECK-NOT: st.global.v4
// CHECK-COUNT-2: st.global.b32
// CHECK-NOT: st.global

// A persistent kernel reloads Q's buffer for its next work item during the
// epilogue: it stores O from registers, transposed across each quad so
// that a thread stores 16 bytes of one row at a time: 3 units per row (96
// columns, the padding's 32 not stored) for rows r and r + 8, then the
// LSE's two 4-byte stores.
// DIRECT: .entry k(
// DIRECT-NOT: st.global
// DIRECT-COUNT-6: st.global.v4.b32
// DIRECT-NOT: st.global.v4
// DIRECT-COUNT-2: st.global.b32
// DIRECT-NOT: st.global

// COLLIDE: error: 'fattn.tiled_attention' op pingpong barriers 11 to 12 collide with the epilogue's barriers from 12
func.func @attn(%q: memref<?x?x?x96xbf16>, %k: memref<?x?x?x96xbf16>, %v: memref<?x?x?x96xbf16>, %o: memref<?x?x?x96xbf16>, %lse: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x96xbf16>, memref<?x?x?x96xbf16>, memref<?x?x?x96xbf16>) outs(%o : memref<?x?x?x96xbf16>) lse(%lse : memref<?x?x?xf32>) {causal = true}
  return
}
