// FP8 attention for sm_90a: e4m3 Q, K, V (head dim 128), a bf16 output and
// a descale factor per block of 128 rows of each head (rank 3:
// [batch, heads, ceil(seq / 128)]), without a mask. scripts/build_host_e2e.sh
// compiles it with fattn-sm90-pipeline="host-launch=true" (docs/FP8.md,
// docs/EMBEDDING.md).
func.func @attention_fp8(
    %q: memref<?x?x?x128xf8E4M3FN, strided<[?, ?, ?, 1], offset: ?>>,
    %k: memref<?x?x?x128xf8E4M3FN, strided<[?, ?, ?, 1], offset: ?>>,
    %v: memref<?x?x?x128xf8E4M3FN, strided<[?, ?, ?, 1], offset: ?>>,
    %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %dq: memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>,
    %dk: memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>,
    %dv: memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {llvm.emit_c_interface} {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN, strided<[?, ?, ?, 1], offset: ?>>,
                                   memref<?x?x?x128xf8E4M3FN, strided<[?, ?, ?, 1], offset: ?>>,
                                   memref<?x?x?x128xf8E4M3FN, strided<[?, ?, ?, 1], offset: ?>>)
                  outs(%o : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>)
                  descale(%dq, %dk, %dv : memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>,
                                          memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>,
                                          memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>)
                  {descale_block_q = 128 : i64, descale_block_kv = 128 : i64}
  return
}
