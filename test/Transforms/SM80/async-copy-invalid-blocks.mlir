// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=16" --fattn-sm80-async-copy -verify-diagnostics

// Head dim 32: rows of 4 chunks, 32 rows per step of the 128 threads'
// copies, more than a 16-key tile has.
func.func @d32(%q: memref<?x?x?x32xbf16>, %k: memref<?x?x?x32xbf16>, %v: memref<?x?x?x32xbf16>, %o: memref<?x?x?x32xbf16>) {
  // expected-error @+1 {{'fattn.tiled_attention' op sm_80: block sizes must be multiples of 16 whose tiles split into 16-byte copies of 128 threads, found block_m = 128, block_n = 16}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x32xbf16>, memref<?x?x?x32xbf16>, memref<?x?x?x32xbf16>) outs(%o : memref<?x?x?x32xbf16>)
  return
}
