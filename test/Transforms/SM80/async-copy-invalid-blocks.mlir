// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=16" --fattn-sm80-async-copy -split-input-file -verify-diagnostics

// Head dim 32: rows of 4 chunks, 32 rows per step of the 128 threads'
// copies, more than a 16-key tile has.
func.func @d32(%q: memref<?x?x?x32xbf16>, %k: memref<?x?x?x32xbf16>, %v: memref<?x?x?x32xbf16>, %o: memref<?x?x?x32xbf16>) {
  // expected-error @+1 {{'fattn.tiled_attention' op sm_80: expected block_m a multiple of 32 and block_n of 32 (16, and the rows that 128 threads copy at once in 16-byte chunks at head dims 32 and 32), found block_m = 128, block_n = 16}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x32xbf16>, memref<?x?x?x32xbf16>, memref<?x?x?x32xbf16>) outs(%o : memref<?x?x?x32xbf16>)
  return
}

// -----

// V's rows count for the keys' tiles only: 32 rows of V's head dim 32 per
// step, more than a 16-key tile has; Q's head dim 64 copies 16 rows at once.
func.func @value_d32(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x32xbf16>, %o: memref<?x?x?x32xbf16>) {
  // expected-error @+1 {{'fattn.tiled_attention' op sm_80: expected block_m a multiple of 16 and block_n of 32 (16, and the rows that 128 threads copy at once in 16-byte chunks at head dims 64 and 32), found block_m = 128, block_n = 16}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x32xbf16>) outs(%o : memref<?x?x?x32xbf16>)
  return
}
