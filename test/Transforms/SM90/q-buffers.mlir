// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles | FileCheck %s --check-prefix=BEFORE
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --fattn-sm90-q-buffers | FileCheck %s
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --fattn-sm90-q-tile-order="order=forward" --fattn-sm90-q-buffers | FileCheck %s --check-prefix=KEEP
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-sm90-q-buffers 2>&1 | FileCheck %s --check-prefix=ONECTA
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --fattn-sm90-q-buffers="count=3" 2>&1 | FileCheck %s --check-prefix=THREE

// The pass records the buffers in the op's work plan, keeping what the
// plan holds already.
// BEFORE-NOT: fattn.sm90.work
// CHECK: fattn.tiled_attention {{.*}}fattn.sm90.work = #fattn.sm90_work_plan<q_buffers = 2>
// CHECK: fattn.work_loop
// KEEP: fattn.sm90.work = #fattn.sm90_work_plan<q_tile_order = forward, q_buffers = 2>
// A second buffer only serves a CTA that computes several work items.
// ONECTA: error: 'fattn.tiled_attention' op q-buffers 2 must be 1, or 2 with persistent tiles
// THREE: error: 'fattn.tiled_attention' op q-buffers 3 must be 1, or 2 with persistent tiles
func.func @attn(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
