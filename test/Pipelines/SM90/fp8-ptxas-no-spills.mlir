// REQUIRES: ptxas
// RUN: fattn-opt %s --fattn-sm90-pipeline="block-n=64 intra-wg-overlap=false" -o %t.mlir
// RUN: mlir-opt %t.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.isa.mlir %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --implicit-check-not=C7513
// RUN: fattn-opt %s --fattn-sm90-pipeline="block-n=64" -o %t2.mlir
// RUN: mlir-opt %t2.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t2.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t2.isa.mlir %t2.ptx
// RUN: %ptxas -arch=sm_90a -v %t2.ptx -o %t2.cubin 2>&1 | FileCheck %s --check-prefix=OVERLAP --implicit-check-not=C7513

// FP8 kernels assemble without spills or stack, in the plain loop and the
// overlapped one (fattn-compile's head dim 256 and 128 defaults), at head
// dims 128 and 256 with per-tensor and per-block descales (the producer's transpose fits its 24
// registers). Neither serializes the e4m3 wgmmas (C7513): the overlapped
// loop packs P only after P V's wait (ConsumerLoops.cpp, emitOverlappedLoop).
// CHECK-COUNT-2: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// OVERLAP-COUNT-2: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @d128(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<f32>, %dk: memref<f32>, %dv: memref<f32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<f32>, memref<f32>, memref<f32>)
  return
}
func.func @d256(%q: memref<?x?x?x256xf8E4M3FN>, %k: memref<?x?x?x256xf8E4M3FN>, %v: memref<?x?x?x256xf8E4M3FN>, %o: memref<?x?x?x256xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xf8E4M3FN>, memref<?x?x?x256xf8E4M3FN>, memref<?x?x?x256xf8E4M3FN>) outs(%o : memref<?x?x?x256xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {descale_block_q = 128 : i64, descale_block_kv = 128 : i64}
  return
}
