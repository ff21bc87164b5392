// RUN: fattn-opt %s -split-input-file | FileCheck %s
// RUN: fattn-opt %s -split-input-file | fattn-opt -split-input-file | FileCheck %s

// The plans of the target passes print and parse back as typed attributes.

// CHECK-LABEL: func.func @sm90_tma_plan
// CHECK-SAME: fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 3, swizzle = 128, box_cols = 128, store = tma>
func.func @sm90_tma_plan() attributes {fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 3, swizzle = 128, box_cols = 128, store = tma>} {
  return
}

// -----

// CHECK-LABEL: func.func @sm80_plans
// CHECK-SAME: fattn.sm80.mma = #fattn.sm80_mma_plan<warps = 4, rows_per_warp = 32, q_operand = ldmatrix>
// CHECK-SAME: fattn.sm80.smem = #fattn.sm80_smem_plan<stages = 2, row_pitch = 272, q_offset = 0, kv_offset = 34816, stage_bytes = 34816, bytes = 104448>
func.func @sm80_plans() attributes {fattn.sm80.smem = #fattn.sm80_smem_plan<stages = 2, row_pitch = 272, q_offset = 0, kv_offset = 34816, stage_bytes = 34816, bytes = 104448>, fattn.sm80.mma = #fattn.sm80_mma_plan<warps = 4, rows_per_warp = 32, q_operand = ldmatrix>} {
  return
}
