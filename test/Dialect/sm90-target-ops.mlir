// RUN: fattn-opt %s | FileCheck %s
// RUN: fattn-opt %s | fattn-opt | FileCheck %s
// RUN: fattn-opt %s -mlir-print-op-generic | fattn-opt | FileCheck %s

// The sm_90a target ops (L3) round-trip, inside the llvm.func of a kernel as
// the sm_90a emitter builds them.

// CHECK-LABEL: llvm.func @ring
// CHECK-SAME: (%[[BASE:.*]]: !llvm.ptr<3>, %[[T:.*]]: i32, %[[PRED:.*]]: i1)
llvm.func @ring(%base: !llvm.ptr<3>, %t: i32, %pred: i1) {
  // CHECK: %[[S:.*]] = fattn.sm90.ring_stage %[[T]], stages = 2
  %stage = fattn.sm90.ring_stage %t, stages = 2
  // CHECK: %[[P:.*]] = fattn.sm90.ring_phase %[[T]], stages = 2
  %phase = fattn.sm90.ring_phase %t, stages = 2
  // CHECK: %[[BAR:.*]] = fattn.sm90.ring_barrier %[[BASE]][%[[S]]], offset = 163848
  %bar = fattn.sm90.ring_barrier %base[%stage], offset = 163848
  // CHECK: fattn.sm90.mbarrier_init %[[BAR]], count = 256, predicate = %[[PRED]]
  fattn.sm90.mbarrier_init %bar, count = 256, predicate = %pred
  // CHECK: fattn.sm90.mbarrier_wait %[[BAR]], parity = %[[P]]
  fattn.sm90.mbarrier_wait %bar, parity = %phase
  // CHECK: fattn.sm90.mbarrier_arrive %[[BAR]]
  fattn.sm90.mbarrier_arrive %bar
  // CHECK: fattn.sm90.mbarrier_arrive_expect_tx %[[BAR]], bytes = 32768
  fattn.sm90.mbarrier_arrive_expect_tx %bar, bytes = 32768
  llvm.return
}

// CHECK-LABEL: llvm.func @tma
// CHECK-SAME: (%[[MAP:.*]]: !llvm.ptr, %[[BASE:.*]]: !llvm.ptr<3>, %[[BAR:.*]]: !llvm.ptr<3>, %[[X:.*]]: i32, %[[Y:.*]]: i32)
llvm.func @tma(%map: !llvm.ptr, %base: !llvm.ptr<3>, %bar: !llvm.ptr<3>, %x: i32, %y: i32) {
  // CHECK: fattn.sm90.tma_load %[[MAP]][%[[X]], %[[Y]], %[[X]], %[[Y]]], %[[BASE]][%[[Y]]], barrier = %[[BAR]]
  fattn.sm90.tma_load %map[%x, %y, %x, %y], %base[%y], barrier = %bar
  // CHECK: fattn.sm90.tma_load %[[MAP]][%[[X]]], %[[BASE]][%[[Y]]], barrier = %[[BAR]]
  fattn.sm90.tma_load %map[%x], %base[%y], barrier = %bar
  llvm.return
}

// CHECK-LABEL: llvm.func @wgmma
// CHECK-SAME: (%[[DA:.*]]: i64, %[[DB:.*]]: i64)
llvm.func @wgmma(%da: i64, %db: i64) {
  %zero = llvm.mlir.zero : !llvm.struct<(f32, f32, f32, f32)>
  // CHECK: fattn.sm90.wgmma_fence
  fattn.sm90.wgmma_fence
  // CHECK: %[[S0:.*]] = fattn.sm90.wgmma %[[DA]], %[[DB]], %{{.*}}, element_type = bf16 : !llvm.struct<(f32, f32, f32, f32)>
  %s0 = fattn.sm90.wgmma %da, %db, %zero, element_type = bf16 : !llvm.struct<(f32, f32, f32, f32)>
  // CHECK: %[[S1:.*]] = fattn.sm90.wgmma %[[DA]], %[[DB]], %[[S0]], element_type = f8E4M3FN, accumulate : !llvm.struct<(f32, f32, f32, f32)>
  %s1 = fattn.sm90.wgmma %da, %db, %s0, element_type = f8E4M3FN, accumulate : !llvm.struct<(f32, f32, f32, f32)>
  // CHECK: fattn.sm90.wgmma_commit_group
  fattn.sm90.wgmma_commit_group
  // CHECK: fattn.sm90.wgmma_wait_group pending = 1
  fattn.sm90.wgmma_wait_group pending = 1
  llvm.return
}

// CHECK-LABEL: llvm.func @wgmma_rs
// CHECK-SAME: (%[[P:.*]]: i32, %[[DB:.*]]: i64, %[[O:.*]]: f32)
llvm.func @wgmma_rs(%p: i32, %db: i64, %o: f32) {
  // CHECK: fattn.sm90.wgmma_rs [%[[P]], %[[P]], %[[P]], %[[P]]], %[[DB]] transposed, [%[[O]], %[[O]], %[[O]], %[[O]]], element_type = bf16, accumulate : !llvm.struct<(f32, f32, f32, f32)>
  %0 = fattn.sm90.wgmma_rs [%p, %p, %p, %p], %db transposed, [%o, %o, %o, %o], element_type = bf16, accumulate : !llvm.struct<(f32, f32, f32, f32)>
  // CHECK: fattn.sm90.wgmma_rs [%[[P]], %[[P]], %[[P]], %[[P]]], %[[DB]], [%[[O]], %[[O]], %[[O]], %[[O]]], element_type = f8E4M3FN : !llvm.struct<(f32, f32, f32, f32)>
  %1 = fattn.sm90.wgmma_rs [%p, %p, %p, %p], %db, [%o, %o, %o, %o], element_type = f8E4M3FN : !llvm.struct<(f32, f32, f32, f32)>
  llvm.return
}

// CHECK-LABEL: llvm.func @stores
// CHECK-SAME: (%[[MAP:.*]]: !llvm.ptr, %[[BASE:.*]]: !llvm.ptr<3>, %[[X:.*]]: i32, %[[GLOBAL:.*]]: !llvm.ptr<1>)
llvm.func @stores(%map: !llvm.ptr, %base: !llvm.ptr<3>, %x: i32, %global: !llvm.ptr<1>) {
  // CHECK: fattn.sm90.fence_proxy_async
  fattn.sm90.fence_proxy_async
  // CHECK: fattn.sm90.tma_store %[[MAP]][%[[X]], %[[X]], %[[X]], %[[X]]], %[[BASE]][%[[X]]]
  fattn.sm90.tma_store %map[%x, %x, %x, %x], %base[%x]
  // CHECK: fattn.sm90.bulk_reduce_add %[[GLOBAL]], %[[X]], bytes = %[[X]]
  fattn.sm90.bulk_reduce_add %global, %x, bytes = %x
  // CHECK: fattn.sm90.bulk_commit_group
  fattn.sm90.bulk_commit_group
  // CHECK: fattn.sm90.bulk_wait_group_read pending = 0
  fattn.sm90.bulk_wait_group_read pending = 0
  // CHECK: %{{.*}} = fattn.sm90.wgmma_descriptor %[[X]][%[[X]]], leading_bytes = 16384
  %d = fattn.sm90.wgmma_descriptor %x[%x], leading_bytes = 16384
  llvm.return
}

// CHECK-LABEL: llvm.func @named_barriers
// CHECK-SAME: (%[[ID:.*]]: i32)
llvm.func @named_barriers(%id: i32) {
  // CHECK: fattn.sm90.named_barrier %[[ID]], threads = 256
  fattn.sm90.named_barrier %id, threads = 256
  // CHECK: fattn.sm90.named_barrier_arrive %[[ID]], threads = 128
  fattn.sm90.named_barrier_arrive %id, threads = 128
  llvm.return
}

// CHECK-LABEL: llvm.func @roles
llvm.func @roles() -> i1 {
  // CHECK: fattn.sm90.setmaxnreg decrease 24
  fattn.sm90.setmaxnreg decrease 24
  // CHECK: fattn.sm90.setmaxnreg increase 240
  fattn.sm90.setmaxnreg increase 240
  // CHECK: %[[E:.*]] = fattn.sm90.elect_one
  %e = fattn.sm90.elect_one
  // CHECK: llvm.return %[[E]] : i1
  llvm.return %e : i1
}

// CHECK-LABEL: llvm.func @row_reductions
// CHECK-SAME: (%[[X:.*]]: f32)
llvm.func @row_reductions(%x: f32) -> f32 {
  // CHECK: %[[M:.*]] = fattn.sm90.quad_reduce max %[[X]]
  %m = fattn.sm90.quad_reduce max %x
  // CHECK: %{{.*}} = fattn.sm90.quad_reduce add %[[M]]
  %l = fattn.sm90.quad_reduce add %m
  llvm.return %l : f32
}

// CHECK-LABEL: llvm.func @packing
// CHECK-SAME: (%[[X:.*]]: f32, %[[Y:.*]]: f32)
llvm.func @packing(%x: f32, %y: f32) {
  // CHECK: %{{.*}} = fattn.sm90.pack_pair %[[X]], %[[Y]], element_type = bf16
  %b = fattn.sm90.pack_pair %x, %y, element_type = bf16
  // CHECK: %{{.*}} = fattn.sm90.pack_pair %[[Y]], %[[X]], element_type = f16
  %h = fattn.sm90.pack_pair %y, %x, element_type = f16
  // CHECK: %{{.*}} = fattn.sm90.pack_e4m3 %[[X]], %[[Y]], %[[X]], %[[Y]]{{$}}
  %e = fattn.sm90.pack_e4m3 %x, %y, %x, %y
  // CHECK: %{{.*}} = fattn.sm90.pack_e4m3 %[[Y]], %[[X]], %[[Y]], %[[X]] by_permute
  %f = fattn.sm90.pack_e4m3 %y, %x, %y, %x by_permute
  llvm.return
}

// CHECK-LABEL: llvm.func @linear_bytes
// CHECK-SAME: (%[[U:.*]]: f32, %[[V:.*]]: f32)
llvm.func @linear_bytes(%u: f32, %v: f32) -> i32 {
  // CHECK: %[[B:.*]] = fattn.sm90.pack_bytes %[[U]], %[[V]], %[[V]], %[[U]]
  %b = fattn.sm90.pack_bytes %u, %v, %v, %u
  llvm.return %b : i32
}

// CHECK-LABEL: llvm.func @output_stores
// CHECK-SAME: (%[[O:.*]]: !llvm.ptr<1>, %[[OFF:.*]]: i64, %[[BASE:.*]]: !llvm.ptr<3>, %[[I:.*]]: i32, %[[X:.*]]: f32, %[[W:.*]]: i32, %[[B:.*]]: i1)
llvm.func @output_stores(%o: !llvm.ptr<1>, %off: i64, %base: !llvm.ptr<3>, %i: i32, %x: f32, %w: i32, %b: i1) -> vector<4xi32> {
  // CHECK: fattn.sm90.store_fragment [%[[X]], %[[X]], %[[X]], %[[X]]] scale %[[X]], %[[O]][%[[OFF]]], element_type = bf16
  fattn.sm90.store_fragment [%x, %x, %x, %x] scale %x, %o[%off], element_type = bf16
  // CHECK: %{{.*}} = fattn.sm90.quad_transpose %[[W]], %[[W]], %[[W]], %[[W]], odd = %[[B]], upper = %[[B]]
  %t = fattn.sm90.quad_transpose %w, %w, %w, %w, odd = %b, upper = %b
  // CHECK: fattn.sm90.stage_fragment [%[[X]], %[[X]]] scale %[[X]], %[[BASE]][%[[I]]], row_byte = %[[I]], swizzle = %[[I]], atom_bytes = 16384, element_type = f16
  fattn.sm90.stage_fragment [%x, %x] scale %x, %base[%i], row_byte = %i, swizzle = %i, atom_bytes = 16384, element_type = f16
  // CHECK: %[[U:.*]] = fattn.sm90.load_swizzled_unit %[[BASE]][%[[I]], %[[I]]], atom_bytes = 8192
  %u = fattn.sm90.load_swizzled_unit %base[%i, %i], atom_bytes = 8192
  // CHECK: llvm.return %[[U]] : vector<4xi32>
  llvm.return %u : vector<4xi32>
}

// CHECK-LABEL: llvm.func @value_transpose
// CHECK-SAME: (%[[FROM:.*]]: i32, %[[TO:.*]]: i32, %[[S0:.*]]: i32, %[[S1:.*]]: i32)
llvm.func @value_transpose(%from: i32, %to: i32, %s0: i32, %s1: i32) {
  // CHECK: %[[W0:.*]], %[[W1:.*]], %[[W2:.*]], %[[W3:.*]] = fattn.sm90.ldmatrix_x4 %[[FROM]]
  %w:4 = fattn.sm90.ldmatrix_x4 %from
  // CHECK: %[[R0:.*]], %[[R1:.*]], %[[R2:.*]], %[[R3:.*]] = fattn.sm90.permute_bytes %[[W0]], %[[W1]], %[[W2]], %[[W3]], selectors = [%[[S0]], %[[S1]]]
  %r:4 = fattn.sm90.permute_bytes %w#0, %w#1, %w#2, %w#3, selectors = [%s0, %s1]
  // CHECK: fattn.sm90.stmatrix_x4_trans %[[TO]], [%[[R3]], %[[R2]], %[[R1]], %[[R0]]]
  fattn.sm90.stmatrix_x4_trans %to, [%r#3, %r#2, %r#1, %r#0]
  llvm.return
}

// CHECK-LABEL: llvm.func @warp_uniform
// CHECK-SAME: (%[[T:.*]]: i32)
llvm.func @warp_uniform(%t: i32) -> i32 {
  // CHECK: %[[WG:.*]] = fattn.sm90.warp_uniform %[[T]]
  %wg = fattn.sm90.warp_uniform %t
  // CHECK: llvm.return %[[WG]] : i32
  llvm.return %wg : i32
}

// CHECK-LABEL: llvm.func @shared_regions
llvm.func @shared_regions() -> i32 {
  // CHECK: %{{.*}} = fattn.sm90.smem_region q_buffers, offset = 0, bytes = 32768
  %q = fattn.sm90.smem_region q_buffers, offset = 0, bytes = 32768
  // CHECK: %{{.*}} = fattn.sm90.smem_region key_ring, offset = 32768, bytes = 65536
  %k = fattn.sm90.smem_region key_ring, offset = 32768, bytes = 65536
  // CHECK: %[[BAR:.*]] = fattn.sm90.smem_region barriers, offset = 163840, bytes = 72
  %bar = fattn.sm90.smem_region barriers, offset = 163840, bytes = 72
  // CHECK: llvm.return %[[BAR]] : i32
  llvm.return %bar : i32
}

// A persistent kernel's work item: without a tail, mask, reversal or
// multipliers, then with all of them (fast q_tiles and heads).
// CHECK-LABEL: llvm.func @work_item
// CHECK-SAME: (%[[I:.*]]: i32, %[[N:.*]]: i32, %[[P:.*]]: i32, %[[H:.*]]: i32, %[[G:.*]]: i32, %[[T:.*]]: i32, %[[M0:.*]]: i32, %[[L0:.*]]: i32, %[[M2:.*]]: i32, %[[L2:.*]]: i32)
llvm.func @work_item(%i: i32, %n: i32, %p: i32, %h: i32, %g: i32, %t: i32, %m0: i32, %l0: i32, %m2: i32, %l2: i32) -> i32 {
  // CHECK: %[[Q:.*]], %[[HEAD:.*]], %[[B:.*]] = fattn.sm90.work_item %[[I]], q_tiles = %[[N]], pairs = %[[P]], heads = %[[H]], grid = %[[G]], ctas_per_pair = 1, fast_divisors = [false, false]{{$}}
  %plain:3 = fattn.sm90.work_item %i, q_tiles = %n, pairs = %p, heads = %h, grid = %g, ctas_per_pair = 1, fast_divisors = [false, false]
  // CHECK: fattn.sm90.work_item %[[Q]], q_tiles = %[[N]], pairs = %[[P]], heads = %[[H]], grid = %[[G]], ctas_per_pair = 3, fast_divisors = [true, true] magic(%[[M0]], %[[L0]], %[[M2]], %[[L2]]) tail_pairs = %[[T]] masked reverse_q_tiles{{$}}
  %all:3 = fattn.sm90.work_item %plain#0, q_tiles = %n, pairs = %p, heads = %h, grid = %g, ctas_per_pair = 3, fast_divisors = [true, true] magic(%m0, %l0, %m2, %l2) tail_pairs = %t masked reverse_q_tiles
  // CHECK: fattn.sm90.work_item %[[HEAD]], q_tiles = %[[N]], pairs = %[[P]], heads = %[[H]], grid = %[[G]], ctas_per_pair = 4, fast_divisors = [false, true] magic(%[[M0]], %[[L0]]) masked{{$}}
  %masked:3 = fattn.sm90.work_item %plain#1, q_tiles = %n, pairs = %p, heads = %h, grid = %g, ctas_per_pair = 4, fast_divisors = [false, true] magic(%m0, %l0) masked
  // CHECK: fattn.sm90.work_item %[[B]], q_tiles = %[[N]], pairs = %[[P]], heads = %[[H]], grid = %[[G]], ctas_per_pair = 1, fast_divisors = [false, false] reverse_q_tiles{{$}}
  %reversed:3 = fattn.sm90.work_item %plain#2, q_tiles = %n, pairs = %p, heads = %h, grid = %g, ctas_per_pair = 1, fast_divisors = [false, false] reverse_q_tiles
  llvm.return %reversed#2 : i32
}
