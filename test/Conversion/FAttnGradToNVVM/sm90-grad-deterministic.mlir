// RUN: fattn-opt %s -split-input-file --fattn-tile-grad="block-m=64 block-n=128" --convert-fattn-grad-to-nvvm-sm90="keep-target-ops=true" | FileCheck %s

// `deterministic` on sm_90a: the counters as on sm_80
// (sm80-grad-deterministic.mlir); the staged dQ rows' bulk reductions are
// issued in the Q tile's turn, after the acquired counter (a proxy fence:
// the generic proxy's acquire before the async proxy's reductions), and
// complete, writes included (cp.async.bulk.wait_group 0, not .read), before
// the turn passes.
// CHECK-LABEL: gpu.func @bwd_main(
// CHECK-SAME: %{{.*}}: i64, %[[SEM:.*]]: !llvm.ptr<1>) kernel
// CHECK-SAME: deterministic
// CHECK: fattn.sm90.fence_proxy_async
// CHECK-NEXT: gpu.barrier
// CHECK: %[[COUNTER:.*]] = llvm.getelementptr %[[SEM]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
// CHECK: scf.while : () -> () {
// CHECK-NEXT: llvm.load %[[COUNTER]] atomic syncscope("device") acquire
// CHECK: gpu.barrier
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// CHECK: fattn.sm90.bulk_reduce_add
// CHECK-NEXT: fattn.sm90.bulk_commit_group
// CHECK: nvvm.cp.async.bulk.wait_group 0
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// CHECK-NEXT: llvm.fence syncscope("device") acq_rel
// CHECK-NEXT: gpu.barrier
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK: llvm.atomicrmw add %[[COUNTER]], %{{.*}} syncscope("device") monotonic
// CHECK: scf.yield

func.func @bwd(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>, %do: memref<?x?x?x128xbf16>, %lse: memref<?x?x?xf32>, %dq: memref<?x?x?x128xbf16>, %dk: memref<?x?x?x128xbf16>, %dv: memref<?x?x?x128xbf16>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?xf32>) outs(%dq, %dk, %dv : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) {causal = true, deterministic}
  return
}

// -----

// Head dim 64 on 128 keys: each warpgroup stages its share of dQ for the
// same rows; their reductions run in turn, each complete before the next.
// CHECK-LABEL: gpu.func @bwd_d64_main(
// CHECK: scf.while
// CHECK: arith.cmpi slt, %{{.*}}, %c64{{.*}} : index
// CHECK-NEXT: arith.cmpi sge, %{{.*}}, %c0{{.*}} : index
// CHECK: fattn.sm90.bulk_reduce_add
// CHECK: nvvm.cp.async.bulk.wait_group 0
// CHECK-NEXT: gpu.barrier
// CHECK: arith.cmpi slt, %{{.*}}, %c128{{.*}} : index
// CHECK-NEXT: arith.cmpi sge, %{{.*}}, %c64{{.*}} : index
// CHECK: fattn.sm90.bulk_reduce_add
// CHECK: nvvm.cp.async.bulk.wait_group 0
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// CHECK: llvm.atomicrmw add

func.func @bwd_d64(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>, %do: memref<?x?x?x64xbf16>, %lse: memref<?x?x?xf32>, %dq: memref<?x?x?x64xbf16>, %dk: memref<?x?x?x64xbf16>, %dv: memref<?x?x?x64xbf16>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?xf32>) outs(%dq, %dk, %dv : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) {deterministic}
  return
}
