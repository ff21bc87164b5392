// REQUIRES: ptxas
// RUN: fattn-compile %s --arch sm_80 --emit ptx -o %t
// RUN: %ptxas -arch=sm_80 -v %t/fattn_fwd_d64_bf16.ptx -o %t/d64.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -arch=sm_80 -v %t/fattn_fwd_d256_bf16.ptx -o %t/d256.cubin 2>&1 | FileCheck %s

// Shipped configurations assemble for sm_80 without spills or stack.
// CHECK: Compiling entry function 'fattn_fwd_d{{[0-9]+}}_bf16' for 'sm_80'
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
