// RUN: not fattn-opt %s --split-input-file --fattn-sm90-pipeline="block-n=128" 2>&1 | FileCheck %s

// K's blocks must hold whole KV tiles (a factor per tile) or divide them (a
// factor per score column, key-factors-per-column.mlir).
// CHECK: error: 'fattn.tiled_attention' op the sm_90a FP8 kernel needs per-block K descales that hold whole KV tiles or divide them: descale_block_kv a multiple or a divisor of block_n = 128, found 48
func.func @fp8_key_blocks_48(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?xf32>) {descale_block_q = 1 : i64, descale_block_kv = 48 : i64}
  return
}

// -----

// V's factor must stay one per KV tile: per key it would scale P's columns.
// CHECK: error: 'fattn.tiled_attention' op needs one V descale per KV tile: descale_block_kv (1) must be a multiple of block_n (128)
func.func @fp8_value_rows(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {descale_block_q = 1 : i64, descale_block_kv = 1 : i64}
  return
}
