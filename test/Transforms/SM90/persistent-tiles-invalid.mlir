// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-persistent-tiles -verify-diagnostics

// Without --fattn-warp-specialize there is no producer warpgroup to load the
// next work item's tiles.
func.func @no_producer(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op persistent tiles need the producer warpgroup of --fattn-warp-specialize: run it first}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}

// -----

// Each op gets its diagnostic, not only the first.
func.func @two_ops(%q: memref<?x?x?x64xf16>, %k: memref<?x?x?x64xf16>, %v: memref<?x?x?x64xf16>, %o: memref<?x?x?x64xf16>, %o2: memref<?x?x?x64xf16>) {
  // expected-error @below {{'fattn.tiled_attention' op persistent tiles need the producer warpgroup of --fattn-warp-specialize: run it first}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf16>, memref<?x?x?x64xf16>, memref<?x?x?x64xf16>) outs(%o : memref<?x?x?x64xf16>)
  // expected-error @below {{'fattn.tiled_attention' op persistent tiles need the producer warpgroup of --fattn-warp-specialize: run it first}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf16>, memref<?x?x?x64xf16>, memref<?x?x?x64xf16>) outs(%o2 : memref<?x?x?x64xf16>)
  return
}
