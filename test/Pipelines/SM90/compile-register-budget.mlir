// RUN: not fattn-compile %s --arch sm_90a --emit ptx --block-m 192 -o %t 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: sed -e 's/x256xbf16/x64xbf16/g' %s > %t.d64.mlir
// RUN: not fattn-compile %t.d64.mlir --arch sm_90a --emit ptx --block-m 192 --block-n 208 -o %t 2>&1 | FileCheck %s --check-prefix=SCORES
// RUN: %if ptxas %{ fattn-compile %t.d64.mlir --arch sm_90a --emit cubin --block-m 192 --block-n 192 -o %t.cubin %}
// RUN: %if ptxas %{ fattn-compile %s --arch sm_90a --emit cubin --block-m 192 --pipeline-options "wide-value-mma=false" -o %t.narrow.cubin %}

// Three consumer warpgroups and the producer leave 128 registers per thread,
// too few for a wgmma whose accumulator spans 256 head-dim columns or 208
// keys: refused with the option to change, before ptxas would stop with
// "insufficient registers". 192 keys, and O in 64-column wgmmas, fit.
// VALUE: error: 'fattn.tiled_attention' op the sm_90a kernel needs 160 registers per consumer thread for O += P V on head dim 256 (128 accumulators and 32 others), more than the 128 each of its 512 threads can have (block_m = 192): lower block_m or set wide-value-mma=false
// SCORES: error: 'fattn.tiled_attention' op the sm_90a kernel needs 136 registers per consumer thread for S = Q K^T on block_n = 208 keys (104 accumulators and 32 others), more than the 128 each of its 512 threads can have (block_m = 192): lower block_n to at most 192 or block_m
func.func @causal_softcap(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>, %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>) outs(%o : memref<?x?x?x256xbf16>) {causal = true, softcap = 30.0 : f32}
  return
}
