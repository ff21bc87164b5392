// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --convert-fattn-to-nvvm-sm90 -verify-diagnostics

func.func @unplanned(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op has no TMA plan: run --fattn-sm90-tma first}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>)
  return
}
