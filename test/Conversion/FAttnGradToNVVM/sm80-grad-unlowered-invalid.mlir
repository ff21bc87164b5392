// RUN: fattn-opt %s -split-input-file --fattn-tile --convert-fattn-grad-to-nvvm-sm80 -verify-diagnostics

// The sm_80 backward conversion lowers a fattn.tiled_attention_grad; an
// untiled fattn.attention_grad, or the forward's tiled op, would stay in
// place: a diagnostic names the pass that is missing.

func.func @untiled(%q: memref<1x2x64x64xbf16>, %lse: memref<1x2x64xf32>, %dq: memref<1x2x64x64xbf16>) {
  // expected-error @+1 {{'fattn.attention_grad' op is not lowered by --convert-fattn-grad-to-nvvm-sm80: run --fattn-tile-grad="block-m=64 block-n=128" first (--fattn-sm80-grad-pipeline runs both)}}
  fattn.attention_grad ins(%q, %q, %q, %q, %q, %lse : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64xf32>) outs(%dq, %dq, %dq : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>)
  return
}

// -----

func.func @forward(%q: memref<1x2x64x64xbf16>, %o: memref<1x2x64x64xbf16>) {
  // expected-error @+1 {{'fattn.tiled_attention' op is not lowered by --convert-fattn-grad-to-nvvm-sm80: --convert-fattn-to-nvvm lowers it}}
  fattn.attention ins(%q, %q, %q : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>) outs(%o : memref<1x2x64x64xbf16>)
  return
}
