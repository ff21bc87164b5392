// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy -verify-diagnostics

func.func @f32(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>, %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @+1 {{'fattn.tiled_attention' op sm_80: expected f16 or bf16 elements, found 'f32'}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>) outs(%o : memref<?x?x?x64xf32>)
  return
}

// -----

func.func @d36(%q: memref<?x?x?x36xbf16>, %k: memref<?x?x?x36xbf16>, %v: memref<?x?x?x36xbf16>, %o: memref<?x?x?x36xbf16>) {
  // expected-error @+1 {{'fattn.tiled_attention' op sm_80 needs a head dim that is a multiple of 8 from 16 up to 256 for 16-bit inputs, found 36}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x36xbf16>, memref<?x?x?x36xbf16>, memref<?x?x?x36xbf16>) outs(%o : memref<?x?x?x36xbf16>)
  return
}

// -----

// V's head dim may differ from Q's and K's, by the same rule.
func.func @value_head_dim_not_multiple_of_8(%q: memref<?x?x?x128xf16>, %k: memref<?x?x?x128xf16>, %v: memref<?x?x?x68xf16>, %o: memref<?x?x?x68xf16>) {
  // expected-error @+1 {{'fattn.tiled_attention' op sm_80 needs a head dim that is a multiple of 8 from 16 up to 256 for V of 16-bit inputs, found 68}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf16>, memref<?x?x?x128xf16>, memref<?x?x?x68xf16>) outs(%o : memref<?x?x?x68xf16>)
  return
}

// -----

func.func @too_much_smem(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>, %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>) {
  // expected-error @+1 {{'fattn.tiled_attention' op sm_80: needs 202752 bytes of shared memory, more than 166912}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>) outs(%o : memref<?x?x?x256xbf16>)
  return
}

// -----

// Head dim 8: rows of one 16-byte chunk, which the 128 threads copy 128 rows
// at a time, more than the tuned tiles' 64 keys.
func.func @d8(%q: memref<?x?x?x8xbf16>, %k: memref<?x?x?x8xbf16>, %v: memref<?x?x?x8xbf16>, %o: memref<?x?x?x8xbf16>) {
  // expected-error @+1 {{'fattn.tiled_attention' op sm_80 needs a head dim that is a multiple of 8 from 16 up to 256 for 16-bit inputs, found 8}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x8xbf16>, memref<?x?x?x8xbf16>, memref<?x?x?x8xbf16>) outs(%o : memref<?x?x?x8xbf16>)
  return
}

// -----

func.func @value_head_dim_8(%q: memref<?x?x?x64xf16>, %k: memref<?x?x?x64xf16>, %v: memref<?x?x?x8xf16>, %o: memref<?x?x?x8xf16>) {
  // expected-error @+1 {{'fattn.tiled_attention' op sm_80 needs a head dim that is a multiple of 8 from 16 up to 256 for V of 16-bit inputs, found 8}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf16>, memref<?x?x?x64xf16>, memref<?x?x?x8xf16>) outs(%o : memref<?x?x?x8xf16>)
  return
}

// -----

// Head dim 16 beside 248 or 256: the wider rows fit 32-key tiles only, and
// 16-column rows are copied 64 at a time.
func.func @d16_value_256(%q: memref<?x?x?x16xbf16>, %k: memref<?x?x?x16xbf16>, %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>) {
  // expected-error @+1 {{'fattn.tiled_attention' op sm_80 needs Q's and K's head dim and V's to be at most 240 where either is 16 or less, for 16-bit inputs, found 16 and 256}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>, memref<?x?x?x256xbf16>) outs(%o : memref<?x?x?x256xbf16>)
  return
}

// -----

func.func @d248_value_16(%q: memref<?x?x?x248xf16>, %k: memref<?x?x?x248xf16>, %v: memref<?x?x?x16xf16>, %o: memref<?x?x?x16xf16>) {
  // expected-error @+1 {{'fattn.tiled_attention' op sm_80 needs Q's and K's head dim and V's to be at most 240 where either is 16 or less, for 16-bit inputs, found 248 and 16}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x248xf16>, memref<?x?x?x248xf16>, memref<?x?x?x16xf16>) outs(%o : memref<?x?x?x16xf16>)
  return
}
