// RUN: not fattn-opt %s --fattn-sm90-pipeline="work-order-tail=true" 2>&1 | FileCheck %s --check-prefix=CTA
// RUN: not fattn-opt %s --fattn-sm90-pipeline="persistent=true work-order-tail=true" 2>&1 | FileCheck %s --check-prefix=MASK

// The tail reorders a persistent CTA's work items: one CTA per Q tile has
// no order to change, and without a mask every item is as long as another.
// CTA: error: 'fattn.tiled_attention' op work-order-tail needs persistent tiles (--fattn-persistent-tiles)
// MASK: error: 'fattn.tiled_attention' op work-order-tail needs masked attention (a causal mask or a window), whose work items differ in length
func.func @plain(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
