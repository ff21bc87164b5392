// RUN: fattn-opt %s --fattn-sm90-pipeline="block-n=64 intra-wg-overlap=false kernel-name=fattn_sm90_d256_e4m3_causal_lse" -o %t.mlir
// RUN: mlir-opt %t.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.isa.mlir %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=DESC < %t.mlir

// A held-out FP8 configuration (head dim 256, per-block descales, causal,
// LSE, 64-key tiles): S = Q K^T is e4m3 SS wgmma with k = 32; the producer
// warpgroup (24 registers, the consumers 240) reads V's staging slot with
// ldmatrix, regroups bytes with prmt and writes V^T with stmatrix.trans
// (32-bit shared addresses);
// P becomes e4m3 with two cvt.rn.satfinite.e4m3x2 per A register (keys
// 2q, 2q + 1, 2q + 8, 2q + 9 of a 16-key group: the key permutation of
// --fattn-fp8-layout), here (per-block V descales above head dim 128)
// merged by prmt, and feeds the RS e4m3 wgmma (N = head dim) from
// registers.
// CHECK: .target sm_90a
// CHECK-LABEL: .visible .entry fattn_sm90_d256_e4m3_causal_lse(
// CHECK-DAG: setmaxnreg.dec.sync.aligned.u32 24;
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 240;
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%r{{[0-9]+}}{{(\+[0-9]+)?}}];
// CHECK-DAG: prmt.b32
// CHECK-DAG: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%r{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// CHECK-DAG: fence.proxy.async.shared::cta
// CHECK-DAG: bar.sync {{.*}}, 128;
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// CHECK-DAG: cvt.rn.satfinite.e4m3x2.f32 %rs{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}};
// P is rounded as 256 P: +8 on the exp2 argument, and -8 on the LSE's log2.
// CHECK-DAG: add.rn.f32 {{.*}}, 0f41000000;
// CHECK-DAG: add.rn.f32 {{.*}}, 0fC1000000;
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 {{.*}}}, {%r{{[0-9]+}},%r{{[0-9]+}},%r{{[0-9]+}},%r{{[0-9]+}}}, %rd{{[0-9]+}}, 1, 1, 1;
// CHECK-NOT: wgmma.mma_async.sync.aligned.{{.*}}.bf16
// The description: e4m3 inputs, bf16 output, the descales and 128-column
// e4m3 tensor maps.
// DESC: \22descale\22:{\22k\22:{\22block\22:128,\22rank\22:3},\22q\22:{\22block\22:64,\22rank\22:3},\22v\22:{\22block\22:128,\22rank\22:3}},\22dtype\22:\22e4m3\22
// DESC-SAME: \22out_dtype\22:\22bf16\22
// DESC-SAME: {\22name\22:\22k_descale_stride_blk\22,\22type\22:\22u64\22}
// DESC-SAME: {\22box\22:[1,1,64,128],\22element_strides\22:[1,1,1,1],\22element_type\22:\22e4m3\22,{{.*}}\22name\22:\22k_map\22
func.func @attn(%q: memref<?x?x?x256xf8E4M3FN>, %k: memref<?x?x?x256xf8E4M3FN>, %v: memref<?x?x?x256xf8E4M3FN>, %o: memref<?x?x?x256xbf16>, %lse: memref<?x?x?xf32>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xf8E4M3FN>, memref<?x?x?x256xf8E4M3FN>, memref<?x?x?x256xf8E4M3FN>) outs(%o : memref<?x?x?x256xbf16>) lse(%lse : memref<?x?x?xf32>)
                  descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {causal = true, descale_block_q = 64 : i64, descale_block_kv = 128 : i64}
  return
}
