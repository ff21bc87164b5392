// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=fattn_sm90_d128_bf16" -o %t.mlir
// RUN: mlir-opt %t.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.isa.mlir %t.ptx
// RUN: FileCheck %s < %t.ptx

// The PTX of fattn-sm90-pipeline shows each Hopper feature: TMA bulk tensor
// copies completing on mbarriers, the full/empty barrier waits, wgmma (SS for
// Q K^T with both operands K-major, RS with A from registers for P V),
// setmaxnreg, and the tensor maps as 64-byte-aligned by-value parameters.
// CHECK: .target sm_90a
// CHECK-LABEL: .visible .entry fattn_sm90_d128_bf16(
// CHECK: .param .align 64 .b8 fattn_sm90_d128_bf16_param_{{[0-9]+}}[128]
// CHECK: .maxntid 384, 1, 1
// CHECK-DAG: mbarrier.init.shared.b64
// CHECK-DAG: setmaxnreg.dec.sync.aligned.u32 24;
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 240;
// CHECK-DAG: mbarrier.arrive.expect_tx.shared.b64
// CHECK-DAG: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: mbarrier.try_wait.parity.shared.b64
// CHECK-DAG: wgmma.fence.sync.aligned;
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, {%r{{[0-9]+}},%r{{[0-9]+}},%r{{[0-9]+}},%r{{[0-9]+}}}, %rd{{[0-9]+}}, 1, 1, 1, 1;
// CHECK-DAG: wgmma.commit_group.sync.aligned;
// CHECK-DAG: wgmma.wait_group.sync.aligned 0;
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: ex2.approx.ftz.f32
// CHECK-DAG: cvt.rn.bf16x2.f32
// CHECK-DAG: mbarrier.arrive.shared.b64
func.func @attn(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
