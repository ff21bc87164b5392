// REQUIRES: ptxas
// RUN: fattn-compile %s --arch sm_90a --block-m 192 --block-n 96 --emit ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx

// fattn-compile's FP8 head-dim-128 split (32 producer / 232 consumer
// registers, for two consumer warpgroups) gives way to the default of three
// consumers (32 / 160) when --block-m asks for 192 rows.
// CHECK-DAG: setmaxnreg.dec.sync.aligned.u32 32;
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 160;
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n96k32.f32.e4m3.e4m3
func.func @fattn_fwd_d128_e4m3(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<f32>, %dk: memref<f32>, %dv: memref<f32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<f32>, memref<f32>, memref<f32>)
  return
}
