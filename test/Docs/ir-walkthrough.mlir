// RUN: fattn-opt %s | FileCheck %s --check-prefix=L0
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" | FileCheck %s --check-prefix=L1
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-pingpong | FileCheck %s --check-prefix=L2
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-pingpong --convert-fattn-to-nvvm-sm90="keep-target-ops=true" | FileCheck %s --check-prefix=L3
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-pingpong --convert-fattn-to-nvvm-sm90 | FileCheck %s --check-prefix=L4
// RUN: rm -f %t.ptx && fattn-compile %s --arch sm_90a --block-n 128 --emit ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy --fattn-sm80-mma | FileCheck %s --check-prefix=SM80-PLAN
// RUN: fattn-opt %s --fattn-sm80-pipeline="keep-target-ops=true" | FileCheck %s --check-prefix=SM80-L3
// RUN: fattn-opt %s --fattn-sm80-pipeline | FileCheck %s --check-prefix=SM80
// RUN: rm -f %t.sm80.ptx && fattn-compile %s --arch sm_80 --emit ptx -o %t.sm80.ptx
// RUN: FileCheck %s --check-prefix=SM80-PTX < %t.sm80.ptx

// The example of docs/IR.md, walked through every level: each prefix checks
// the lines that the document shows for that level. Change both together.

// Level 0, the op.
// L0: fattn.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<1x2x256x128xbf16>, memref<1x2x256x128xbf16>, memref<1x2x256x128xbf16>) outs(%{{.*}} : memref<1x2x256x128xbf16>) {causal = true}

// Level 1, the tiled online-softmax form.
// L1: fattn.tiled_attention ins({{.*}}) outs({{.*}}) attributes {block_m = 128 : i64, block_n = 128 : i64, scale = 0.0883883461 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} {
// L1-NEXT: ^bb0(%[[B:.*]]: index, %[[H:.*]]: index, %[[QT:.*]]: index):
// L1: %[[Q:.*]] = fattn.load_tile %{{.*}}[%[[B]], %[[H]], %{{.*}}] : memref<1x2x256x128xbf16> -> tensor<128x128xbf16>
// L1: %[[LO:.*]], %[[FULL_LO:.*]], %[[FULL_HI:.*]], %[[HI:.*]] = fattn.kv_tile_range %[[QT]], %{{.*}}, %{{.*}} {block_m = 128 : i64, block_n = 128 : i64, window_left = -1 : i64, window_right = 0 : i64}
// L1: fattn.softmax_init : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
// L1: scf.for %{{.*}} = %[[FULL_LO]] to %[[FULL_HI]] step
// L1: fattn.mma %[[Q]], %{{.*}} {transpose_rhs} : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xf32>
// L1: fattn.softmax_update %{{.*}}, %{{.*}}, %{{.*}} {scale = 0.0883883461 : f32} : tensor<128x128xf32>, tensor<128xf32> -> tensor<128x128xbf16>
// L1: fattn.rescale
// L1: fattn.mma %{{.*}}, %{{.*}} acc(%{{.*}} : tensor<128x128xf32>) : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xf32>
// L1: scf.for %{{.*}} = %[[FULL_HI]] to %[[HI]] step
// L1: fattn.mask %{{.*}} at[%{{.*}}, %{{.*}}] seq_lens(%{{.*}}, %{{.*}}) {window_left = -1 : i64, window_right = 0 : i64} : tensor<128x128xf32>
// L1: fattn.finalize
// L1: fattn.store_tile

// Level 2, the sm_90a schedule.
// L2: fattn.tiled_attention {{.*}} fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>
// L2: %[[RING:.*]] = fattn.ring_create : <2, tensor<128x128xbf16>, tensor<128x128xbf16>>
// L2-NEXT: fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
// L2: fattn.ring_acquire %[[RING]][0]
// L2-NEXT: arith.muli
// L2-NEXT: %[[K:.*]] = fattn.load_tile
// L2-NEXT: fattn.ring_commit %[[RING]][0], %[[K]]
// L2: fattn.ring_acquire %[[RING]][1]
// L2: fattn.ring_commit %[[RING]][1]
// L2: } consumer {
// L2-NEXT: ^bb0(%[[WG:.*]]: index):
// L2: scf.if
// L2-NEXT: fattn.named_barrier_arrive %{{.*}}, 256
// L2: fattn.ring_wait %[[RING]][0]
// L2-NEXT: fattn.named_barrier_sync %{{.*}}, 256
// L2-NEXT: fattn.mma {{.*}} {transpose_rhs}
// L2: fattn.softmax_update
// L2: scf.for
// L2: %[[KJ:.*]] = fattn.ring_wait %[[RING]][0]
// L2-NEXT: fattn.named_barrier_sync %{{.*}}, 256
// L2-NEXT: %[[S:.*]] = fattn.mma %{{.*}}, %[[KJ]] {transpose_rhs}
// L2-NEXT: fattn.ring_release %[[RING]][0]
// L2-NEXT: %[[O:.*]] = fattn.rescale
// L2-NEXT: %[[VJ:.*]] = fattn.ring_wait %[[RING]][1]
// L2-NEXT: fattn.mma %{{.*}}, %[[VJ]] acc(%[[O]] : tensor<128x128xf32>)
// L2-NEXT: fattn.named_barrier_arrive %{{.*}}, 256
// L2-NEXT: fattn.ring_release %[[RING]][1]
// L2: fattn.softmax_update
// L2: fattn.finalize

// Level 4, the NVVM/LLVM kernel in a gpu.module.
// Level 3, the sm_90a target ops: the shared memory's regions, the
// producer's tile, the consumers' iteration.
// L3: fattn.sm90.smem_region q_buffers, offset = 0, bytes = 32768
// L3-NEXT: fattn.sm90.smem_region key_ring, offset = 32768, bytes = 65536
// L3-NEXT: fattn.sm90.smem_region value_ring, offset = 98304, bytes = 65536
// L3-NEXT: fattn.sm90.smem_region barriers, offset = 163840, bytes = 80
// L3: ^bb4:
// L3-NEXT: %[[T:.*]] = llvm.sub %{{.*}}, %{{.*}} : i32
// L3-NEXT: %[[STAGE:.*]] = fattn.sm90.ring_stage %[[T]], stages = 2
// L3: %[[PHASE:.*]] = fattn.sm90.ring_phase %[[T]], stages = 2
// L3-NEXT: %[[FREE:.*]] = llvm.xor %[[PHASE]], %{{.*}} : i32
// L3: %[[EMPTY:.*]] = fattn.sm90.ring_barrier %[[BASE:.*]][%[[STAGE]]], offset = 163880
// L3-NEXT: fattn.sm90.mbarrier_wait %[[EMPTY]], parity = %[[FREE]]
// L3-NEXT: %[[FULL:.*]] = fattn.sm90.ring_barrier %[[BASE]][%[[STAGE]]], offset = 163848
// L3-NEXT: fattn.sm90.mbarrier_arrive_expect_tx %[[FULL]], bytes = 32768
// L3: fattn.sm90.tma_load %arg22[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %[[BASE]][%{{.*}}], barrier = %[[FULL]]
// L3: %[[KS:.*]] = fattn.sm90.ring_stage %[[J:.*]], stages = 2
// L3-NEXT: fattn.sm90.ring_stage %{{.*}}, stages = 2
// L3-NEXT: %[[KP:.*]] = fattn.sm90.ring_phase %[[J]], stages = 2
// L3-NEXT: %[[KFULL:.*]] = fattn.sm90.ring_barrier %[[BASE]][%[[KS]]], offset = 163848
// L3-NEXT: fattn.sm90.mbarrier_wait %[[KFULL]], parity = %[[KP]]
// L3: fattn.sm90.wgmma_fence
// L3: %[[S0:.*]] = fattn.sm90.wgmma %{{.*}}, %{{.*}}, %{{.*}}, element_type = bf16 : !llvm.struct<(f32,
// L3: %{{.*}} = fattn.sm90.wgmma %{{.*}}, %{{.*}}, %[[S0]], element_type = bf16, accumulate : !llvm.struct<(f32,
// L3: fattn.sm90.wgmma_commit_group
// L3: fattn.sm90.wgmma_rs [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} transposed, [%{{.*}}], element_type = bf16, accumulate : !llvm.struct<(f32,
// L3: fattn.sm90.wgmma_wait_group pending = 1
// L3: %{{.*}} = fattn.sm90.quad_reduce max %{{.*}}
// L3: %{{.*}} = fattn.sm90.pack_pair %{{.*}}, %{{.*}}, element_type = bf16

// L4: module attributes {gpu.container_module}
// L4: func.func @attn(
// L4-NEXT: return
// L4: gpu.module @fattn_sm90 [#nvvm.target<chip = "sm_90a", features = "+ptx80">]
// L4-NEXT: llvm.mlir.global external @fattn_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// L4: llvm.func @fattn_fwd_sm90_d128_bf16_m128n128s2_causal(
// L4-SAME: nvvm.grid_constant
// L4-SAME: gpu.kernel, nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>
// L4: nvvm.mbarrier.init
// L4: nvvm.fence.mbarrier.init
// L4: nvvm.setmaxregister decrease 24
// L4: nvvm.mbarrier.arrive.expect_tx
// L4: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// L4: nvvm.mbarrier.try_wait.parity %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32
// L4: nvvm.setmaxregister increase 240
// L4: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %{{.*}}
// L4: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// L4: nvvm.wgmma.fence.aligned
// L4: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// L4: nvvm.wgmma.commit.group.sync.aligned
// L4: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16

// PTX of fattn-compile.
// PTX: .target sm_90a
// PTX: .visible .entry attn(
// PTX: .maxntid 384, 1, 1
// PTX: mbarrier.init.shared.b64
// PTX: setmaxnreg.dec.sync.aligned.u32 24;
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: setmaxnreg.inc.sync.aligned.u32 240;
// PTX: wgmma.fence.sync.aligned;
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// PTX: wgmma.commit_group.sync.aligned;
// PTX: wgmma.wait_group.sync.aligned 0;
// PTX: wgmma.wait_group.sync.aligned 1;

// sm_80.
// SM80-PLAN: fattn.tiled_attention {{.*}} attributes {block_m = 128 : i64, block_n = 64 : i64, fattn.sm80.mma = #fattn.sm80_mma_plan<warps = 4, rows_per_warp = 32, q_operand = ldmatrix>, fattn.sm80.smem = #fattn.sm80_smem_plan<stages = 2, row_pitch = 272, q_offset = 0, kv_offset = 34816, stage_bytes = 34816, bytes = 104448>
// SM80-L3: fattn.sm80.copy_tile %{{.*}}[%{{.*}}], row_stride = %{{.*}}, into %{{.*}}[%{{.*}}], thread = %{{.*}}, seq_len = %arg7, rows = 128, row_bytes = 256, row_pitch = 272, threads = 128
// SM80-L3-NEXT: fattn.sm80.commit_group
// SM80-L3: scf.if
// SM80-L3: fattn.sm80.copy_tile %{{.*}}[%{{.*}}], row_stride = %{{.*}}, into %{{.*}}[%{{.*}}], thread = %{{.*}}, rows = 64, row_bytes = 256, row_pitch = 272, threads = 128
// SM80-L3: } else {
// SM80-L3: fattn.sm80.copy_tile %{{.*}}[%{{.*}}], row_stride = %{{.*}}, into %{{.*}}[%{{.*}}], thread = %{{.*}}, seq_len = %arg8, rows = 64, row_bytes = 256, row_pitch = 272, threads = 128
// SM80-L3: %[[GROUP:.*]] = fattn.sm80.commit_group
// SM80-L3: scf.for {{.*}} iter_args({{.*}}, %[[TOKEN:.*]] = %[[GROUP]]) -> ({{.*}}, !nvgpu.device.async.token)  : i32 {
// SM80-L3: nvgpu.device_async_wait %[[TOKEN]] {numGroups = 0 : i32}
// SM80-L3-NEXT: gpu.barrier
// SM80-L3: %[[NEXT:.*]] = fattn.sm80.commit_group
// SM80-L3: fattn.sm80.ldmatrix_x4 %{{[0-9]+}}{{$}}
// SM80-L3: fattn.sm80.mma_m16n8k16 [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], element_type = bf16
// SM80-L3: gpu.shuffle  xor %{{.*}}, %c1_i32{{.*}}, %c32_i32{{.*}} : f32
// SM80-L3: fattn.sm80.pack_pair %{{.*}}, %{{.*}}, element_type = bf16
// SM80-L3: fattn.sm80.ldmatrix_x4 %{{[0-9]+}} trans
// SM80-L3-NEXT: fattn.sm80.mma_m16n8k16
// SM80-L3: scf.yield {{.*}}, %[[NEXT]] : {{.*}}, !nvgpu.device.async.token
// SM80-L3: %[[LOOP:.*]]:137 = scf.for
// SM80-L3: nvgpu.device_async_wait %[[LOOP]]#136 {numGroups = 0 : i32}
// SM80-L3: fattn.sm80.stage_row %{{.*}}[0], scale = %{{.*}}, [%[[LOOP]]#0, %[[LOOP]]#1, %[[LOOP]]#4, %[[LOOP]]#5, {{.*}}], element_type = bf16
// SM80-L3: fattn.sm80.store_rows %{{.*}}[%{{.*}}], lane = %{{.*}}, into %{{.*}}[%{{.*}}], row_stride = %{{.*}}, seq_len = %arg7, rows = 32, row_bytes = 256, row_pitch = 272
// SM80: gpu.module @fattn_kernels [#nvvm.target<O = 3, chip = "sm_80">]
// SM80: llvm.func @attn(
// SM80: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// SM80: nvvm.cp.async.commit.group
// SM80: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// SM80: nvvm.mma.sync A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]  B[%{{.*}}, %{{.*}}]  C[{{.*}}]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// SM80-PTX: .target sm_80
// SM80-PTX: .visible .entry attn(
// SM80-PTX: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// SM80-PTX: cp.async.commit_group;
// SM80-PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// SM80-PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM80-PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16

func.func @attn(%q: memref<1x2x256x128xbf16>, %k: memref<1x2x256x128xbf16>, %v: memref<1x2x256x128xbf16>, %o: memref<1x2x256x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<1x2x256x128xbf16>, memref<1x2x256x128xbf16>, memref<1x2x256x128xbf16>) outs(%o : memref<1x2x256x128xbf16>) {causal = true}
  return
}
