// RUN: fattn-opt %s --fattn-sm80-pipeline="host-launch=true" -split-input-file -verify-diagnostics

// The host launch passes compiled-in scalars only: a kernel that takes its
// scale or softcap at run time is refused, not launched with a default.
func.func @attention(%q: memref<1x2x128x64xbf16>, %k: memref<1x2x128x64xbf16>, %v: memref<1x2x128x64xbf16>, %o: memref<1x2x128x64xbf16>, %s: f32) {
  // expected-error @+1 {{takes its scale or softcap at run time ("runtime_scalars"), which the host launch does not pass: give fattn.attention its scale and softcap as attributes}}
  fattn.attention ins(%q, %k, %v : memref<1x2x128x64xbf16>, memref<1x2x128x64xbf16>, memref<1x2x128x64xbf16>) outs(%o : memref<1x2x128x64xbf16>) scale(%s : f32)
  return
}
