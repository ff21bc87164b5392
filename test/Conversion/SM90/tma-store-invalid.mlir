// RUN: not fattn-opt %s --fattn-sm90-pipeline="persistent=true tma-store=true" 2>&1 | FileCheck %s --check-prefix=ONEQ

// 16-bit O goes out through the work item's Q buffer, which only a second
// buffer keeps free after the item's last S = Q K^T. (FP8 kernels stage O in
// a buffer of their own: fp8-compile-short-seqs.mlir.)
// ONEQ: error: 'fattn.tiled_attention' op tma-store needs q-buffers=2 for 16-bit element types (O goes out through the work item's Q buffer)
func.func @bf16(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
