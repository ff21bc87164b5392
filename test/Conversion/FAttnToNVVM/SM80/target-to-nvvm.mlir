// RUN: fattn-opt %s -split-input-file --convert-fattn-sm80-target-to-nvvm | FileCheck %s --enable-var-scope --implicit-check-not=fattn.sm80 --implicit-check-not=nvgpu. --implicit-check-not=gpu.shuffle --implicit-check-not=gpu.barrier --implicit-check-not=math.

// Each sm_80 target op, hand-written, lowered by its pattern in place.

// Rows of 192 bytes (12 chunks): 96 of the 128 threads copy, 8 rows a step,
// so 16 rows take two copies per thread, the second 8 rows (8 x 208 bytes)
// further on; with seq_len, a row at or past it copies 0 bytes from row
// first_row.
// CHECK-LABEL: llvm.func @copy_zero_fill
// CHECK-SAME: (%[[SRC:.*]]: !llvm.ptr<1>, %[[ROW:.*]]: i32, %[[STRIDE:.*]]: i64, %[[SMEM:.*]]: !llvm.ptr<3>, %[[OFF:.*]]: i32, %[[TID:.*]]: i32, %[[SEQ:.*]]: i32)
// CHECK: %[[C96:.*]] = arith.constant 96 : i32
// CHECK: %[[ACTIVE:.*]] = arith.cmpi ult, %[[TID]], %[[C96]] : i32
// CHECK: scf.if %[[ACTIVE]] {
// CHECK: %[[ROW0:.*]] = arith.divui %[[TID]], %{{.*}} : i32
// CHECK: %[[COL:.*]] = arith.remui %[[TID]], %{{.*}} : i32
// CHECK: %[[FIRST:.*]] = llvm.getelementptr %[[SRC]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK: %[[DST:.*]] = llvm.getelementptr %[[SMEM]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: %[[LEFT:.*]] = arith.subi %[[SEQ]], %{{.*}} : i32
// CHECK: %[[ROWSRC:.*]] = llvm.getelementptr %[[SRC]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK: %[[VALID:.*]] = arith.cmpi sgt, %[[LEFT]], %{{.*}} : i32
// CHECK: %[[FROM:.*]] = arith.select %[[VALID]], %[[FIRST]], %[[ROWSRC]] : !llvm.ptr<1>
// CHECK: %[[SIZE:.*]] = arith.select %[[VALID]], %{{.*}}, %{{.*}} : i32
// CHECK: %[[TO:.*]] = llvm.getelementptr %[[DST]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: nvvm.cp.async.shared.global %[[TO]], %[[FROM]], 16, cache =  cg, %[[SIZE]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: %[[C1664:.*]] = arith.constant 1664 : i32
// CHECK: %[[TO1:.*]] = llvm.getelementptr %[[DST]][%[[C1664]]]
// CHECK: nvvm.cp.async.shared.global %[[TO1]], %{{.*}}, 16, cache =  cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: }
llvm.func @copy_zero_fill(%src: !llvm.ptr<1>, %row: i32, %stride: i64, %smem: !llvm.ptr<3>, %off: i32, %tid: i32, %seq: i32) {
  fattn.sm80.copy_tile %src[%row], row_stride = %stride, into %smem[%off], thread = %tid, seq_len = %seq, rows = 16, row_bytes = 192, row_pitch = 208, threads = 128
  llvm.return
}

// -----

// Rows of 128 bytes: all 128 threads copy, 16 rows a step, each copy 16
// bytes whole; the source advances by 16 rows.
// CHECK-LABEL: llvm.func @copy
// CHECK-NOT: scf.if
// CHECK: %[[SRC0:.*]] = llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK: %[[STEP:.*]] = arith.muli %arg2, %{{.*}} : i64
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %[[SRC0]], 16, cache =  cg : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK: %[[SRC1:.*]] = llvm.getelementptr %[[SRC0]][%[[STEP]]]
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %[[SRC1]], 16, cache =  cg : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK-NEXT: llvm.return
llvm.func @copy(%src: !llvm.ptr<1>, %row: i32, %stride: i64, %smem: !llvm.ptr<3>, %off: i32, %tid: i32) {
  fattn.sm80.copy_tile %src[%row], row_stride = %stride, into %smem[%off], thread = %tid, rows = 32, row_bytes = 128, row_pitch = 144, threads = 128
  llvm.return
}

// -----

// A commit group's token becomes i32, also where a loop carries it; the
// waits keep their group counts.
// CHECK-LABEL: llvm.func @groups
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: %[[T:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: %[[R:.*]] = scf.for %{{.*}} = %arg0 to %arg1 step %{{.*}} iter_args(%{{.*}} = %[[T]]) -> (i32) : i32 {
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK-NEXT: %[[N:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: scf.yield %[[N]] : i32
// CHECK: nvvm.cp.async.wait.group 0
llvm.func @groups(%lo: i32, %hi: i32) {
  %c1 = arith.constant 1 : i32
  %g = fattn.sm80.commit_group
  nvgpu.device_async_wait %g {numGroups = 1 : i32}
  %r = scf.for %i = %lo to %hi step %c1 iter_args(%t = %g) -> (!nvgpu.device.async.token) : i32 {
    nvgpu.device_async_wait %t {numGroups = 0 : i32}
    %n = fattn.sm80.commit_group
    scf.yield %n : !nvgpu.device.async.token
  }
  nvgpu.device_async_wait %r {numGroups = 0 : i32}
  llvm.return
}

// -----

// CHECK-LABEL: llvm.func @fragments
// CHECK: %[[A:.*]] = nvvm.ldmatrix %arg0 {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: %[[A0:.*]] = llvm.extractvalue %[[A]][0]
// CHECK: %[[A3:.*]] = llvm.extractvalue %[[A]][3]
// CHECK: %[[B:.*]] = nvvm.ldmatrix %arg0 {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK: %[[B0:.*]] = llvm.extractvalue %[[B]][0]
// CHECK: %[[B1:.*]] = llvm.extractvalue %[[B]][1]
// bf16 fragments stay i32.
// CHECK: %[[D:.*]] = nvvm.mma.sync A[%[[A0]], %{{.*}}, %{{.*}}, %[[A3]]]  B[%[[B0]], %[[B1]]]  C[%arg1, %arg1, %arg1, %arg1]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: %[[D0:.*]] = llvm.extractvalue %[[D]][0]
// CHECK: %[[D1:.*]] = llvm.extractvalue %[[D]][1]
// f16 fragments are vector<2xf16>.
// CHECK: %[[H:.*]] = llvm.bitcast %[[A0]] : i32 to vector<2xf16>
// CHECK: nvvm.mma.sync A[%[[H]], {{.*}} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// P: two f32 rounded to bf16 in one i32.
// CHECK: %[[V:.*]] = llvm.mlir.poison : vector<2xf32>
// CHECK: %[[V0:.*]] = llvm.insertelement %[[D0]], %[[V]][%{{.*}} : i32] : vector<2xf32>
// CHECK: %[[V1:.*]] = llvm.insertelement %[[D1]], %[[V0]][%{{.*}} : i32] : vector<2xf32>
// CHECK: %[[T:.*]] = llvm.fptrunc %[[V1]] : vector<2xf32> to vector<2xbf16>
// CHECK: llvm.bitcast %[[T]] : vector<2xbf16> to i32
llvm.func @fragments(%p: !llvm.ptr<3>, %c: f32) {
  %a0, %a1, %a2, %a3 = fattn.sm80.ldmatrix_x4 %p
  %b0, %b1, %b2, %b3 = fattn.sm80.ldmatrix_x4 %p trans
  %d0, %d1, %d2, %d3 = fattn.sm80.mma_m16n8k16 [%a0, %a1, %a2, %a3], [%b0, %b1], [%c, %c, %c, %c], element_type = bf16
  %e0, %e1, %e2, %e3 = fattn.sm80.mma_m16n8k16 [%a0, %a1, %a2, %a3], [%b2, %b3], [%c, %c, %c, %c], element_type = f16
  %p01 = fattn.sm80.pack_pair %d0, %d1, element_type = bf16
  llvm.return
}

// -----

// The quads' shuffles (upstream's lowering: all lanes, clamp 31).
// CHECK-LABEL: llvm.func @quad_max
// CHECK: nvvm.shfl.sync  bfly %{{.*}}, %arg0, %{{.*}}, %{{.*}} : f32 -> f32
llvm.func @quad_max(%x: f32) -> f32 {
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %y, %valid = gpu.shuffle xor %x, %c1, %c32 : f32
  %m = arith.maxnumf %x, %y : f32
  llvm.return %m : f32
}

// -----

// Two pairs of f16, times 1 / l, at bytes 1088 and 1104 from the thread's
// columns.
// CHECK-LABEL: llvm.func @stage_row
// CHECK: %[[X0:.*]] = arith.mulf %arg2, %arg1 : f32
// CHECK: %[[X1:.*]] = arith.mulf %arg3, %arg1 : f32
// CHECK: %[[C0:.*]] = arith.constant 1088 : i32
// CHECK: %[[P0:.*]] = llvm.getelementptr %arg0[%[[C0]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: llvm.insertelement %[[X0]]
// CHECK: llvm.insertelement %[[X1]]
// CHECK: %[[H:.*]] = llvm.fptrunc %{{.*}} : vector<2xf32> to vector<2xf16>
// CHECK: %[[W:.*]] = llvm.bitcast %[[H]] : vector<2xf16> to i32
// CHECK: llvm.store %[[W]], %[[P0]] {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK: arith.constant 1104 : i32
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
llvm.func @stage_row(%frag: !llvm.ptr<3>, %inv: f32, %x0: f32, %x1: f32, %x2: f32, %x3: f32) {
  fattn.sm80.stage_row %frag[1088], scale = %inv, [%x0, %x1, %x2, %x3], element_type = f16
  llvm.return
}

// -----

// 32 rows of 128 bytes: 256 chunks, 8 per lane; each 16 bytes loaded from
// shared memory, stored when its row is before seq_len.
// CHECK-LABEL: llvm.func @store_rows
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT: llvm.load
// CHECK-LABEL: llvm.func @store_rows_guard
// CHECK: %[[CHUNK:.*]] = arith.addi %arg2, %{{.*}} : i32
// CHECK: %[[ROW:.*]] = arith.divui %[[CHUNK]], %{{.*}} : i32
// CHECK: %[[DATA:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: %[[SEQROW:.*]] = arith.addi %arg4, %[[ROW]] : i32
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[SEQROW]], %arg6 : i32
// CHECK: scf.if %[[IN]] {
// CHECK: %[[PTR:.*]] = llvm.getelementptr %arg3[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK: llvm.store %[[DATA]], %[[PTR]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
llvm.func @store_rows(%smem: !llvm.ptr<3>, %off: i32, %lane: i32, %o: !llvm.ptr<1>, %row: i32, %stride: i64, %seq: i32) {
  fattn.sm80.store_rows %smem[%off], lane = %lane, into %o[%row], row_stride = %stride, seq_len = %seq, rows = 32, row_bytes = 128, row_pitch = 144
  llvm.return
}
llvm.func @store_rows_guard(%smem: !llvm.ptr<3>, %off: i32, %lane: i32, %o: !llvm.ptr<1>, %row: i32, %stride: i64, %seq: i32) {
  fattn.sm80.store_rows %smem[%off], lane = %lane, into %o[%row], row_stride = %stride, seq_len = %seq, rows = 4, row_bytes = 128, row_pitch = 144
  llvm.return
}

// -----

// 16 rows of head dim 136 (17 chunks): 272 chunks, 8 full rounds of the 32
// lanes, then the 16 chunks from 256 in a ninth, only by lanes 0 to 15.
// CHECK-LABEL: llvm.func @store_rows_remainder
// CHECK-SAME: %[[LANE:[a-z0-9]+]]: i32, %{{[a-z0-9]+}}: !llvm.ptr<1>
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: %[[C256:.*]] = arith.constant 256 : i32
// CHECK: %[[CHUNK:.*]] = arith.addi %[[LANE]], %[[C256]] : i32
// CHECK: %[[C272:.*]] = arith.constant 272 : i32
// CHECK: %[[SOME:.*]] = arith.cmpi ult, %[[CHUNK]], %[[C272]] : i32
// CHECK: scf.if %[[SOME]] {
// CHECK: arith.divui %[[CHUNK]], %{{.*}} : i32
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: scf.if
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK-NOT: llvm.load
llvm.func @store_rows_remainder(%smem: !llvm.ptr<3>, %off: i32, %lane: i32, %o: !llvm.ptr<1>, %row: i32, %stride: i64, %seq: i32) {
  fattn.sm80.store_rows %smem[%off], lane = %lane, into %o[%row], row_stride = %stride, seq_len = %seq, rows = 16, row_bytes = 272, row_pitch = 304
  llvm.return
}

// -----

// The CTA's barrier is upstream's gpu.barrier (bar.sync 0), the warp's
// fattn.sm80.sync_warp (bar.warp.sync over all lanes).
// CHECK-LABEL: llvm.func @barriers
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: %[[ALL:.*]] = arith.constant -1 : i32
// CHECK-NEXT: nvvm.bar.warp.sync %[[ALL]] : i32
// CHECK-NEXT: llvm.return
llvm.func @barriers() {
  gpu.barrier
  fattn.sm80.sync_warp
  llvm.return
}

// -----

// The kernel's math: exp2, log2 and tanh as the approximate instructions
// (ex2.approx.ftz, lg2.approx, tanh.approx), fma as llvm.intr.fma.
// CHECK-LABEL: llvm.func @math
// CHECK-SAME: (%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[Z:.*]]: f32)
// CHECK-NEXT: %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[X]]) : (f32) -> f32
// CHECK-NEXT: %[[L:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%[[E]]) : (f32) -> f32
// CHECK-NEXT: %[[T:.*]] = nvvm.inline_ptx "tanh.approx.f32 $0, $1;" ro(%[[L]] : f32) -> f32
// CHECK-NEXT: %[[F:.*]] = llvm.intr.fma(%[[T]], %[[Y]], %[[Z]]) : (f32, f32, f32) -> f32
// CHECK-NEXT: llvm.return %[[F]] : f32
llvm.func @math(%x: f32, %y: f32, %z: f32) -> f32 {
  %e = math.exp2 %x : f32
  %l = math.log2 %e : f32
  %t = math.tanh %l : f32
  %f = math.fma %t, %y, %z : f32
  llvm.return %f : f32
}

// -----

// A row's LSE: element index of the LSE tensor, 4 bytes.
// CHECK-LABEL: llvm.func @lse
// CHECK-SAME: (%[[V:.*]]: f32, %[[LSE:.*]]: !llvm.ptr<1>, %[[I:.*]]: i64)
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-NEXT: %[[BYTES:.*]] = arith.muli %[[I]], %[[C4]] : i64
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[LSE]][%[[BYTES]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK-NEXT: llvm.store %[[V]], %[[P]] {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK-NEXT: llvm.return
llvm.func @lse(%v: f32, %lse: !llvm.ptr<1>, %i: i64) {
  fattn.sm80.store_lse %v, %lse[%i]
  llvm.return
}
