// L2 consumer loops that the sm_90a lowering cannot build op by op: one
// case per message (ConsumerLoopFromIR.cpp), each hand-written L2 as
// --fattn-warp-specialize (and --fattn-pingpong) writes it, with one change.
// RUN: fattn-opt %s -split-input-file -verify-diagnostics --convert-fattn-to-nvvm-sm90

// A load in the consumer loop (the producer loads the tiles).
func.func @attn(%arg0: memref<1x2x256x64xbf16>, %arg1: memref<1x2x256x64xbf16>, %arg2: memref<1x2x256x64xbf16>, %arg3: memref<1x2x256x64xbf16>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%arg3 : memref<1x2x256x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} {
  ^bb0(%arg4: index, %arg5: index, %arg6: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %dim = memref.dim %arg0, %c2 : memref<1x2x256x64xbf16>
    %dim_0 = memref.dim %arg1, %c2 : memref<1x2x256x64xbf16>
    %dim_1 = memref.dim %arg0, %c1 : memref<1x2x256x64xbf16>
    %dim_2 = memref.dim %arg1, %c1 : memref<1x2x256x64xbf16>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg5, %0 : index
    %c128 = arith.constant 128 : index
    %2 = arith.muli %arg6, %c128 : index
    %3 = fattn.load_tile %arg0[%arg4, %arg5, %2] : memref<1x2x256x64xbf16> -> tensor<128x64xbf16>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg6, %dim, %dim_0 {block_m = 128 : i64, block_n = 64 : i64, window_left = -1 : i64, window_right = 0 : i64}
    %4 = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
    fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
      %c1_3 = arith.constant 1 : index
      scf.for %arg7 = %lo to %hi step %c1_3 {
        fattn.ring_acquire %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %5 = arith.muli %arg7, %c64 : index
        %6 = fattn.load_tile %arg1[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[0], %6 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
        fattn.ring_acquire %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %7 = fattn.load_tile %arg2[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[1], %7 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
      }
    } consumer {
    ^bb0(%arg7: index):
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      %c1_3 = arith.constant 1 : index
      %5:3 = scf.for %arg8 = %lo to %hi step %c1_3 iter_args(%arg9 = %max, %arg10 = %sum, %arg11 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
        %6 = arith.muli %arg8, %c64 : index
        %7 = fattn.ring_wait %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        // expected-error @below {{'fattn.load_tile' op cannot be built by the sm_90a lowering in the consumer KV loop's body: expected ring, named barrier, fattn.mma, fattn.softcap, fattn.mask, fattn.softmax_update or fattn.rescale ops}}
        %extra = fattn.load_tile %arg1[%arg4, %1, %6] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        %8 = fattn.mma %3, %7 {transpose_rhs} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %9 = arith.cmpi ult, %arg8, %full_lo : index
        %10 = arith.cmpi uge, %arg8, %full_hi : index
        %11 = arith.ori %9, %10 : i1
        %12 = scf.if %11 -> (tensor<128x64xf32>) {
          %16 = fattn.mask %8 at[%2, %6] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = 0 : i64} : tensor<128x64xf32>
          scf.yield %16 : tensor<128x64xf32>
        } else {
          scf.yield %8 : tensor<128x64xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %12, %arg9, %arg10 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
        %13 = fattn.rescale %arg11, %alpha : tensor<128x64xf32>, tensor<128xf32>
        %14 = fattn.ring_wait %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        %15 = fattn.mma %probs, %14 acc(%13 : tensor<128x64xf32>) : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        scf.yield %new_max, %new_sum, %15 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      }
      %output, %lse = fattn.finalize %5#2, %5#0, %5#1 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
      fattn.store_tile %output, %arg3[%arg4, %arg5, %2] : tensor<128x64xbf16>, memref<1x2x256x64xbf16>
    }
  }
  return
}

// -----

// K handed back before S = Q K^T reads it.
func.func @attn(%arg0: memref<1x2x256x64xbf16>, %arg1: memref<1x2x256x64xbf16>, %arg2: memref<1x2x256x64xbf16>, %arg3: memref<1x2x256x64xbf16>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%arg3 : memref<1x2x256x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} {
  ^bb0(%arg4: index, %arg5: index, %arg6: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %dim = memref.dim %arg0, %c2 : memref<1x2x256x64xbf16>
    %dim_0 = memref.dim %arg1, %c2 : memref<1x2x256x64xbf16>
    %dim_1 = memref.dim %arg0, %c1 : memref<1x2x256x64xbf16>
    %dim_2 = memref.dim %arg1, %c1 : memref<1x2x256x64xbf16>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg5, %0 : index
    %c128 = arith.constant 128 : index
    %2 = arith.muli %arg6, %c128 : index
    %3 = fattn.load_tile %arg0[%arg4, %arg5, %2] : memref<1x2x256x64xbf16> -> tensor<128x64xbf16>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg6, %dim, %dim_0 {block_m = 128 : i64, block_n = 64 : i64, window_left = -1 : i64, window_right = 0 : i64}
    %4 = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
    fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
      %c1_3 = arith.constant 1 : index
      scf.for %arg7 = %lo to %hi step %c1_3 {
        fattn.ring_acquire %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %5 = arith.muli %arg7, %c64 : index
        %6 = fattn.load_tile %arg1[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[0], %6 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
        fattn.ring_acquire %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %7 = fattn.load_tile %arg2[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[1], %7 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
      }
    } consumer {
    ^bb0(%arg7: index):
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      %c1_3 = arith.constant 1 : index
      %5:3 = scf.for %arg8 = %lo to %hi step %c1_3 iter_args(%arg9 = %max, %arg10 = %sum, %arg11 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
        %6 = arith.muli %arg8, %c64 : index
        %7 = fattn.ring_wait %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        // expected-error @below {{'fattn.ring_release' op releases its slot before the fattn.mma that reads it}}
        fattn.ring_release %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %8 = fattn.mma %3, %7 {transpose_rhs} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        %9 = arith.cmpi ult, %arg8, %full_lo : index
        %10 = arith.cmpi uge, %arg8, %full_hi : index
        %11 = arith.ori %9, %10 : i1
        %12 = scf.if %11 -> (tensor<128x64xf32>) {
          %16 = fattn.mask %8 at[%2, %6] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = 0 : i64} : tensor<128x64xf32>
          scf.yield %16 : tensor<128x64xf32>
        } else {
          scf.yield %8 : tensor<128x64xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %12, %arg9, %arg10 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
        %13 = fattn.rescale %arg11, %alpha : tensor<128x64xf32>, tensor<128xf32>
        %14 = fattn.ring_wait %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        %15 = fattn.mma %probs, %14 acc(%13 : tensor<128x64xf32>) : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        scf.yield %new_max, %new_sum, %15 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      }
      %output, %lse = fattn.finalize %5#2, %5#0, %5#1 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
      fattn.store_tile %output, %arg3[%arg4, %arg5, %2] : tensor<128x64xbf16>, memref<1x2x256x64xbf16>
    }
  }
  return
}

// -----

// S = Q V^T: the scores GEMM reads the K tile of the ring.
func.func @attn(%arg0: memref<1x2x256x64xbf16>, %arg1: memref<1x2x256x64xbf16>, %arg2: memref<1x2x256x64xbf16>, %arg3: memref<1x2x256x64xbf16>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%arg3 : memref<1x2x256x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} {
  ^bb0(%arg4: index, %arg5: index, %arg6: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %dim = memref.dim %arg0, %c2 : memref<1x2x256x64xbf16>
    %dim_0 = memref.dim %arg1, %c2 : memref<1x2x256x64xbf16>
    %dim_1 = memref.dim %arg0, %c1 : memref<1x2x256x64xbf16>
    %dim_2 = memref.dim %arg1, %c1 : memref<1x2x256x64xbf16>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg5, %0 : index
    %c128 = arith.constant 128 : index
    %2 = arith.muli %arg6, %c128 : index
    %3 = fattn.load_tile %arg0[%arg4, %arg5, %2] : memref<1x2x256x64xbf16> -> tensor<128x64xbf16>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg6, %dim, %dim_0 {block_m = 128 : i64, block_n = 64 : i64, window_left = -1 : i64, window_right = 0 : i64}
    %4 = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
    fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
      %c1_3 = arith.constant 1 : index
      scf.for %arg7 = %lo to %hi step %c1_3 {
        fattn.ring_acquire %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %5 = arith.muli %arg7, %c64 : index
        %6 = fattn.load_tile %arg1[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[0], %6 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
        fattn.ring_acquire %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %7 = fattn.load_tile %arg2[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[1], %7 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
      }
    } consumer {
    ^bb0(%arg7: index):
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      %c1_3 = arith.constant 1 : index
      %5:3 = scf.for %arg8 = %lo to %hi step %c1_3 iter_args(%arg9 = %max, %arg10 = %sum, %arg11 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
        %6 = arith.muli %arg8, %c64 : index
        %7 = fattn.ring_wait %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        %v = fattn.ring_wait %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        // expected-error @below {{'fattn.mma' op cannot be built by the sm_90a lowering in the consumer KV loop's body: expected S = Q K^T on the K tile of a fattn.ring_wait of slot 0 (transpose_rhs)}}
        %8 = fattn.mma %3, %v {transpose_rhs} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %9 = arith.cmpi ult, %arg8, %full_lo : index
        %10 = arith.cmpi uge, %arg8, %full_hi : index
        %11 = arith.ori %9, %10 : i1
        %12 = scf.if %11 -> (tensor<128x64xf32>) {
          %16 = fattn.mask %8 at[%2, %6] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = 0 : i64} : tensor<128x64xf32>
          scf.yield %16 : tensor<128x64xf32>
        } else {
          scf.yield %8 : tensor<128x64xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %12, %arg9, %arg10 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
        %13 = fattn.rescale %arg11, %alpha : tensor<128x64xf32>, tensor<128xf32>
        %14 = fattn.ring_wait %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        %15 = fattn.mma %probs, %14 acc(%13 : tensor<128x64xf32>) : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        scf.yield %new_max, %new_sum, %15 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      }
      %output, %lse = fattn.finalize %5#2, %5#0, %5#1 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
      fattn.store_tile %output, %arg3[%arg4, %arg5, %2] : tensor<128x64xbf16>, memref<1x2x256x64xbf16>
    }
  }
  return
}

// -----

// The scores go to the softmax unmasked (the lowering masks the edge tiles).
func.func @attn(%arg0: memref<1x2x256x64xbf16>, %arg1: memref<1x2x256x64xbf16>, %arg2: memref<1x2x256x64xbf16>, %arg3: memref<1x2x256x64xbf16>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%arg3 : memref<1x2x256x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} {
  ^bb0(%arg4: index, %arg5: index, %arg6: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %dim = memref.dim %arg0, %c2 : memref<1x2x256x64xbf16>
    %dim_0 = memref.dim %arg1, %c2 : memref<1x2x256x64xbf16>
    %dim_1 = memref.dim %arg0, %c1 : memref<1x2x256x64xbf16>
    %dim_2 = memref.dim %arg1, %c1 : memref<1x2x256x64xbf16>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg5, %0 : index
    %c128 = arith.constant 128 : index
    %2 = arith.muli %arg6, %c128 : index
    %3 = fattn.load_tile %arg0[%arg4, %arg5, %2] : memref<1x2x256x64xbf16> -> tensor<128x64xbf16>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg6, %dim, %dim_0 {block_m = 128 : i64, block_n = 64 : i64, window_left = -1 : i64, window_right = 0 : i64}
    %4 = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
    fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
      %c1_3 = arith.constant 1 : index
      scf.for %arg7 = %lo to %hi step %c1_3 {
        fattn.ring_acquire %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %5 = arith.muli %arg7, %c64 : index
        %6 = fattn.load_tile %arg1[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[0], %6 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
        fattn.ring_acquire %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %7 = fattn.load_tile %arg2[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[1], %7 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
      }
    } consumer {
    ^bb0(%arg7: index):
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      %c1_3 = arith.constant 1 : index
      // expected-error @below {{'scf.for' op expected 1 fattn.mask in the consumer KV loop's body, found 0}}
      %5:3 = scf.for %arg8 = %lo to %hi step %c1_3 iter_args(%arg9 = %max, %arg10 = %sum, %arg11 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
        %6 = arith.muli %arg8, %c64 : index
        %7 = fattn.ring_wait %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        %8 = fattn.mma %3, %7 {transpose_rhs} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %8, %arg9, %arg10 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
        %13 = fattn.rescale %arg11, %alpha : tensor<128x64xf32>, tensor<128xf32>
        %14 = fattn.ring_wait %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        %15 = fattn.mma %probs, %14 acc(%13 : tensor<128x64xf32>) : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        scf.yield %new_max, %new_sum, %15 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      }
      %output, %lse = fattn.finalize %5#2, %5#0, %5#1 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
      fattn.store_tile %output, %arg3[%arg4, %arg5, %2] : tensor<128x64xbf16>, memref<1x2x256x64xbf16>
    }
  }
  return
}

// -----

// S = Q K^T's turn does not close before P V's opens.
func.func @attn(%arg0: memref<1x2x256x64xbf16>, %arg1: memref<1x2x256x64xbf16>, %arg2: memref<1x2x256x64xbf16>, %arg3: memref<1x2x256x64xbf16>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%arg3 : memref<1x2x256x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} {
  ^bb0(%arg4: index, %arg5: index, %arg6: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %dim = memref.dim %arg0, %c2 : memref<1x2x256x64xbf16>
    %dim_0 = memref.dim %arg1, %c2 : memref<1x2x256x64xbf16>
    %dim_1 = memref.dim %arg0, %c1 : memref<1x2x256x64xbf16>
    %dim_2 = memref.dim %arg1, %c1 : memref<1x2x256x64xbf16>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg5, %0 : index
    %c128 = arith.constant 128 : index
    %2 = arith.muli %arg6, %c128 : index
    %3 = fattn.load_tile %arg0[%arg4, %arg5, %2] : memref<1x2x256x64xbf16> -> tensor<128x64xbf16>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg6, %dim, %dim_0 {block_m = 128 : i64, block_n = 64 : i64, window_left = -1 : i64, window_right = 0 : i64}
    %4 = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
    fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
      %c1_3 = arith.constant 1 : index
      scf.for %arg7 = %lo to %hi step %c1_3 {
        fattn.ring_acquire %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %5 = arith.muli %arg7, %c64 : index
        %6 = fattn.load_tile %arg1[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[0], %6 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
        fattn.ring_acquire %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %7 = fattn.load_tile %arg2[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[1], %7 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
      }
    } consumer {
    ^bb0(%arg7: index):
      %c1_3 = arith.constant 1 : index
      %c2_4 = arith.constant 2 : index
      %c1_5 = arith.constant 1 : index
      %5 = arith.addi %c1_3, %arg7 : index
      %6 = arith.subi %c2_4, %arg7 : index
      %7 = arith.cmpi eq, %arg7, %c1_5 : index
      scf.if %7 {
        fattn.named_barrier_arrive %c1_3, 256
      }
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      %c1_6 = arith.constant 1 : index
      %8:3 = scf.for %arg8 = %lo to %hi step %c1_6 iter_args(%arg9 = %max, %arg10 = %sum, %arg11 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
        %9 = arith.muli %arg8, %c64 : index
        %10 = fattn.ring_wait %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        fattn.named_barrier_sync %5, 256
        %11 = fattn.mma %3, %10 {transpose_rhs} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %12 = arith.cmpi ult, %arg8, %full_lo : index
        %13 = arith.cmpi uge, %arg8, %full_hi : index
        %14 = arith.ori %12, %13 : i1
        %15 = scf.if %14 -> (tensor<128x64xf32>) {
          %19 = fattn.mask %11 at[%2, %9] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = 0 : i64} : tensor<128x64xf32>
          scf.yield %19 : tensor<128x64xf32>
        } else {
          scf.yield %11 : tensor<128x64xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %15, %arg9, %arg10 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
        %16 = fattn.rescale %arg11, %alpha : tensor<128x64xf32>, tensor<128xf32>
        %17 = fattn.ring_wait %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        // expected-error @below {{'fattn.named_barrier_sync' op opens a GEMM turn before the previous one closed (fattn.named_barrier_arrive)}}
        fattn.named_barrier_sync %5, 256
        %18 = fattn.mma %probs, %17 acc(%16 : tensor<128x64xf32>) : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.named_barrier_arrive %6, 256
        fattn.ring_release %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        scf.yield %new_max, %new_sum, %18 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      }
      %output, %lse = fattn.finalize %8#2, %8#0, %8#1 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
      fattn.store_tile %output, %arg3[%arg4, %arg5, %2] : tensor<128x64xbf16>, memref<1x2x256x64xbf16>
    }
  }
  return
}

// -----

// S = Q K^T's turn has no opening.
func.func @attn(%arg0: memref<1x2x256x64xbf16>, %arg1: memref<1x2x256x64xbf16>, %arg2: memref<1x2x256x64xbf16>, %arg3: memref<1x2x256x64xbf16>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%arg3 : memref<1x2x256x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} {
  ^bb0(%arg4: index, %arg5: index, %arg6: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %dim = memref.dim %arg0, %c2 : memref<1x2x256x64xbf16>
    %dim_0 = memref.dim %arg1, %c2 : memref<1x2x256x64xbf16>
    %dim_1 = memref.dim %arg0, %c1 : memref<1x2x256x64xbf16>
    %dim_2 = memref.dim %arg1, %c1 : memref<1x2x256x64xbf16>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg5, %0 : index
    %c128 = arith.constant 128 : index
    %2 = arith.muli %arg6, %c128 : index
    %3 = fattn.load_tile %arg0[%arg4, %arg5, %2] : memref<1x2x256x64xbf16> -> tensor<128x64xbf16>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg6, %dim, %dim_0 {block_m = 128 : i64, block_n = 64 : i64, window_left = -1 : i64, window_right = 0 : i64}
    %4 = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
    fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
      %c1_3 = arith.constant 1 : index
      scf.for %arg7 = %lo to %hi step %c1_3 {
        fattn.ring_acquire %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %5 = arith.muli %arg7, %c64 : index
        %6 = fattn.load_tile %arg1[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[0], %6 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
        fattn.ring_acquire %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %7 = fattn.load_tile %arg2[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[1], %7 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
      }
    } consumer {
    ^bb0(%arg7: index):
      %c1_3 = arith.constant 1 : index
      %c2_4 = arith.constant 2 : index
      %c1_5 = arith.constant 1 : index
      %5 = arith.addi %c1_3, %arg7 : index
      %6 = arith.subi %c2_4, %arg7 : index
      %7 = arith.cmpi eq, %arg7, %c1_5 : index
      scf.if %7 {
        fattn.named_barrier_arrive %c1_3, 256
      }
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      %c1_6 = arith.constant 1 : index
      %8:3 = scf.for %arg8 = %lo to %hi step %c1_6 iter_args(%arg9 = %max, %arg10 = %sum, %arg11 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
        %9 = arith.muli %arg8, %c64 : index
        %10 = fattn.ring_wait %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        %11 = fattn.mma %3, %10 {transpose_rhs} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        // expected-error @below {{'fattn.named_barrier_arrive' op closes a GEMM turn that no fattn.named_barrier_sync opened in the consumer KV loop's body}}
        fattn.named_barrier_arrive %6, 256
        fattn.ring_release %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %12 = arith.cmpi ult, %arg8, %full_lo : index
        %13 = arith.cmpi uge, %arg8, %full_hi : index
        %14 = arith.ori %12, %13 : i1
        %15 = scf.if %14 -> (tensor<128x64xf32>) {
          %19 = fattn.mask %11 at[%2, %9] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = 0 : i64} : tensor<128x64xf32>
          scf.yield %19 : tensor<128x64xf32>
        } else {
          scf.yield %11 : tensor<128x64xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %15, %arg9, %arg10 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
        %16 = fattn.rescale %arg11, %alpha : tensor<128x64xf32>, tensor<128xf32>
        %17 = fattn.ring_wait %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        fattn.named_barrier_sync %5, 256
        %18 = fattn.mma %probs, %17 acc(%16 : tensor<128x64xf32>) : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.named_barrier_arrive %6, 256
        fattn.ring_release %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        scf.yield %new_max, %new_sum, %18 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      }
      %output, %lse = fattn.finalize %8#2, %8#0, %8#1 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
      fattn.store_tile %output, %arg3[%arg4, %arg5, %2] : tensor<128x64xbf16>, memref<1x2x256x64xbf16>
    }
  }
  return
}

// -----

// P V's turn does not close in the loop's body.
func.func @attn(%arg0: memref<1x2x256x64xbf16>, %arg1: memref<1x2x256x64xbf16>, %arg2: memref<1x2x256x64xbf16>, %arg3: memref<1x2x256x64xbf16>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%arg3 : memref<1x2x256x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} {
  ^bb0(%arg4: index, %arg5: index, %arg6: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %dim = memref.dim %arg0, %c2 : memref<1x2x256x64xbf16>
    %dim_0 = memref.dim %arg1, %c2 : memref<1x2x256x64xbf16>
    %dim_1 = memref.dim %arg0, %c1 : memref<1x2x256x64xbf16>
    %dim_2 = memref.dim %arg1, %c1 : memref<1x2x256x64xbf16>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg5, %0 : index
    %c128 = arith.constant 128 : index
    %2 = arith.muli %arg6, %c128 : index
    %3 = fattn.load_tile %arg0[%arg4, %arg5, %2] : memref<1x2x256x64xbf16> -> tensor<128x64xbf16>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg6, %dim, %dim_0 {block_m = 128 : i64, block_n = 64 : i64, window_left = -1 : i64, window_right = 0 : i64}
    %4 = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
    fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
      %c1_3 = arith.constant 1 : index
      scf.for %arg7 = %lo to %hi step %c1_3 {
        fattn.ring_acquire %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %5 = arith.muli %arg7, %c64 : index
        %6 = fattn.load_tile %arg1[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[0], %6 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
        fattn.ring_acquire %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %7 = fattn.load_tile %arg2[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[1], %7 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
      }
    } consumer {
    ^bb0(%arg7: index):
      %c1_3 = arith.constant 1 : index
      %c2_4 = arith.constant 2 : index
      %c1_5 = arith.constant 1 : index
      %5 = arith.addi %c1_3, %arg7 : index
      %6 = arith.subi %c2_4, %arg7 : index
      %7 = arith.cmpi eq, %arg7, %c1_5 : index
      scf.if %7 {
        fattn.named_barrier_arrive %c1_3, 256
      }
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      %c1_6 = arith.constant 1 : index
      // expected-error @below {{'scf.for' op expected each GEMM turn in the consumer KV loop's body to close with a fattn.named_barrier_arrive}}
      %8:3 = scf.for %arg8 = %lo to %hi step %c1_6 iter_args(%arg9 = %max, %arg10 = %sum, %arg11 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
        %9 = arith.muli %arg8, %c64 : index
        %10 = fattn.ring_wait %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        fattn.named_barrier_sync %5, 256
        %11 = fattn.mma %3, %10 {transpose_rhs} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.named_barrier_arrive %6, 256
        fattn.ring_release %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %12 = arith.cmpi ult, %arg8, %full_lo : index
        %13 = arith.cmpi uge, %arg8, %full_hi : index
        %14 = arith.ori %12, %13 : i1
        %15 = scf.if %14 -> (tensor<128x64xf32>) {
          %19 = fattn.mask %11 at[%2, %9] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = 0 : i64} : tensor<128x64xf32>
          scf.yield %19 : tensor<128x64xf32>
        } else {
          scf.yield %11 : tensor<128x64xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %15, %arg9, %arg10 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
        %16 = fattn.rescale %arg11, %alpha : tensor<128x64xf32>, tensor<128xf32>
        %17 = fattn.ring_wait %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        fattn.named_barrier_sync %5, 256
        %18 = fattn.mma %probs, %17 acc(%16 : tensor<128x64xf32>) : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        scf.yield %new_max, %new_sum, %18 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      }
      %output, %lse = fattn.finalize %8#2, %8#0, %8#1 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
      fattn.store_tile %output, %arg3[%arg4, %arg5, %2] : tensor<128x64xbf16>, memref<1x2x256x64xbf16>
    }
  }
  return
}

// -----

// O rescaled by the running max instead of the softmax's factors.
func.func @attn(%arg0: memref<1x2x256x64xbf16>, %arg1: memref<1x2x256x64xbf16>, %arg2: memref<1x2x256x64xbf16>, %arg3: memref<1x2x256x64xbf16>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%arg3 : memref<1x2x256x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} {
  ^bb0(%arg4: index, %arg5: index, %arg6: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %dim = memref.dim %arg0, %c2 : memref<1x2x256x64xbf16>
    %dim_0 = memref.dim %arg1, %c2 : memref<1x2x256x64xbf16>
    %dim_1 = memref.dim %arg0, %c1 : memref<1x2x256x64xbf16>
    %dim_2 = memref.dim %arg1, %c1 : memref<1x2x256x64xbf16>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg5, %0 : index
    %c128 = arith.constant 128 : index
    %2 = arith.muli %arg6, %c128 : index
    %3 = fattn.load_tile %arg0[%arg4, %arg5, %2] : memref<1x2x256x64xbf16> -> tensor<128x64xbf16>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg6, %dim, %dim_0 {block_m = 128 : i64, block_n = 64 : i64, window_left = -1 : i64, window_right = 0 : i64}
    %4 = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
    fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
      %c1_3 = arith.constant 1 : index
      scf.for %arg7 = %lo to %hi step %c1_3 {
        fattn.ring_acquire %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %5 = arith.muli %arg7, %c64 : index
        %6 = fattn.load_tile %arg1[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[0], %6 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
        fattn.ring_acquire %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %7 = fattn.load_tile %arg2[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[1], %7 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
      }
    } consumer {
    ^bb0(%arg7: index):
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      %c1_3 = arith.constant 1 : index
      %5:3 = scf.for %arg8 = %lo to %hi step %c1_3 iter_args(%arg9 = %max, %arg10 = %sum, %arg11 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
        %6 = arith.muli %arg8, %c64 : index
        %7 = fattn.ring_wait %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        %8 = fattn.mma %3, %7 {transpose_rhs} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %9 = arith.cmpi ult, %arg8, %full_lo : index
        %10 = arith.cmpi uge, %arg8, %full_hi : index
        %11 = arith.ori %9, %10 : i1
        %12 = scf.if %11 -> (tensor<128x64xf32>) {
          %16 = fattn.mask %8 at[%2, %6] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = 0 : i64} : tensor<128x64xf32>
          scf.yield %16 : tensor<128x64xf32>
        } else {
          scf.yield %8 : tensor<128x64xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %12, %arg9, %arg10 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
        // expected-error @below {{'fattn.rescale' op expected the factors of this tile's fattn.softmax_update in the consumer KV loop's body}}
        %13 = fattn.rescale %arg11, %arg9 : tensor<128x64xf32>, tensor<128xf32>
        %14 = fattn.ring_wait %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        %15 = fattn.mma %probs, %14 acc(%13 : tensor<128x64xf32>) : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        scf.yield %new_max, %new_sum, %15 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      }
      %output, %lse = fattn.finalize %5#2, %5#0, %5#1 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
      fattn.store_tile %output, %arg3[%arg4, %arg5, %2] : tensor<128x64xbf16>, memref<1x2x256x64xbf16>
    }
  }
  return
}

// -----

// The overlapped loop's rescale by factors of its own iteration.
func.func @attn(%arg0: memref<1x2x256x64xbf16>, %arg1: memref<1x2x256x64xbf16>, %arg2: memref<1x2x256x64xbf16>, %arg3: memref<1x2x256x64xbf16>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%arg3 : memref<1x2x256x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} {
  ^bb0(%arg4: index, %arg5: index, %arg6: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %dim = memref.dim %arg0, %c2 : memref<1x2x256x64xbf16>
    %dim_0 = memref.dim %arg1, %c2 : memref<1x2x256x64xbf16>
    %dim_1 = memref.dim %arg0, %c1 : memref<1x2x256x64xbf16>
    %dim_2 = memref.dim %arg1, %c1 : memref<1x2x256x64xbf16>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg5, %0 : index
    %c128 = arith.constant 128 : index
    %2 = arith.muli %arg6, %c128 : index
    %3 = fattn.load_tile %arg0[%arg4, %arg5, %2] : memref<1x2x256x64xbf16> -> tensor<128x64xbf16>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg6, %dim, %dim_0 {block_m = 128 : i64, block_n = 64 : i64, window_left = -1 : i64, window_right = 0 : i64}
    %4 = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
    fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
      %c1_3 = arith.constant 1 : index
      scf.for %arg7 = %lo to %hi step %c1_3 {
        fattn.ring_acquire %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %5 = arith.muli %arg7, %c64 : index
        %6 = fattn.load_tile %arg1[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[0], %6 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
        fattn.ring_acquire %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %7 = fattn.load_tile %arg2[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[1], %7 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
      }
    } consumer {
    ^bb0(%arg7: index):
      %c1_3 = arith.constant 1 : index
      %c2_4 = arith.constant 2 : index
      %c1_5 = arith.constant 1 : index
      %5 = arith.addi %c1_3, %arg7 : index
      %6 = arith.subi %c2_4, %arg7 : index
      %7 = arith.cmpi eq, %arg7, %c1_5 : index
      scf.if %7 {
        fattn.named_barrier_arrive %c1_3, 256
      }
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      %c1_6 = arith.constant 1 : index
      %8 = arith.cmpi slt, %lo, %hi : index
      %9:4 = scf.if %8 -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xbf16>, tensor<128xf32>) {
        %13 = arith.muli %lo, %c64 : index
        %14 = fattn.ring_wait %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        fattn.named_barrier_sync %5, 256
        %15 = fattn.mma %3, %14 {transpose_rhs} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.named_barrier_arrive %6, 256
        fattn.ring_release %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %16 = arith.cmpi ult, %lo, %full_lo : index
        %17 = arith.cmpi uge, %lo, %full_hi : index
        %18 = arith.ori %16, %17 : i1
        %19 = scf.if %18 -> (tensor<128x64xf32>) {
          %20 = fattn.mask %15 at[%2, %13] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = 0 : i64} : tensor<128x64xf32>
          scf.yield %20 : tensor<128x64xf32>
        } else {
          scf.yield %15 : tensor<128x64xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %19, %max, %sum {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
        scf.yield %new_max, %new_sum, %probs, %alpha : tensor<128xf32>, tensor<128xf32>, tensor<128x64xbf16>, tensor<128xf32>
      } else {
        %cst = arith.constant dense<0.000000e+00> : tensor<128x64xbf16>
        %cst_7 = arith.constant dense<0.000000e+00> : tensor<128xf32>
        scf.yield %max, %sum, %cst, %cst_7 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xbf16>, tensor<128xf32>
      }
      %10 = arith.addi %lo, %c1_6 : index
      %11:5 = scf.for %arg8 = %10 to %hi step %c1_6 iter_args(%arg9 = %9#0, %arg10 = %9#1, %arg11 = %acc, %arg12 = %9#2, %arg13 = %9#3) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>, tensor<128x64xbf16>, tensor<128xf32>) {
        %13 = arith.muli %arg8, %c64 : index
        %14 = fattn.ring_wait %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        fattn.named_barrier_sync %5, 256
        %15 = fattn.mma %3, %14 {transpose_rhs} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %fresh = arith.constant dense<1.000000e+00> : tensor<128xf32>
        // expected-error @below {{'fattn.rescale' op expected the previous tile's factors in the consumer KV loop's body (the overlapped loop rescales before P V)}}
        %16 = fattn.rescale %arg11, %fresh : tensor<128x64xf32>, tensor<128xf32>
        %17 = fattn.ring_wait %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        %18 = fattn.mma %arg12, %17 acc(%16 : tensor<128x64xf32>) : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.named_barrier_arrive %6, 256
        fattn.ring_release %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %19 = arith.cmpi ult, %arg8, %full_lo : index
        %20 = arith.cmpi uge, %arg8, %full_hi : index
        %21 = arith.ori %19, %20 : i1
        %22 = scf.if %21 -> (tensor<128x64xf32>) {
          %23 = fattn.mask %15 at[%2, %13] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = 0 : i64} : tensor<128x64xf32>
          scf.yield %23 : tensor<128x64xf32>
        } else {
          scf.yield %15 : tensor<128x64xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %22, %arg9, %arg10 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
        scf.yield %new_max, %new_sum, %18, %probs, %alpha : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>, tensor<128x64xbf16>, tensor<128xf32>
      }
      %12 = scf.if %8 -> (tensor<128x64xf32>) {
        %13 = fattn.rescale %11#2, %11#4 : tensor<128x64xf32>, tensor<128xf32>
        %14 = fattn.ring_wait %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        fattn.named_barrier_sync %5, 256
        %15 = fattn.mma %11#3, %14 acc(%13 : tensor<128x64xf32>) : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.named_barrier_arrive %6, 256
        fattn.ring_release %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        scf.yield %15 : tensor<128x64xf32>
      } else {
        scf.yield %11#2 : tensor<128x64xf32>
      }
      %output, %lse = fattn.finalize %12, %11#0, %11#1 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
      fattn.store_tile %output, %arg3[%arg4, %arg5, %2] : tensor<128x64xbf16>, memref<1x2x256x64xbf16>
    }
  }
  return
}

// -----

// A GEMM after the plain loop, as if it were the overlapped loop's epilogue.
func.func @attn(%arg0: memref<1x2x256x64xbf16>, %arg1: memref<1x2x256x64xbf16>, %arg2: memref<1x2x256x64xbf16>, %arg3: memref<1x2x256x64xbf16>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%arg3 : memref<1x2x256x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} {
  ^bb0(%arg4: index, %arg5: index, %arg6: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %dim = memref.dim %arg0, %c2 : memref<1x2x256x64xbf16>
    %dim_0 = memref.dim %arg1, %c2 : memref<1x2x256x64xbf16>
    %dim_1 = memref.dim %arg0, %c1 : memref<1x2x256x64xbf16>
    %dim_2 = memref.dim %arg1, %c1 : memref<1x2x256x64xbf16>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg5, %0 : index
    %c128 = arith.constant 128 : index
    %2 = arith.muli %arg6, %c128 : index
    %3 = fattn.load_tile %arg0[%arg4, %arg5, %2] : memref<1x2x256x64xbf16> -> tensor<128x64xbf16>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg6, %dim, %dim_0 {block_m = 128 : i64, block_n = 64 : i64, window_left = -1 : i64, window_right = 0 : i64}
    %4 = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
    fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
      %c1_3 = arith.constant 1 : index
      scf.for %arg7 = %lo to %hi step %c1_3 {
        fattn.ring_acquire %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %5 = arith.muli %arg7, %c64 : index
        %6 = fattn.load_tile %arg1[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[0], %6 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
        fattn.ring_acquire %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %7 = fattn.load_tile %arg2[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[1], %7 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
      }
    } consumer {
    ^bb0(%arg7: index):
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      %c1_3 = arith.constant 1 : index
      %5:3 = scf.for %arg8 = %lo to %hi step %c1_3 iter_args(%arg9 = %max, %arg10 = %sum, %arg11 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
        %6 = arith.muli %arg8, %c64 : index
        %7 = fattn.ring_wait %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        %8 = fattn.mma %3, %7 {transpose_rhs} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %9 = arith.cmpi ult, %arg8, %full_lo : index
        %10 = arith.cmpi uge, %arg8, %full_hi : index
        %11 = arith.ori %9, %10 : i1
        %12 = scf.if %11 -> (tensor<128x64xf32>) {
          %16 = fattn.mask %8 at[%2, %6] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = 0 : i64} : tensor<128x64xf32>
          scf.yield %16 : tensor<128x64xf32>
        } else {
          scf.yield %8 : tensor<128x64xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %12, %arg9, %arg10 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
        %13 = fattn.rescale %arg11, %alpha : tensor<128x64xf32>, tensor<128xf32>
        %14 = fattn.ring_wait %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        %15 = fattn.mma %probs, %14 acc(%13 : tensor<128x64xf32>) : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        scf.yield %new_max, %new_sum, %15 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      }
      %again = arith.cmpi slt, %lo, %hi : index
      // expected-error @below {{'scf.if' op cannot be built by the sm_90a lowering: expected the overlapped loop's prologue and epilogue together}}
      scf.if %again {
        %extra = fattn.mma %3, %3 {transpose_rhs} : tensor<128x64xbf16>, tensor<128x64xbf16> -> tensor<128x128xf32>
      }
      %output, %lse = fattn.finalize %5#2, %5#0, %5#1 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
      fattn.store_tile %output, %arg3[%arg4, %arg5, %2] : tensor<128x64xbf16>, memref<1x2x256x64xbf16>
    }
  }
  return
}

// -----

// A GEMM in the consumer region, outside the loop.
func.func @attn(%arg0: memref<1x2x256x64xbf16>, %arg1: memref<1x2x256x64xbf16>, %arg2: memref<1x2x256x64xbf16>, %arg3: memref<1x2x256x64xbf16>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%arg3 : memref<1x2x256x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} {
  ^bb0(%arg4: index, %arg5: index, %arg6: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %dim = memref.dim %arg0, %c2 : memref<1x2x256x64xbf16>
    %dim_0 = memref.dim %arg1, %c2 : memref<1x2x256x64xbf16>
    %dim_1 = memref.dim %arg0, %c1 : memref<1x2x256x64xbf16>
    %dim_2 = memref.dim %arg1, %c1 : memref<1x2x256x64xbf16>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg5, %0 : index
    %c128 = arith.constant 128 : index
    %2 = arith.muli %arg6, %c128 : index
    %3 = fattn.load_tile %arg0[%arg4, %arg5, %2] : memref<1x2x256x64xbf16> -> tensor<128x64xbf16>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg6, %dim, %dim_0 {block_m = 128 : i64, block_n = 64 : i64, window_left = -1 : i64, window_right = 0 : i64}
    %4 = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
    fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
      %c1_3 = arith.constant 1 : index
      scf.for %arg7 = %lo to %hi step %c1_3 {
        fattn.ring_acquire %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %5 = arith.muli %arg7, %c64 : index
        %6 = fattn.load_tile %arg1[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[0], %6 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
        fattn.ring_acquire %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %7 = fattn.load_tile %arg2[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[1], %7 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
      }
    } consumer {
    ^bb0(%arg7: index):
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      %c1_3 = arith.constant 1 : index
      %5:3 = scf.for %arg8 = %lo to %hi step %c1_3 iter_args(%arg9 = %max, %arg10 = %sum, %arg11 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
        %6 = arith.muli %arg8, %c64 : index
        %7 = fattn.ring_wait %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        %8 = fattn.mma %3, %7 {transpose_rhs} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %9 = arith.cmpi ult, %arg8, %full_lo : index
        %10 = arith.cmpi uge, %arg8, %full_hi : index
        %11 = arith.ori %9, %10 : i1
        %12 = scf.if %11 -> (tensor<128x64xf32>) {
          %16 = fattn.mask %8 at[%2, %6] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = 0 : i64} : tensor<128x64xf32>
          scf.yield %16 : tensor<128x64xf32>
        } else {
          scf.yield %8 : tensor<128x64xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %12, %arg9, %arg10 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
        %13 = fattn.rescale %arg11, %alpha : tensor<128x64xf32>, tensor<128xf32>
        %14 = fattn.ring_wait %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        %15 = fattn.mma %probs, %14 acc(%13 : tensor<128x64xf32>) : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        scf.yield %new_max, %new_sum, %15 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      }
      // expected-error @below {{'fattn.mma' op cannot be built by the sm_90a lowering: expected the consumers' GEMMs in the KV loop, and outside it only in the overlapped loop's prologue and epilogue (an scf.if before and one after it)}}
      %extra = fattn.mma %3, %3 {transpose_rhs} : tensor<128x64xbf16>, tensor<128x64xbf16> -> tensor<128x128xf32>
      %output, %lse = fattn.finalize %5#2, %5#0, %5#1 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
      fattn.store_tile %output, %arg3[%arg4, %arg5, %2] : tensor<128x64xbf16>, memref<1x2x256x64xbf16>
    }
  }
  return
}

// -----

// A branch in the loop's body other than the mask's.
func.func @attn(%arg0: memref<1x2x256x64xbf16>, %arg1: memref<1x2x256x64xbf16>, %arg2: memref<1x2x256x64xbf16>, %arg3: memref<1x2x256x64xbf16>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%arg3 : memref<1x2x256x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} {
  ^bb0(%arg4: index, %arg5: index, %arg6: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %dim = memref.dim %arg0, %c2 : memref<1x2x256x64xbf16>
    %dim_0 = memref.dim %arg1, %c2 : memref<1x2x256x64xbf16>
    %dim_1 = memref.dim %arg0, %c1 : memref<1x2x256x64xbf16>
    %dim_2 = memref.dim %arg1, %c1 : memref<1x2x256x64xbf16>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg5, %0 : index
    %c128 = arith.constant 128 : index
    %2 = arith.muli %arg6, %c128 : index
    %3 = fattn.load_tile %arg0[%arg4, %arg5, %2] : memref<1x2x256x64xbf16> -> tensor<128x64xbf16>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg6, %dim, %dim_0 {block_m = 128 : i64, block_n = 64 : i64, window_left = -1 : i64, window_right = 0 : i64}
    %4 = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
    fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
      %c1_3 = arith.constant 1 : index
      scf.for %arg7 = %lo to %hi step %c1_3 {
        fattn.ring_acquire %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %5 = arith.muli %arg7, %c64 : index
        %6 = fattn.load_tile %arg1[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[0], %6 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
        fattn.ring_acquire %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %7 = fattn.load_tile %arg2[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[1], %7 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
      }
    } consumer {
    ^bb0(%arg7: index):
      %c1_3 = arith.constant 1 : index
      %c2_4 = arith.constant 2 : index
      %c1_5 = arith.constant 1 : index
      %5 = arith.addi %c1_3, %arg7 : index
      %6 = arith.subi %c2_4, %arg7 : index
      %7 = arith.cmpi eq, %arg7, %c1_5 : index
      scf.if %7 {
        fattn.named_barrier_arrive %c1_3, 256
      }
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      %c1_6 = arith.constant 1 : index
      %8:3 = scf.for %arg8 = %lo to %hi step %c1_6 iter_args(%arg9 = %max, %arg10 = %sum, %arg11 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
        %9 = arith.muli %arg8, %c64 : index
        // expected-error @below {{'scf.if' op cannot be built by the sm_90a lowering in the consumer KV loop's body: expected only the scf.if around fattn.mask}}
        scf.if %7 {
          fattn.named_barrier_arrive %c1_3, 256
        }
        %10 = fattn.ring_wait %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        fattn.named_barrier_sync %5, 256
        %11 = fattn.mma %3, %10 {transpose_rhs} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.named_barrier_arrive %6, 256
        fattn.ring_release %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %12 = arith.cmpi ult, %arg8, %full_lo : index
        %13 = arith.cmpi uge, %arg8, %full_hi : index
        %14 = arith.ori %12, %13 : i1
        %15 = scf.if %14 -> (tensor<128x64xf32>) {
          %19 = fattn.mask %11 at[%2, %9] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = 0 : i64} : tensor<128x64xf32>
          scf.yield %19 : tensor<128x64xf32>
        } else {
          scf.yield %11 : tensor<128x64xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %15, %arg9, %arg10 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
        %16 = fattn.rescale %arg11, %alpha : tensor<128x64xf32>, tensor<128xf32>
        %17 = fattn.ring_wait %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        fattn.named_barrier_sync %5, 256
        %18 = fattn.mma %probs, %17 acc(%16 : tensor<128x64xf32>) : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.named_barrier_arrive %6, 256
        fattn.ring_release %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        scf.yield %new_max, %new_sum, %18 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      }
      %output, %lse = fattn.finalize %8#2, %8#0, %8#1 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
      fattn.store_tile %output, %arg3[%arg4, %arg5, %2] : tensor<128x64xbf16>, memref<1x2x256x64xbf16>
    }
  }
  return
}

// -----

// A ring of three tiles: the kernel's ring holds K and V.
func.func @attn(%arg0: memref<1x2x256x64xbf16>, %arg1: memref<1x2x256x64xbf16>, %arg2: memref<1x2x256x64xbf16>, %arg3: memref<1x2x256x64xbf16>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%arg3 : memref<1x2x256x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} {
  ^bb0(%arg4: index, %arg5: index, %arg6: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %dim = memref.dim %arg0, %c2 : memref<1x2x256x64xbf16>
    %dim_0 = memref.dim %arg1, %c2 : memref<1x2x256x64xbf16>
    %dim_1 = memref.dim %arg0, %c1 : memref<1x2x256x64xbf16>
    %dim_2 = memref.dim %arg1, %c1 : memref<1x2x256x64xbf16>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg5, %0 : index
    %c128 = arith.constant 128 : index
    %2 = arith.muli %arg6, %c128 : index
    %3 = fattn.load_tile %arg0[%arg4, %arg5, %2] : memref<1x2x256x64xbf16> -> tensor<128x64xbf16>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg6, %dim, %dim_0 {block_m = 128 : i64, block_n = 64 : i64, window_left = -1 : i64, window_right = 0 : i64}
    %4 = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>>
    fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
      %c1_3 = arith.constant 1 : index
      scf.for %arg7 = %lo to %hi step %c1_3 {
        fattn.ring_acquire %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %5 = arith.muli %arg7, %c64 : index
        %6 = fattn.load_tile %arg1[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[0], %6 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
        fattn.ring_acquire %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %7 = fattn.load_tile %arg2[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[1], %7 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
      }
    } consumer {
    ^bb0(%arg7: index):
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      %c1_3 = arith.constant 1 : index
      %5:3 = scf.for %arg8 = %lo to %hi step %c1_3 iter_args(%arg9 = %max, %arg10 = %sum, %arg11 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
        %6 = arith.muli %arg8, %c64 : index
        // expected-error @below {{'fattn.ring_wait' op cannot be built by the sm_90a lowering in the consumer KV loop's body: expected slot 0 (K) or 1 (V)}}
        %third = fattn.ring_wait %4[2] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        %7 = fattn.ring_wait %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        %8 = fattn.mma %3, %7 {transpose_rhs} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %9 = arith.cmpi ult, %arg8, %full_lo : index
        %10 = arith.cmpi uge, %arg8, %full_hi : index
        %11 = arith.ori %9, %10 : i1
        %12 = scf.if %11 -> (tensor<128x64xf32>) {
          %16 = fattn.mask %8 at[%2, %6] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = 0 : i64} : tensor<128x64xf32>
          scf.yield %16 : tensor<128x64xf32>
        } else {
          scf.yield %8 : tensor<128x64xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %12, %arg9, %arg10 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
        %13 = fattn.rescale %arg11, %alpha : tensor<128x64xf32>, tensor<128xf32>
        %14 = fattn.ring_wait %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        %15 = fattn.mma %probs, %14 acc(%13 : tensor<128x64xf32>) : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>>
        scf.yield %new_max, %new_sum, %15 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      }
      %output, %lse = fattn.finalize %5#2, %5#0, %5#1 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
      fattn.store_tile %output, %arg3[%arg4, %arg5, %2] : tensor<128x64xbf16>, memref<1x2x256x64xbf16>
    }
  }
  return
}

// -----

// P K: the product GEMM reads the V tile of the ring.
func.func @attn(%arg0: memref<1x2x256x64xbf16>, %arg1: memref<1x2x256x64xbf16>, %arg2: memref<1x2x256x64xbf16>, %arg3: memref<1x2x256x64xbf16>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%arg3 : memref<1x2x256x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} {
  ^bb0(%arg4: index, %arg5: index, %arg6: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %dim = memref.dim %arg0, %c2 : memref<1x2x256x64xbf16>
    %dim_0 = memref.dim %arg1, %c2 : memref<1x2x256x64xbf16>
    %dim_1 = memref.dim %arg0, %c1 : memref<1x2x256x64xbf16>
    %dim_2 = memref.dim %arg1, %c1 : memref<1x2x256x64xbf16>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg5, %0 : index
    %c128 = arith.constant 128 : index
    %2 = arith.muli %arg6, %c128 : index
    %3 = fattn.load_tile %arg0[%arg4, %arg5, %2] : memref<1x2x256x64xbf16> -> tensor<128x64xbf16>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg6, %dim, %dim_0 {block_m = 128 : i64, block_n = 64 : i64, window_left = -1 : i64, window_right = 0 : i64}
    %4 = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
    fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
      %c1_3 = arith.constant 1 : index
      scf.for %arg7 = %lo to %hi step %c1_3 {
        fattn.ring_acquire %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %5 = arith.muli %arg7, %c64 : index
        %6 = fattn.load_tile %arg1[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[0], %6 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
        fattn.ring_acquire %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %7 = fattn.load_tile %arg2[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[1], %7 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
      }
    } consumer {
    ^bb0(%arg7: index):
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      %c1_3 = arith.constant 1 : index
      %5:3 = scf.for %arg8 = %lo to %hi step %c1_3 iter_args(%arg9 = %max, %arg10 = %sum, %arg11 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
        %6 = arith.muli %arg8, %c64 : index
        %7 = fattn.ring_wait %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        %8 = fattn.mma %3, %7 {transpose_rhs} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %9 = arith.cmpi ult, %arg8, %full_lo : index
        %10 = arith.cmpi uge, %arg8, %full_hi : index
        %11 = arith.ori %9, %10 : i1
        %12 = scf.if %11 -> (tensor<128x64xf32>) {
          %16 = fattn.mask %8 at[%2, %6] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = 0 : i64} : tensor<128x64xf32>
          scf.yield %16 : tensor<128x64xf32>
        } else {
          scf.yield %8 : tensor<128x64xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %12, %arg9, %arg10 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
        %13 = fattn.rescale %arg11, %alpha : tensor<128x64xf32>, tensor<128xf32>
        %14 = fattn.ring_wait %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        // expected-error @below {{'fattn.mma' op cannot be built by the sm_90a lowering in the consumer KV loop's body: expected O += P V on the V tile of a fattn.ring_wait of slot 1}}
        %15 = fattn.mma %probs, %7 acc(%13 : tensor<128x64xf32>) : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        scf.yield %new_max, %new_sum, %15 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      }
      %output, %lse = fattn.finalize %5#2, %5#0, %5#1 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
      fattn.store_tile %output, %arg3[%arg4, %arg5, %2] : tensor<128x64xbf16>, memref<1x2x256x64xbf16>
    }
  }
  return
}

// -----

// A GEMM where the overlapped loop has no tile.
func.func @attn(%arg0: memref<1x2x256x64xbf16>, %arg1: memref<1x2x256x64xbf16>, %arg2: memref<1x2x256x64xbf16>, %arg3: memref<1x2x256x64xbf16>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%arg3 : memref<1x2x256x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} {
  ^bb0(%arg4: index, %arg5: index, %arg6: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %dim = memref.dim %arg0, %c2 : memref<1x2x256x64xbf16>
    %dim_0 = memref.dim %arg1, %c2 : memref<1x2x256x64xbf16>
    %dim_1 = memref.dim %arg0, %c1 : memref<1x2x256x64xbf16>
    %dim_2 = memref.dim %arg1, %c1 : memref<1x2x256x64xbf16>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg5, %0 : index
    %c128 = arith.constant 128 : index
    %2 = arith.muli %arg6, %c128 : index
    %3 = fattn.load_tile %arg0[%arg4, %arg5, %2] : memref<1x2x256x64xbf16> -> tensor<128x64xbf16>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg6, %dim, %dim_0 {block_m = 128 : i64, block_n = 64 : i64, window_left = -1 : i64, window_right = 0 : i64}
    %4 = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
    fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
      %c1_3 = arith.constant 1 : index
      scf.for %arg7 = %lo to %hi step %c1_3 {
        fattn.ring_acquire %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %5 = arith.muli %arg7, %c64 : index
        %6 = fattn.load_tile %arg1[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[0], %6 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
        fattn.ring_acquire %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %7 = fattn.load_tile %arg2[%arg4, %1, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
        fattn.ring_commit %4[1], %7 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
      }
    } consumer {
    ^bb0(%arg7: index):
      %c1_3 = arith.constant 1 : index
      %c2_4 = arith.constant 2 : index
      %c1_5 = arith.constant 1 : index
      %5 = arith.addi %c1_3, %arg7 : index
      %6 = arith.subi %c2_4, %arg7 : index
      %7 = arith.cmpi eq, %arg7, %c1_5 : index
      scf.if %7 {
        fattn.named_barrier_arrive %c1_3, 256
      }
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
      %c1_6 = arith.constant 1 : index
      %8 = arith.cmpi slt, %lo, %hi : index
      // expected-error @below {{'scf.if' op cannot be built by the sm_90a lowering: expected no fattn.mma in the else branch of the overlapped KV loop's prologue}}
      %9:4 = scf.if %8 -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xbf16>, tensor<128xf32>) {
        %13 = arith.muli %lo, %c64 : index
        %14 = fattn.ring_wait %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        fattn.named_barrier_sync %5, 256
        %15 = fattn.mma %3, %14 {transpose_rhs} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.named_barrier_arrive %6, 256
        fattn.ring_release %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %16 = arith.cmpi ult, %lo, %full_lo : index
        %17 = arith.cmpi uge, %lo, %full_hi : index
        %18 = arith.ori %16, %17 : i1
        %19 = scf.if %18 -> (tensor<128x64xf32>) {
          %20 = fattn.mask %15 at[%2, %13] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = 0 : i64} : tensor<128x64xf32>
          scf.yield %20 : tensor<128x64xf32>
        } else {
          scf.yield %15 : tensor<128x64xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %19, %max, %sum {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
        scf.yield %new_max, %new_sum, %probs, %alpha : tensor<128xf32>, tensor<128xf32>, tensor<128x64xbf16>, tensor<128xf32>
      } else {
        %cst = arith.constant dense<0.000000e+00> : tensor<128x64xbf16>
        %extra = fattn.mma %3, %3 {transpose_rhs} : tensor<128x64xbf16>, tensor<128x64xbf16> -> tensor<128x128xf32>
        %cst_7 = arith.constant dense<0.000000e+00> : tensor<128xf32>
        scf.yield %max, %sum, %cst, %cst_7 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xbf16>, tensor<128xf32>
      }
      %10 = arith.addi %lo, %c1_6 : index
      %11:5 = scf.for %arg8 = %10 to %hi step %c1_6 iter_args(%arg9 = %9#0, %arg10 = %9#1, %arg11 = %acc, %arg12 = %9#2, %arg13 = %9#3) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>, tensor<128x64xbf16>, tensor<128xf32>) {
        %13 = arith.muli %arg8, %c64 : index
        %14 = fattn.ring_wait %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        fattn.named_barrier_sync %5, 256
        %15 = fattn.mma %3, %14 {transpose_rhs} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.ring_release %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %16 = fattn.rescale %arg11, %arg13 : tensor<128x64xf32>, tensor<128xf32>
        %17 = fattn.ring_wait %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        %18 = fattn.mma %arg12, %17 acc(%16 : tensor<128x64xf32>) : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.named_barrier_arrive %6, 256
        fattn.ring_release %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %19 = arith.cmpi ult, %arg8, %full_lo : index
        %20 = arith.cmpi uge, %arg8, %full_hi : index
        %21 = arith.ori %19, %20 : i1
        %22 = scf.if %21 -> (tensor<128x64xf32>) {
          %23 = fattn.mask %15 at[%2, %13] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = 0 : i64} : tensor<128x64xf32>
          scf.yield %23 : tensor<128x64xf32>
        } else {
          scf.yield %15 : tensor<128x64xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %22, %arg9, %arg10 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
        scf.yield %new_max, %new_sum, %18, %probs, %alpha : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>, tensor<128x64xbf16>, tensor<128xf32>
      }
      %12 = scf.if %8 -> (tensor<128x64xf32>) {
        %13 = fattn.rescale %11#2, %11#4 : tensor<128x64xf32>, tensor<128xf32>
        %14 = fattn.ring_wait %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        fattn.named_barrier_sync %5, 256
        %15 = fattn.mma %11#3, %14 acc(%13 : tensor<128x64xf32>) : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        fattn.named_barrier_arrive %6, 256
        fattn.ring_release %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        scf.yield %15 : tensor<128x64xf32>
      } else {
        scf.yield %11#2 : tensor<128x64xf32>
      }
      %output, %lse = fattn.finalize %12, %11#0, %11#1 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
      fattn.store_tile %output, %arg3[%arg4, %arg5, %2] : tensor<128x64xbf16>, memref<1x2x256x64xbf16>
    }
  }
  return
}
