// The sm_90a lowering builds the choices that the plans of the IR record,
// whatever pass or hand wrote them, and checks them with the passes' rules.
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles \
// RUN:   | sed -e 's/fattn.sm90.tma = /fattn.sm90.work = #fattn.sm90_work_plan<tail = split>, fattn.sm90.tma = /' \
// RUN:   | fattn-opt --convert-fattn-to-nvvm-sm90="kernel-name=k" | FileCheck %s --check-prefix=SPLIT
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap \
// RUN:   | sed -e 's/fattn.sm90.tma = /fattn.sm90.consumers = #fattn.sm90_consumer_plan<row_sums = mma>, fattn.sm90.tma = /' \
// RUN:   | fattn-opt --convert-fattn-to-nvvm-sm90="kernel-name=k" | FileCheck %s --check-prefix=SUMS
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap | fattn-opt --convert-fattn-to-nvvm-sm90="kernel-name=k" | FileCheck %s --check-prefix=DEFAULT
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap \
// RUN:   | sed -e 's/fattn.sm90.tma = /fattn.sm90.work = #fattn.sm90_work_plan<q_buffers = 2>, fattn.sm90.tma = /' \
// RUN:   | not fattn-opt --convert-fattn-to-nvvm-sm90 2>&1 | FileCheck %s --check-prefix=RULE
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap \
// RUN:   | sed -e 's/fattn.sm90.tma = /fattn.sm90.work = 2 : i64, fattn.sm90.tma = /' \
// RUN:   | not fattn-opt --convert-fattn-to-nvvm-sm90 2>&1 | FileCheck %s --check-prefix=KIND

// The split tail's kernel takes a workspace; the row sums on the tensor
// cores show in the description's meta. Without plans, neither.
// SPLIT: \22name\22:\22workspace\22
// SPLIT: \22workspace_bytes_per_cta\22:
// SUMS: \22row_sums\22:\22mma\22
// DEFAULT-NOT: workspace
// DEFAULT-NOT: row_sums
// A second Q buffer serves only a persistent CTA.
// RULE: error: 'fattn.tiled_attention' op q-buffers 2 must be 1, or 2 with persistent tiles
// KIND: error: 'fattn.tiled_attention' op expected fattn.sm90.work to be a #fattn.sm90_work_plan, found 2 : i64
func.func @attn(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
