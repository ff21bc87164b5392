// REQUIRES: ptxas
// RUN: rm -rf %t && fattn-compile %s --arch sm_90a --emit json --short-seqs -o %t
// RUN: rm -rf %t.opts && fattn-compile %s --arch sm_90a --emit json -o %t.opts --pipeline-options="stages=2 tma-store=true narrow-tail=64"
// RUN: FileCheck %s < %t.opts/vt.json
// RUN: cmp %t/vt.ptx %t.opts/vt.ptx

// --pipeline-options sets the pipeline's options over the tuned defaults:
// the three that --short-seqs sets for FP8 head dim 128 with V^T
// (fp8-compile-short-seqs.mlir) give the same kernel, without the label.
// CHECK-NOT: tuned_for
// CHECK: "dynamic_smem_bytes": 190560
// CHECK-NOT: tuned_for
func.func @vt(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x128x?xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?xf32>, %dk: memref<?x?xf32>, %dv: memref<?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x128x?xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}
