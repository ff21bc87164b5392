// RUN: not fattn-opt %s --fattn-sm90-pipeline="q-buffers=2" 2>&1 | FileCheck %s --check-prefix=ONECTA
// RUN: not fattn-opt %s --fattn-sm90-pipeline="persistent=true q-buffers=3" 2>&1 | FileCheck %s --check-prefix=THREE
// RUN: not fattn-opt %s --fattn-sm90-pipeline="persistent=true q-buffers=0" 2>&1 | FileCheck %s --check-prefix=ZERO

// A second Q buffer only serves a CTA that computes several work items.
// ONECTA: error: 'fattn.tiled_attention' op q-buffers 2 must be 1, or 2 with persistent tiles
// THREE: error: 'fattn.tiled_attention' op q-buffers 3 must be 1, or 2 with persistent tiles
// ZERO: error: 'fattn.tiled_attention' op q-buffers 0 must be 1, or 2 with persistent tiles
func.func @attn(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
