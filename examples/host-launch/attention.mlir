// Two bf16 attention functions, head dim 128, with the LSE: without a mask
// and causal. Batch, heads and sequence lengths are dynamic; BSHD tensors
// arrive as strided views. scripts/build_host_e2e.sh compiles this file
// through a target pipeline with host-launch=true and upstream's lowering to
// a shared library whose functions launch the kernels themselves
// (docs/EMBEDDING.md, "Host-complete pipelines").
func.func @attention_full(
    %q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) attributes {llvm.emit_c_interface} {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
                                   memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
                                   memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>)
                  outs(%o : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>)
                  lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>)
  return
}

func.func @attention_causal(
    %q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) attributes {llvm.emit_c_interface} {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
                                   memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
                                   memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>)
                  outs(%o : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>)
                  lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>)
                  {causal = true}
  return
}
