// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-sm90-linear-exp2 2>&1 | FileCheck %s --check-prefix=SUMS
// RUN: not fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-sm90-row-sum-mma --fattn-sm90-linear-exp2 2>&1 | FileCheck %s --check-prefix=TYPE

// No f32 probability is left for the sums the threads would add.
// SUMS: error: 'fattn.tiled_attention' op linear-exp2 needs the row sums on the tensor cores (row-sum-mma, without an LSE or per-block V descales)
// It writes P's e4m3 bytes.
// TYPE: error: 'fattn.tiled_attention' op linear-exp2 needs e4m3 inputs (it writes P's e4m3 bytes)
func.func @fp8(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
  return
}

// -----

func.func @bf16(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
