// RUN: fattn-opt %s -verify-diagnostics --fattn-sm90-pipeline="host-launch=true" -o /dev/null
// RUN: fattn-opt %s --fattn-sm80-pipeline="host-launch=true" -o /dev/null

// The sm_90a kernel reads Q, K and V through TMA, whose strides are below
// 2^40 bytes: Q's batch stride here is 3 x (2^31 - 1) x 128 elements of 2
// bytes, refused at compile time. The sm_80 kernel's offsets are 64-bit.
func.func @tma_stride(%q: memref<2x3x2147483647x128xbf16>, %o: memref<2x3x2147483647x128xbf16>) {
  // expected-error @+1 {{cannot launch @fattn_fwd_sm90_d128_bf16_m128n128s2 from the host: tensormap parameter 'q_map' of tensor 'q': the stride of dim 0 is 824633720448 elements of 2 bytes; TMA takes strides below 2^40 bytes}}
  fattn.attention ins(%q, %q, %q : memref<2x3x2147483647x128xbf16>, memref<2x3x2147483647x128xbf16>, memref<2x3x2147483647x128xbf16>) outs(%o : memref<2x3x2147483647x128xbf16>)
  return
}
