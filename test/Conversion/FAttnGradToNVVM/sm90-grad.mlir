// RUN: fattn-opt %s -split-input-file --fattn-tile-grad="block-m=64 block-n=128" --convert-fattn-grad-to-nvvm-sm90="keep-target-ops=true" | FileCheck %s --check-prefix=L3
// The L3 kernels are valid IR that prints and parses back.
// RUN: fattn-opt %s -split-input-file --fattn-tile-grad="block-m=64 block-n=128" --convert-fattn-grad-to-nvvm-sm90="keep-target-ops=true" | fattn-opt -split-input-file | FileCheck %s --check-prefix=L3
// RUN: fattn-opt %s -split-input-file --fattn-sm90-grad-pipeline | FileCheck %s --check-prefix=L4
// RUN: fattn-opt %s -split-input-file --fattn-sm90-grad-pipeline="keep-target-ops=true block-n=64" | FileCheck %s --check-prefix=ONE

// Causal GQA (4 query heads per 2 KV heads), bf16, head dim 64: the sm_80
// preprocess and postprocess kernels and the sm_90a main kernel, with the
// sm_80 kernels' parameter list, in a gpu.module for sm_90a.
// L3-LABEL: gpu.module @fattn_kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">]
// L3: gpu.func @bwd_preprocess(
// L3-SAME: role = "preprocess"
// L3: vector.reduction <add>
// Main: two warpgroups (256 threads) on 128 keys. The tiles from the
// dynamic shared memory's first 1024-byte boundary: K and V in 64-column
// atoms (each warpgroup's 64 keys one 64 x 64 tile at head dim 64), Q and dO
// in two buffers each, dS^T of the 128 keys with a pitch of 72, LSE and D,
// and the staged dQ (f32, a pitch of 72), one tile per warpgroup here.
// L3: gpu.func @bwd_main(
// L3-SAME: block_n = 128 : i64
// L3-SAME: dynamic_smem_bytes = 122368 : i64, head_dim = 64 : i64, role = "main"
// L3-SAME: threads = 256 : i64
// L3-SAME: known_block_size = array<i32: 256, 1, 1>
// L3: %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// L3: %[[ADDR:.*]] = memref.extract_aligned_pointer_as_index %[[SMEM]]
// L3: %[[REM:.*]] = arith.remui %[[ADDR]], %c1024
// L3: %[[PAD:.*]] = arith.remui %{{.*}}, %c1024
// L3: %[[K:.*]] = memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<128x64xbf16, #gpu.address_space<workgroup>>
// L3: %[[V:.*]] = memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<128x64xbf16, #gpu.address_space<workgroup>>
// L3: %[[Q:.*]] = memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<128x64xbf16, #gpu.address_space<workgroup>>
// L3: %[[DO:.*]] = memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<128x64xbf16, #gpu.address_space<workgroup>>
// L3: %[[DST:.*]] = memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<128x72xbf16, #gpu.address_space<workgroup>>
// L3: %[[LSE:.*]] = memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<64xf32, #gpu.address_space<workgroup>>
// L3: %[[D:.*]] = memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<64xf32, #gpu.address_space<workgroup>>
// L3: %[[DQS:.*]] = memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<128x72xf32, #gpu.address_space<workgroup>>
// The items: the group's query heads times the range's Q tiles (at least
// one as a divisor).
// L3: fattn.q_tile_range %{{.*}} {block_m = 64 : i64, block_n = 128 : i64, window_left = -1 : i64, window_right = 0 : i64}
// L3: arith.maxsi
// L3: arith.maxsi
// K's 16-byte units into the swizzled atom: row r, unit u at u ^ (r mod 8);
// both warpgroups' keys of K and V, then the first item's Q and dO: one
// group. The first item's LSE and D into registers.
// L3: %[[SW:.*]] = arith.xori %{{.*}}, %{{.*}} : index
// L3: %[[COL:.*]] = arith.muli %[[SW]], %c8
// L3: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %[[K]][%{{.*}}, %[[COL]]], 8, %{{.*}} {bypassL1}
// L3: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %[[V]][%{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1}
// L3: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %[[K]][
// L3: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %[[V]][
// L3: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %[[Q]][
// L3: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %[[DO]][
// L3: %[[FIRST:.*]] = nvgpu.device_async_create_group
// L3: memref.load
// L3: memref.load
// L3: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (vector<32xf32>, vector<32xf32>, f32, f32) {
// Per item: the previous item done with the other buffer, LSE and D; the
// thread index through a shuffle (computed in the loop, not hoisted); this
// item's LSE and D into shared memory; the next item's Q and dO into the
// other buffer (its index clamped to the last item's, zeros past it), its
// LSE and D into registers; this item's copies done.
// L3-NEXT: gpu.barrier
// L3: gpu.shuffle  idx
// L3: memref.store %{{.*}}, %[[LSE]][
// L3-NEXT: memref.store %{{.*}}, %[[D]][
// L3: arith.minsi
// L3: nvgpu.device_async_copy %{{.*}}, %[[Q]][
// L3: nvgpu.device_async_copy %{{.*}}, %[[DO]][
// L3: %[[NEXT:.*]] = nvgpu.device_async_create_group
// L3: memref.load
// L3: memref.load
// L3: nvgpu.device_async_wait %[[NEXT]] {numGroups = 1 : i32}
// L3-NEXT: fattn.sm90.fence_proxy_async
// L3-NEXT: gpu.barrier
// The five descriptors: the warpgroup's K and V, the item's buffer of Q and
// dO, the whole K tile (dQ's B).
// L3: %[[SHARED:.*]], %{{.*}} = gpu.shuffle  idx
// L3: %[[KD:.*]] = fattn.sm90.wgmma_descriptor %[[SHARED]][%{{.*}}], leading_bytes = 16
// L3: %[[VD:.*]] = fattn.sm90.wgmma_descriptor %[[SHARED]][%{{.*}}], leading_bytes = 16
// L3: %[[QD:.*]] = fattn.sm90.wgmma_descriptor %[[SHARED]][%{{.*}}], leading_bytes = 16
// L3: %[[DOD:.*]] = fattn.sm90.wgmma_descriptor %[[SHARED]][%{{.*}}], leading_bytes = 16
// L3: fattn.sm90.wgmma_descriptor %[[SHARED]][%{{.*}}], leading_bytes = 16
// S^T = K Q^T: 4 k steps of 32 bytes (one atom), N = 64 queries.
// L3: fattn.sm90.wgmma_fence
// L3: %[[S0:.*]] = fattn.sm90.wgmma %[[KD]], %[[QD]], %{{.*}}, element_type = bf16 : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
// L3: arith.constant 2 : i64
// L3: fattn.sm90.wgmma {{.*}}, accumulate
// L3: fattn.sm90.wgmma {{.*}}, accumulate
// L3: fattn.sm90.wgmma {{.*}}, accumulate
// L3-NEXT: fattn.sm90.wgmma_commit_group
// dP^T = V dO^T, then both complete.
// L3: fattn.sm90.wgmma %[[VD]], %[[DOD]],
// L3: fattn.sm90.wgmma_commit_group
// L3-NEXT: fattn.sm90.wgmma_wait_group pending = 0
// L3: llvm.inline_asm has_side_effects "", "=f,
// L3: llvm.inline_asm has_side_effects "", "=f,
// The mask on the tiles that need it, P^T, dS^T into shared memory.
// L3: scf.if %{{.*}} -> (vector<32xf32>) {
// L3: math.exp2 %{{.*}} : vector<32xf32>
// L3: vector.store %{{.*}}, %[[DST]][%{{.*}}, %{{.*}}] : memref<128x72xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
// P^T and dS^T packed as the A fragments; dV += P^T dO and dK += dS^T Q
// with dO and Q N-major (transposed), 2048 bytes (128 units) per k step.
// L3: %[[P0:.*]] = fattn.sm90.pack_pair %{{.*}}, %{{.*}}, element_type = bf16
// L3: fattn.sm90.wgmma_fence
// L3: fattn.sm90.wgmma_rs [%[[P0]], %{{.*}}, %{{.*}}, %{{.*}}], %[[DOD]] transposed, [{{.*}}], element_type = bf16, accumulate
// L3: arith.constant 128 : i64
// L3: fattn.sm90.wgmma_rs {{.*}} transposed
// L3: fattn.sm90.wgmma_rs {{.*}} transposed
// L3: fattn.sm90.wgmma_rs {{.*}} transposed
// L3: fattn.sm90.wgmma_rs [{{.*}}], %[[QD]] transposed, [{{.*}}], element_type = bf16, accumulate
// L3: fattn.sm90.wgmma_commit_group
// The previous item's bulk reductions done reading the staged dQ; dS's A
// fragments of the warpgroup's 64 keys by ldmatrix.trans of dS^T, dQ's
// share of them = dS K (the warpgroup's K, N-major) into the warpgroup's
// staged rows; one bulk reduction per staged row within seq_q into
// dq_accum.
// L3: fattn.sm90.bulk_wait_group_read pending = 0
// L3-NEXT: gpu.barrier
// L3-COUNT-4: nvgpu.ldmatrix %[[DST]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = true} : memref<128x72xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// L3: fattn.sm90.wgmma_fence
// L3: fattn.sm90.wgmma_rs [{{.*}}], %[[KD]] transposed, [{{.*}}], element_type = bf16 :
// L3: fattn.sm90.wgmma_commit_group
// L3-NEXT: fattn.sm90.wgmma_wait_group pending = 0
// L3-COUNT-16: vector.store %{{.*}}, %[[DQS]][%{{.*}}, %{{.*}}] : memref<128x72xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// L3-NEXT: fattn.sm90.fence_proxy_async
// L3-NEXT: gpu.barrier
// The addresses by every thread (their shuffles take whole warps), the
// reduction by the threads of staged rows within seq_q (128: both
// warpgroups' shares).
// L3: memref.extract_aligned_pointer_as_index %{{.*}} : memref<?xf32, #gpu.address_space<global>> -> index
// L3: %[[DSTADDR:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// L3: arith.constant 288 : index
// L3: %[[SRCADDR:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// L3: arith.constant 128 : index
// L3: %[[ROWS:.*]] = arith.andi
// L3-NEXT: scf.if %[[ROWS]] {
// L3-NEXT: %{{.*}} = arith.constant 256 : i32
// L3-NEXT: fattn.sm90.bulk_reduce_add %[[DSTADDR]], %[[SRCADDR]], bytes = %{{.*}}
// L3-NEXT: fattn.sm90.bulk_commit_group
// L3-NEXT: }
// The next item's LSE and D carried.
// L3: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<32xf32>, vector<32xf32>, f32, f32
// The last item's zero fill done; dK times the scale and dV stored.
// L3: nvgpu.device_async_wait %[[FIRST]] {numGroups = 0 : i32}
// L3: arith.constant dense<1.250000e-01> : vector<2xf32>
// L3: vector.store %{{.*}} {alignment = 4 : i64} : memref<?xbf16, #gpu.address_space<global>>, vector<2xbf16>
// The last bulk reductions read shared memory until the kernel waits.
// L3: fattn.sm90.bulk_wait_group_read pending = 0
// L3-NEXT: gpu.return
// L3: gpu.func @bwd_postprocess(
// L3-SAME: role = "postprocess"

// With block-n=64 (fattn-compile's tile at head dim 64): one warpgroup,
// K and V of 64 keys, dS^T of 64, one staged dQ whose 64 rows the threads
// below 64 reduce.
// ONE-LABEL: gpu.func @bwd_main(
// ONE-SAME: block_n = 64 : i64
// ONE-SAME: dynamic_smem_bytes = 78336 : i64
// ONE-SAME: threads = 128 : i64
// ONE-SAME: known_block_size = array<i32: 128, 1, 1>
// ONE: memref.view {{.*}} to memref<64x64xbf16, #gpu.address_space<workgroup>>
// ONE: memref.view {{.*}} to memref<64x64xbf16, #gpu.address_space<workgroup>>
// ONE: memref.view {{.*}} to memref<128x64xbf16, #gpu.address_space<workgroup>>
// ONE: memref.view {{.*}} to memref<128x64xbf16, #gpu.address_space<workgroup>>
// ONE: memref.view {{.*}} to memref<64x72xbf16, #gpu.address_space<workgroup>>
// ONE: memref.view {{.*}} to memref<64x72xf32, #gpu.address_space<workgroup>>
// ONE: fattn.q_tile_range {{.*}} {block_m = 64 : i64, block_n = 64 : i64
// ONE: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// ONE: fattn.sm90.bulk_wait_group_read pending = 0
// ONE-COUNT-4: nvgpu.ldmatrix {{.*}} : memref<64x72xbf16, #gpu.address_space<workgroup>>
// ONE: arith.constant 64 : index
// ONE: fattn.sm90.bulk_reduce_add
// ONE: gpu.func @bwd_postprocess(

// L4-LABEL: gpu.module @fattn_kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">]
// L4-NOT: fattn.sm90
// L4: llvm.func @bwd_preprocess(
// L4: llvm.func @bwd_main(
// L4: nvvm.cp.async.shared.global
// L4: nvvm.fence.proxy
// L4: nvvm.wgmma.fence.aligned
// L4: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0,
// L4: llvm.inline_asm has_side_effects {{.*}}"wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, 1, 1, 1, 1;"
// L4: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>
// L4: llvm.inline_asm has_side_effects {{.*}}"cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], [$1], $2;", "l,r,r,~{memory}"
// L4-NEXT: nvvm.cp.async.bulk.commit.group
// L4-NOT: llvm.atomicrmw
// L4: llvm.func @bwd_postprocess(
// L4-NOT: fattn.sm90

func.func @bwd(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>, %do: memref<?x?x?x64xbf16>, %lse: memref<?x?x?xf32>, %dq: memref<?x?x?x64xbf16>, %dk: memref<?x?x?x64xbf16>, %dv: memref<?x?x?x64xbf16>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?xf32>) outs(%dq, %dk, %dv : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) {causal = true}
  return
}

// -----

// Head dim 128, f16, a softcap: two atoms per tile (64 x 128 as 128 x 64
// per warpgroup's keys), S^T to dS^T in two parts of 32 queries (m64n32,
// 16 registers; the second part's rows of Q and dO 4096 bytes on), dK and
// dV in two parts of 64 columns each (the second atom 8192 bytes on).
// L3-LABEL: gpu.module @fattn_kernels
// L3: gpu.func @bwd_d128_main(
// L3-SAME: dynamic_smem_bytes = 185856 : i64, head_dim = 128 : i64, role = "main", scale = 0.088388346135616302 : f64, softcap = 2.000000e+01 : f64
// L3: memref.view {{.*}} to memref<256x64xf16, #gpu.address_space<workgroup>>
// L3: scf.for %{{.*}} -> (vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, f32, f32) {
// L3: fattn.sm90.wgmma %{{.*}}, element_type = f16 : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
// The fifth k step: the second atom, 8192 bytes (512 units) on.
// L3: arith.constant 512 : i64
// L3: math.tanh %{{.*}} : vector<16xf32>
// L3: math.exp2 %{{.*}} : vector<16xf32>
// L3: fattn.sm90.wgmma_rs {{.*}} transposed, [{{.*}}], element_type = f16, accumulate
// The second part of the queries: Q's rows 32.. (4096 bytes, 256 units).
// L3: arith.constant 256 : i64
// L3: fattn.sm90.wgmma %{{.*}}, element_type = f16 : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
// dQ: each warpgroup its atom (the warpgroup's index times 8192 bytes) over
// the 128 keys, the first warpgroup's keys of K then the second's (16384
// bytes on), dS's fragments of each 64 keys loaded before their product;
// the staged dQ's rows of 136 f32 (544 bytes), 512 bytes each into
// dq_accum, by the threads of the 64 staged rows.
// L3: fattn.sm90.bulk_wait_group_read pending = 0
// L3: arith.constant 8192 : index
// L3-COUNT-4: nvgpu.ldmatrix
// L3: fattn.sm90.wgmma_fence
// L3: fattn.sm90.wgmma_rs {{.*}}, %{{.*}} transposed, [{{.*}}], element_type = f16 :
// L3: arith.constant 16384 : index
// L3-COUNT-4: nvgpu.ldmatrix
// L3: fattn.sm90.wgmma_fence
// L3: fattn.sm90.wgmma_rs {{.*}} transposed, [{{.*}}], element_type = f16, accumulate
// L3-COUNT-16: vector.store {{.*}} : memref<64x136xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// L3: arith.constant 544 : index
// L3: arith.constant 64 : index
// L3: fattn.sm90.bulk_reduce_add %{{.*}}, %{{.*}}, bytes = %c512_i32

// L4-LABEL: gpu.module @fattn_kernels
// L4: llvm.func @bwd_d128_main(
// L4: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16
// L4: "tanh.approx.f32 $0, $1;"
// L4: "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// L4-NOT: fattn.sm90

func.func @bwd_d128(%q: memref<?x?x?x128xf16>, %k: memref<?x?x?x128xf16>, %v: memref<?x?x?x128xf16>, %o: memref<?x?x?x128xf16>, %do: memref<?x?x?x128xf16>, %lse: memref<?x?x?xf32>, %dq: memref<?x?x?x128xf16>, %dk: memref<?x?x?x128xf16>, %dv: memref<?x?x?x128xf16>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x128xf16>, memref<?x?x?x128xf16>, memref<?x?x?x128xf16>, memref<?x?x?x128xf16>, memref<?x?x?x128xf16>, memref<?x?x?xf32>) outs(%dq, %dk, %dv : memref<?x?x?x128xf16>, memref<?x?x?x128xf16>, memref<?x?x?x128xf16>) {softcap = 20.0 : f32}
  return
}
