// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap | FileCheck %s --check-prefix=BEFORE
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-sm90-rescale-threshold="threshold=0.8" | FileCheck %s
// RUN: not fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-sm90-rescale-threshold="threshold=16" 2>&1 | FileCheck %s --check-prefix=HIGH
// RUN: not fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-sm90-rescale-threshold="threshold=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// The pass records the threshold in the consumer plan.
// BEFORE-NOT: fattn.sm90.consumers
// CHECK-LABEL: func.func @bf16
// CHECK: fattn.tiled_attention {{.*}}fattn.sm90.consumers = #fattn.sm90_consumer_plan<rescale_threshold = 0.8>
// CHECK-LABEL: func.func @fp8
// CHECK: fattn.tiled_attention {{.*}}fattn.sm90.consumers = #fattn.sm90_consumer_plan<rescale_threshold = 0.8>
// P grows to 2^threshold (times 256 for e4m3) before its rounding, where it
// must stay finite.
// HIGH: error: 'fattn.tiled_attention' op rescale-threshold 16 must be in [0, 15] for 16-bit inputs (P grows to 2^threshold before its rounding)
// HIGH: error: 'fattn.tiled_attention' op rescale-threshold 16 must be in [0, 0.8074] for e4m3 inputs (P grows to 2^threshold times 256 before its rounding)
// NEGATIVE: error: 'fattn.tiled_attention' op rescale-threshold -1 must be in [0, 15] for 16-bit inputs
func.func @bf16(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}

// -----

func.func @fp8(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
