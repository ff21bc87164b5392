// RUN: fattn-opt %s -verify-diagnostics --fattn-sm90-pipeline="host-launch=true persistent=true" -o /dev/null

// Kernels that need what only fattn's runtime provides stop with a diagnostic.
func.func @persistent(%q: memref<1x4x256x128xbf16>, %o: memref<1x4x256x128xbf16>) {
  // expected-error @+1 {{cannot launch @fattn_fwd_sm90_d128_bf16_m128n128s2_persistent from the host: it needs the device's multiprocessor count (persistent kernels; fattn's runtime launches them)}}
  fattn.attention ins(%q, %q, %q : memref<1x4x256x128xbf16>, memref<1x4x256x128xbf16>, memref<1x4x256x128xbf16>)
                  outs(%o : memref<1x4x256x128xbf16>)
  return
}
