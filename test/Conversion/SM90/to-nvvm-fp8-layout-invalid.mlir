// The sm_90a lowering reads the fp8 layout back (FP8LayoutFromIR) and
// refuses fp8 IR that --fattn-fp8-layout did not build. The cases are the
// output of --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma
// --fattn-warp-specialize (--fattn-fp8-layout) on a d128 fp8 attention,
// without the pass or edited.
// RUN: fattn-opt %s -split-input-file --convert-fattn-to-nvvm-sm90 -verify-diagnostics
// RUN: fattn-opt %s -split-input-file --convert-fattn-to-nvvm=chip=sm_90a -verify-diagnostics

// P keeps the accumulator's key order while V^T's keys are permuted.
func.func @p_not_permuted(%arg0: memref<?x?x?x128xf8E4M3FN>, %arg1: memref<?x?x?x128xf8E4M3FN>, %arg2: memref<?x?x?x128xf8E4M3FN>, %arg3: memref<?x?x?x128xbf16>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%arg3 : memref<?x?x?x128xbf16>) attributes {block_m = 128 : i64, block_n = 128 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 128, store = registers>, scale = 0.0883883461 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%arg4: index, %arg5: index, %arg6: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %dim = memref.dim %arg0, %c2 : memref<?x?x?x128xf8E4M3FN>
    %dim_0 = memref.dim %arg1, %c2 : memref<?x?x?x128xf8E4M3FN>
    %dim_1 = memref.dim %arg0, %c1 : memref<?x?x?x128xf8E4M3FN>
    %dim_2 = memref.dim %arg1, %c1 : memref<?x?x?x128xf8E4M3FN>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg5, %0 : index
    %c128_3 = arith.constant 128 : index
    %2 = arith.muli %arg6, %c128_3 : index
    %3 = fattn.load_tile %arg0[%arg4, %arg5, %2] : memref<?x?x?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg6, %dim, %dim_0 {block_m = 128 : i64, block_n = 128 : i64, window_left = -1 : i64, window_right = -1 : i64}
    %4 = fattn.ring_create : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
    fattn.warp_specialize attributes {consumer_registers = 232 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 40 : i64} producer {
      %c1_4 = arith.constant 1 : index
      scf.for %arg7 = %lo to %hi step %c1_4 {
        fattn.ring_acquire %4[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        %5 = arith.muli %arg7, %c128 : index
        %6 = fattn.load_tile %arg1[%arg4, %1, %5] : memref<?x?x?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        fattn.ring_commit %4[0], %6 : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>, tensor<128x128xf8E4M3FN>
        %7 = fattn.load_tile %arg2[%arg4, %1, %5] : memref<?x?x?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        fattn.ring_acquire %4[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        %8 = fattn.transpose_tile %7 {key_permutation = "wgmma_e4m3_k32"} : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        fattn.ring_commit %4[1], %8 : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>, tensor<128x128xf8E4M3FN>
      }
    } consumer {
    ^bb0(%arg7: index):
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
      %c1_4 = arith.constant 1 : index
      %5:3 = scf.for %arg8 = %lo to %hi step %c1_4 iter_args(%arg9 = %max, %arg10 = %sum, %arg11 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) {
        %6 = arith.muli %arg8, %c128 : index
        %7 = fattn.ring_wait %4[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
        %8 = fattn.mma %3, %7 {transpose_rhs} : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
        fattn.ring_release %4[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        %9 = arith.cmpi ult, %arg8, %full_lo : index
        %10 = arith.cmpi uge, %arg8, %full_hi : index
        %11 = arith.ori %9, %10 : i1
        %12 = scf.if %11 -> (tensor<128x128xf32>) {
          %17 = fattn.mask %8 at[%2, %6] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = -1 : i64} : tensor<128x128xf32>
          scf.yield %17 : tensor<128x128xf32>
        } else {
          scf.yield %8 : tensor<128x128xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %12, %arg9, %arg10 {scale = 0.0883883461 : f32} : tensor<128x128xf32>, tensor<128xf32> -> tensor<128x128xf8E4M3FN>
        %13 = fattn.rescale %arg11, %alpha : tensor<128x128xf32>, tensor<128xf32>
        %14 = fattn.ring_wait %4[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
        // expected-error @below {{'fattn.mma' op multiplies V^T by P not permuted like its keys: expected {transpose_rhs} and P from fattn.permute_keys {key_permutation = "wgmma_e4m3_k32"}}}
        %16 = fattn.mma %probs, %14 acc(%13 : tensor<128x128xf32>) {transpose_rhs} : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
        fattn.ring_release %4[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        scf.yield %new_max, %new_sum, %16 : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
      }
      %output, %lse = fattn.finalize %5#2, %5#0, %5#1 {scale = 0.0883883461 : f32} : tensor<128x128xf32>, tensor<128xf32> -> tensor<128x128xbf16>
      fattn.store_tile %output, %arg3[%arg4, %arg5, %2] : tensor<128x128xbf16>, memref<?x?x?x128xbf16>
    }
  }
  return
}

// -----

// The consumers transpose the tile they take from the ring.
func.func @consumer_transposes_ring(%arg0: memref<?x?x?x128xf8E4M3FN>, %arg1: memref<?x?x?x128xf8E4M3FN>, %arg2: memref<?x?x?x128xf8E4M3FN>, %arg3: memref<?x?x?x128xbf16>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%arg3 : memref<?x?x?x128xbf16>) attributes {block_m = 128 : i64, block_n = 128 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 128, store = registers>, scale = 0.0883883461 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%arg4: index, %arg5: index, %arg6: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %dim = memref.dim %arg0, %c2 : memref<?x?x?x128xf8E4M3FN>
    %dim_0 = memref.dim %arg1, %c2 : memref<?x?x?x128xf8E4M3FN>
    %dim_1 = memref.dim %arg0, %c1 : memref<?x?x?x128xf8E4M3FN>
    %dim_2 = memref.dim %arg1, %c1 : memref<?x?x?x128xf8E4M3FN>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg5, %0 : index
    %c128_3 = arith.constant 128 : index
    %2 = arith.muli %arg6, %c128_3 : index
    %3 = fattn.load_tile %arg0[%arg4, %arg5, %2] : memref<?x?x?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg6, %dim, %dim_0 {block_m = 128 : i64, block_n = 128 : i64, window_left = -1 : i64, window_right = -1 : i64}
    %4 = fattn.ring_create : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
    fattn.warp_specialize attributes {consumer_registers = 232 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 40 : i64} producer {
      %c1_4 = arith.constant 1 : index
      scf.for %arg7 = %lo to %hi step %c1_4 {
        fattn.ring_acquire %4[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        %5 = arith.muli %arg7, %c128 : index
        %6 = fattn.load_tile %arg1[%arg4, %1, %5] : memref<?x?x?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        fattn.ring_commit %4[0], %6 : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>, tensor<128x128xf8E4M3FN>
        %7 = fattn.load_tile %arg2[%arg4, %1, %5] : memref<?x?x?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        fattn.ring_acquire %4[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        fattn.ring_commit %4[1], %7 : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>, tensor<128x128xf8E4M3FN>
      }
    } consumer {
    ^bb0(%arg7: index):
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
      %c1_4 = arith.constant 1 : index
      %5:3 = scf.for %arg8 = %lo to %hi step %c1_4 iter_args(%arg9 = %max, %arg10 = %sum, %arg11 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) {
        %6 = arith.muli %arg8, %c128 : index
        %7 = fattn.ring_wait %4[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
        %8 = fattn.mma %3, %7 {transpose_rhs} : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
        fattn.ring_release %4[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        %9 = arith.cmpi ult, %arg8, %full_lo : index
        %10 = arith.cmpi uge, %arg8, %full_hi : index
        %11 = arith.ori %9, %10 : i1
        %12 = scf.if %11 -> (tensor<128x128xf32>) {
          %17 = fattn.mask %8 at[%2, %6] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = -1 : i64} : tensor<128x128xf32>
          scf.yield %17 : tensor<128x128xf32>
        } else {
          scf.yield %8 : tensor<128x128xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %12, %arg9, %arg10 {scale = 0.0883883461 : f32} : tensor<128x128xf32>, tensor<128xf32> -> tensor<128x128xf8E4M3FN>
        %13 = fattn.rescale %arg11, %alpha : tensor<128x128xf32>, tensor<128xf32>
        %14 = fattn.ring_wait %4[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
        // expected-error @below {{'fattn.transpose_tile' op is not a transpose of a V tile that the sm_90a lowering implements: expected its input to be a fattn.load_tile of V}}
        %vt = fattn.transpose_tile %14 {key_permutation = "wgmma_e4m3_k32"} : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        %15 = fattn.permute_keys %probs {key_permutation = "wgmma_e4m3_k32"} : tensor<128x128xf8E4M3FN>
        %16 = fattn.mma %15, %vt acc(%13 : tensor<128x128xf32>) {transpose_rhs} : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
        fattn.ring_release %4[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        scf.yield %new_max, %new_sum, %16 : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
      }
      %output, %lse = fattn.finalize %5#2, %5#0, %5#1 {scale = 0.0883883461 : f32} : tensor<128x128xf32>, tensor<128xf32> -> tensor<128x128xbf16>
      fattn.store_tile %output, %arg3[%arg4, %arg5, %2] : tensor<128x128xbf16>, memref<?x?x?x128xbf16>
    }
  }
  return
}

// -----

// V transposed by the producer for the ring and by a consumer for itself.
func.func @two_roles(%arg0: memref<?x?x?x128xf8E4M3FN>, %arg1: memref<?x?x?x128xf8E4M3FN>, %arg2: memref<?x?x?x128xf8E4M3FN>, %arg3: memref<?x?x?x128xbf16>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%arg3 : memref<?x?x?x128xbf16>) attributes {block_m = 128 : i64, block_n = 128 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 128, store = registers>, scale = 0.0883883461 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%arg4: index, %arg5: index, %arg6: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %dim = memref.dim %arg0, %c2 : memref<?x?x?x128xf8E4M3FN>
    %dim_0 = memref.dim %arg1, %c2 : memref<?x?x?x128xf8E4M3FN>
    %dim_1 = memref.dim %arg0, %c1 : memref<?x?x?x128xf8E4M3FN>
    %dim_2 = memref.dim %arg1, %c1 : memref<?x?x?x128xf8E4M3FN>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg5, %0 : index
    %c128_3 = arith.constant 128 : index
    %2 = arith.muli %arg6, %c128_3 : index
    %3 = fattn.load_tile %arg0[%arg4, %arg5, %2] : memref<?x?x?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg6, %dim, %dim_0 {block_m = 128 : i64, block_n = 128 : i64, window_left = -1 : i64, window_right = -1 : i64}
    %4 = fattn.ring_create : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
    fattn.warp_specialize attributes {consumer_registers = 232 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 40 : i64} producer {
      %c1_4 = arith.constant 1 : index
      scf.for %arg7 = %lo to %hi step %c1_4 {
        fattn.ring_acquire %4[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        %5 = arith.muli %arg7, %c128 : index
        %6 = fattn.load_tile %arg1[%arg4, %1, %5] : memref<?x?x?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        fattn.ring_commit %4[0], %6 : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>, tensor<128x128xf8E4M3FN>
        %7 = fattn.load_tile %arg2[%arg4, %1, %5] : memref<?x?x?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        fattn.ring_acquire %4[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        %8 = fattn.transpose_tile %7 {key_permutation = "wgmma_e4m3_k32"} : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        fattn.ring_commit %4[1], %8 : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>, tensor<128x128xf8E4M3FN>
      }
    } consumer {
    ^bb0(%arg7: index):
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
      %c1_4 = arith.constant 1 : index
      %5:3 = scf.for %arg8 = %lo to %hi step %c1_4 iter_args(%arg9 = %max, %arg10 = %sum, %arg11 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) {
        %6 = arith.muli %arg8, %c128 : index
        %7 = fattn.ring_wait %4[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
        %8 = fattn.mma %3, %7 {transpose_rhs} : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
        fattn.ring_release %4[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        %9 = arith.cmpi ult, %arg8, %full_lo : index
        %10 = arith.cmpi uge, %arg8, %full_hi : index
        %11 = arith.ori %9, %10 : i1
        %12 = scf.if %11 -> (tensor<128x128xf32>) {
          %17 = fattn.mask %8 at[%2, %6] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = -1 : i64} : tensor<128x128xf32>
          scf.yield %17 : tensor<128x128xf32>
        } else {
          scf.yield %8 : tensor<128x128xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %12, %arg9, %arg10 {scale = 0.0883883461 : f32} : tensor<128x128xf32>, tensor<128xf32> -> tensor<128x128xf8E4M3FN>
        %13 = fattn.rescale %arg11, %alpha : tensor<128x128xf32>, tensor<128xf32>
        %14 = fattn.ring_wait %4[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
        %vc = fattn.load_tile %arg2[%arg4, %1, %6] : memref<?x?x?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        // expected-error @below {{'fattn.transpose_tile' op transposes V in another warpgroup role than the other transposes of V}}
        %vct = fattn.transpose_tile %vc {key_permutation = "wgmma_e4m3_k32"} : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        %15 = fattn.permute_keys %probs {key_permutation = "wgmma_e4m3_k32"} : tensor<128x128xf8E4M3FN>
        %16 = fattn.mma %15, %vct acc(%13 : tensor<128x128xf32>) {transpose_rhs} : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
        fattn.ring_release %4[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        scf.yield %new_max, %new_sum, %16 : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
      }
      %output, %lse = fattn.finalize %5#2, %5#0, %5#1 {scale = 0.0883883461 : f32} : tensor<128x128xf32>, tensor<128xf32> -> tensor<128x128xbf16>
      fattn.store_tile %output, %arg3[%arg4, %arg5, %2] : tensor<128x128xbf16>, memref<?x?x?x128xbf16>
    }
  }
  return
}

// -----

// The producer transposes V but commits V as stored.
func.func @ring_carries_v(%arg0: memref<?x?x?x128xf8E4M3FN>, %arg1: memref<?x?x?x128xf8E4M3FN>, %arg2: memref<?x?x?x128xf8E4M3FN>, %arg3: memref<?x?x?x128xbf16>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%arg3 : memref<?x?x?x128xbf16>) attributes {block_m = 128 : i64, block_n = 128 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 128, store = registers>, scale = 0.0883883461 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%arg4: index, %arg5: index, %arg6: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %dim = memref.dim %arg0, %c2 : memref<?x?x?x128xf8E4M3FN>
    %dim_0 = memref.dim %arg1, %c2 : memref<?x?x?x128xf8E4M3FN>
    %dim_1 = memref.dim %arg0, %c1 : memref<?x?x?x128xf8E4M3FN>
    %dim_2 = memref.dim %arg1, %c1 : memref<?x?x?x128xf8E4M3FN>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg5, %0 : index
    %c128_3 = arith.constant 128 : index
    %2 = arith.muli %arg6, %c128_3 : index
    %3 = fattn.load_tile %arg0[%arg4, %arg5, %2] : memref<?x?x?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg6, %dim, %dim_0 {block_m = 128 : i64, block_n = 128 : i64, window_left = -1 : i64, window_right = -1 : i64}
    %4 = fattn.ring_create : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
    fattn.warp_specialize attributes {consumer_registers = 232 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 40 : i64} producer {
      %c1_4 = arith.constant 1 : index
      scf.for %arg7 = %lo to %hi step %c1_4 {
        fattn.ring_acquire %4[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        %5 = arith.muli %arg7, %c128 : index
        %6 = fattn.load_tile %arg1[%arg4, %1, %5] : memref<?x?x?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        fattn.ring_commit %4[0], %6 : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>, tensor<128x128xf8E4M3FN>
        %7 = fattn.load_tile %arg2[%arg4, %1, %5] : memref<?x?x?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        fattn.ring_acquire %4[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        %8 = fattn.transpose_tile %7 {key_permutation = "wgmma_e4m3_k32"} : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        fattn.ring_commit %4[1], %7 : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>, tensor<128x128xf8E4M3FN>
      }
    } consumer {
    ^bb0(%arg7: index):
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
      %c1_4 = arith.constant 1 : index
      %5:3 = scf.for %arg8 = %lo to %hi step %c1_4 iter_args(%arg9 = %max, %arg10 = %sum, %arg11 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) {
        %6 = arith.muli %arg8, %c128 : index
        %7 = fattn.ring_wait %4[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
        %8 = fattn.mma %3, %7 {transpose_rhs} : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
        fattn.ring_release %4[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        %9 = arith.cmpi ult, %arg8, %full_lo : index
        %10 = arith.cmpi uge, %arg8, %full_hi : index
        %11 = arith.ori %9, %10 : i1
        %12 = scf.if %11 -> (tensor<128x128xf32>) {
          %17 = fattn.mask %8 at[%2, %6] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = -1 : i64} : tensor<128x128xf32>
          scf.yield %17 : tensor<128x128xf32>
        } else {
          scf.yield %8 : tensor<128x128xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %12, %arg9, %arg10 {scale = 0.0883883461 : f32} : tensor<128x128xf32>, tensor<128xf32> -> tensor<128x128xf8E4M3FN>
        %13 = fattn.rescale %arg11, %alpha : tensor<128x128xf32>, tensor<128xf32>
        %14 = fattn.ring_wait %4[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
        %15 = fattn.permute_keys %probs {key_permutation = "wgmma_e4m3_k32"} : tensor<128x128xf8E4M3FN>
        // expected-error @below {{'fattn.mma' op reads V as stored; the fp8 layout transposes every V tile (run --fattn-fp8-layout once, after the scheduling passes)}}
        %16 = fattn.mma %15, %14 acc(%13 : tensor<128x128xf32>) {transpose_rhs} : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
        fattn.ring_release %4[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        scf.yield %new_max, %new_sum, %16 : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
      }
      %output, %lse = fattn.finalize %5#2, %5#0, %5#1 {scale = 0.0883883461 : f32} : tensor<128x128xf32>, tensor<128xf32> -> tensor<128x128xbf16>
      fattn.store_tile %output, %arg3[%arg4, %arg5, %2] : tensor<128x128xbf16>, memref<?x?x?x128xbf16>
    }
  }
  return
}

// -----

// The pass has not run: the ring carries V as stored, P is in accumulator order.
func.func @no_layout(%arg0: memref<?x?x?x128xf8E4M3FN>, %arg1: memref<?x?x?x128xf8E4M3FN>, %arg2: memref<?x?x?x128xf8E4M3FN>, %arg3: memref<?x?x?x128xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op is fp8 but its P V product reads V as stored; e4m3 wgmma needs V^T: run --fattn-fp8-layout}}
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%arg3 : memref<?x?x?x128xbf16>) attributes {block_m = 128 : i64, block_n = 128 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 128, store = registers>, scale = 0.0883883461 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%arg4: index, %arg5: index, %arg6: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %dim = memref.dim %arg0, %c2 : memref<?x?x?x128xf8E4M3FN>
    %dim_0 = memref.dim %arg1, %c2 : memref<?x?x?x128xf8E4M3FN>
    %dim_1 = memref.dim %arg0, %c1 : memref<?x?x?x128xf8E4M3FN>
    %dim_2 = memref.dim %arg1, %c1 : memref<?x?x?x128xf8E4M3FN>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg5, %0 : index
    %c128_3 = arith.constant 128 : index
    %2 = arith.muli %arg6, %c128_3 : index
    %3 = fattn.load_tile %arg0[%arg4, %arg5, %2] : memref<?x?x?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg6, %dim, %dim_0 {block_m = 128 : i64, block_n = 128 : i64, window_left = -1 : i64, window_right = -1 : i64}
    %4 = fattn.ring_create : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
    fattn.warp_specialize attributes {consumer_registers = 232 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 40 : i64} producer {
      %c1_4 = arith.constant 1 : index
      scf.for %arg7 = %lo to %hi step %c1_4 {
        fattn.ring_acquire %4[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        %5 = arith.muli %arg7, %c128 : index
        %6 = fattn.load_tile %arg1[%arg4, %1, %5] : memref<?x?x?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        fattn.ring_commit %4[0], %6 : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>, tensor<128x128xf8E4M3FN>
        fattn.ring_acquire %4[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        %7 = fattn.load_tile %arg2[%arg4, %1, %5] : memref<?x?x?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        fattn.ring_commit %4[1], %7 : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>, tensor<128x128xf8E4M3FN>
      }
    } consumer {
    ^bb0(%arg7: index):
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
      %c1_4 = arith.constant 1 : index
      %5:3 = scf.for %arg8 = %lo to %hi step %c1_4 iter_args(%arg9 = %max, %arg10 = %sum, %arg11 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) {
        %6 = arith.muli %arg8, %c128 : index
        %7 = fattn.ring_wait %4[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
        %8 = fattn.mma %3, %7 {transpose_rhs} : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
        fattn.ring_release %4[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        %9 = arith.cmpi ult, %arg8, %full_lo : index
        %10 = arith.cmpi uge, %arg8, %full_hi : index
        %11 = arith.ori %9, %10 : i1
        %12 = scf.if %11 -> (tensor<128x128xf32>) {
          %16 = fattn.mask %8 at[%2, %6] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = -1 : i64} : tensor<128x128xf32>
          scf.yield %16 : tensor<128x128xf32>
        } else {
          scf.yield %8 : tensor<128x128xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %12, %arg9, %arg10 {scale = 0.0883883461 : f32} : tensor<128x128xf32>, tensor<128xf32> -> tensor<128x128xf8E4M3FN>
        %13 = fattn.rescale %arg11, %alpha : tensor<128x128xf32>, tensor<128xf32>
        %14 = fattn.ring_wait %4[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
        %15 = fattn.mma %probs, %14 acc(%13 : tensor<128x128xf32>) : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
        fattn.ring_release %4[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        scf.yield %new_max, %new_sum, %15 : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
      }
      %output, %lse = fattn.finalize %5#2, %5#0, %5#1 {scale = 0.0883883461 : f32} : tensor<128x128xf32>, tensor<128xf32> -> tensor<128x128xbf16>
      fattn.store_tile %output, %arg3[%arg4, %arg5, %2] : tensor<128x128xbf16>, memref<?x?x?x128xbf16>
    }
  }
  return
}
