// The sm_80 lowering places its tiles and fragments by the plans of
// --fattn-sm80-async-copy and --fattn-sm80-mma, and refuses plans (here
// hand-edited) that do not hold the op's tiles.
// Head dim 64, block 128 x 64: rows of 128 bytes, Q 128 rows, K + V 128 rows.
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy --fattn-sm80-mma -o %t.mlir
// RUN: sed -e 's/row_pitch = 144/row_pitch = 112/' %t.mlir | not fattn-opt --convert-fattn-to-nvvm="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=PITCH
// RUN: sed -e 's/row_pitch = 144/row_pitch = 4096/' %t.mlir | not fattn-opt --convert-fattn-to-nvvm="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=TILES
// RUN: sed -e 's/stage_bytes = 18432/stage_bytes = 9216/' %t.mlir | not fattn-opt --convert-fattn-to-nvvm="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=STAGE
// RUN: sed -e 's/kv_offset = 18432/kv_offset = 9216/' %t.mlir | not fattn-opt --convert-fattn-to-nvvm="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=OVERLAP
// RUN: sed -e 's/q_offset = 0, kv_offset = 18432/q_offset = 55296, kv_offset = 0/' %t.mlir | not fattn-opt --convert-fattn-to-nvvm="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=QEND
// RUN: sed -e 's/bytes = 55296>/bytes = 200000>/' %t.mlir | not fattn-opt --convert-fattn-to-nvvm="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=BYTES
// RUN: sed -e 's/rows_per_warp = 32/rows_per_warp = 16/' %t.mlir | not fattn-opt --convert-fattn-to-nvvm="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: sed -e 's/#fattn.sm80_smem_plan<[^>]*>/{stages = 2 : i64}/' %t.mlir | not fattn-opt --convert-fattn-to-nvvm="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=UNTYPED
// A plan the lowering reads: Q re-read by ldmatrix (hand-edited; the pass
// keeps head dim 64's Q in registers) takes ldmatrix in the KV loop.
// RUN: fattn-opt %t.mlir --convert-fattn-to-nvvm="chip=sm_80" | FileCheck %s --check-prefix=QREGS
// RUN: sed -e 's/q_operand = registers/q_operand = ldmatrix/' %t.mlir | fattn-opt --convert-fattn-to-nvvm="chip=sm_80" | FileCheck %s --check-prefix=QLDMATRIX

// PITCH: 'fattn.tiled_attention' op sm_80 kernel: the shared-memory plan #fattn.sm80_smem_plan<stages = 2, row_pitch = 112, q_offset = 0, kv_offset = 18432, stage_bytes = 18432, bytes = 55296> does not hold the tiles: expected row_pitch to hold a row of head dim 64 (2 bytes each)
// TILES: does not hold the tiles: expected tiles of block_m = 128 and block_n = 64 rows of 4096 bytes within the 166912 bytes of shared memory of an sm_80 CTA
// STAGE: does not hold the tiles: expected stage_bytes >= 18432 (a K and a V tile of block_n = 64 rows)
// OVERLAP: does not hold the tiles: expected Q's rows [0, 18432) and the ring [9216, 46080) not to overlap
// QEND: does not hold the tiles: expected Q's rows to end within bytes = 55296, found 73728
// BYTES: does not hold the tiles: expected at most 166912 bytes, the shared memory of an sm_80 CTA
// ROWS: 'fattn.tiled_attention' op sm_80 kernel: expected fattn.sm80.mma to split block_m = 128 among 4 warps and block_n a multiple of 16, found #fattn.sm80_mma_plan<warps = 4, rows_per_warp = 16, q_operand = registers> and block_n = 64
// UNTYPED: 'fattn.tiled_attention' op sm_80 kernel: expected fattn.sm80.smem to be a #fattn.sm80_smem_plan, found {stages = 2 : i64}
// Q in registers: its fragments are loaded before the KV loops.
// QREGS: nvvm.ldmatrix
// QREGS: scf.for
// Q by ldmatrix: nothing is loaded from shared memory before the KV loops.
// QLDMATRIX-NOT: nvvm.ldmatrix
// QLDMATRIX: scf.for
// QLDMATRIX: nvvm.ldmatrix
func.func @attn(%q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>)
  return
}
