// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k block-n=192 persistent=true" -o %t.mlir
// RUN: mlir-opt %t.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.isa.mlir %t.ptx
// RUN: FileCheck %s --implicit-check-not=cvt.u32.u16 < %t.ptx

// FP8 head dim 128 (fattn-compile's tiles without a mask): each A register
// of P V is two cvt.rn.satfinite.e4m3x2 written as the halves of one
// register (mov.b32 {lo, hi}, which ptxas turns into F2FP with MERGE_C),
// not zero-extended and merged by prmt (three more instructions per
// register, measured 3-15% slower). 192 keys: 48 A registers per tile.
// CHECK: .entry k(
// CHECK-COUNT-48: mov.b32 %r{{[0-9]+}}, {%rs{{[0-9]+}}, %rs{{[0-9]+}}};
func.func @attn(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
