// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma -verify-diagnostics

func.func @f32_elements(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>, %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{'fattn.tiled_attention' op TMA with 128B swizzle needs 16-bit or 8-bit (FP8) elements, found 'f32'}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>) outs(%o : memref<?x?x?x64xf32>)
  return
}
