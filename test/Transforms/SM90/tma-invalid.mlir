// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma -verify-diagnostics

func.func @f32_elements(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>, %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{'fattn.tiled_attention' op TMA with 128B swizzle and 64-column boxes needs 16-bit elements, found 'f32'}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>) outs(%o : memref<?x?x?x64xf32>)
  return
}
