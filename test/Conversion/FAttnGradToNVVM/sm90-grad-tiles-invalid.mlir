// RUN: fattn-opt %s --fattn-tile-grad="block-m=64 block-n=192" --convert-fattn-grad-to-nvvm-sm90 -verify-diagnostics

// The main kernel runs a warpgroup per 64 keys (wgmma's M), one or two, on
// Q tiles of 64 rows: 64 x 64 or 64 x 128 tiles.
func.func @tiles(%q: memref<1x2x64x64xbf16>, %k: memref<1x2x64x64xbf16>, %v: memref<1x2x64x64xbf16>, %o: memref<1x2x64x64xbf16>, %do: memref<1x2x64x64xbf16>, %lse: memref<1x2x64xf32>, %dq: memref<1x2x64x64xbf16>, %dk: memref<1x2x64x64xbf16>, %dv: memref<1x2x64x64xbf16>) {
  // expected-error @+1 {{'fattn.tiled_attention_grad' op the sm_90a backward kernels take 64 x 64 or 64 x 128 tiles (block-m=64, block-n=64 or 128), found 64 x 192 at head dim 64}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64xf32>) outs(%dq, %dk, %dv : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>)
  return
}
