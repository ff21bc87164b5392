// RUN: fattn-opt %s -split-input-file -verify-diagnostics

llvm.func @row_bytes(%src: !llvm.ptr<1>, %row: i32, %stride: i64, %smem: !llvm.ptr<3>, %off: i32, %tid: i32) {
  // expected-error @below {{'fattn.sm80.copy_tile' op expected row_bytes a positive multiple of 16 (16-byte chunks) up to 1048576, found 200}}
  fattn.sm80.copy_tile %src[%row], row_stride = %stride, into %smem[%off], thread = %tid, rows = 64, row_bytes = 200, row_pitch = 272, threads = 128
  llvm.return
}

// -----

llvm.func @row_pitch(%src: !llvm.ptr<1>, %row: i32, %stride: i64, %smem: !llvm.ptr<3>, %off: i32, %tid: i32) {
  // expected-error @below {{'fattn.sm80.copy_tile' op expected row_pitch a multiple of 16 from row_bytes = 256 up to 1048576, found 240}}
  fattn.sm80.copy_tile %src[%row], row_stride = %stride, into %smem[%off], thread = %tid, rows = 64, row_bytes = 256, row_pitch = 240, threads = 128
  llvm.return
}

// -----

llvm.func @rows(%src: !llvm.ptr<1>, %row: i32, %stride: i64, %smem: !llvm.ptr<3>, %off: i32, %tid: i32) {
  // expected-error @below {{'fattn.sm80.copy_tile' op expected rows positive and at most 3855 (1048576 bytes of rows 272 bytes apart), found 0}}
  fattn.sm80.copy_tile %src[%row], row_stride = %stride, into %smem[%off], thread = %tid, rows = 0, row_bytes = 256, row_pitch = 272, threads = 128
  llvm.return
}

// -----

llvm.func @threads(%src: !llvm.ptr<1>, %row: i32, %stride: i64, %smem: !llvm.ptr<3>, %off: i32, %tid: i32) {
  // expected-error @below {{'fattn.sm80.copy_tile' op expected threads a multiple of 32 up to 1024 with one for each 16-byte chunk of a row (at least 16), found 100}}
  fattn.sm80.copy_tile %src[%row], row_stride = %stride, into %smem[%off], thread = %tid, rows = 64, row_bytes = 256, row_pitch = 272, threads = 100
  llvm.return
}

// -----

llvm.func @rows_per_step(%src: !llvm.ptr<1>, %row: i32, %stride: i64, %smem: !llvm.ptr<3>, %off: i32, %tid: i32) {
  // 128 threads copy 8 rows of 256 bytes per step.
  // expected-error @below {{'fattn.sm80.copy_tile' op expected rows a multiple of 8 (the rows that 128 threads copy in one step), found 12}}
  fattn.sm80.copy_tile %src[%row], row_stride = %stride, into %smem[%off], thread = %tid, rows = 12, row_bytes = 256, row_pitch = 272, threads = 128
  llvm.return
}

// -----

llvm.func @mma_element(%a: i32, %c: f32) {
  // expected-error @below {{'fattn.sm80.mma_m16n8k16' op expected element_type bf16 or f16, found 'f32'}}
  %d0, %d1, %d2, %d3 = fattn.sm80.mma_m16n8k16 [%a, %a, %a, %a], [%a, %a], [%c, %c, %c, %c], element_type = f32
  llvm.return
}

// -----

llvm.func @pack_element(%x: f32) {
  // expected-error @below {{'fattn.sm80.pack_pair' op expected element_type bf16 or f16, found 'f8E4M3FN'}}
  %p = fattn.sm80.pack_pair %x, %x, element_type = f8E4M3FN
  llvm.return
}

// -----

llvm.func @stage_values(%p: !llvm.ptr<3>, %x: f32) {
  // expected-error @below {{'fattn.sm80.stage_row' op expected a positive, even number of values (pairs of adjacent columns), found 3}}
  fattn.sm80.stage_row %p[0], scale = %x, [%x, %x, %x], element_type = bf16
  llvm.return
}

// -----

llvm.func @stage_offset(%p: !llvm.ptr<3>, %x: f32) {
  // expected-error @below {{'fattn.sm80.stage_row' op expected offset in [0, 1048576], found 2097152}}
  fattn.sm80.stage_row %p[2097152], scale = %x, [%x, %x], element_type = bf16
  llvm.return
}

// -----

llvm.func @stage_element(%p: !llvm.ptr<3>, %x: f32) {
  // expected-error @below {{'fattn.sm80.stage_row' op expected element_type bf16 or f16, found 'f32'}}
  fattn.sm80.stage_row %p[0], scale = %x, [%x, %x], element_type = f32
  llvm.return
}

// -----

llvm.func @store_row_bytes(%smem: !llvm.ptr<3>, %off: i32, %lane: i32, %o: !llvm.ptr<1>, %row: i32, %stride: i64, %seq: i32) {
  // expected-error @below {{'fattn.sm80.store_rows' op expected row_bytes a positive multiple of 16 (16-byte chunks) up to 1048576, found 0}}
  fattn.sm80.store_rows %smem[%off], lane = %lane, into %o[%row], row_stride = %stride, seq_len = %seq, rows = 32, row_bytes = 0, row_pitch = 144
  llvm.return
}

// -----

llvm.func @global_smem(%src: !llvm.ptr<1>, %row: i32, %stride: i64, %off: i32, %tid: i32) {
  // expected-error @below {{'fattn.sm80.copy_tile' op operand #3 must be LLVM pointer to shared memory (address space 3), but got '!llvm.ptr<1>'}}
  "fattn.sm80.copy_tile"(%src, %row, %stride, %src, %off, %tid) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0>, rows = 64 : i64, row_bytes = 256 : i64, row_pitch = 272 : i64, threads = 128 : i64}> : (!llvm.ptr<1>, i32, i64, !llvm.ptr<1>, i32, i32) -> ()
  llvm.return
}
