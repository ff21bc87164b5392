// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize \
// RUN:   --fattn-intra-wg-overlap --fattn-pingpong="barrier-base=14" --fattn-fp8-layout --convert-fattn-to-nvvm-sm90 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PINGPONG

// The FP8 producer warpgroup transposes V and meets on the named barrier 15
// after each tile, which pingpong must not take.
// PINGPONG: error: 'fattn.tiled_attention' op pingpong barriers 14 and 15 collide with the FP8 producer's barrier 15
func.func @fp8(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
