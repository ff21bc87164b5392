// RUN: not fattn-compile %s --arch sm_80 --emit ptx -o %t.ptx 2>&1 | FileCheck %s
// CHECK: error: 'fattn.tiled_attention' op sm_80: expected f16 or bf16 elements, found 'f32'
func.func @f32(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>, %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>) outs(%o : memref<?x?x?x64xf32>)
  return
}
