// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy="stages=2" | FileCheck %s
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy="stages=3" | FileCheck %s --check-prefix=STAGES3

// Q once, K and V through the ring; rows padded to 64 * 2 + 16 = 144 bytes:
// Q 128 rows (18432 bytes), then per stage K 64 rows + V 64 rows.
// CHECK-LABEL: func.func @d64
// CHECK: fattn.tiled_attention
// CHECK-SAME: fattn.sm80.smem = {bytes = 55296 : i64, kv_offset = 18432 : i64, q_offset = 0 : i64, row_pitch = 144 : i64, stage_bytes = 18432 : i64, stages = 2 : i64}
// CHECK: fattn.load_tile %{{.*}} {fattn.sm80.copy = "once"}
// CHECK: scf.for
// CHECK: fattn.load_tile %{{.*}} {fattn.sm80.copy = "ring"}
// CHECK: fattn.mma
// CHECK: fattn.load_tile %{{.*}} {fattn.sm80.copy = "ring"}
// STAGES3-LABEL: func.func @d64
// STAGES3: bytes = 73728 : i64{{.*}}stages = 3 : i64
func.func @d64(%q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) {causal = true}
  return
}

// -----

// CHECK-LABEL: func.func @d128_lse
// CHECK-SAME: %[[LSE:[a-z0-9]+]]: memref<?x?x?xf32
// CHECK: fattn.sm80.smem = {bytes = 104448 : i64, kv_offset = 34816 : i64, q_offset = 0 : i64, row_pitch = 272 : i64, stage_bytes = 34816 : i64, stages = 2 : i64}
// CHECK: fattn.store_tile %{{.*}}, %[[LSE]]
func.func @d128_lse(%q: memref<?x?x?x128xf16>, %k: memref<?x?x?x128xf16>, %v: memref<?x?x?x128xf16>, %o: memref<?x?x?x128xf16>, %lse: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf16>, memref<?x?x?x128xf16>, memref<?x?x?x128xf16>) outs(%o : memref<?x?x?x128xf16>) lse(%lse : memref<?x?x?xf32>)
  return
}
