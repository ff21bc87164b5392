// The sm_90a lowering builds the loop of a persistent kernel over its work
// items from the L2 op fattn.work_loop (which --fattn-persistent-tiles
// writes): the grid becomes the number of SMs (the description's num_sms
// entry) and the kernel's name says _persistent. The input is hand-written
// L2 (bf16, head dim 64, causal, no overlap): the op's body in a work loop
// whose arguments are the work item's batch, head and Q tile, the ring
// created before it. It lowers to what the pass gives for the same
// fattn.attention (the L0 below), op for op.
// RUN: fattn-opt %s --convert-fattn-to-nvvm-sm90="keep-target-ops=true" | FileCheck %s
// RUN: fattn-opt %s --convert-fattn-to-nvvm-sm90 -o %t.hand.mlir
// RUN: sed -n 's,^// L0: ,,p' %s | fattn-opt --fattn-tile="block-m=128 block-n=64" --fattn-sm90-tma --fattn-warp-specialize --fattn-persistent-tiles --convert-fattn-to-nvvm-sm90 -o %t.pass.mlir
// RUN: diff %t.hand.mlir %t.pass.mlir
// Without the work loop (the same body in the tiled op) the kernel has one
// CTA per work item:
// RUN: sed -n 's,^// L0: ,,p' %s | fattn-opt --fattn-tile="block-m=128 block-n=64" --fattn-sm90-tma --fattn-warp-specialize --convert-fattn-to-nvvm-sm90="keep-target-ops=true" | FileCheck %s --check-prefix=ONECTA

// L0: func.func @attn(%q: memref<1x2x256x64xbf16>, %k: memref<1x2x256x64xbf16>, %v: memref<1x2x256x64xbf16>, %o: memref<1x2x256x64xbf16>) {
// L0:   fattn.attention ins(%q, %k, %v : memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%o : memref<1x2x256x64xbf16>) {causal = true}
// L0:   return
// L0: }

// The producer and the consumers each step through the items by the grid.
// CHECK: llvm.func @fattn_fwd_sm90_d64_bf16_m128n64s2_causal_persistent(
// CHECK-SAME: \22grid\22:{{\[\[}}\22num_sms\22,1]]
// CHECK: nvvm.read.ptx.sreg.nctaid.x
// CHECK: fattn.sm90.tma_load
// CHECK: nvvm.read.ptx.sreg.nctaid.x
// CHECK: fattn.sm90.wgmma
// ONECTA: llvm.func @fattn_fwd_sm90_d64_bf16_m128n64s2_causal(
// ONECTA-SAME: \22grid\22:{{\[\[}}\22seq_q\22,128],[\22heads_q\22,1],[\22batch\22,1]]
// ONECTA: nvvm.read.ptx.sreg.ctaid.y

func.func @attn(%arg0: memref<1x2x256x64xbf16>, %arg1: memref<1x2x256x64xbf16>, %arg2: memref<1x2x256x64xbf16>, %arg3: memref<1x2x256x64xbf16>) {
  fattn.tiled_attention ins(%arg0, %arg1, %arg2 : memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%arg3 : memref<1x2x256x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} {
  ^bb0(%grid_b: index, %grid_h: index, %grid_m: index):
    %ring = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
    fattn.work_loop {
    ^bb0(%batch: index, %head: index, %q_tile: index):
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c64 = arith.constant 64 : index
      %dim = memref.dim %arg0, %c2 : memref<1x2x256x64xbf16>
      %dim_0 = memref.dim %arg1, %c2 : memref<1x2x256x64xbf16>
      %dim_1 = memref.dim %arg0, %c1 : memref<1x2x256x64xbf16>
      %dim_2 = memref.dim %arg1, %c1 : memref<1x2x256x64xbf16>
      %1 = arith.divui %dim_1, %dim_2 : index
      %2 = arith.divui %head, %1 : index
      %c128 = arith.constant 128 : index
      %3 = arith.muli %q_tile, %c128 : index
      %4 = fattn.load_tile %arg0[%batch, %head, %3] : memref<1x2x256x64xbf16> -> tensor<128x64xbf16>
      %lo, %full_lo, %full_hi, %hi = fattn.kv_tile_range %q_tile, %dim, %dim_0 {block_m = 128 : i64, block_n = 64 : i64, window_left = -1 : i64, window_right = 0 : i64}
      fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
        %c1_3 = arith.constant 1 : index
        scf.for %arg10 = %lo to %hi step %c1_3 {
          fattn.ring_acquire %ring[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
          %5 = arith.muli %arg10, %c64 : index
          %6 = fattn.load_tile %arg1[%batch, %2, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
          fattn.ring_commit %ring[0], %6 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
          fattn.ring_acquire %ring[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
          %7 = fattn.load_tile %arg2[%batch, %2, %5] : memref<1x2x256x64xbf16> -> tensor<64x64xbf16>
          fattn.ring_commit %ring[1], %7 : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>, tensor<64x64xbf16>
        }
      } consumer {
      ^bb0(%arg10: index):
        %max, %sum, %acc = fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
        %c1_3 = arith.constant 1 : index
        %5:3 = scf.for %arg11 = %lo to %hi step %c1_3 iter_args(%arg12 = %max, %arg13 = %sum, %arg14 = %acc) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
          %6 = arith.muli %arg11, %c64 : index
          %7 = fattn.ring_wait %ring[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
          %8 = fattn.mma %4, %7 {transpose_rhs} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
          fattn.ring_release %ring[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
          %9 = arith.cmpi ult, %arg11, %full_lo : index
          %10 = arith.cmpi uge, %arg11, %full_hi : index
          %11 = arith.ori %9, %10 : i1
          %12 = scf.if %11 -> (tensor<128x64xf32>) {
            %16 = fattn.mask %8 at[%3, %6] seq_lens(%dim, %dim_0) {window_left = -1 : i64, window_right = 0 : i64} : tensor<128x64xf32>
            scf.yield %16 : tensor<128x64xf32>
          } else {
            scf.yield %8 : tensor<128x64xf32>
          }
          %probs, %new_max, %new_sum, %alpha = fattn.softmax_update %12, %arg12, %arg13 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
          %13 = fattn.rescale %arg14, %alpha : tensor<128x64xf32>, tensor<128xf32>
          %14 = fattn.ring_wait %ring[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
          %15 = fattn.mma %probs, %14 acc(%13 : tensor<128x64xf32>) : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
          fattn.ring_release %ring[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
          scf.yield %new_max, %new_sum, %15 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
        }
        %output, %lse = fattn.finalize %5#2, %5#0, %5#1 {scale = 1.250000e-01 : f32} : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xbf16>
        fattn.store_tile %output, %arg3[%batch, %head, %3] : tensor<128x64xbf16>, memref<1x2x256x64xbf16>
      }
    }
  }
  return
}
