// RUN: fattn-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{expected at least 2 stages, so that the next tile's copy overlaps the current tile's math, found 1}}
func.func @tma_stages() attributes {fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 1, swizzle = 128, box_cols = 64, store = registers>}

// -----

// expected-error @+1 {{expected swizzle = 128 (the only swizzle the sm_90a lowering implements), found 64}}
func.func @tma_swizzle() attributes {fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 64, box_cols = 64, store = registers>}

// -----

// expected-error @+1 {{expected box_cols = 64 (16-bit elements) or 128 (e4m3): one 128-byte swizzle atom of a row, found 32}}
func.func @tma_box() attributes {fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 32, store = registers>}

// -----

// expected-error @+1 {{expected 2 to 4 stages, found 5}}
func.func @smem_stages() attributes {fattn.sm80.smem = #fattn.sm80_smem_plan<stages = 5, row_pitch = 144, q_offset = 0, kv_offset = 18432, stage_bytes = 18432, bytes = 110592>}

// -----

// expected-error @+1 {{expected row_pitch to be a multiple of 16 bytes in [16, 2^32], found 136}}
func.func @smem_pitch() attributes {fattn.sm80.smem = #fattn.sm80_smem_plan<stages = 2, row_pitch = 136, q_offset = 0, kv_offset = 18432, stage_bytes = 18432, bytes = 55296>}

// -----

// expected-error @+1 {{expected the ring (kv_offset + stages * stage_bytes = 55296) to fit in bytes = 55280}}
func.func @smem_ring() attributes {fattn.sm80.smem = #fattn.sm80_smem_plan<stages = 2, row_pitch = 144, q_offset = 0, kv_offset = 18432, stage_bytes = 18432, bytes = 55280>}

// -----

// expected-error @+1 {{expected 4 warps (the 128 threads of the copy plan), found 8}}
func.func @mma_warps() attributes {fattn.sm80.mma = #fattn.sm80_mma_plan<warps = 8, rows_per_warp = 16, q_operand = registers>}

// -----

// expected-error @+1 {{expected rows_per_warp to be a positive multiple of 16 (m16n8k16 fragments), found 24}}
func.func @mma_rows() attributes {fattn.sm80.mma = #fattn.sm80_mma_plan<warps = 4, rows_per_warp = 24, q_operand = registers>}

// -----

// expected-error @+1 {{expected rescale_threshold >= 0 (0: off), found -1.0}}
func.func @consumer_threshold() attributes {fattn.sm90.consumers = #fattn.sm90_consumer_plan<rescale_threshold = -1.0>}

// -----

// A NaN written as its f32 bits is read as NaN (not as the bits of a tiny
// f64, which rounded to 0: off).
// expected-error @+1 {{expected rescale_threshold >= 0 (0: off), found nan}}
func.func @consumer_threshold_nan() attributes {fattn.sm90.consumers = #fattn.sm90_consumer_plan<rescale_threshold = 0x7FC00000>}

// -----

// expected-error @+1 {{expected rescale_threshold >= 0 (0: off), found inf}}
func.func @consumer_threshold_inf() attributes {fattn.sm90.consumers = #fattn.sm90_consumer_plan<rescale_threshold = 0x7F800000>}

// -----

// expected-error @+1 {{expected narrow_tail >= 0 (0: off), found -16}}
func.func @consumer_narrow_tail() attributes {fattn.sm90.consumers = #fattn.sm90_consumer_plan<narrow_tail = -16>}

// -----

// expected-error @+1 {{expected q_buffers = 1 or 2, found 3}}
func.func @work_q_buffers() attributes {fattn.sm90.work = #fattn.sm90_work_plan<q_buffers = 3>}
