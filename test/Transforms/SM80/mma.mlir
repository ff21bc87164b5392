// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy --fattn-sm80-mma | FileCheck %s
// Round trip of the printed plan.
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy --fattn-sm80-mma | fattn-opt -split-input-file | FileCheck %s

// Head dim 64: 32 rows per warp, Q fits in 32 registers per lane. The plan
// is one attribute of the op: the mmas and the softmax carry none.
// CHECK-LABEL: func.func @d64
// CHECK: fattn.tiled_attention
// CHECK-SAME: fattn.sm80.mma = #fattn.sm80_mma_plan<warps = 4, rows_per_warp = 32, q_operand = registers>
// CHECK: scf.for
// CHECK: fattn.mma %{{.*}} {transpose_rhs}
// CHECK: fattn.softmax_update %{{.*}} : tensor
// CHECK: fattn.mma %{{.*}} acc(%{{.*}}) :
func.func @d64(%q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>)
  return
}

// -----

// Head dim 128: Q would take 64 registers; it is re-read by ldmatrix.
// CHECK-LABEL: func.func @d128
// CHECK: fattn.sm80.mma = #fattn.sm80_mma_plan<warps = 4, rows_per_warp = 32, q_operand = ldmatrix>
func.func @d128(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
