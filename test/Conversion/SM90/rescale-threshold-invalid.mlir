// RUN: fattn-opt %s -split-input-file --fattn-sm90-pipeline="rescale-threshold=0.9" -verify-diagnostics
// RUN: not fattn-opt %s -split-input-file --fattn-sm90-pipeline="rescale-threshold=-1" 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not fattn-opt %s -split-input-file --fattn-sm90-pipeline="rescale-threshold=16" 2>&1 | FileCheck %s --check-prefix=BIG

// The threshold bounds P before its rounding to the element type: e4m3
// rounds 256 P, which must stay below 448 (so at most log2(1.75) = 0.8074);
// 16-bit types at most 2^15 (f16's range). 0.9 is fine for f16 (no
// diagnostic in the second function).

// NEG: error: 'fattn.tiled_attention' op rescale-threshold -1 must be in [0, 0.8074] for e4m3 inputs
// NEG: error: 'fattn.tiled_attention' op rescale-threshold -1 must be in [0, 15] for 16-bit inputs
// BIG: error: 'fattn.tiled_attention' op rescale-threshold 16 must be in [0, 0.8074] for e4m3 inputs
// BIG: error: 'fattn.tiled_attention' op rescale-threshold 16 must be in [0, 15] for 16-bit inputs (P grows to 2^threshold before its rounding)

func.func @fp8(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op rescale-threshold 0.9 must be in [0, 0.8074] for e4m3 inputs (P grows to 2^threshold times 256 before its rounding)}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
  return
}

// -----

func.func @f16(%q: memref<?x?x?x64xf16>, %k: memref<?x?x?x64xf16>, %v: memref<?x?x?x64xf16>, %o: memref<?x?x?x64xf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf16>, memref<?x?x?x64xf16>, memref<?x?x?x64xf16>) outs(%o : memref<?x?x?x64xf16>)
  return
}
