// RUN: fattn-opt %s --fattn-sm90-pipeline="keep-target-ops=true persistent=true pingpong=true" | FileCheck %s --implicit-check-not=nvvm.mbarrier --implicit-check-not=nvvm.cp.async.bulk.tensor
// RUN: fattn-opt %s --fattn-sm90-pipeline="keep-target-ops=true persistent=true pingpong=true" --convert-fattn-sm90-target-to-nvvm -o %t.split.mlir
// RUN: fattn-opt %s --fattn-sm90-pipeline="persistent=true pingpong=true" -o %t.whole.mlir
// RUN: diff %t.split.mlir %t.whole.mlir
// RUN: fattn-opt %s --fattn-sm90-pipeline | FileCheck %s --check-prefix=L4 --implicit-check-not=fattn.sm90

// fattn-sm90-pipeline's keep-target-ops=true stops at the sm_90a target ops
// (L3); --convert-fattn-sm90-target-to-nvvm then gives the pipeline's own
// kernel, and without the option the pipeline leaves no target op.

func.func @attn(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}

// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_
// CHECK-SAME: _persistent(
// CHECK: fattn.sm90.mbarrier_init
// CHECK: fattn.sm90.ring_stage
// CHECK: fattn.sm90.tma_load
// CHECK: fattn.sm90.named_barrier_arrive %{{.*}}, threads = 256
// CHECK: fattn.sm90.mbarrier_wait
// CHECK: fattn.sm90.wgmma

// L4: nvvm.mbarrier.try_wait.parity
