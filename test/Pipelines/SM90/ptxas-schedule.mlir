// REQUIRES: ptxas
// RUN: fattn-opt %s --fattn-sm90-pipeline="block-n=80 kernel-name=k256 intra-wg-overlap=true pingpong=true" -o %t.mlir
// RUN: mlir-opt %t.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.isa.mlir %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// RUN: fattn-opt %s --fattn-sm90-pipeline="block-n=80 kernel-name=k256 warp-specialize=false" -o %t.nows.mlir
// RUN: mlir-opt %t.nows.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.nows.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.nows.isa.mlir %t.nows.ptx
// RUN: %ptxas -arch=sm_90a -v %t.nows.ptx -o %t.nows.cubin 2>&1 | FileCheck %s

// The overlapped schedule keeps two P fragments, S and O live across the
// asynchronous wgmmas; at head dim 256 with 80-row KV tiles (the default
// there) it still assembles without spills or stack, and ptxas keeps the
// wgmma pipeline asynchronous (it reports "Potential Performance Loss:
// wgmma.mma_async instructions are serialized" when it cannot). Also
// without warp specialization (no setmaxnreg, 256 threads).
// CHECK: Compiling entry function 'k256' for 'sm_90a'
// CHECK-NOT: Potential Performance Loss
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: Potential Performance Loss
func.func @attn(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>, %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>, %lse: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>) outs(%o : memref<?x?x?x256xbf16>) lse(%lse : memref<?x?x?xf32>) {causal = true}
  return
}
