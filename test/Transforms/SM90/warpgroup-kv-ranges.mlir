// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap | FileCheck %s --check-prefix=BEFORE
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-sm90-warpgroup-kv-ranges | FileCheck %s
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-pingpong --fattn-sm90-warpgroup-kv-ranges 2>&1 | FileCheck %s --check-prefix=PINGPONG
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-sm90-warpgroup-kv-ranges 2>&1 | FileCheck %s --check-prefix=PRODUCER
// RUN: not fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --fattn-sm90-work-tail --fattn-sm90-warpgroup-kv-ranges 2>&1 | FileCheck %s --check-prefix=SPLIT

// The pass records kv_ranges = warpgroup in the consumer plan.
// BEFORE-NOT: fattn.sm90.consumers
// CHECK: fattn.tiled_attention {{.*}}fattn.sm90.consumers = #fattn.sm90_consumer_plan<kv_ranges = warpgroup>
// A warpgroup that skips tiles takes fewer GEMM turns than the other.
// PINGPONG: error: 'fattn.tiled_attention' op warpgroup-kv-ranges needs no pingpong, whose turns each consumer warpgroup must take as often as the others
// The producer warpgroup loads the tiles a consumer warpgroup skips.
// PRODUCER: error: 'fattn.tiled_attention' op warpgroup-kv-ranges needs the producer warpgroup (--fattn-warp-specialize), which loads the tiles a consumer warpgroup skips
// A split tail's pieces wait on other CTAs before the hand-back (an
// unmasked op: the work tail's own rules pass).
// SPLIT: error: 'fattn.tiled_attention' op warpgroup-kv-ranges needs no split tail, whose pieces wait on each other before a warpgroup hands its skipped tiles back
func.func @causal(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}

// -----

func.func @plain(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
