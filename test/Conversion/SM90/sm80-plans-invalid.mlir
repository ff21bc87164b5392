// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy --fattn-sm80-mma --fattn-sm90-tma --fattn-warp-specialize --convert-fattn-to-nvvm-sm90 -verify-diagnostics

// The sm_90a kernel refuses an op that carries a plan of the sm_80 kernel
// (--fattn-sm80-async-copy's shared memory ring, --fattn-sm80-mma's
// fragments) instead of building the kernel without it.

func.func @sm80_plans(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  // expected-error @below {{fattn.sm80.mma is a plan of the sm_80 kernel, which the sm_90a kernel does not follow; drop its pass or lower for sm_80}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
