// REQUIRES: ptxas
// RUN: fattn-compile %s --arch sm_80 --emit ptx -o %t
// RUN: %ptxas -arch=sm_80 -v %t/fattn_fwd_d64_bf16.ptx -o %t/d64.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -arch=sm_80 -v %t/fattn_fwd_d256_bf16.ptx -o %t/d256.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -arch=sm_80 -v %t/fattn_fwd_d128_bf16_causal_lse.ptx -o %t/d128c.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -arch=sm_80 -v %t/fattn_fwd_d128_f16_lse.ptx -o %t/d128.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -arch=sm_80 -v %t/fattn_fwd_d96_bf16_window_lse.ptx -o %t/d96.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -arch=sm_80 -v %t/fattn_fwd_d48_bf16_lse.ptx -o %t/d48x.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -arch=sm_80 -v %t/fattn_fwd_d112_bf16_causal_lse.ptx -o %t/d112x.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -arch=sm_80 -v %t/fattn_fwd_d112_bf16_lse.ptx -o %t/d112x.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -arch=sm_80 -v %t/fattn_fwd_d144_bf16_lse.ptx -o %t/d144x.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -arch=sm_80 -v %t/fattn_fwd_d240_bf16_causal_lse.ptx -o %t/d240x.cubin 2>&1 | FileCheck %s
// The H200 runs the same PTX through the driver's JIT for sm_90.
// RUN: %ptxas -arch=sm_90 -v %t/fattn_fwd_d128_bf16_causal_lse.ptx -o %t/d128c90.cubin 2>&1 | FileCheck %s --check-prefix=SM90

// Shipped configurations assemble for sm_80 without spills or stack. Head
// dim 128 with LSE (255 registers) and head dim 96 with a causal left
// window are the tightest; bench/sm80/sm80_ptxas_report.py checks them all.
// The other multiples of 16: head dim 112 takes 64 query rows (128 spill),
// 144 (like 176, 208, 240) 64 keys; the multiples of 8 that are not of 16:
// head-dims-multiple-of-8.mlir.
// SM90: Compiling entry function 'fattn_fwd_d128_bf16_causal_lse' for 'sm_90'
// SM90: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK: Compiling entry function 'fattn_fwd_d{{[0-9a-z_]+}}' for 'sm_80'
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: bytes cumulative stack size
func.func @fattn_fwd_d64_bf16(%q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>)
  return
}
func.func @fattn_fwd_d256_bf16(%q: memref<?x?x?x256xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x256xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x256xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x256xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x256xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x256xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x256xbf16, strided<[?, ?, ?, 1], offset: ?>>)
  return
}
func.func @fattn_fwd_d128_bf16_causal_lse(%q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {causal = true}
  return
}
func.func @fattn_fwd_d128_f16_lse(%q: memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {scale = 0.0883883461356163 : f32}
  return
}
func.func @fattn_fwd_d96_bf16_window_lse(%q: memref<?x?x?x96xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x96xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x96xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x96xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x96xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x96xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x96xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x96xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {causal = true, window_left = 128 : i64}
  return
}
func.func @fattn_fwd_d48_bf16_lse(%q: memref<?x?x?x48xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x48xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x48xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x48xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x48xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x48xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x48xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x48xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>)
  return
}
func.func @fattn_fwd_d112_bf16_causal_lse(%q: memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {causal = true}
  return
}
func.func @fattn_fwd_d112_bf16_lse(%q: memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>)
  return
}
func.func @fattn_fwd_d144_bf16_lse(%q: memref<?x?x?x144xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x144xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x144xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x144xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x144xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x144xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x144xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x144xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>)
  return
}
func.func @fattn_fwd_d240_bf16_causal_lse(%q: memref<?x?x?x240xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x240xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x240xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x240xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x240xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x240xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x240xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x240xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {causal = true}
  return
}
