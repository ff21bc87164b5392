// The sm_90a lowering reads a V stored as V^T (value_layout) back from the
// IR (FP8LayoutFromIR): its tiles must not be transposed again, and every
// P V product must still read P permuted like V^T's keys. The cases are the
// output of --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma
// --fattn-warp-specialize --fattn-fp8-layout on a d128 value_layout
// attention, edited.
// RUN: fattn-opt %s -split-input-file --convert-fattn-to-nvvm-sm90 -verify-diagnostics

// A transpose of the V^T tile in the producer.
func.func @transposes_again(%arg0: memref<?x?x?x128xf8E4M3FN>, %arg1: memref<?x?x?x128xf8E4M3FN>, %arg2: memref<?x?x128x?xf8E4M3FN>, %arg3: memref<?x?x?x128xbf16>, %arg4: memref<f32>, %arg5: memref<f32>, %arg6: memref<f32>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x128x?xf8E4M3FN>) outs(%arg3 : memref<?x?x?x128xbf16>) descale(%arg4, %arg5, %arg6 : memref<f32>, memref<f32>, memref<f32>) attributes {block_m = 128 : i64, block_n = 128 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 128, store = registers>, scale = 0.0883883461 : f32, softcap = 0.000000e+00 : f32, value_layout = "transposed_wgmma_e4m3_k32", window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%arg7: index, %arg8: index, %arg9: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %dim = memref.dim %arg0, %c2 : memref<?x?x?x128xf8E4M3FN>
    %dim_0 = memref.dim %arg1, %c2 : memref<?x?x?x128xf8E4M3FN>
    %dim_1 = memref.dim %arg0, %c1 : memref<?x?x?x128xf8E4M3FN>
    %dim_2 = memref.dim %arg1, %c1 : memref<?x?x?x128xf8E4M3FN>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg8, %0 : index
    %c128_3 = arith.constant 128 : index
    %2 = arith.muli %arg9, %c128_3 : index
    %3 = fattn.load_tile %arg0[%arg7, %arg8, %2] : memref<?x?x?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %4 = fattn.load_descale %arg4[%arg7, %1, %2] : memref<f32> -> tensor<128xf32>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg9, %dim, %dim_0 {block_m = 128 : i64, block_n = 128 : i64, window_left = -1 : i64, window_right = -1 : i64}
    %5 = fattn.ring_create : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
    fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
      %c1_4 = arith.constant 1 : index
      scf.for %arg10 = %lo to %hi step %c1_4 {
        fattn.ring_acquire %5[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        %6 = arith.muli %arg10, %c128 : index
        %7 = fattn.load_tile %arg1[%arg7, %1, %6] : memref<?x?x?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        fattn.ring_commit %5[0], %7 : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>, tensor<128x128xf8E4M3FN>
        fattn.ring_acquire %5[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        %8 = fattn.load_tile %arg2[%arg7, %1, %6] {transposed} : memref<?x?x128x?xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        // expected-error @below {{'fattn.transpose_tile' op transposes a V that value_layout stores transposed already}}
        %t = fattn.transpose_tile %8 {key_permutation = "wgmma_e4m3_k32"} : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        fattn.ring_commit %5[1], %8 : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>, tensor<128x128xf8E4M3FN>
      }
    } consumer {
    ^bb0(%arg10: index):
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
      %c1_4 = arith.constant 1 : index
      %6:3 = scf.for %arg11 = %lo to %hi step %c1_4 iter_args(%arg12 = %max, %arg13 = %sum, %arg14 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) {
        %7 = arith.muli %arg11, %c128 : index
        %8 = fattn.ring_wait %5[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
        %9 = fattn.load_descale %arg5[%arg7, %1, %7] : memref<f32> -> tensor<128xf32>
        %10 = fattn.mma %3, %8 lhs_scale(%4 : tensor<128xf32>) rhs_scale(%9 : tensor<128xf32>) {transpose_rhs} : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
        fattn.ring_release %5[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        %11 = arith.cmpi ult, %arg11, %full_lo : index
        %12 = arith.cmpi uge, %arg11, %full_hi : index
        %13 = arith.ori %11, %12 : i1
        %14 = scf.if %13 -> (tensor<128x128xf32>) {
          %20 = fattn.mask %10 at[%2, %7] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = -1 : i64} : tensor<128x128xf32>
          scf.yield %20 : tensor<128x128xf32>
        } else {
          scf.yield %10 : tensor<128x128xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %14, %arg12, %arg13 {scale = 0.0883883461 : f32} : tensor<128x128xf32>, tensor<128xf32> -> tensor<128x128xf8E4M3FN>
        %15 = fattn.rescale %arg14, %alpha : tensor<128x128xf32>, tensor<128xf32>
        %16 = fattn.ring_wait %5[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
        %17 = fattn.load_descale %arg6[%arg7, %1, %7] : memref<f32> -> tensor<128xf32>
        %18 = fattn.permute_keys %probs {key_permutation = "wgmma_e4m3_k32"} : tensor<128x128xf8E4M3FN>
        %c0 = arith.constant 0 : index
        %extracted = tensor.extract %17[%c0] : tensor<128xf32>
        %splat = tensor.splat %extracted : tensor<128xf32>
        %19 = fattn.mma %18, %16 acc(%15 : tensor<128x128xf32>) rhs_scale(%splat : tensor<128xf32>) {transpose_rhs} : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
        fattn.ring_release %5[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        scf.yield %new_max, %new_sum, %19 : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
      }
      %output, %lse = fattn.finalize %6#2, %6#0, %6#1 {scale = 0.0883883461 : f32} : tensor<128x128xf32>, tensor<128xf32> -> tensor<128x128xbf16>
      fattn.store_tile %output, %arg3[%arg7, %arg8, %2] : tensor<128x128xbf16>, memref<?x?x?x128xbf16>
    }
  }
  return
}

// -----

// P V reads P in the accumulator's key order.
func.func @p_not_permuted(%arg0: memref<?x?x?x128xf8E4M3FN>, %arg1: memref<?x?x?x128xf8E4M3FN>, %arg2: memref<?x?x128x?xf8E4M3FN>, %arg3: memref<?x?x?x128xbf16>, %arg4: memref<f32>, %arg5: memref<f32>, %arg6: memref<f32>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x128x?xf8E4M3FN>) outs(%arg3 : memref<?x?x?x128xbf16>) descale(%arg4, %arg5, %arg6 : memref<f32>, memref<f32>, memref<f32>) attributes {block_m = 128 : i64, block_n = 128 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 128, store = registers>, scale = 0.0883883461 : f32, softcap = 0.000000e+00 : f32, value_layout = "transposed_wgmma_e4m3_k32", window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%arg7: index, %arg8: index, %arg9: index):
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %dim = memref.dim %arg0, %c2 : memref<?x?x?x128xf8E4M3FN>
    %dim_0 = memref.dim %arg1, %c2 : memref<?x?x?x128xf8E4M3FN>
    %dim_1 = memref.dim %arg0, %c1 : memref<?x?x?x128xf8E4M3FN>
    %dim_2 = memref.dim %arg1, %c1 : memref<?x?x?x128xf8E4M3FN>
    %0 = arith.divui %dim_1, %dim_2 : index
    %1 = arith.divui %arg8, %0 : index
    %c128_3 = arith.constant 128 : index
    %2 = arith.muli %arg9, %c128_3 : index
    %3 = fattn.load_tile %arg0[%arg7, %arg8, %2] : memref<?x?x?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %4 = fattn.load_descale %arg4[%arg7, %1, %2] : memref<f32> -> tensor<128xf32>
    %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %arg9, %dim, %dim_0 {block_m = 128 : i64, block_n = 128 : i64, window_left = -1 : i64, window_right = -1 : i64}
    %5 = fattn.ring_create : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
    fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
      %c1_4 = arith.constant 1 : index
      scf.for %arg10 = %lo to %hi step %c1_4 {
        fattn.ring_acquire %5[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        %6 = arith.muli %arg10, %c128 : index
        %7 = fattn.load_tile %arg1[%arg7, %1, %6] : memref<?x?x?x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        fattn.ring_commit %5[0], %7 : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>, tensor<128x128xf8E4M3FN>
        fattn.ring_acquire %5[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        %8 = fattn.load_tile %arg2[%arg7, %1, %6] {transposed} : memref<?x?x128x?xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
        fattn.ring_commit %5[1], %8 : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>, tensor<128x128xf8E4M3FN>
      }
    } consumer {
    ^bb0(%arg10: index):
      %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
      %c1_4 = arith.constant 1 : index
      %6:3 = scf.for %arg11 = %lo to %hi step %c1_4 iter_args(%arg12 = %max, %arg13 = %sum, %arg14 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) {
        %7 = arith.muli %arg11, %c128 : index
        %8 = fattn.ring_wait %5[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
        %9 = fattn.load_descale %arg5[%arg7, %1, %7] : memref<f32> -> tensor<128xf32>
        %10 = fattn.mma %3, %8 lhs_scale(%4 : tensor<128xf32>) rhs_scale(%9 : tensor<128xf32>) {transpose_rhs} : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
        fattn.ring_release %5[0] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        %11 = arith.cmpi ult, %arg11, %full_lo : index
        %12 = arith.cmpi uge, %arg11, %full_hi : index
        %13 = arith.ori %11, %12 : i1
        %14 = scf.if %13 -> (tensor<128x128xf32>) {
          %20 = fattn.mask %10 at[%2, %7] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = -1 : i64} : tensor<128x128xf32>
          scf.yield %20 : tensor<128x128xf32>
        } else {
          scf.yield %10 : tensor<128x128xf32>
        }
        %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %14, %arg12, %arg13 {scale = 0.0883883461 : f32} : tensor<128x128xf32>, tensor<128xf32> -> tensor<128x128xf8E4M3FN>
        %15 = fattn.rescale %arg14, %alpha : tensor<128x128xf32>, tensor<128xf32>
        %16 = fattn.ring_wait %5[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
        %17 = fattn.load_descale %arg6[%arg7, %1, %7] : memref<f32> -> tensor<128xf32>
        %c0 = arith.constant 0 : index
        %extracted = tensor.extract %17[%c0] : tensor<128xf32>
        %splat = tensor.splat %extracted : tensor<128xf32>
        // expected-error @below {{'fattn.mma' op multiplies V^T by P not permuted like its keys: expected {transpose_rhs} and P from fattn.permute_keys {key_permutation = "wgmma_e4m3_k32"}}}
        %19 = fattn.mma %probs, %16 acc(%15 : tensor<128x128xf32>) rhs_scale(%splat : tensor<128xf32>) {transpose_rhs} : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
        fattn.ring_release %5[1] : <2, tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>>
        scf.yield %new_max, %new_sum, %19 : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
      }
      %output, %lse = fattn.finalize %6#2, %6#0, %6#1 {scale = 0.0883883461 : f32} : tensor<128x128xf32>, tensor<128xf32> -> tensor<128x128xbf16>
      fattn.store_tile %output, %arg3[%arg7, %arg8, %2] : tensor<128x128xbf16>, memref<?x?x?x128xbf16>
    }
  }
  return
}
