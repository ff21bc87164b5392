// RUN: fattn-opt %s --fattn-tile-grad="block-m=64 block-n=128" --convert-fattn-grad-to-nvvm-sm80="keep-target-ops=true" | FileCheck %s
// RUN: fattn-opt %s --fattn-sm80-grad-pipeline | FileCheck %s --check-prefix=L4

// `deterministic`: the kernels take one more pointer, dq_semaphore (a u32
// counter per Q tile, at its first row); the preprocess kernel zeroes the
// counters, and the main kernel adds each Q tile's dQ in its turn: thread 0
// waits (an acquire load, until the counter equals the KV tile's rank among
// the KV tiles that see the Q tile, here the window's first), the CTA adds,
// each thread fences, and thread 0 increments the counter after a fence.
// CHECK-LABEL: gpu.func @bwd_preprocess(
// CHECK-SAME: %{{.*}}: i64, %[[SEM:.*]]: !llvm.ptr<1>) kernel
// CHECK-SAME: fattn.grad_kernel = {block_m = 64 : i64, block_n = 128 : i64, deterministic,
// CHECK: %[[TID0:.*]] = arith.cmpi eq, %thread_id_x, %{{.*}} : index
// CHECK: scf.if %[[TID0]] {
// CHECK: %[[AT:.*]] = llvm.getelementptr %[[SEM]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
// CHECK: llvm.store %c0_i32, %[[AT]] {alignment = 4 : i64} : i32, !llvm.ptr<1>

// CHECK-LABEL: gpu.func @bwd_main(
// CHECK-SAME: %{{.*}}: i64, %[[MSEM:.*]]: !llvm.ptr<1>) kernel
// CHECK-SAME: deterministic
// The rank: this KV tile minus the first that sees the Q tile (the window's
// left edge, 100 keys, in tiles of 128).
// CHECK: %c100{{.*}} = arith.constant 100 : index
// CHECK: %[[FIRST:.*]] = arith.floordivsi %{{.*}}, %c128{{.*}} : index
// CHECK: %[[LO:.*]] = arith.select %{{.*}}, %c0{{.*}}, %[[FIRST]] : index
// CHECK: %[[RANKI:.*]] = arith.subi %block_id_x, %[[LO]] : index
// CHECK: %[[RANK:.*]] = arith.index_cast %[[RANKI]] : index to i32
// CHECK: %[[COUNTER:.*]] = llvm.getelementptr %[[MSEM]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: scf.while : () -> () {
// CHECK-NEXT: %[[NOW:.*]] = llvm.load %[[COUNTER]] atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK-NEXT: %[[WAIT:.*]] = arith.cmpi ne, %[[NOW]], %[[RANK]] : i32
// CHECK-NEXT: scf.condition(%[[WAIT]])
// CHECK: gpu.barrier
// CHECK: memref.atomic_rmw addf
// CHECK: memref.atomic_rmw addf
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: llvm.fence syncscope("device") acq_rel
// CHECK-NEXT: %c1_i32 = arith.constant 1 : i32
// CHECK-NEXT: llvm.atomicrmw add %[[COUNTER]], %c1_i32 syncscope("device") monotonic {alignment = 4 : i64} : !llvm.ptr<1>, i32
// CHECK: scf.yield

// CHECK-LABEL: gpu.func @bwd_postprocess(
// CHECK-SAME: %{{.*}}: i64, %{{.*}}: !llvm.ptr<1>) kernel

// L4: llvm.func @bwd_main(
// L4: llvm.load %{{.*}} atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// L4: llvm.fence syncscope("device") acq_rel
// L4: llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("device") monotonic

func.func @bwd(%q: memref<?x?x?x16xbf16>, %k: memref<?x?x?x16xbf16>, %v: memref<?x?x?x16xbf16>, %o: memref<?x?x?x16xbf16>, %do: memref<?x?x?x16xbf16>, %lse: memref<?x?x?xf32>, %dq: memref<?x?x?x16xbf16>, %dk: memref<?x?x?x16xbf16>, %dv: memref<?x?x?x16xbf16>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>, memref<?x?x?xf32>) outs(%dq, %dk, %dv : memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>) {window_left = 100 : i64, window_right = 20 : i64, deterministic}
  return
}
