// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --convert-fattn-to-nvvm-sm90 | FileCheck %s

// The kernel: tensor maps as grid-constant byval parameters, a producer
// warpgroup (setmaxnreg decrease, elect.sync, TMA into the ring guarded by
// expect_tx on full barriers and waits on empty barriers), two consumer
// warpgroups (SS wgmma for Q K^T, online softmax with quad shuffles and
// ex2.approx.ftz, RS wgmma via inline asm for P V, release of the stage).
// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @d128_bf16
// CHECK-NEXT: return
// CHECK: gpu.module @fattn_sm90 [#nvvm.target<chip = "sm_90a", features = "+ptx80">]
// CHECK: llvm.mlir.global external @fattn_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_m128n128s2(
// CHECK-SAME: %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// CHECK-SAME: fattn.kernel_description = "{{.*}}tensormap
// CHECK-SAME: nvvm.maxntid = array<i32: 384, 1, 1>
// CHECK: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.setmaxregister decrease 24
// CHECK: nvvm.elect.sync
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK: llvm.addrspacecast %{{.*}} : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.setmaxregister increase 240
// The default schedule overlaps inside each consumer warpgroup. Prologue:
// S of the first tile, its K stage handed back, its softmax.
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-COUNT-7: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,
// CHECK: nvvm.mbarrier.arrive
// CHECK: llvm.cond_br %{{.*}}, ^{{.*}}, ^{{.*}}(%{{.*}} : !llvm.struct
// CHECK: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, f32
// CHECK: nvvm.shfl.sync bfly
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: llvm.fptrunc %{{.*}} : vector<2xf32> to vector<2xbf16>
// Loop: S of tile j and P V of tile j - 1 behind one fence, a wait for S
// only, the softmax, then the wait for P V, V handed back, O rescaled.
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-8: nvvm.wgmma.mma_async
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.mbarrier.arrive
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.mbarrier.arrive
// CHECK: llvm.fmul
// Epilogue: the last P V.
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.mbarrier.arrive
// O / l through Q's buffer (one CTA per Q tile): 4-byte shared stores, the
// warpgroup's named barrier 12 + wg, 16-byte units out.
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK: %[[BASE:.*]] = llvm.mlir.constant(12 : i32) : i32
// CHECK-NEXT: %[[EPI:.*]] = llvm.add %[[BASE]], %{{.*}} : i32
// CHECK-NEXT: %[[THREADS:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: nvvm.barrier id = %[[EPI]] number_of_threads = %[[THREADS]]
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
func.func @d128_bf16(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}

// -----

// f16, d64, causal with LSE and softcap: tanh.approx, lg2 for the LSE, f32
// stores of the LSE.
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d64_f16_m128n128s2_causal_softcap_lse(
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK: "tanh.approx.f32 $0, $1;"
// CHECK: "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK: "lg2.approx.f32 $0, $1;"
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
func.func @d64_f16(%q: memref<?x?x?x64xf16>, %k: memref<?x?x?x64xf16>, %v: memref<?x?x?x64xf16>, %o: memref<?x?x?x64xf16>, %lse: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf16>, memref<?x?x?x64xf16>, memref<?x?x?x64xf16>) outs(%o : memref<?x?x?x64xf16>) lse(%lse : memref<?x?x?xf32>) {causal = true, softcap = 30.0 : f32}
  return
}
