// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap | FileCheck %s --check-prefix=BEFORE
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-sm90-value-mma | FileCheck %s
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-sm90-row-sum-mma --fattn-sm90-value-mma="form=whole" | FileCheck %s --check-prefix=WHOLE

// O += P V is one wgmma over the whole head dim unless the consumer plan
// says per_atom (one per 64-column atom).
// BEFORE-NOT: fattn.sm90.consumers
// CHECK: fattn.tiled_attention {{.*}}fattn.sm90.consumers = #fattn.sm90_consumer_plan<value_mma = per_atom>
// WHOLE: fattn.sm90.consumers = #fattn.sm90_consumer_plan<row_sums = mma>
func.func @attn(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
