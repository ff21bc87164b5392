// RUN: fattn-opt %s -split-input-file | FileCheck %s
// RUN: fattn-opt %s -split-input-file | fattn-opt -split-input-file | FileCheck %s

// The plans of the target passes print and parse back as typed attributes.

// CHECK-LABEL: func.func @sm90_tma_plan
// CHECK-SAME: fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 3, swizzle = 128, box_cols = 128, store = tma>
func.func @sm90_tma_plan() attributes {fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 3, swizzle = 128, box_cols = 128, store = tma>} {
  return
}

// -----

// A plan prints only the parameters that differ from their defaults, and a
// parameter left out parses as its default.
// CHECK-LABEL: func.func @sm90_choice_plans
// CHECK-SAME: fattn.sm90.consumers = #fattn.sm90_consumer_plan<value_mma = per_atom, row_sums = mma, exp2 = linear, rescale_threshold = 0.8, narrow_tail = 64, kv_ranges = warpgroup>
// CHECK-SAME: fattn.sm90.work = #fattn.sm90_work_plan<q_tile_order = forward, q_buffers = 2, tail = split>
func.func @sm90_choice_plans() attributes {fattn.sm90.consumers = #fattn.sm90_consumer_plan<value_mma = per_atom, row_sums = mma, exp2 = linear, rescale_threshold = 0.8, narrow_tail = 64, kv_ranges = warpgroup>, fattn.sm90.work = #fattn.sm90_work_plan<q_tile_order = forward, q_buffers = 2, tail = split>} {
  return
}

// -----

// CHECK-LABEL: func.func @sm90_choice_defaults
// CHECK-SAME: fattn.sm90.consumers = #fattn.sm90_consumer_plan<rescale_threshold = 8.0>
// CHECK-SAME: fattn.sm90.work = #fattn.sm90_work_plan<>
func.func @sm90_choice_defaults() attributes {fattn.sm90.consumers = #fattn.sm90_consumer_plan<value_mma = whole, rescale_threshold = 8.0, narrow_tail = 0>, fattn.sm90.work = #fattn.sm90_work_plan<q_tile_order = reverse, q_buffers = 1, tail = none>} {
  return
}

// -----

// The rescale threshold written as the bits of an f32: 0x41000000 is 8.0.
// CHECK-LABEL: func.func @sm90_choice_threshold_bits
// CHECK-SAME: fattn.sm90.consumers = #fattn.sm90_consumer_plan<rescale_threshold = 8.0>
func.func @sm90_choice_threshold_bits() attributes {fattn.sm90.consumers = #fattn.sm90_consumer_plan<rescale_threshold = 0x41000000>} {
  return
}

// -----

// A threshold whose shortest form has an exponent prints with a point
// before it, which parses back.
// CHECK-LABEL: func.func @sm90_choice_threshold_exponent
// CHECK-SAME: fattn.sm90.consumers = #fattn.sm90_consumer_plan<rescale_threshold = 1.0e-40>
func.func @sm90_choice_threshold_exponent() attributes {fattn.sm90.consumers = #fattn.sm90_consumer_plan<rescale_threshold = 1.0e-40>} {
  return
}

// -----

// CHECK-LABEL: func.func @sm80_plans
// CHECK-SAME: fattn.sm80.mma = #fattn.sm80_mma_plan<warps = 4, rows_per_warp = 32, q_operand = ldmatrix>
// CHECK-SAME: fattn.sm80.smem = #fattn.sm80_smem_plan<stages = 2, row_pitch = 272, q_offset = 0, kv_offset = 34816, stage_bytes = 34816, bytes = 104448>
func.func @sm80_plans() attributes {fattn.sm80.smem = #fattn.sm80_smem_plan<stages = 2, row_pitch = 272, q_offset = 0, kv_offset = 34816, stage_bytes = 34816, bytes = 104448>, fattn.sm80.mma = #fattn.sm80_mma_plan<warps = 4, rows_per_warp = 32, q_operand = ldmatrix>} {
  return
}
