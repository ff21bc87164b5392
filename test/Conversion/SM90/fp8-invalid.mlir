// RUN: fattn-opt %s -split-input-file --fattn-sm90-pipeline="block-n=128" -verify-diagnostics

// The FP8 configurations the sm_90a kernel does not implement, each with its
// diagnostic.

func.func @head_dim_64(%q: memref<?x?x?x64xf8E4M3FN>, %k: memref<?x?x?x64xf8E4M3FN>, %v: memref<?x?x?x64xf8E4M3FN>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op sm_90a needs a head dim that is a multiple of 128 up to 256 for e4m3 inputs, found 64}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>) outs(%o : memref<?x?x?x64xbf16>)
  return
}

// -----

func.func @head_dim_384(%q: memref<?x?x?x384xf8E4M3FN>, %k: memref<?x?x?x384xf8E4M3FN>, %v: memref<?x?x?x384xf8E4M3FN>, %o: memref<?x?x?x384xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op sm_90a needs a head dim that is a multiple of 128 up to 256 for e4m3 inputs, found 384}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x384xf8E4M3FN>, memref<?x?x?x384xf8E4M3FN>, memref<?x?x?x384xf8E4M3FN>) outs(%o : memref<?x?x?x384xbf16>)
  return
}

// -----

func.func @value_head_dim_differs(%q: memref<?x?x?x256xf8E4M3FN>, %k: memref<?x?x?x256xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op sm_90a needs V's head dim equal to Q's and K's, found 256 and 128}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xf8E4M3FN>, memref<?x?x?x256xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
