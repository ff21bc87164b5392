// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=64" --fattn-sm80-mma -verify-diagnostics

func.func @no_ring(%q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  // expected-error @+1 {{'fattn.tiled_attention' op sm_80: run --fattn-sm80-async-copy before --fattn-sm80-mma}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>)
  return
}
