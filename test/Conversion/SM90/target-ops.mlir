// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-pingpong --convert-fattn-to-nvvm-sm90="keep-target-ops=true" | FileCheck %s --enable-var-scope --implicit-check-not=nvvm.mbarrier --implicit-check-not=nvvm.cp.async.bulk.tensor --implicit-check-not=nvvm.wgmma --implicit-check-not=wgmma.mma_async --implicit-check-not='nvvm.barrier id' --implicit-check-not=nvvm.barrier.arrive --implicit-check-not=nvvm.setmaxregister --implicit-check-not=nvvm.elect.sync --implicit-check-not='nvvm.shfl.sync' --implicit-check-not=llvm.fptrunc --implicit-check-not=llvm.store
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-pingpong --convert-fattn-to-nvvm-sm90="keep-target-ops=true" --convert-fattn-sm90-target-to-nvvm -o %t.split.mlir
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-pingpong --convert-fattn-to-nvvm-sm90 -o %t.whole.mlir
// RUN: diff %t.split.mlir %t.whole.mlir
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma="tma-store=true" --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --fattn-sm90-q-buffers --convert-fattn-to-nvvm-sm90="keep-target-ops=true" | FileCheck %s --check-prefix=STORE --implicit-check-not=nvvm.cp.async.bulk --implicit-check-not=nvvm.fence.proxy
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --convert-fattn-to-nvvm-sm90="keep-target-ops=true" | FileCheck %s --check-prefix=QUAD --enable-var-scope --implicit-check-not=nvvm.shfl.sync
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --convert-fattn-to-nvvm-sm90="keep-target-ops=true" --convert-fattn-sm90-target-to-nvvm -o %t.quad-split.mlir
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --convert-fattn-to-nvvm-sm90 -o %t.quad-whole.mlir
// RUN: diff %t.quad-split.mlir %t.quad-whole.mlir

// The sm_90a kernel at the target level (L3): keep-target-ops=true leaves
// the warpgroups' register counts and the producer's elected thread, the
// K/V ring's stages and phases, its mbarriers, the TMA loads, the
// wgmma of S = Q K^T and of P V and the wgmma fences, commits and waits, the
// row max and row sum over each quad, the packing of P, the warp-uniform
// warpgroup index and O's stores as fattn.sm90.* ops (none of their NVVM
// ops, no shuffle, no store and no inline wgmma is left in the kernel but
// the 16-byte stores of O's staged units).
// Lowered by --convert-fattn-sm90-target-to-nvvm, the kernel is the one that
// --convert-fattn-to-nvvm-sm90 builds in one step, to the letter (the diff).

func.func @attn(%q: memref<1x2x256x128xbf16>, %k: memref<1x2x256x128xbf16>, %v: memref<1x2x256x128xbf16>, %o: memref<1x2x256x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<1x2x256x128xbf16>, memref<1x2x256x128xbf16>, memref<1x2x256x128xbf16>) outs(%o : memref<1x2x256x128xbf16>) {causal = true}
  return
}

// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_m128n128s2_causal
// CHECK-SAME: %[[K_MAP:arg22]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// CHECK-SAME: %[[V_MAP:arg23]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// The entry: thread 0 initializes Q's barrier and the ring's full (one
// arrival: the producer's expect_tx) and empty (every consumer thread)
// barriers.
// CHECK:      %[[BASE:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// The shared memory's regions, from the aligned base: Q's buffer, the K and
// V rings (two stages of 32 KiB), the mbarriers (Q's, and the full and
// empty barriers of K and of V, per stage).
// CHECK-NEXT: fattn.sm90.smem_region q_buffers, offset = 0, bytes = 32768
// CHECK-NEXT: %[[K_RING:.*]] = fattn.sm90.smem_region key_ring, offset = 32768, bytes = 65536
// CHECK-NEXT: %[[V_RING:.*]] = fattn.sm90.smem_region value_ring, offset = 98304, bytes = 65536
// CHECK-NEXT: %[[BARRIERS:.*]] = fattn.sm90.smem_region barriers, offset = 163840, bytes = 80
// CHECK-NOT:  fattn.sm90.smem_region
// CHECK:      %[[Q_BAR:.*]] = llvm.add %[[BARRIERS]], %{{.*}} : i32
// CHECK-NEXT: %[[Q_BAR_PTR:.*]] = llvm.getelementptr %[[BASE]][%[[Q_BAR]]]
// CHECK-NEXT: fattn.sm90.mbarrier_init %[[Q_BAR_PTR]], count = 1, predicate = %[[THREAD0:.*]]
// CHECK:      fattn.sm90.mbarrier_init %{{.*}}, count = 1, predicate = %[[THREAD0]]
// CHECK:      fattn.sm90.mbarrier_init %{{.*}}, count = 256, predicate = %[[THREAD0]]
// CHECK:      nvvm.fence.mbarrier.init
// The producer warpgroup gives registers back; one elected thread of its
// first warp issues the copies.
// CHECK:      fattn.sm90.setmaxnreg decrease 24
// CHECK:      %[[ELECTED:.*]] = fattn.sm90.elect_one
// CHECK-NEXT: llvm.and %{{.*}}, %[[ELECTED]] : i1
// Q: one expect_tx for both of its 64-column boxes.
// CHECK:      fattn.sm90.mbarrier_arrive_expect_tx %[[QBAR:.*]], bytes = 32768
// CHECK:      fattn.sm90.tma_load %arg21[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %[[BASE]][%{{.*}}], barrier = %[[QBAR]]
// The producer's tile: its ring position, then per K and V half: the wait
// for the stage's empty barrier (the other parity), expect_tx on its full
// barrier and two TMA boxes.
// CHECK:      %[[T:.*]] = llvm.sub
// CHECK-NEXT: %[[STAGE:.*]] = fattn.sm90.ring_stage %[[T]], stages = 2
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[PHASE:.*]] = fattn.sm90.ring_phase %[[T]], stages = 2
// CHECK-NEXT: %[[FREE:.*]] = llvm.xor %[[PHASE]], %[[ONE]] : i32
// CHECK:      %[[EMPTY_K:.*]] = fattn.sm90.ring_barrier %[[BASE]][%[[STAGE]]], offset = 163880
// CHECK-NEXT: fattn.sm90.mbarrier_wait %[[EMPTY_K]], parity = %[[FREE]]
// CHECK-NEXT: %[[FULL_K:.*]] = fattn.sm90.ring_barrier %[[BASE]][%[[STAGE]]], offset = 163848
// CHECK-NEXT: fattn.sm90.mbarrier_arrive_expect_tx %[[FULL_K]], bytes = 32768
// CHECK:      %[[K_BOX:.*]] = llvm.add %[[K_RING]], %{{.*}} : i32
// CHECK-NEXT: %[[K_DST:.*]] = llvm.add %{{.*}}, %[[K_BOX]] : i32
// CHECK:      fattn.sm90.tma_load %[[K_MAP]][%{{.*}}, %[[ROW:.*]], %{{.*}}, %{{.*}}], %[[BASE]][%[[K_DST]]], barrier = %[[FULL_K]]
// CHECK:      fattn.sm90.tma_load %[[K_MAP]][%{{.*}}, %[[ROW]], %{{.*}}, %{{.*}}], %[[BASE]][%{{.*}}], barrier = %[[FULL_K]]
// CHECK-NEXT: %[[EMPTY_V:.*]] = fattn.sm90.ring_barrier %[[BASE]][%[[STAGE]]], offset = 163896
// CHECK-NEXT: fattn.sm90.mbarrier_wait %[[EMPTY_V]], parity = %[[FREE]]
// CHECK-NEXT: %[[FULL_V:.*]] = fattn.sm90.ring_barrier %[[BASE]][%[[STAGE]]], offset = 163864
// CHECK-NEXT: fattn.sm90.mbarrier_arrive_expect_tx %[[FULL_V]], bytes = 32768
// CHECK:      llvm.add %[[V_RING]], %{{.*}} : i32
// CHECK:      fattn.sm90.tma_load %[[V_MAP]][%{{.*}}, %[[ROW]], %{{.*}}, %{{.*}}], %[[BASE]][%{{.*}}], barrier = %[[FULL_V]]
// CHECK:      fattn.sm90.tma_load %[[V_MAP]][%{{.*}}, %[[ROW]], %{{.*}}, %{{.*}}], %[[BASE]][%{{.*}}], barrier = %[[FULL_V]]
// The consumers wait for Q.
// CHECK:      fattn.sm90.setmaxnreg increase 240
// The consumer warpgroup's index, known to ptxas as warp-uniform.
// CHECK:      fattn.sm90.warp_uniform %{{.*}}
// CHECK:      fattn.sm90.mbarrier_wait %{{.*}}, parity = %{{.*}}
// The overlapped loop's iteration j: K_j's stage and V_{j-1}'s, each waited
// for at its own phase; K_j's stage goes back after S_j, V_{j-1}'s after
// P_{j-1} V_{j-1}.
// CHECK:      %[[KS:.*]] = fattn.sm90.ring_stage %[[J:.*]], stages = 2
// CHECK-NEXT: %[[VS:.*]] = fattn.sm90.ring_stage %[[PREV:.*]], stages = 2
// CHECK-NEXT: %[[KP:.*]] = fattn.sm90.ring_phase %[[J]], stages = 2
// CHECK-NEXT: %[[FULL_KJ:.*]] = fattn.sm90.ring_barrier %[[BASE]][%[[KS]]], offset = 163848
// CHECK-NEXT: fattn.sm90.mbarrier_wait %[[FULL_KJ]], parity = %[[KP]]
// CHECK-NEXT: %[[VP:.*]] = fattn.sm90.ring_phase %[[PREV]], stages = 2
// CHECK-NEXT: %[[FULL_VJ:.*]] = fattn.sm90.ring_barrier %[[BASE]][%[[VS]]], offset = 163864
// CHECK-NEXT: fattn.sm90.mbarrier_wait %[[FULL_VJ]], parity = %[[VP]]
// S_j = Q K_j^T: 8 k steps of 16 over the head dim's 128 columns, the first
// without the accumulator's values.
// Pingpong: the warpgroup's turn on its own named barrier.
// CHECK:      fattn.sm90.named_barrier %{{.*}}, threads = 256
// CHECK:      fattn.sm90.wgmma_fence
// CHECK:      %[[S0:.*]] = fattn.sm90.wgmma %{{.*}}, %{{.*}}, %{{.*}}, element_type = bf16 : !llvm.struct<(f32, {{.*}})>
// CHECK:      %[[S1:.*]] = fattn.sm90.wgmma %{{.*}}, %{{.*}}, %[[S0]], element_type = bf16, accumulate : !llvm.struct<(f32, {{.*}})>
// CHECK-COUNT-6: fattn.sm90.wgmma %{{.*}}, element_type = bf16, accumulate
// CHECK-NEXT: fattn.sm90.wgmma_commit_group
// O += P_{j-1} V_{j-1}: 8 k steps of P's registers against V (N-major).
// CHECK:      fattn.sm90.wgmma_rs [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} transposed, [%{{.*}}], element_type = bf16, accumulate : !llvm.struct<(f32, {{.*}})>
// CHECK-COUNT-7: fattn.sm90.wgmma_rs {{.*}} transposed, {{.*}}, element_type = bf16, accumulate :
// CHECK:      fattn.sm90.wgmma_commit_group
// CHECK:      fattn.sm90.named_barrier_arrive %{{.*}}, threads = 256
// CHECK:      fattn.sm90.wgmma_wait_group pending = 1
// CHECK:      %[[EMPTY_KJ:.*]] = fattn.sm90.ring_barrier %[[BASE]][%[[KS]]], offset = 163880
// CHECK-NEXT: fattn.sm90.mbarrier_arrive %[[EMPTY_KJ]]
// The online softmax: S_j's row max over each quad, for both of the
// thread's rows.
// CHECK:      fattn.sm90.quad_reduce max
// CHECK:      fattn.sm90.quad_reduce max
// P_j as pairs of bf16, the A fragment of its P V.
// CHECK:      fattn.sm90.pack_pair %{{.*}}, %{{.*}}, element_type = bf16
// CHECK:      fattn.sm90.wgmma_wait_group pending = 0
// CHECK:      %[[EMPTY_VJ:.*]] = fattn.sm90.ring_barrier %[[BASE]][%[[VS]]], offset = 163896
// CHECK-NEXT: fattn.sm90.mbarrier_arrive %[[EMPTY_VJ]]
// The epilogue: each row's sum over its quad.
// CHECK:      fattn.sm90.quad_reduce add
// CHECK:      fattn.sm90.quad_reduce add
// O / l staged in Q's buffer: each row's bf16 pairs into the swizzled tile
// (rows r and r + 8 share the swizzle), the warpgroup's barrier, then
// whole 16-byte units copied out, each stored to global memory if inside
// the sequence.
// CHECK:      fattn.sm90.stage_fragment [%{{.*}}] scale %{{.*}}, %[[BASE]][%{{.*}}], row_byte = %{{.*}}, swizzle = %[[SWZ:.*]], atom_bytes = 16384, element_type = bf16
// CHECK:      fattn.sm90.stage_fragment [%{{.*}}] scale %{{.*}}, %[[BASE]][%{{.*}}], row_byte = %{{.*}}, swizzle = %[[SWZ]], atom_bytes = 16384, element_type = bf16
// CHECK:      fattn.sm90.named_barrier %{{.*}}, threads = 128
// CHECK-COUNT-8: %[[UNIT:.*]] = fattn.sm90.load_swizzled_unit %[[BASE]][%{{.*}}, %{{.*}}], atom_bytes = 16384
// CHECK-NOT:  fattn.sm90
// CHECK:      llvm.store %[[UNIT]], %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>

// With tma-store (persistent, two Q buffers), O leaves through the work
// item's Q buffer: the matrix descriptors of Q, K and V, then per
// warpgroup the fence before the async proxy reads O, one TMA store per
// 64-column atom from the issuing thread, and its bulk group; the buffer goes
// back once the stores have read it.
// STORE-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_m128n128s2_causal_persistent
// STORE: fattn.sm90.wgmma_descriptor %{{.*}}[%{{.*}}], leading_bytes = 16
// STORE: fattn.sm90.wgmma_descriptor %{{.*}}[%{{.*}}], leading_bytes = 16
// STORE: fattn.sm90.wgmma_descriptor %{{.*}}[%{{.*}}], leading_bytes = 16384
// STORE: fattn.sm90.bulk_wait_group_read pending = 0
// STORE: fattn.sm90.stage_fragment [%{{.*}}] scale %{{.*}}, %{{.*}}[%{{.*}}], row_byte = %{{.*}}, swizzle = %{{.*}}, atom_bytes = 16384, element_type = bf16
// STORE: fattn.sm90.stage_fragment [%{{.*}}] scale %{{.*}}, %{{.*}}[%{{.*}}], row_byte = %{{.*}}, swizzle = %{{.*}}, atom_bytes = 16384, element_type = bf16
// STORE-NEXT: fattn.sm90.fence_proxy_async
// STORE: fattn.sm90.tma_store %arg24[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}]
// STORE: fattn.sm90.tma_store %arg24[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}]
// STORE-NEXT: fattn.sm90.bulk_commit_group
// STORE: fattn.sm90.bulk_wait_group_read pending = 0

// Persistent, without TMA stores: O leaves from registers, transposed
// across each quad (bits 0 and 1 of the thread's place in it, computed once)
// so that each thread stores whole 16-byte units: per row, four groups of
// four bf16 pairs.
// QUAD-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_m128n128s2_causal_persistent
// Each role decodes its work items (causal: masked, the longest Q tiles
// first): the producer by div.u32, the consumers by the multipliers and
// shifts they computed before their loop.
// QUAD:      %{{.*}}, %{{.*}}, %{{.*}} = fattn.sm90.work_item %{{.*}}, q_tiles = %[[NQ:.*]], pairs = %[[PAIRS:.*]], heads = %[[HEADS:.*]], grid = %{{.*}}, ctas_per_pair = 3, fast_divisors = [false, false] masked reverse_q_tiles{{$}}
// QUAD:      fattn.sm90.warp_uniform
// QUAD:      %{{.*}}, %{{.*}}, %{{.*}} = fattn.sm90.work_item %{{.*}}, q_tiles = %[[NQ]], pairs = %[[PAIRS]], heads = %[[HEADS]], grid = %{{.*}}, ctas_per_pair = 3, fast_divisors = [true, true] magic(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) masked reverse_q_tiles{{$}}
// QUAD-NOT:  fattn.sm90.work_item
// QUAD:      fattn.sm90.quad_reduce add
// QUAD:      fattn.sm90.quad_reduce add
// QUAD:      %[[ODD:.*]] = llvm.icmp "ne" %{{.*}}, %{{.*}} : i32
// QUAD:      %[[UPPER:.*]] = llvm.icmp "ne" %{{.*}}, %{{.*}} : i32
// QUAD-NEXT: llvm.fmul
// QUAD-NEXT: llvm.fmul
// QUAD-NEXT: %[[W0:.*]] = fattn.sm90.pack_pair %{{.*}}, %{{.*}}, element_type = bf16
// QUAD-COUNT-3: fattn.sm90.pack_pair
// QUAD-NEXT: %[[UNIT:.*]] = fattn.sm90.quad_transpose %[[W0]], %{{.*}}, %{{.*}}, %{{.*}}, odd = %[[ODD]], upper = %[[UPPER]]
// QUAD-COUNT-3: fattn.sm90.quad_transpose %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, odd = %[[ODD]], upper = %[[UPPER]]
// QUAD:      llvm.store %[[UNIT]], %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// QUAD-COUNT-4: fattn.sm90.quad_transpose %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, odd = %[[ODD]], upper = %[[UPPER]]
// QUAD-NOT:  fattn.sm90.quad_transpose
