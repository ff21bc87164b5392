// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=64 block-n=128" --fattn-sm90-tma --convert-fattn-to-nvvm-sm90 -verify-diagnostics

func.func @block_m_64(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op the sm_90a lowering needs 2 or 3 consumer warpgroups, found 1}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>)
  return
}

// -----

// V's head dim may differ from Q's and K's (value-head-dim.mlir), by the
// same rule.
func.func @value_head_dim_not_multiple_of_8(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x132xbf16>, %o: memref<?x?x?x132xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op sm_90a needs a head dim that is a multiple of 8 up to 256 for V of 16-bit inputs, found 132}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x132xbf16>) outs(%o : memref<?x?x?x132xbf16>)
  return
}

// -----

func.func @value_head_dim_over_256(%q: memref<?x?x?x192xf16>, %k: memref<?x?x?x192xf16>, %v: memref<?x?x?x264xf16>, %o: memref<?x?x?x264xf16>) {
  // expected-error @below {{'fattn.tiled_attention' op sm_90a needs a head dim that is a multiple of 8 up to 256 for V of 16-bit inputs, found 264}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x192xf16>, memref<?x?x?x192xf16>, memref<?x?x?x264xf16>) outs(%o : memref<?x?x?x264xf16>)
  return
}

// -----

func.func @dynamic_key_head_dim(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x?xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op the sm_90a lowering needs K's head dim equal to Q's, found ? and 64}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x?xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>)
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
