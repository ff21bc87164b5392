// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy="stages=2" | FileCheck %s
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy="stages=3" | FileCheck %s --check-prefix=STAGES3
// Round trip of the printed plan.
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy="stages=2" | fattn-opt -split-input-file | FileCheck %s

// Q once, K and V through the ring; rows padded to 64 * 2 + 16 = 144 bytes:
// Q 128 rows (18432 bytes), then per stage K 64 rows + V 64 rows. The plan
// is one attribute of the op: the loads of the body carry none.
// CHECK-LABEL: func.func @d64
// CHECK: fattn.tiled_attention
// CHECK-SAME: fattn.sm80.smem = #fattn.sm80_smem_plan<stages = 2, row_pitch = 144, q_offset = 0, kv_offset = 18432, stage_bytes = 18432, bytes = 55296>
// CHECK: fattn.load_tile %{{.*}} : memref
// CHECK: scf.for
// CHECK: fattn.load_tile %{{.*}} : memref
// CHECK: fattn.mma
// CHECK: fattn.load_tile %{{.*}} : memref
// STAGES3-LABEL: func.func @d64
// STAGES3: #fattn.sm80_smem_plan<stages = 3, row_pitch = 144, q_offset = 0, kv_offset = 18432, stage_bytes = 18432, bytes = 73728>
func.func @d64(%q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) {causal = true}
  return
}

// -----

// CHECK-LABEL: func.func @d128_lse
// CHECK-SAME: %[[LSE:[a-z0-9]+]]: memref<?x?x?xf32
// CHECK: fattn.sm80.smem = #fattn.sm80_smem_plan<stages = 2, row_pitch = 272, q_offset = 0, kv_offset = 34816, stage_bytes = 34816, bytes = 104448>
// CHECK: fattn.store_tile %{{.*}}, %[[LSE]]
func.func @d128_lse(%q: memref<?x?x?x128xf16>, %k: memref<?x?x?x128xf16>, %v: memref<?x?x?x128xf16>, %o: memref<?x?x?x128xf16>, %lse: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf16>, memref<?x?x?x128xf16>, memref<?x?x?x128xf16>) outs(%o : memref<?x?x?x128xf16>) lse(%lse : memref<?x?x?xf32>)
  return
}

// -----

// Head dim 72 (9 chunks of 16 bytes): rows of 10 chunks, the spare one
// holding the columns 72-79 that the last k-step's ldmatrix reads, then one
// more (176 bytes: 11 chunks, an odd number of bank groups apart). Q 128
// rows (22528 bytes), each stage K 64 rows + V 64 rows.
// CHECK-LABEL: func.func @d72
// CHECK: fattn.sm80.smem = #fattn.sm80_smem_plan<stages = 2, row_pitch = 176, q_offset = 0, kv_offset = 22528, stage_bytes = 22528, bytes = 67584>
// STAGES3-LABEL: func.func @d72
// STAGES3: #fattn.sm80_smem_plan<stages = 3, row_pitch = 176, q_offset = 0, kv_offset = 22528, stage_bytes = 22528, bytes = 90112>
func.func @d72(%q: memref<?x?x?x72xbf16>, %k: memref<?x?x?x72xbf16>, %v: memref<?x?x?x72xbf16>, %o: memref<?x?x?x72xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x72xbf16>, memref<?x?x?x72xbf16>, memref<?x?x?x72xbf16>) outs(%o : memref<?x?x?x72xbf16>)
  return
}
