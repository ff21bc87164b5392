// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap | FileCheck %s --check-prefix=BEFORE
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-sm90-q-tile-order="order=forward" | FileCheck %s --check-prefix=FORWARD
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-sm90-q-tile-order="order=forward" --fattn-sm90-q-tile-order="order=reverse" | FileCheck %s --check-prefix=REVERSE

// The lowering's default order starts with a head's last Q tiles (the
// longest under a causal mask): no plan. The pass records the order in the
// op's work plan; the default, recorded, prints as a plan of defaults.
// BEFORE-NOT: fattn.sm90.work
// FORWARD: fattn.tiled_attention {{.*}}fattn.sm90.work = #fattn.sm90_work_plan<q_tile_order = forward>
// REVERSE: fattn.tiled_attention {{.*}}fattn.sm90.work = #fattn.sm90_work_plan<>
func.func @attn(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}
