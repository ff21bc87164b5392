// REQUIRES: ptxas
// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k persistent=true split-tail=true" -o %t.mlir
// RUN: FileCheck %s --check-prefix=DESC < %t.mlir
// RUN: mlir-opt %t.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.isa.mlir %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k persistent=true" -o %t.plain.mlir
// RUN: FileCheck %s --check-prefix=PLAIN < %t.plain.mlir
// RUN: mlir-opt %t.plain.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.plain.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.plain.isa.mlir %t.plain.ptx
// RUN: FileCheck %s --check-prefix=PLAIN-PTX < %t.plain.ptx

// The split tail (split-tail=true), head dim 64 in 16 bits: the kernel takes
// a workspace pointer after O (no LSE here), one slot per CTA of 256 bytes
// of counters and 36 words (32 of O, 2 maxes, 2 sums) per consumer thread
// of the 256: 256 + 36 * 4 * 256 = 37120 bytes.
// DESC: {\22name\22:\22o\22,\22type\22:\22ptr\22},{\22name\22:\22workspace\22,\22type\22:\22ptr\22},{\22name\22:\22batch\22
// DESC: \22workspace_bytes_per_cta\22:37120
// PLAIN-NOT: workspace

// CHECK: .entry k(
// CHECK-NEXT: .param .u64 .ptr .align 1 k_param_0,
// CHECK-NEXT: .param .u64 .ptr .align 1 k_param_1,
// CHECK-NEXT: .param .u64 .ptr .align 1 k_param_2,
// CHECK-NEXT: .param .u64 .ptr .align 1 k_param_3,
// CHECK-NEXT: .param .u64 .ptr .align 1 k_param_4,
// CHECK-NEXT: .param .u32 k_param_5,
// A piece without its item's first tile: O, maxes and sums to the slot in
// 16-byte units (nine per thread), then one release arrival per thread.
// CHECK-COUNT-9: st.global.v4.b32 [{{%rd[0-9]+}}+{{[0-9]+}}]
// CHECK: red.release.gpu.global.add.u32 [{{%rd[0-9]+}}], 1;
// The piece with it: an acquire spin on each other piece's counter, the
// counter zeroed once the whole warp has seen it, the merge's exp2s.
// CHECK: ld.acquire.gpu.global.u32 [[COUNT:%r[0-9]+]], [[[COUNTER:%rd[0-9]+]]];
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: setp.ne.b32 [[DONE:%p[0-9]+]], [[COUNT]], 32;
// CHECK-NEXT: @[[DONE]] bra
// CHECK: bar.warp.sync -1;
// CHECK: st.relaxed.gpu.global.u32 [[[COUNTER]]], 0;
// The merge: the other piece's maxes and sums came first (its last unit),
// its O follows unit by unit (the first one at 256, after the counters).
// CHECK: ex2.approx.ftz.f32
// CHECK: ld.global.v4.b32 {{{.*}}}, [{{%rd[0-9]+}}+256];
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PLAIN-PTX-NOT: red.release
// PLAIN-PTX-NOT: ld.acquire
func.func @attn(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>)
  return
}
