// RUN: fattn-opt %s | FileCheck %s
// RUN: fattn-opt %s | fattn-opt | FileCheck %s
// RUN: fattn-opt %s -mlir-print-op-generic | fattn-opt | FileCheck %s

// The sm_80 target ops (L3) round-trip, inside the llvm.func of a kernel as
// the sm_80 kernel builder builds them.

// CHECK-LABEL: llvm.func @ring
// CHECK-SAME: (%[[SRC:.*]]: !llvm.ptr<1>, %[[ROW:.*]]: i32, %[[STRIDE:.*]]: i64, %[[SMEM:.*]]: !llvm.ptr<3>, %[[OFF:.*]]: i32, %[[TID:.*]]: i32, %[[SEQ:.*]]: i32)
llvm.func @ring(%src: !llvm.ptr<1>, %row: i32, %stride: i64, %smem: !llvm.ptr<3>, %off: i32, %tid: i32, %seq: i32) {
  // CHECK: fattn.sm80.copy_tile %[[SRC]][%[[ROW]]], row_stride = %[[STRIDE]], into %[[SMEM]][%[[OFF]]], thread = %[[TID]], seq_len = %[[SEQ]], rows = 128, row_bytes = 256, row_pitch = 272, threads = 128
  fattn.sm80.copy_tile %src[%row], row_stride = %stride, into %smem[%off], thread = %tid, seq_len = %seq, rows = 128, row_bytes = 256, row_pitch = 272, threads = 128
  // CHECK: %[[G0:.*]] = fattn.sm80.commit_group
  %g0 = fattn.sm80.commit_group
  // CHECK: fattn.sm80.copy_tile %[[SRC]][%[[ROW]]], row_stride = %[[STRIDE]], into %[[SMEM]][%[[OFF]]], thread = %[[TID]], rows = 64, row_bytes = 192, row_pitch = 208, threads = 128
  fattn.sm80.copy_tile %src[%row], row_stride = %stride, into %smem[%off], thread = %tid, rows = 64, row_bytes = 192, row_pitch = 208, threads = 128
  // CHECK: %[[G1:.*]] = fattn.sm80.commit_group
  %g1 = fattn.sm80.commit_group
  // CHECK: nvgpu.device_async_wait %[[G1]] {numGroups = 1 : i32}
  nvgpu.device_async_wait %g1 {numGroups = 1 : i32}
  llvm.return
}

// CHECK-LABEL: llvm.func @fragments
// CHECK-SAME: (%[[P:.*]]: !llvm.ptr<3>, %[[C:.*]]: f32)
llvm.func @fragments(%p: !llvm.ptr<3>, %c: f32) {
  // CHECK: %[[A0:[a-z0-9_]+]], %[[A1:[a-z0-9_]+]], %[[A2:[a-z0-9_]+]], %[[A3:[a-z0-9_]+]] = fattn.sm80.ldmatrix_x4 %[[P]]{{$}}
  %a0, %a1, %a2, %a3 = fattn.sm80.ldmatrix_x4 %p
  // CHECK: %[[B0:[a-z0-9_]+]], %[[B1:[a-z0-9_]+]], %{{.*}}, %{{.*}} = fattn.sm80.ldmatrix_x4 %[[P]] trans
  %b0, %b1, %b2, %b3 = fattn.sm80.ldmatrix_x4 %p trans
  // CHECK: %[[D0:[a-z0-9_]+]], %[[D1:[a-z0-9_]+]], %{{.*}}, %{{.*}} = fattn.sm80.mma_m16n8k16 [%[[A0]], %[[A1]], %[[A2]], %[[A3]]], [%[[B0]], %[[B1]]], [%[[C]], %[[C]], %[[C]], %[[C]]], element_type = bf16
  %d0, %d1, %d2, %d3 = fattn.sm80.mma_m16n8k16 [%a0, %a1, %a2, %a3], [%b0, %b1], [%c, %c, %c, %c], element_type = bf16
  // CHECK: fattn.sm80.mma_m16n8k16 {{.*}}, element_type = f16
  %e0, %e1, %e2, %e3 = fattn.sm80.mma_m16n8k16 [%a0, %a1, %a2, %a3], [%b2, %b3], [%d0, %d1, %d2, %d3], element_type = f16
  // CHECK: fattn.sm80.pack_pair %[[D0]], %[[D1]], element_type = bf16
  %p01 = fattn.sm80.pack_pair %d0, %d1, element_type = bf16
  llvm.return
}

// CHECK-LABEL: llvm.func @output
// CHECK-SAME: (%[[FRAG:.*]]: !llvm.ptr<3>, %[[INV:.*]]: f32, %[[X0:.*]]: f32, %[[X1:.*]]: f32, %[[X2:.*]]: f32, %[[X3:.*]]: f32, %[[OFF:.*]]: i32, %[[LANE:.*]]: i32, %[[O:.*]]: !llvm.ptr<1>, %[[ROW:.*]]: i32, %[[STRIDE:.*]]: i64, %[[SEQ:.*]]: i32)
llvm.func @output(%frag: !llvm.ptr<3>, %inv: f32, %x0: f32, %x1: f32, %x2: f32, %x3: f32, %off: i32, %lane: i32, %o: !llvm.ptr<1>, %row: i32, %stride: i64, %seq: i32) {
  // CHECK: fattn.sm80.stage_row %[[FRAG]][1088], scale = %[[INV]], [%[[X0]], %[[X1]], %[[X2]], %[[X3]]], element_type = f16
  fattn.sm80.stage_row %frag[1088], scale = %inv, [%x0, %x1, %x2, %x3], element_type = f16
  // CHECK: fattn.sm80.store_rows %[[FRAG]][%[[OFF]]], lane = %[[LANE]], into %[[O]][%[[ROW]]], row_stride = %[[STRIDE]], seq_len = %[[SEQ]], rows = 32, row_bytes = 256, row_pitch = 272
  fattn.sm80.store_rows %frag[%off], lane = %lane, into %o[%row], row_stride = %stride, seq_len = %seq, rows = 32, row_bytes = 256, row_pitch = 272
  llvm.return
}

// CHECK-LABEL: llvm.func @warp_barrier
llvm.func @warp_barrier() {
  // CHECK: fattn.sm80.sync_warp
  fattn.sm80.sync_warp
  llvm.return
}

// CHECK-LABEL: llvm.func @lse
// CHECK-SAME: (%[[V:.*]]: f32, %[[LSE:.*]]: !llvm.ptr<1>, %[[I:.*]]: i64)
llvm.func @lse(%v: f32, %lse: !llvm.ptr<1>, %i: i64) {
  // CHECK: fattn.sm80.store_lse %[[V]], %[[LSE]][%[[I]]]
  fattn.sm80.store_lse %v, %lse[%i]
  llvm.return
}
