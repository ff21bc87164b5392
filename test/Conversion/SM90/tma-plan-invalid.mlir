// The sm_90a lowering reads the TMA plan and refuses one it does not
// implement, or whose O store the other recorded choices do not allow.
// The boxes of a 16-bit op are 64 columns wide (hand-edited):
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma | sed -e 's/box_cols = 64/box_cols = 128/' \
// RUN:   | not fattn-opt --convert-fattn-to-nvvm-sm90 2>&1 | FileCheck %s --check-prefix=BOX
// A 16-bit kernel's TMA stores go out through the work item's Q buffer,
// which needs the second one of #fattn.sm90_work_plan (--fattn-sm90-q-buffers):
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma="tma-store=true" --fattn-warp-specialize --fattn-persistent-tiles \
// RUN:   | not fattn-opt --convert-fattn-to-nvvm-sm90 2>&1 | FileCheck %s --check-prefix=STORE

// BOX: 'fattn.tiled_attention' op expected TMA boxes of 64 columns (one 128-byte swizzle atom of 'bf16'), found box_cols = 128
// STORE: 'fattn.tiled_attention' op tma-store needs q-buffers=2 for 16-bit element types (O goes out through the work item's Q buffer)
func.func @attn(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
