// RUN: fattn-opt %s --fattn-tile-grad="block-m=128 block-n=64" --convert-fattn-grad-to-nvvm-sm80 -verify-diagnostics

// The main kernel's 8 warps own 16 keys each and share Q tiles of 64 rows:
// 64 x 128 tiles.
func.func @tiles(%q: memref<1x2x64x64xbf16>, %k: memref<1x2x64x64xbf16>, %v: memref<1x2x64x64xbf16>, %o: memref<1x2x64x64xbf16>, %do: memref<1x2x64x64xbf16>, %lse: memref<1x2x64xf32>, %dq: memref<1x2x64x64xbf16>, %dk: memref<1x2x64x64xbf16>, %dv: memref<1x2x64x64xbf16>) {
  // expected-error @+1 {{'fattn.tiled_attention_grad' op the sm_80 backward kernels take 64 x 128 tiles (block-m=64 block-n=128), found 128 x 64 at head dim 64}}
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64xf32>) outs(%dq, %dk, %dv : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>)
  return
}
