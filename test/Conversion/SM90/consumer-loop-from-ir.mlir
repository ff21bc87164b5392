// The consumers' KV loop of the sm_90a kernel is built from the L2 consumer
// loop op by op (lib/Conversion/FAttnToNVVM/SM90/ConsumerLoopFromIR.cpp and
// ConsumerSteps.cpp): each fattn.ring_wait, fattn.named_barrier_sync /
// _arrive, fattn.mma, fattn.ring_release, fattn.rescale, fattn.mask and
// fattn.softmax_update becomes its target ops where it stands. A fattn.mma
// is an async wgmma group, waited for at the first use of its result; a
// release arrives once the wgmma that reads its tile completed; the ring
// waits of a block go before the GEMM issues and turn openings that precede
// them. The inputs are hand-written L2 (bf16, head dim 64, causal): as
// --fattn-warp-specialize --fattn-pingpong (and --fattn-intra-wg-overlap)
// write it, and with one named_barrier_arrive moved.
// RUN: fattn-opt %s -split-input-file --convert-fattn-to-nvvm-sm90="keep-target-ops=true" | FileCheck %s
// RUN: fattn-opt %s -split-input-file --convert-fattn-to-nvvm-sm90 | FileCheck %s --check-prefix=L4
// The PTX of the first two cases, the arrive where --fattn-pingpong puts it
// and moved after the softmax (without the inline asm's comments):
// RUN: awk 'BEGIN{RS="// ---" "--\n"} NR==1' %s | fattn-opt --convert-fattn-to-nvvm-sm90 | mlir-opt --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.written.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.written.isa.mlir %t.written.ptx
// RUN: grep -v '// ' %t.written.ptx | FileCheck %s --check-prefix=PTX-WRITTEN
// RUN: awk 'BEGIN{RS="// ---" "--\n"} NR==2' %s | fattn-opt --convert-fattn-to-nvvm-sm90 | mlir-opt --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.moved.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.moved.isa.mlir %t.moved.ptx
// RUN: grep -v '// ' %t.moved.ptx | FileCheck %s --check-prefix=PTX-MOVED

// The plain loop as --fattn-pingpong writes it: each GEMM's turn closes
// right after its wgmma group is issued, before the wait for it.
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d64_bf16_m128n64s2_causal
// CHECK:       fattn.sm90.named_barrier_arrive %{{.*}}, threads = 256
// CHECK:       fattn.sm90.mbarrier_wait
// CHECK:       fattn.sm90.named_barrier %{{.*}}, threads = 256
// CHECK:       fattn.sm90.wgmma_fence
// CHECK:       fattn.sm90.wgmma_commit_group
// CHECK-NOT:   fattn.sm90.wgmma_wait_group
// CHECK:       fattn.sm90.named_barrier_arrive %{{.*}}, threads = 256
// CHECK-NEXT:  fattn.sm90.wgmma_wait_group pending = 0
// CHECK:       fattn.sm90.mbarrier_arrive
// CHECK:       fattn.sm90.quad_reduce max
// CHECK:       fattn.sm90.pack_pair
// CHECK-NOT:   fattn.sm90.named_barrier_arrive
// CHECK:       fattn.sm90.mbarrier_wait
// CHECK:       fattn.sm90.named_barrier %{{.*}}, threads = 256
// CHECK:       fattn.sm90.wgmma_fence
// CHECK:       fattn.sm90.wgmma_rs
// CHECK:       fattn.sm90.wgmma_commit_group
// CHECK:       fattn.sm90.named_barrier_arrive %{{.*}}, threads = 256
// CHECK-NEXT:  fattn.sm90.wgmma_wait_group pending = 0
// CHECK:       fattn.sm90.mbarrier_arrive
// L4-LABEL: llvm.func @fattn_fwd_sm90_d64_bf16_m128n64s2_causal
// L4:       nvvm.barrier id
// L4:       nvvm.wgmma.commit.group.sync.aligned
// L4-NOT:   nvvm.wgmma.wait.group
// L4:       nvvm.barrier.arrive id
// L4-NEXT:  nvvm.wgmma.wait.group.sync.aligned 0
// L4:       nvvm.shfl.sync  bfly
// In the PTX (blocks as LLVM lays them out: the softmax, P V's block, then
// S's), both turns close with bar.arrive between their wgmma group's commit
// and the wait for it; none between the softmax and the wait for V.
// PTX-WRITTEN:      shfl.sync.bfly.b32
// PTX-WRITTEN:      cvt.rn.bf16x2.f32
// PTX-WRITTEN-NOT:  bar.arrive
// PTX-WRITTEN:      mbarrier.try_wait.parity
// PTX-WRITTEN:      bar.sync
// PTX-WRITTEN:      wgmma.commit_group.sync.aligned;
// PTX-WRITTEN-NEXT: bar.arrive %r{{[0-9]+}}, 256;
// PTX-WRITTEN-NEXT: wgmma.wait_group.sync.aligned 0;
// PTX-WRITTEN:      mbarrier.try_wait.parity
// PTX-WRITTEN:      bar.sync
// PTX-WRITTEN:      wgmma.commit_group.sync.aligned;
// PTX-WRITTEN-NEXT: bar.arrive %r{{[0-9]+}}, 256;
// PTX-WRITTEN-NEXT: wgmma.wait_group.sync.aligned 0;
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

// The same loop with the arrive that ends S = Q K^T's turn moved after the
// fattn.softmax_update: the turn now spans the wait for S, the release of
// K and the softmax (its row max and P's packing), and bar.arrive follows
// them, before O's rescale and the wait for V.
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d64_bf16_m128n64s2_causal
// CHECK:       fattn.sm90.named_barrier_arrive %{{.*}}, threads = 256
// CHECK:       fattn.sm90.mbarrier_wait
// CHECK:       fattn.sm90.named_barrier %{{.*}}, threads = 256
// CHECK:       fattn.sm90.wgmma_fence
// CHECK:       fattn.sm90.wgmma_commit_group
// CHECK-NEXT:  fattn.sm90.wgmma_wait_group pending = 0
// CHECK-NOT:   fattn.sm90.named_barrier_arrive
// CHECK:       fattn.sm90.mbarrier_arrive
// CHECK-NOT:   fattn.sm90.named_barrier_arrive
// CHECK:       fattn.sm90.quad_reduce max
// CHECK-NOT:   fattn.sm90.named_barrier_arrive
// CHECK:       fattn.sm90.pack_pair
// CHECK:       fattn.sm90.named_barrier_arrive %{{.*}}, threads = 256
// CHECK-NOT:   fattn.sm90.named_barrier
// CHECK:       fattn.sm90.mbarrier_wait
// CHECK:       fattn.sm90.named_barrier %{{.*}}, threads = 256
// CHECK:       fattn.sm90.wgmma_rs
// CHECK:       fattn.sm90.wgmma_commit_group
// CHECK:       fattn.sm90.named_barrier_arrive %{{.*}}, threads = 256
// CHECK-NEXT:  fattn.sm90.wgmma_wait_group pending = 0
// L4-LABEL: llvm.func @fattn_fwd_sm90_d64_bf16_m128n64s2_causal
// L4:       nvvm.barrier id
// L4:       nvvm.wgmma.commit.group.sync.aligned
// L4-NEXT:  nvvm.wgmma.wait.group.sync.aligned 0
// L4-NOT:   nvvm.barrier.arrive
// L4:       nvvm.mbarrier.arrive
// L4-NOT:   nvvm.barrier.arrive
// L4:       nvvm.shfl.sync  bfly
// L4:       nvvm.barrier.arrive id
// L4-NOT:   nvvm.barrier
// L4:       nvvm.mbarrier.try_wait.parity
// L4:       nvvm.barrier id
// In the PTX, bar.arrive moves with it: after P's packing, before the wait
// for V; S's wgmma group is waited for right after its commit.
// PTX-MOVED:      shfl.sync.bfly.b32
// PTX-MOVED:      cvt.rn.bf16x2.f32
// PTX-MOVED:      bar.arrive %r{{[0-9]+}}, 256;
// PTX-MOVED:      mbarrier.try_wait.parity
// PTX-MOVED:      bar.sync
// PTX-MOVED:      wgmma.commit_group.sync.aligned;
// PTX-MOVED-NEXT: bar.arrive %r{{[0-9]+}}, 256;
// PTX-MOVED-NEXT: wgmma.wait_group.sync.aligned 0;
// PTX-MOVED:      mbarrier.try_wait.parity
// PTX-MOVED:      bar.sync
// PTX-MOVED:      wgmma.commit_group.sync.aligned;
// PTX-MOVED-NEXT: wgmma.wait_group.sync.aligned 0;
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
        fattn.named_barrier_arrive %6, 256
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

// The loop as --fattn-intra-wg-overlap and --fattn-pingpong write it. The
// prologue is S = Q K^T and the softmax of the first tile in a turn of its
// own. In the body, the ring_wait of V (after S_j's fattn.mma in the IR)
// goes first, beside K's, so that the turn (named_barrier_sync ...
// named_barrier_arrive) holds only the issue of S_j and of P_{j-1} V_{j-1};
// S_j is waited for at its fattn.mask with P V left in flight (pending 1),
// K goes back then, and V once P V completed, at the body's end. The
// epilogue is the last P V in a turn.
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d64_bf16_m128n64s2_causal
// CHECK:       fattn.sm90.named_barrier_arrive %{{.*}}, threads = 256
// CHECK:       fattn.sm90.mbarrier_wait
// CHECK:       fattn.sm90.named_barrier %{{.*}}, threads = 256
// CHECK:       fattn.sm90.wgmma_commit_group
// CHECK:       fattn.sm90.named_barrier_arrive %{{.*}}, threads = 256
// CHECK-NEXT:  fattn.sm90.wgmma_wait_group pending = 0
// CHECK:       fattn.sm90.mbarrier_arrive
// CHECK:       fattn.sm90.quad_reduce max
// CHECK:       fattn.sm90.mbarrier_wait
// CHECK-NOT:   fattn.sm90.named_barrier
// CHECK:       fattn.sm90.mbarrier_wait
// CHECK:       fattn.sm90.named_barrier %{{.*}}, threads = 256
// CHECK:       fattn.sm90.wgmma_fence
// CHECK:       fattn.sm90.wgmma_commit_group
// CHECK-NOT:   fattn.sm90.named_barrier
// CHECK:       fattn.sm90.wgmma_rs
// CHECK:       fattn.sm90.wgmma_commit_group
// CHECK:       fattn.sm90.named_barrier_arrive %{{.*}}, threads = 256
// CHECK-NEXT:  fattn.sm90.wgmma_wait_group pending = 1
// CHECK:       fattn.sm90.mbarrier_arrive
// CHECK:       fattn.sm90.quad_reduce max
// CHECK:       fattn.sm90.wgmma_wait_group pending = 0
// CHECK:       fattn.sm90.mbarrier_arrive
// CHECK:       fattn.sm90.mbarrier_wait
// CHECK:       fattn.sm90.named_barrier %{{.*}}, threads = 256
// CHECK:       fattn.sm90.wgmma_rs
// CHECK:       fattn.sm90.wgmma_commit_group
// CHECK:       fattn.sm90.named_barrier_arrive %{{.*}}, threads = 256
// CHECK-NEXT:  fattn.sm90.wgmma_wait_group pending = 0
// CHECK:       fattn.sm90.mbarrier_arrive
// L4-LABEL: llvm.func @fattn_fwd_sm90_d64_bf16_m128n64s2_causal
// L4:       nvvm.wgmma.mma_async
// L4:       nvvm.wgmma.commit.group.sync.aligned
// L4:       wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// L4:       nvvm.wgmma.commit.group.sync.aligned
// L4-NOT:   nvvm.wgmma.wait.group
// L4:       nvvm.barrier.arrive id
// L4-NEXT:  nvvm.wgmma.wait.group.sync.aligned 1
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

// -----

// The overlapped body with its arrive moved between the two fattn.mma: the
// turn holds S_j's issue only, and the wait for V stops at the arrive, so
// P_{j-1} V_{j-1} is issued after it, outside the turn.
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d64_bf16_m128n64s2_causal
// CHECK:       fattn.sm90.named_barrier_arrive %{{.*}}, threads = 256
// CHECK:       fattn.sm90.named_barrier %{{.*}}, threads = 256
// CHECK:       fattn.sm90.named_barrier_arrive %{{.*}}, threads = 256
// CHECK-NEXT:  fattn.sm90.wgmma_wait_group pending = 0
// CHECK:       fattn.sm90.quad_reduce max
// CHECK:       fattn.sm90.mbarrier_wait
// CHECK-NOT:   fattn.sm90.mbarrier_wait
// CHECK:       fattn.sm90.named_barrier %{{.*}}, threads = 256
// CHECK:       fattn.sm90.wgmma_fence
// CHECK:       fattn.sm90.wgmma_commit_group
// CHECK:       fattn.sm90.named_barrier_arrive %{{.*}}, threads = 256
// CHECK-NOT:   fattn.sm90.wgmma
// CHECK:       fattn.sm90.mbarrier_wait
// CHECK-NOT:   fattn.sm90.named_barrier
// CHECK:       fattn.sm90.wgmma_rs
// CHECK:       fattn.sm90.wgmma_commit_group
// CHECK-NEXT:  fattn.sm90.wgmma_wait_group pending = 1
// L4-LABEL: llvm.func @fattn_fwd_sm90_d64_bf16_m128n64s2_causal
// L4:       nvvm.wgmma.wait.group.sync.aligned 0
// L4:       nvvm.barrier id
// L4:       nvvm.wgmma.commit.group.sync.aligned
// L4-NOT:   nvvm.wgmma.wait.group
// L4:       nvvm.barrier.arrive id
// L4:       nvvm.mbarrier.try_wait.parity
// L4-NOT:   nvvm.barrier
// L4:       wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// L4:       nvvm.wgmma.commit.group.sync.aligned
// L4-NEXT:  nvvm.wgmma.wait.group.sync.aligned 1
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
        fattn.named_barrier_arrive %6, 256
        fattn.ring_release %4[0] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>
        %16 = fattn.rescale %arg11, %arg13 : tensor<128x64xf32>, tensor<128xf32>
        %17 = fattn.ring_wait %4[1] : <2, tensor<64x64xbf16>, tensor<64x64xbf16>> -> tensor<64x64xbf16>
        %18 = fattn.mma %arg12, %17 acc(%16 : tensor<128x64xf32>) : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
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
