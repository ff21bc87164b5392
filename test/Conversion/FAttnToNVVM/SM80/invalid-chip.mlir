// RUN: fattn-opt %s --fattn-tile --convert-fattn-to-nvvm="chip=sm_75" -verify-diagnostics

func.func @unknown_chip(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @+1 {{'fattn.tiled_attention' op no NVVM kernel builder for chip 'sm_75' (sm_80 is built in; see FAttnToNVVM.h for sm_90a)}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>)
  return
}
