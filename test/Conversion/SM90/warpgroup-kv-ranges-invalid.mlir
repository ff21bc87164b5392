// RUN: not fattn-opt %s --fattn-sm90-pipeline="warpgroup-kv-ranges=true pingpong=true" 2>&1 | FileCheck %s --check-prefix=PP
// RUN: not fattn-opt %s --fattn-sm90-pipeline="warpgroup-kv-ranges=true warp-specialize=false" 2>&1 | FileCheck %s --check-prefix=WS
// RUN: not fattn-opt %s -split-input-file --fattn-sm90-pipeline="warpgroup-kv-ranges=true persistent=true split-tail=true" 2>&1 | FileCheck %s --check-prefix=ST

// Pingpong's turns alternate between the consumer warpgroups, each taking
// one per tile: a warpgroup with fewer tiles would leave the other waiting.
// PP: error: 'fattn.tiled_attention' op warpgroup-kv-ranges needs no pingpong, whose turns each consumer warpgroup must take as often as the others
// Without the producer the consumers copy the ring ahead themselves, and a
// warpgroup that stops early would stop copying.
// WS: error: 'fattn.tiled_attention' op warpgroup-kv-ranges needs the producer warpgroup (--fattn-warp-specialize), which loads the tiles a consumer warpgroup skips
func.func @causal(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}

// -----

// The split tail's CTAs wait on each other's pieces in the epilogue, before
// a warpgroup hands its skipped tiles back: a warpgroup of a last, partial
// Q tile that skips all of them held its CTA's ring (measured: a hang).
// ST: error: 'fattn.tiled_attention' op warpgroup-kv-ranges needs no split tail, whose pieces wait on each other before a warpgroup hands its skipped tiles back
func.func @plain(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
