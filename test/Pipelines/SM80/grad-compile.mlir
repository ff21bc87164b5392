// REQUIRES: ptxas
// RUN: fattn-compile %s --arch sm_80 --emit json -o %t -v 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --input-file=%t/bwd_d64_bf16_causal.ptx --check-prefix=PTX
// RUN: FileCheck %s --input-file=%t/bwd_d128_bf16.json --check-prefix=JSON

// fattn-compile compiles a function whose body is one fattn.attention_grad
// into the three backward kernels (fattn-sm80-grad-pipeline) in one PTX,
// one cubin and one description. Head dims 64, 112 and 128, f16 and bf16,
// causal or not, a softcap: every kernel assembles without spills or stack
// (the main kernel of head dim 112 with a softcap is the nearest to 255
// registers).
// PTXAS-NOT: warning
// PTXAS-COUNT-15: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning

// PTX: .target sm_80
// PTX: .visible .entry bwd_d64_bf16_causal_preprocess(
// PTX: .maxntid 128, 1, 1
// PTX: shfl.sync.bfly.b32
// PTX: .visible .entry bwd_d64_bf16_causal_main(
// PTX: .maxntid 256, 1, 1
// PTX: cp.async.cg.shared.global [%{{.*}}], [%{{.*}}], 16, %r{{[0-9]+}};
// PTX: cp.async.commit_group;
// PTX: bar.sync 0;
// PTX: cp.async.commit_group;
// PTX: cp.async.wait_group 1;
// PTX: bar.sync 0;
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: ldmatrix.sync.aligned.m8n8.x2.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX: ex2.approx.ftz.f32
// PTX: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX: atom.global.add.f32
// PTX: cp.async.wait_group 0;
// PTX: .visible .entry bwd_d64_bf16_causal_postprocess(

// JSON: "align_bytes": 16,
// JSON: "arch": "sm_80",
// JSON: "block_m": 64,
// JSON: "block_n": 128,
// JSON: "causal": false,
// JSON: "cubin": "bwd_d128_bf16.cubin",
// JSON: "dtype": "bf16",
// JSON: "head_dim": 128,
// JSON: "kernels": [
// JSON: "dynamic_smem_bytes": 0,
// JSON-NEXT: "entry": "bwd_d128_bf16_preprocess",
// JSON-NEXT: "grid": [
// JSON-NEXT: [
// JSON-NEXT: "seq_q",
// JSON-NEXT: 64
// JSON: "heads_q",
// JSON: "role": "preprocess",
// JSON-NEXT: "threads": 128
// JSON: "dynamic_smem_bytes": 158208,
// JSON-NEXT: "entry": "bwd_d128_bf16_main",
// JSON-NEXT: "grid": [
// JSON-NEXT: [
// JSON-NEXT: "seq_k",
// JSON-NEXT: 128
// JSON: "heads_kv",
// JSON: "role": "main",
// JSON-NEXT: "threads": 256
// JSON: "entry": "bwd_d128_bf16_postprocess",
// JSON: "role": "postprocess",
// JSON: "kind": "attention_grad",
// JSON: "params": [
// JSON: "name": "q",
// JSON-NEXT: "type": "ptr"
// JSON: "name": "dq_accum",
// JSON-NEXT: "type": "ptr"
// JSON: "name": "batch",
// JSON-NEXT: "type": "u32"
// JSON: "name": "seq_k",
// JSON-NEXT: "type": "u32"
// JSON: "name": "q_stride_b",
// JSON-NEXT: "type": "u64"
// JSON: "name": "dv_stride_s",
// JSON-NEXT: "type": "u64"
// JSON: "name": "lse_stride_h",
// JSON-NEXT: "type": "u64"
// JSON: "ptx": "bwd_d128_bf16.ptx",
// JSON: "scale": 0.088388346135616302,
// JSON: "window_left": -1,
// JSON-NEXT: "window_right": -1,
// JSON-NEXT: "workspaces": [
// JSON: "name": "delta",
// JSON: "name": "dq_accum",
// JSON-NEXT: "shape": [
// JSON-NEXT: "batch",
// JSON-NEXT: "heads_q",
// JSON-NEXT: "seq_q",
// JSON-NEXT: 128

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
func.func @bwd_d112_bf16_causal_softcap(%q: memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, %do: memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %dq: memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dk: memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, %dv: memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) outs(%dq, %dk, %dv : memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>) {causal = true, softcap = 30.0 : f32}
  return
}
