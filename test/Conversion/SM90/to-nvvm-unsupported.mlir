// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=64 block-n=128" --fattn-sm90-tma --convert-fattn-to-nvvm-sm90 -verify-diagnostics

func.func @block_m_64(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op the sm_90a lowering needs 2 or 3 consumer warpgroups, found 1}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>)
  return
}

// -----

func.func @mixed_head_dims(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op sm_90a needs V's head dim equal to Q's and K's, found 64 and 128}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}

// -----

func.func @head_dim_not_multiple_of_8(%q: memref<?x?x?x36xbf16>, %k: memref<?x?x?x36xbf16>, %v: memref<?x?x?x36xbf16>, %o: memref<?x?x?x36xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op sm_90a needs a head dim that is a multiple of 8 up to 256 for 16-bit inputs, found 36}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x36xbf16>, memref<?x?x?x36xbf16>, memref<?x?x?x36xbf16>) outs(%o : memref<?x?x?x36xbf16>)
  return
}

// -----

func.func @head_dim_over_256(%q: memref<?x?x?x264xbf16>, %k: memref<?x?x?x264xbf16>, %v: memref<?x?x?x264xbf16>, %o: memref<?x?x?x264xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op sm_90a needs a head dim that is a multiple of 8 up to 256 for 16-bit inputs, found 264}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x264xbf16>, memref<?x?x?x264xbf16>, memref<?x?x?x264xbf16>) outs(%o : memref<?x?x?x264xbf16>)
  return
}
