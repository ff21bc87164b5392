// RUN: fattn-opt %s -split-input-file --fattn-tile --convert-fattn-to-nvvm="chip=sm_80" -verify-diagnostics
func.func @not_annotated(%q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  // expected-error @+1 {{'fattn.tiled_attention' op sm_80 kernel: missing fattn.sm80.smem; run --fattn-sm80-async-copy and --fattn-sm80-mma first}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>)
  return
}
