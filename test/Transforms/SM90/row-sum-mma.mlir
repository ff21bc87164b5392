// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap | FileCheck %s --check-prefix=BEFORE
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-sm90-row-sum-mma -verify-diagnostics | FileCheck %s

// The pass records row_sums = mma in the consumer plan.
// BEFORE-NOT: fattn.sm90.consumers
// CHECK-LABEL: func.func @plain
// CHECK: fattn.tiled_attention {{.*}}fattn.sm90.consumers = #fattn.sm90_consumer_plan<row_sums = mma>
func.func @plain(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}

// -----

// The sums of P rounded to bf16 are not the LSE's: the pass warns and
// records nothing.
// CHECK-LABEL: func.func @lse
// CHECK-NOT: fattn.sm90.consumers
func.func @lse(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>, %lse: memref<?x?x?xf32>) {
  // expected-warning @below {{row-sum-mma is ignored: the LSE needs the sums of the unrounded probabilities}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) lse(%lse : memref<?x?x?xf32>)
  return
}

// -----

// Per-block V descales rescale O by V's factor, which l must not take.
// CHECK-LABEL: func.func @v_blocks
// CHECK-NOT: fattn.sm90.consumers
func.func @v_blocks(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  // expected-warning @below {{row-sum-mma is ignored: per-block V descales rescale O by V's factor, which l must not take}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {descale_block_q = 128 : i64, descale_block_kv = 128 : i64}
  return
}
