// RUN: fattn-compile %s --arch sm_80 --emit ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx

// The PTX of fattn-sm80-pipeline (through gpu-module-to-binary) shows each
// Ampere feature.
// CHECK: .target sm_80
// CHECK: .extern .shared .align 16 .b8 fattn_smem[];
// CHECK-LABEL: .visible .entry fattn_fwd_d64_bf16_causal(
// CHECK: .maxntid 128, 1, 1
// CHECK: cp.async.cg.shared.global [%{{.*}}], [%{{.*}}], 16, %r{{[0-9]+}};
// CHECK-DAG: cp.async.commit_group;
// CHECK-DAG: cp.async.wait_group 1;
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG: cp.async.wait_group 0;
// CHECK-DAG: bar.sync 0;
// CHECK-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: ex2.approx.ftz.f32
// CHECK-DAG: cvt.rn.bf16x2.f32
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
func.func @fattn_fwd_d64_bf16_causal(%q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {causal = true}
  return
}
