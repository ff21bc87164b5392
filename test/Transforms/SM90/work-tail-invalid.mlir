// RUN: not fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-sm90-work-tail 2>&1 | FileCheck %s --check-prefix=CTA
// RUN: not fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --fattn-sm90-work-tail 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma="tma-store=true" --fattn-warp-specialize --fattn-persistent-tiles --fattn-sm90-q-buffers --fattn-sm90-work-tail 2>&1 | FileCheck %s --check-prefix=TMA
// RUN: not fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-sm90-work-tail="tail=pairs" 2>&1 | FileCheck %s --check-prefix=PAIRS-CTA
// RUN: not fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --fattn-sm90-work-tail="tail=pairs" 2>&1 | FileCheck %s --check-prefix=PAIRS

// Both tails reorder the items of a persistent CTA's loop.
// CTA: error: 'fattn.tiled_attention' op split-tail needs persistent tiles (--fattn-persistent-tiles)
// PAIRS-CTA: error: 'fattn.tiled_attention' op work-order-tail needs persistent tiles (--fattn-persistent-tiles)
// The split tail needs items of one length and pieces whose O combine (not
// per-block V descales).
// SPLIT: error: 'fattn.tiled_attention' op split-tail needs unmasked attention, whose work items all have the same KV tiles (no causal mask or window)
// SPLIT: error: 'fattn.tiled_attention' op split-tail needs V descales per tensor or per (batch, head), not per block
// A piece without its item's first tile stores no O, and so does not hand
// back the Q buffer that a 16-bit kernel's TMA stores use.
// TMA: error: 'fattn.tiled_attention' op split-tail needs O stored from registers or through a buffer of its own (FP8), not by tma-store through a 16-bit kernel's Q buffer
// The pairs' order balances items of unequal length.
// PAIRS: error: 'fattn.tiled_attention' op work-order-tail needs masked attention (a causal mask or a window), whose work items differ in length
func.func @plain(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}

// -----

func.func @causal(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}

// -----

func.func @v_blocks(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {descale_block_q = 128 : i64, descale_block_kv = 128 : i64}
  return
}
