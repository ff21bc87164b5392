// A kernel configuration for fattn-compile: dynamic batch, heads and
// sequence lengths; static head dim and element type; BSHD tensors arrive as
// strided views.
func.func @fattn_fwd_d128_bf16_causal(
    %q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
                                   memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
                                   memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>)
                  outs(%o : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>)
                  lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>)
                  {causal = true}
  return
}
