// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles | FileCheck %s --check-prefix=BEFORE
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --fattn-sm90-work-tail="tail=split" | FileCheck %s --check-prefix=SPLIT
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --fattn-sm90-work-tail="tail=none" | FileCheck %s --check-prefix=NONE
// The pairs' order is for masked attention: the same op, causal.
// RUN: sed -e 's/^\(  fattn.attention .*\)$/\1 {causal = true}/' %s \
// RUN:   | fattn-opt --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --fattn-sm90-work-tail="tail=pairs" | FileCheck %s --check-prefix=PAIRS

// The pass records the tail in the work plan: split for unmasked work
// items, pairs for masked ones; none is the default.
// BEFORE-NOT: fattn.sm90.work
// SPLIT: fattn.tiled_attention {{.*}}fattn.sm90.work = #fattn.sm90_work_plan<tail = split>
// NONE: fattn.tiled_attention {{.*}}fattn.sm90.work = #fattn.sm90_work_plan<>
// PAIRS: fattn.tiled_attention {{.*}}fattn.sm90.work = #fattn.sm90_work_plan<tail = pairs>{{.*}}window_right = 0 : i64
func.func @plain(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
