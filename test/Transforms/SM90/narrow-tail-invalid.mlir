// RUN: not fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-sm90-narrow-tail="keys=24" 2>&1 | FileCheck %s --check-prefix=STEP
// RUN: not fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-sm90-narrow-tail="keys=128" 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: not fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-sm90-narrow-tail="keys=32" 2>&1 | FileCheck %s --check-prefix=LOOP
// RUN: not fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-sm90-narrow-tail="keys=64" 2>&1 | FileCheck %s --check-prefix=MASK

// The narrow tile's GEMMs step over keys by the wgmma k step (16 keys for
// 16-bit types, 32 for e4m3), and it must be narrower than a tile.
// STEP: error: 'fattn.tiled_attention' op narrow-tail 24 needs a multiple of 16 below block_n (128)
// STEP: error: 'fattn.tiled_attention' op narrow-tail 24 needs a multiple of 32 below block_n (128)
// WIDE: error: 'fattn.tiled_attention' op narrow-tail 128 needs a multiple of 16 below block_n (128)
// It replaces the last iteration of the overlapped loop.
// LOOP: error: 'fattn.tiled_attention' op narrow-tail 32 needs the overlapped KV loop (--fattn-intra-wg-overlap)
// Under a mask the short tiles are the mask's edges, not only the
// sequence's last; K factors per key are staged for whole tiles.
// MASK: error: 'fattn.tiled_attention' op narrow-tail 64 needs unmasked attention (no causal mask or window), whose only short tile is the sequence's last
// MASK: error: 'fattn.tiled_attention' op narrow-tail 64 needs K descales per KV tile, not per key
func.func @plain(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}

// -----

func.func @fp8(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
  return
}

// -----

func.func @causal(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}

// -----

func.func @per_key(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?xf32>) {descale_block_q = 1 : i64, descale_block_kv = 1 : i64}
  return
}
