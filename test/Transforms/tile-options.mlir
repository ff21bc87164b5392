// RUN: fattn-opt %s -fattn-tile="block-m=0 block-n=16" -verify-diagnostics

func.func @bad_block(%q: memref<1x1x64x16xf32>, %o: memref<1x1x64x16xf32>) {
  // expected-error @+1 {{'fattn.attention' op cannot be tiled: block sizes must be positive, found block-m = 0, block-n = 16}}
  fattn.attention ins(%q, %q, %q : memref<1x1x64x16xf32>, memref<1x1x64x16xf32>, memref<1x1x64x16xf32>) outs(%o : memref<1x1x64x16xf32>)
  return
}
