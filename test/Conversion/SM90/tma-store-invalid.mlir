// RUN: not fattn-opt %s --split-input-file --fattn-sm90-pipeline="persistent=true tma-store=true" 2>&1 | FileCheck %s --check-prefix=ONEQ
// RUN: not fattn-opt %s --split-input-file --fattn-sm90-pipeline="persistent=true q-buffers=2 tma-store=true" 2>&1 | FileCheck %s --check-prefix=FP8

// O goes out through the work item's Q buffer, which only a second buffer
// keeps free after the item's last S = Q K^T.
// ONEQ: error: 'fattn.tiled_attention' op tma-store needs q-buffers=2
func.func @bf16(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}

// -----

// FP8's Q buffer holds e4m3 rows, not the bf16 rows of O's tensor map.
// FP8: error: 'fattn.tiled_attention' op tma-store needs a 16-bit element type, not e4m3
func.func @fp8(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
