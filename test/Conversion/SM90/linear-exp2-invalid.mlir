// RUN: not fattn-opt %s --split-input-file --fattn-sm90-pipeline="linear-exp2=true" 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: not fattn-opt %s --split-input-file --fattn-sm90-pipeline="row-sum-mma=true linear-exp2=true" 2>&1 | FileCheck %s --check-prefix=INVALID

// No f32 probability is left for the row sums: the tensor cores must add
// the bytes (linear-exp2-fp8.mlir has the kernel). Without row-sum-mma, and
// where the lowering ignores it (an LSE, per-block V descales), the option is
// an error.
// ROWS: error: 'fattn.tiled_attention' op linear-exp2 needs the row sums on the tensor cores (row-sum-mma, without an LSE or per-block V descales)
func.func @fp8_vt(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x128x?xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x128x?xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

// -----

// INVALID: warning: row-sum-mma is ignored: the LSE needs the sums of the unrounded probabilities
// INVALID: error: 'fattn.tiled_attention' op linear-exp2 needs the row sums on the tensor cores
func.func @fp8_lse(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %lse: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) lse(%lse : memref<?x?x?xf32>)
  return
}

// -----

// INVALID: warning: row-sum-mma is ignored: per-block V descales rescale O by V's factor, which l must not take
// INVALID: error: 'fattn.tiled_attention' op linear-exp2 needs the row sums on the tensor cores
func.func @fp8_block_v(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {descale_block_q = 128 : i64, descale_block_kv = 128 : i64}
  return
}

// -----

// The bytes are e4m3's: 16-bit P stays on the exp2s.
// INVALID: error: 'fattn.tiled_attention' op linear-exp2 needs e4m3 inputs (it writes P's e4m3 bytes)
func.func @bf16(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
