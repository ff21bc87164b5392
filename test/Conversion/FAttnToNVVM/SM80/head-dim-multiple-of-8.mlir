// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy --fattn-sm80-mma --convert-fattn-to-nvvm="keep-target-ops=true" | FileCheck %s --enable-var-scope
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy --fattn-sm80-mma --convert-fattn-to-nvvm | FileCheck %s --check-prefix=L4 --implicit-check-not=fattn.sm80
// A plan whose rows hold the head dim but not the 16-column block that the
// last k-step's ldmatrix reads (hand-edited) is refused.
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy --fattn-sm80-mma -o %t.mlir
// RUN: sed -e 's/row_pitch = 112/row_pitch = 80/' %t.mlir | not fattn-opt --convert-fattn-to-nvvm="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=PITCH
// PITCH: does not hold the tiles: expected row_pitch to hold a row of head dim 40 padded to 48 columns (2 bytes each)

// Head dim 40, a multiple of 8 but not of 16: rows of 80 bytes (5 chunks)
// copied into rows 112 bytes apart (a spare chunk for the columns 40-47, and
// one more). S = Q Kᵀ takes three k-steps, the last of 8 columns: its
// ldmatrix reads 16 columns (at byte 64), and its mma.sync gets zeros for
// A's and B's registers of columns 8-15. P V and O: five n8 tiles, so the
// third ldmatrix.trans of each k-chunk gives one, and O's rows leave in 5
// chunks.
// CHECK-LABEL: llvm.func @d40
// CHECK: fattn.sm80.copy_tile %{{.*}}, seq_len = %arg7, rows = 128, row_bytes = 80, row_pitch = 112, threads = 128
// CHECK: fattn.sm80.copy_tile %{{.*}}, rows = 64, row_bytes = 80, row_pitch = 112, threads = 128
// CHECK: fattn.sm80.copy_tile %{{.*}}, rows = 64, row_bytes = 80, row_pitch = 112, threads = 128

// Q into registers: k-steps at bytes 0, 32 and 64 of the rows of each
// 16-row fragment (the second 16 x 112 = 1792 bytes on).
// CHECK: gpu.barrier
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %[[C0]] : i32
// CHECK-NEXT: llvm.getelementptr
// CHECK-NEXT: fattn.sm80.ldmatrix_x4
// CHECK-NEXT: %[[C32:.*]] = arith.constant 32 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %[[C32]] : i32
// CHECK-NEXT: llvm.getelementptr
// CHECK-NEXT: fattn.sm80.ldmatrix_x4
// CHECK-NEXT: %[[C64:.*]] = arith.constant 64 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %[[C64]] : i32
// CHECK-NEXT: llvm.getelementptr
// CHECK-NEXT: %[[QA0:[a-z0-9_]+]], %[[QA1:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = fattn.sm80.ldmatrix_x4
// CHECK-NEXT: %[[QZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[C1792:.*]] = arith.constant 1792 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %[[C1792]] : i32

// In each KV loop, after the 2 x 16 mma.sync of the first two k-steps: the
// third k-step's K fragments at byte 64, with zeros for b1.
// CHECK: scf.for
// CHECK-COUNT-32: fattn.sm80.mma_m16n8k16
// CHECK-NEXT: %[[K64:.*]] = arith.constant 64 : i32
// CHECK-NEXT: %[[KPTR:.*]] = llvm.getelementptr %{{.*}}[%[[K64]]]
// CHECK-NEXT: %[[KB0:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %[[KB2:[a-z0-9_]+]], %{{[a-z0-9_]+}} = fattn.sm80.ldmatrix_x4 %[[KPTR]]{{$}}
// CHECK-NEXT: %[[KZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: fattn.sm80.mma_m16n8k16 [%[[QA0]], %[[QA1]], %[[QZERO]], %[[QZERO]]], [%[[KB0]], %[[KZERO]]]
// CHECK-NEXT: fattn.sm80.mma_m16n8k16 [%[[QA0]], %[[QA1]], %[[QZERO]], %[[QZERO]]], [%[[KB2]], %[[KZERO]]]

// P V: per k-chunk, ldmatrix.trans at bytes 0, 32 and 64; the last gives
// the n8 tile of columns 32-39 (words 0 and 1) to both 16-row fragments.
// CHECK: fattn.sm80.ldmatrix_x4 %{{.*}} trans
// CHECK: fattn.sm80.ldmatrix_x4 %{{.*}} trans
// CHECK: %[[V64:.*]] = arith.constant 64 : i32
// CHECK-NEXT: %[[VPTR:.*]] = llvm.getelementptr %{{.*}}[%[[V64]]]
// CHECK-NEXT: %[[VB0:[a-z0-9_]+]], %[[VB1:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = fattn.sm80.ldmatrix_x4 %[[VPTR]] trans
// CHECK-NEXT: fattn.sm80.mma_m16n8k16 [{{.*}}], [%[[VB0]], %[[VB1]]]
// CHECK-NEXT: fattn.sm80.mma_m16n8k16 [{{.*}}], [%[[VB0]], %[[VB1]]]
// CHECK-NEXT: fattn.sm80.pack_pair

// O: each row's five n8 tiles staged, then 32 rows of 80 bytes per warp.
// CHECK: fattn.sm80.stage_row %{{.*}}[0], scale = %{{.*}}, [%{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}], element_type = bf16
// CHECK: fattn.sm80.store_rows %{{.*}}, rows = 32, row_bytes = 80, row_pitch = 112

// L4-LABEL: llvm.func @d40
// L4: nvvm.ldmatrix
// L4: nvvm.mma.sync
func.func @d40(%q: memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>) {causal = true}
  return
}
