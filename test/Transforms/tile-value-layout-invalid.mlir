// RUN: fattn-opt %s -split-input-file -fattn-tile="block-m=64 block-n=48" -verify-diagnostics

// value_layout: a KV tile of V^T holds whole k steps of 32 keys (the key
// permutation's multiple); 48-key tiles are fine for a V stored by rows.
func.func @f(%q: memref<?x?x?x64xf8E4M3FN>, %k: memref<?x?x?x64xf8E4M3FN>, %v: memref<?x?x64x?xf8E4M3FN>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @+1 {{'fattn.attention' op cannot be tiled: value_layout = "transposed_wgmma_e4m3_k32" needs block-n to be a multiple of 32, found 48}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>, memref<?x?x64x?xf8E4M3FN>) outs(%o : memref<?x?x?x64xbf16>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

// -----

func.func @f(%q: memref<?x?x?x64xf8E4M3FN>, %k: memref<?x?x?x64xf8E4M3FN>, %v: memref<?x?x?x64xf8E4M3FN>, %o: memref<?x?x?x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>) outs(%o : memref<?x?x?x64xbf16>)
  return
}
