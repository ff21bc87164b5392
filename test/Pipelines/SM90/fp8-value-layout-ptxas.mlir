// REQUIRES: ptxas
// RUN: fattn-opt %s --fattn-sm90-pipeline -o %t.mlir
// RUN: mlir-opt %t.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.isa.mlir %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --implicit-check-not=ldmatrix --implicit-check-not=stmatrix < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --implicit-check-not=C7513

// FP8 kernels with V stored as V^T (value_layout) at head dims 128 and 256
// (the pipeline's defaults: 128-key tiles, the overlapped loop): the default
// kernel names say _vt (before the mask's suffix), the producer has no V
// transpose (no ldmatrix / stmatrix), and ptxas assembles both without
// spills or stack and without serializing the e4m3 wgmmas (C7513).
// PTX-DAG: .visible .entry fattn_fwd_sm90_d128_e4m3_m128n128s2_dsq3b128k3b128v3b128_vt(
// PTX-DAG: .visible .entry fattn_fwd_sm90_d256_e4m3_m128n128s2_vt_causal(
// CHECK: Function properties for fattn_fwd_sm90_d256_e4m3_m128n128s2_vt_causal
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK: Function properties for fattn_fwd_sm90_d128_e4m3_m128n128s2_dsq3b128k3b128v3b128_vt
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @d128(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x128x?xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x128x?xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {descale_block_q = 128 : i64, descale_block_kv = 128 : i64, value_layout = "transposed_wgmma_e4m3_k32"}
  return
}
func.func @d256(%q: memref<?x?x?x256xf8E4M3FN>, %k: memref<?x?x?x256xf8E4M3FN>, %v: memref<?x?x256x?xf8E4M3FN>, %o: memref<?x?x?x256xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xf8E4M3FN>, memref<?x?x?x256xf8E4M3FN>, memref<?x?x256x?xf8E4M3FN>) outs(%o : memref<?x?x?x256xbf16>) {causal = true, value_layout = "transposed_wgmma_e4m3_k32"}
  return
}
