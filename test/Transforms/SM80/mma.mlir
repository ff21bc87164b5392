// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy --fattn-sm80-mma | FileCheck %s

// Head dim 64: 32 rows per warp, Q fits in 32 registers per lane.
// CHECK-LABEL: func.func @d64
// CHECK: fattn.tiled_attention
// CHECK-SAME: fattn.sm80.mma = {q_in_registers = true, rows_per_warp = 32 : i64, shape = "m16n8k16", warps = 4 : i64}
// CHECK: scf.for
// CHECK: fattn.mma %{{.*}} {fattn.sm80.operands = ["registers", "ldmatrix"], transpose_rhs}
// CHECK: fattn.softmax_update %{{.*}} {fattn.sm80.row_reduce = "quad_shuffle"
// CHECK: fattn.mma %{{.*}} acc(%{{.*}}) {fattn.sm80.operands = ["accumulator", "ldmatrix.trans"]}
func.func @d64(%q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>)
  return
}

// -----

// Head dim 128: Q would take 64 registers; it is re-read by ldmatrix.
// CHECK-LABEL: func.func @d128
// CHECK: fattn.sm80.mma = {q_in_registers = false, rows_per_warp = 32 : i64
// CHECK: fattn.mma %{{.*}} {fattn.sm80.operands = ["ldmatrix", "ldmatrix"], transpose_rhs}
func.func @d128(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
