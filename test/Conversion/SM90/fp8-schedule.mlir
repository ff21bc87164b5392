// RUN: fattn-opt %s --fattn-sm90-pipeline="block-n=96" | FileCheck %s --check-prefix=N96
// RUN: not fattn-opt %s --fattn-sm90-pipeline="block-n=128 warp-specialize=false" 2>&1 | FileCheck %s

// FP8 tiles of 96 keys (6 groups of 16): the producer's V transpose loops
// over blocks of 2 groups (4 when the groups are a multiple of 4), each an
// ldmatrix.x4 and a stmatrix.x4.trans. Without warp specialization there is
// no producer warpgroup to transpose V.
// N96: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// N96: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// N96: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// N96: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// N96-NOT: {{ldmatrix|stmatrix}}
// CHECK: error: 'fattn.tiled_attention' op the sm_90a FP8 kernel needs warp specialization: its producer warpgroup transposes V (run --fattn-warp-specialize)
func.func @block_n_96(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
