// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy --fattn-sm80-mma --convert-fattn-to-nvvm="keep-target-ops=true" | FileCheck %s --enable-var-scope --implicit-check-not=nvvm.cp.async --implicit-check-not=nvvm.ldmatrix --implicit-check-not=nvvm.mma.sync --implicit-check-not=nvvm.shfl.sync --implicit-check-not=llvm.fptrunc --implicit-check-not=llvm.store --implicit-check-not=nvvm.barrier0 --implicit-check-not=nvvm.bar.warp.sync --implicit-check-not=llvm.call_intrinsic --implicit-check-not=llvm.intr.fma
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy --fattn-sm80-mma --convert-fattn-to-nvvm="keep-target-ops=true" -o %t.l3.mlir
// RUN: fattn-opt %t.l3.mlir --convert-fattn-sm80-target-to-nvvm -o %t.split.mlir
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy --fattn-sm80-mma --convert-fattn-to-nvvm -o %t.whole.mlir
// RUN: diff %t.split.mlir %t.whole.mlir
// RUN: fattn-opt %s --fattn-sm80-pipeline="keep-target-ops=true" | FileCheck %s --check-prefix=PIPELINE
// RUN: fattn-opt %s --fattn-sm80-pipeline="keep-target-ops=true" | fattn-opt --convert-fattn-sm80-target-to-nvvm | FileCheck %s --check-prefix=L4 --implicit-check-not=fattn.sm80 --implicit-check-not=nvgpu. --implicit-check-not=gpu.shuffle --implicit-check-not=gpu.barrier --implicit-check-not=math.

// The sm_80 kernel at the target level (L3): keep-target-ops=true leaves
// the cp.async copies of the tiles into the shared-memory ring and their
// commit groups, ldmatrix, mma.sync, P's packing and O's stores as
// fattn.sm80.* ops (the warp barrier before O's stores too), the waits for
// the commit groups as nvgpu.device_async_wait, the CTA's barriers as
// gpu.barrier and the quads' shuffles as gpu.shuffle (none of their NVVM
// ops is left in the kernel). The printed L3, lowered by
// --convert-fattn-sm80-target-to-nvvm, is the kernel that
// --convert-fattn-to-nvvm builds in one step, to the letter (the diff).

func.func @attn(%q: memref<1x1x128x64xbf16>, %k: memref<1x1x128x64xbf16>, %v: memref<1x1x128x64xbf16>, %o: memref<1x1x128x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<1x1x128x64xbf16>, memref<1x1x128x64xbf16>, memref<1x1x128x64xbf16>) outs(%o : memref<1x1x128x64xbf16>) {causal = true}
  return
}

// CHECK-LABEL: llvm.func @attn(
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @fattn_smem : !llvm.ptr<3>
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// The prologue: Q's 128 rows of 128 bytes (rows 144 bytes apart in shared
// memory), zero-filled past seq_q, in a commit group of their own.
// CHECK: fattn.sm80.copy_tile %{{.*}}[%{{.*}}], row_stride = %{{.*}}, into %[[SMEM]][%{{.*}}], thread = %[[TID]], seq_len = %arg7, rows = 128, row_bytes = 128, row_pitch = 144, threads = 128
// CHECK-NEXT: fattn.sm80.commit_group
// Then K and V of the first KV tile into ring slot 0: plain copies, or,
// for the last tile (which may end past seq_k), zero-filled ones.
// CHECK: scf.if
// CHECK: fattn.sm80.copy_tile %{{.*}}, thread = %[[TID]], rows = 64, row_bytes = 128, row_pitch = 144, threads = 128
// CHECK: fattn.sm80.copy_tile %{{.*}}, thread = %[[TID]], rows = 64, row_bytes = 128, row_pitch = 144, threads = 128
// CHECK: } else {
// CHECK: fattn.sm80.copy_tile %{{.*}}, thread = %[[TID]], seq_len = %arg8, rows = 64, row_bytes = 128, row_pitch = 144, threads = 128
// CHECK: %[[FIRST:.*]] = fattn.sm80.commit_group
// Head dim 64 keeps Q in registers: once Q's group has landed (the first
// KV tile's may still be in flight), Q's A fragments by ldmatrix.
// CHECK-NEXT: nvgpu.device_async_wait %[[FIRST]] {numGroups = 1 : i32}
// CHECK-NEXT: gpu.barrier
// CHECK: %[[Q0:[a-z0-9_]+]], %[[Q1:[a-z0-9_]+]], %[[Q2:[a-z0-9_]+]], %[[Q3:[a-z0-9_]+]] = fattn.sm80.ldmatrix_x4 %{{[0-9]+}}{{$}}
// The unmasked KV loop carries the latest commit group: it waits for tile
// j's, prefetches tile j + 1 into the other slot and commits it.
// CHECK: scf.for %{{.*}} iter_args({{.*}}, %[[GROUP:.*]] = %[[FIRST]]) -> ({{.*}}, !nvgpu.device.async.token)
// CHECK: nvgpu.device_async_wait %[[GROUP]] {numGroups = 0 : i32}
// CHECK-NEXT: gpu.barrier
// CHECK: fattn.sm80.copy_tile %{{.*}}, rows = 64, row_bytes = 128, row_pitch = 144, threads = 128
// CHECK: %[[NEXT:.*]] = fattn.sm80.commit_group
// S = Q K^T: the B fragments of two n8 tiles of K per ldmatrix, then
// mma.sync m16n8k16 with Q's fragments.
// CHECK: %[[K0:[a-z0-9_]+]], %[[K1:[a-z0-9_]+]], %[[K2:[a-z0-9_]+]], %[[K3:[a-z0-9_]+]] = fattn.sm80.ldmatrix_x4 %{{[0-9]+}}{{$}}
// CHECK-NEXT: fattn.sm80.mma_m16n8k16 [%[[Q0]], %[[Q1]], %[[Q2]], %[[Q3]]], [%[[K0]], %[[K1]]], [%{{.*}}], element_type = bf16
// CHECK-NEXT: fattn.sm80.mma_m16n8k16 [%[[Q0]], %[[Q1]], %[[Q2]], %[[Q3]]], [%[[K2]], %[[K3]]], [%{{.*}}], element_type = bf16
// The online softmax: each row's max over its quad.
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32{{.*}}, %c32_i32{{.*}} : f32
// The rescale factor and the probabilities: exp2 of an fma (the scale
// times log2(e) folded in), upstream's math ops.
// CHECK: %[[ARG:.*]] = math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: math.exp2 %[[ARG]] : f32
// O += P V: P packed from the scores, V's fragments by ldmatrix.trans.
// CHECK: %[[P0:.*]] = fattn.sm80.pack_pair %{{.*}}, %{{.*}}, element_type = bf16
// CHECK: %[[V0:[a-z0-9_]+]], %[[V1:[a-z0-9_]+]], %{{.*}}, %{{.*}} = fattn.sm80.ldmatrix_x4 %{{[0-9]+}} trans
// CHECK-NEXT: fattn.sm80.mma_m16n8k16 [%[[P0]], %{{.*}}, %{{.*}}, %{{.*}}], [%[[V0]], %[[V1]]], [%{{.*}}], element_type = bf16
// CHECK: scf.yield {{.*}}, %[[NEXT]] : {{.*}}, !nvgpu.device.async.token
// The diagonal tile's loop, then no copy in flight before the epilogue.
// CHECK: %[[LOOP:.*]]:73 = scf.for
// CHECK: nvgpu.device_async_wait %[[LOOP]]#72 {numGroups = 0 : i32}
// O / l: each warp's rows staged in Q's rows of shared memory (rows 0, 8,
// 16, 24 of the warp's 32), then copied out in 16-byte chunks.
// CHECK: fattn.sm80.stage_row %[[FRAG:.*]][0], scale = %{{.*}}, [%[[LOOP]]#0, %[[LOOP]]#1, %[[LOOP]]#4, %[[LOOP]]#5, {{.*}}], element_type = bf16
// CHECK: fattn.sm80.stage_row %[[FRAG]][1152], scale
// CHECK: fattn.sm80.stage_row %[[FRAG]][2304], scale
// CHECK: fattn.sm80.stage_row %[[FRAG]][3456], scale
// CHECK: fattn.sm80.sync_warp
// CHECK: fattn.sm80.store_rows %[[SMEM]][%{{.*}}], lane = %{{.*}}, into %{{.*}}[%{{.*}}], row_stride = %{{.*}}, seq_len = %arg7, rows = 32, row_bytes = 128, row_pitch = 144
// CHECK-NEXT: llvm.return

// The pipeline stops at L3: the gpu.module still has its scf and arith ops.
// PIPELINE: gpu.module @fattn_kernels
// PIPELINE: fattn.sm80.copy_tile
// PIPELINE: scf.for
// PIPELINE: fattn.sm80.mma_m16n8k16

// Lowered, the kernel has NVVM ops in place of the target ops.
// L4: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// L4: nvvm.cp.async.commit.group
// L4: nvvm.cp.async.wait.group 1
// L4: nvvm.ldmatrix
// L4: nvvm.cp.async.wait.group 0
// L4-NEXT: nvvm.barrier0
// L4: nvvm.mma.sync
// L4: nvvm.shfl.sync  bfly
// L4: %[[ARG:.*]] = llvm.intr.fma(%{{.*}}, %{{.*}}, %{{.*}})  : (f32, f32, f32) -> f32
// L4-NEXT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[ARG]]) : (f32) -> f32
// L4: llvm.fptrunc %{{.*}} : vector<2xf32> to vector<2xbf16>
// L4: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>
// L4: nvvm.bar.warp.sync
