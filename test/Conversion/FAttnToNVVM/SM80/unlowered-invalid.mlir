// RUN: fattn-opt %s -split-input-file --fattn-tile-grad="block-m=64 block-n=64" --convert-fattn-to-nvvm="chip=sm_80" -verify-diagnostics
// RUN: not fattn-opt %s -split-input-file --fattn-tile-grad="block-m=64 block-n=64" --convert-fattn-to-nvvm="chip=sm_90a" 2>&1 | FileCheck %s --check-prefix=SM90

// --convert-fattn-to-nvvm lowers a planned fattn.tiled_attention alone in
// its function; an untiled fattn.attention, the backward's tiled op, or two
// in one function would stay in place: a diagnostic names the pass that is
// missing. (An untiled fattn.attention_grad is left to the backward
// pipeline.)

func.func @untiled(%q: memref<1x2x64x64xbf16>, %o: memref<1x2x64x64xbf16>) {
  // expected-error @+1 {{'fattn.attention' op is not lowered by --convert-fattn-to-nvvm: run --fattn-tile and the target's passes first (--fattn-sm80-pipeline runs them all)}}
  fattn.attention ins(%q, %q, %q : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>) outs(%o : memref<1x2x64x64xbf16>)
  return
}
// SM90: error: 'fattn.attention' op is not lowered by --convert-fattn-to-nvvm: run --fattn-tile and the target's passes first (--fattn-sm90-pipeline runs them all)

// -----

func.func @grad(%q: memref<1x2x64x64xbf16>, %lse: memref<1x2x64xf32>, %dq: memref<1x2x64x64xbf16>) {
  // expected-error @+1 {{'fattn.tiled_attention_grad' op is not lowered by --convert-fattn-to-nvvm: --convert-fattn-grad-to-nvvm-sm80 lowers it}}
  fattn.attention_grad ins(%q, %q, %q, %q, %q, %lse : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64xf32>) outs(%dq, %dq, %dq : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>)
  return
}
// SM90: error: 'fattn.tiled_attention_grad' op is not lowered by --convert-fattn-to-nvvm: --convert-fattn-grad-to-nvvm-sm90 lowers it
