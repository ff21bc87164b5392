// REQUIRES: ptxas
// RUN: fattn-opt %s --fattn-sm90-pipeline="block-n=64 kernel-name=fattn_sm90_d256_bf16_causal_lse" -o %t.mlir
// RUN: mlir-opt %t.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.isa.mlir %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s

// The largest configuration (head dim 256: 128 accumulator registers per
// thread for O) assembles without spills or stack, and setmaxnreg is honored.
// CHECK: Compiling entry function 'fattn_sm90_d256_bf16_causal_lse' for 'sm_90a'
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: C7508
func.func @attn(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>, %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>, %lse: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>) outs(%o : memref<?x?x?x256xbf16>) lse(%lse : memref<?x?x?xf32>) {causal = true}
  return
}
