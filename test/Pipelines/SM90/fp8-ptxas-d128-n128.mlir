// REQUIRES: ptxas
// RUN: fattn-opt %s --fattn-sm90-pipeline="block-n=128 intra-wg-overlap=true" -o %t.mlir
// RUN: mlir-opt %t.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.isa.mlir %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx

// fattn-compile's FP8 head dim 128 default (128-key tiles, the overlapped
// loop, per-block descales): no spills, no stack, and ptxas keeps the e4m3
// wgmmas asynchronous (C7513 when P is packed while P V is in flight).
// PTX: wgmma.wait_group.sync.aligned 1;
// CHECK: Compiling entry function 'fattn_fwd_sm90_d128_e4m3_m128n128s2_dsq3b64k3b128v3b128' for 'sm_90a'
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: C7513
// CHECK-NOT: Potential Performance Loss
func.func @d128(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {descale_block_q = 64 : i64, descale_block_kv = 128 : i64}
  return
}
