// REQUIRES: ptxas
// RUN: fattn-compile %s --arch sm_90a --emit json -o %t -v 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --input-file=%t/bwd_d64_bf16_causal.ptx --check-prefix=PTX
// RUN: FileCheck %s --input-file=%t/bwd_d128_bf16_causal_softcap.ptx --check-prefix=PTX128
// RUN: FileCheck %s --input-file=%t/bwd_d128_bf16.json --check-prefix=JSON

// fattn-compile --arch sm_90a compiles a function whose body is one
// fattn.attention_grad into the three backward kernels of
// fattn-sm90-grad-pipeline (the main one on wgmma) in one PTX, one cubin and
// one description, which differs from sm_80's in its arch and the main
// kernel's KV tile (block_n 128 at head dim 128, 64 at 64), threads and
// shared memory. Head dims 64 and 128, f16 and bf16, causal or not,
// a softcap: every kernel assembles without spills or stack.
// PTXAS-NOT: warning
// PTXAS-COUNT-12: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning

// PTX: .version 8.0
// PTX: .target sm_90a
// PTX: .visible .entry bwd_d64_bf16_causal_preprocess(
// PTX: .maxntid 128, 1, 1
// PTX: shfl.sync.bfly.b32
// The main kernel: one warpgroup at head dim 64 (fattn-compile's tile,
// sm90GradBlockN); the next item's copies pending while this one's complete.
// PTX: .visible .entry bwd_d64_bf16_causal_main(
// PTX: .maxntid 128, 1, 1
// PTX: cp.async.cg.shared.global [%{{.*}}], [%{{.*}}], 16, %r{{[0-9]+}};
// PTX: cp.async.commit_group;
// PTX: cp.async.wait_group 1;
// PTX: fence.proxy.async.shared::cta;
// PTX: bar.sync 0;
// PTX: wgmma.fence.sync.aligned;
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// PTX: wgmma.commit_group.sync.aligned;
// PTX: wgmma.wait_group.sync.aligned 0;
// PTX: ex2.approx.ftz.f32
// PTX: cvt.rn.bf16x2.f32
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, 1, 1, 1, 1;
// PTX: cp.async.bulk.wait_group.read 0;
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, 0, 1, 1, 1;
// dQ staged in shared memory (after the wait for the previous tile's bulk
// reductions), one bulk reduction per row into dq_accum.
// PTX: st.shared.v2.b32
// PTX: fence.proxy.async.shared::cta;
// PTX: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd{{[0-9]+}}], [%r{{[0-9]+}}], %r{{[0-9]+}};
// PTX: cp.async.bulk.commit_group;
// PTX-NOT: atom.global.add.f32
// PTX: .visible .entry bwd_d64_bf16_causal_postprocess(

// Head dim 128: S^T and dP^T in parts of 32 queries (m64n32).
// PTX128: .visible .entry bwd_d128_bf16_causal_softcap_main(
// PTX128: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16
// PTX128: tanh.approx.f32
// PTX128: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, 1, 1, 1, 1;

// JSON: "align_bytes": 16,
// JSON: "arch": "sm_90a",
// JSON: "block_m": 64,
// JSON: "block_n": 128,
// JSON: "cubin": "bwd_d128_bf16.cubin",
// JSON: "head_dim": 128,
// JSON: "kernels": [
// JSON: "dynamic_smem_bytes": 0,
// JSON-NEXT: "entry": "bwd_d128_bf16_preprocess",
// JSON: "dynamic_smem_bytes": 185856,
// JSON-NEXT: "entry": "bwd_d128_bf16_main",
// JSON-NEXT: "grid": [
// JSON-NEXT: [
// JSON-NEXT: "seq_k",
// JSON-NEXT: 128
// JSON: "heads_kv",
// JSON: "role": "main",
// JSON-NEXT: "threads": 256
// JSON: "entry": "bwd_d128_bf16_postprocess",
// JSON: "kind": "attention_grad",
// JSON: "name": "dq_accum",
// JSON-NEXT: "type": "ptr"
// JSON: "ptx": "bwd_d128_bf16.ptx",
// JSON: "workspaces": [
// JSON: "name": "delta",
// JSON: "name": "dq_accum",

func.func @bwd_d64_bf16_causal(%q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %do: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %dq: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dk: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dv: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) outs(%dq, %dk, %dv : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) {causal = true}
  return
}
func.func @bwd_d128_bf16(%q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %do: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %dq: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dk: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dv: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) outs(%dq, %dk, %dv : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>)
  return
}
func.func @bwd_d128_f16_causal(%q: memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, %do: memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %dq: memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, %dk: memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, %dv: memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) outs(%dq, %dk, %dv : memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xf16, strided<[?, ?, ?, 1], offset: ?>>) {causal = true}
  return
}
func.func @bwd_d128_bf16_causal_softcap(%q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %do: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %dq: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dk: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dv: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) outs(%dq, %dk, %dv : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) {causal = true, softcap = 30.0 : f32}
  return
}
