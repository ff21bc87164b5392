// RUN: not fattn-opt %s --fattn-sm90-pipeline="split-tail=true" 2>&1 | FileCheck %s --check-prefix=CTA
// RUN: not fattn-opt %s --split-input-file --fattn-sm90-pipeline="persistent=true split-tail=true" 2>&1 | FileCheck %s --check-prefix=MASK
// RUN: not fattn-opt %s --split-input-file --fattn-sm90-pipeline="persistent=true q-buffers=2 tma-store=true split-tail=true" 2>&1 | FileCheck %s --check-prefix=TMA
// RUN: not fattn-opt %s --split-input-file --fattn-sm90-pipeline="persistent=true block-n=128 split-tail=true" 2>&1 | FileCheck %s --check-prefix=FP8

// The split tail cuts the work items of a persistent CTA's loop along their
// KV tiles: one CTA per Q tile has no loop to cut.
// CTA: error: 'fattn.tiled_attention' op split-tail needs persistent tiles (--fattn-persistent-tiles)
// Every item must have the same KV tiles: no causal mask, no window.
// MASK: error: 'fattn.tiled_attention' op split-tail needs unmasked attention, whose work items all have the same KV tiles (no causal mask or window)
// MASK: error: 'fattn.tiled_attention' op split-tail needs unmasked attention
// TMA-NOT: error: 'fattn.tiled_attention' op split-tail needs unmasked
// A piece without its item's first tile stores no O, so it would not hand
// back a Q buffer that O leaves through.
// TMA: error: 'fattn.tiled_attention' op split-tail needs O stored from registers or through a buffer of its own (FP8), not by tma-store through a 16-bit kernel's Q buffer
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

func.func @window(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {window_left = 100 : i64, window_right = 20 : i64}
  return
}

// -----

// A piece of an item stops in per-block V units of its last tile, which the
// merge does not convert.
// FP8: error: 'fattn.tiled_attention' op split-tail needs V descales per tensor or per (batch, head), not per block
func.func @fp8_block_v(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {descale_block_q = 128 : i64, descale_block_kv = 128 : i64}
  return
}
