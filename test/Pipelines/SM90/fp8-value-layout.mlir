// REQUIRES: ptxas
// RUN: rm -rf %t && fattn-compile %s --arch sm_90a --emit json -o %t
// RUN: FileCheck %s --check-prefixes=JSON,D128 < %t/vt_d128.json
// RUN: FileCheck %s --check-prefixes=JSON,D256 < %t/vt_d256_causal.json
// RUN: FileCheck %s --check-prefix=ROWS-JSON --implicit-check-not=value_layout < %t/rows_d128.json
// RUN: test -s %t/vt_d128.cubin && test -s %t/vt_d256_causal.cubin
// RUN: rm -rf %t.ptx && fattn-compile %s --arch sm_90a --emit ptx -o %t.ptx
// RUN: FileCheck %s --check-prefixes=PTX,PTX128 -DNAME=vt_d128 --implicit-check-not=ldmatrix --implicit-check-not=stmatrix < %t.ptx/vt_d128.ptx
// RUN: FileCheck %s --check-prefixes=PTX,PTX256 -DNAME=vt_d256_causal --implicit-check-not=ldmatrix --implicit-check-not=stmatrix < %t.ptx/vt_d256_causal.ptx
// RUN: FileCheck %s --check-prefix=ROWS < %t.ptx/rows_d128.ptx
// RUN: FileCheck %s --check-prefix=REGS128 < %t.ptx/vt_d128.ptx
// RUN: FileCheck %s --check-prefix=RSUM < %t/vt_d128.json
// RUN: FileCheck %s --check-prefixes=JSON,D256 --implicit-check-not=row_sums < %t/vt_d256_causal.json
// RUN: FileCheck %s --check-prefix=LINEAR < %t.ptx/vt_d128.ptx
// RUN: rm -rf %t.exp2 && fattn-compile %s --arch sm_90a --emit ptx --linear-exp2=false -o %t.exp2
// RUN: FileCheck %s --check-prefix=EXP2 --implicit-check-not=fma.rn.sat < %t.exp2/vt_d128.ptx
// RUN: rm -rf %t.exp2j && fattn-compile %s --arch sm_90a --emit json --linear-exp2=false -o %t.exp2j
// RUN: FileCheck %s --check-prefix=EXP2-JSON --implicit-check-not=exp2 < %t.exp2j/vt_d128.json

// fattn-compile on FP8 with V stored as V^T (value_layout =
// "transposed_wgmma_e4m3_k32", V [batch, kv_heads, head_dim, keys]) at head
// dims 128 (per-tensor descales, 224-key tiles) and 256 (causal, 128-key
// tiles). The description says "value_layout" and gives V's tensor map a
// box of head_dim rows x 128 keys ([1, 1, head_dim, 128], logical dims
// [batch, heads, head_dim, keys]); Q and K keep their block rows.
// JSON: "name": "k_map"
// JSON-NEXT: "oob_fill": "zero",
// JSON-NEXT: "swizzle": "128B",
// JSON-NEXT: "tensor": "k",
// JSON-NEXT: "type": "tensormap"
// JSON-NEXT: },
// JSON-NEXT: {
// JSON-NEXT: "box": [
// JSON-NEXT: 1,
// JSON-NEXT: 1,
// D128-NEXT: 128,
// D256-NEXT: 256,
// JSON-NEXT: 128
// JSON-NEXT: ],
// JSON: "element_type": "e4m3",
// JSON: "name": "v_map",
// JSON: "tensor": "v",
// JSON: "value_layout": "transposed_wgmma_e4m3_k32",
// The same op with V by rows: V's box is its block rows (192-key tiles,
// docs/FP8.md), no "value_layout".
// ROWS-JSON: "name": "k_map"
// ROWS-JSON: "box": [
// ROWS-JSON-NEXT: 1,
// ROWS-JSON-NEXT: 1,
// ROWS-JSON-NEXT: 192,
// ROWS-JSON-NEXT: 128
// ROWS-JSON: "name": "v_map",

// In the PTX, V's tensor map (the last parameter) feeds TMA copies of V^T
// straight into shared memory (two boxes per 224-key stage at head dim 128,
// one per 128-key stage at 256), the products are e4m3 wgmma, and the
// producer transposes nothing: no ldmatrix, no stmatrix anywhere
// (--implicit-check-not).
// PTX: .target sm_90a
// PTX: .param .align 64 .b8 [[NAME]]_param_[[VP:[0-9]+]][128]{{$}}
// PTX: mov.b64 %[[VPARAM:rd[0-9]+]], [[NAME]]_param_[[VP]];
// PTX-NEXT: cvta.param.u64 %[[VMAP:rd[0-9]+]], %[[VPARAM]];
// PTX128-COUNT-2: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%[[VMAP]], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}], [%rd{{[0-9]+}}{{(\+[0-9]+)?}}];
// PTX256: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%[[VMAP]], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}], [%rd{{[0-9]+}}{{(\+[0-9]+)?}}];
// PTX256-NOT: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%[[VMAP]],
// At head dim 128 the tensor cores sum P's rows too (row-sum-mma): an
// m64n8k32 wgmma after each k step of P V, and the consumers get 240
// registers (the producer 24).
// The description says so (for whoever models the kernel's numerics), and
// that P's e4m3 bytes come from a linear 2^x (linear-exp2, with the rescale
// threshold 0.8, pingpong, two Q buffers and the split tail's workspace):
// RSUM: "meta": {
// RSUM-NEXT: "exp2": "linear",
// RSUM-NEXT: "exp2_offset": -0.44999998800000002,
// RSUM-NEXT: "rescale_threshold": 0.80000001200000004,
// RSUM-NEXT: "row_sums": "mma"
// RSUM: "workspace_bytes_per_cta":
// LINEAR: bar.sync
// LINEAR: fma.rn.sat.f32
// LINEAR: cvt.rn.f16x2.f32
// LINEAR: fma.rn.f16x2
// LINEAR: prmt.b32
// fattn-compile --linear-exp2=false keeps the exp2s and the e4m3 conversions
// (and the schedule from before: no threshold).
// EXP2: ex2.approx.ftz.f32
// EXP2: cvt.rn.satfinite.e4m3x2.f32
// EXP2-JSON: "meta": {
// EXP2-JSON-NEXT: "row_sums": "mma"
// EXP2-JSON-NEXT: },
// REGS128: setmaxnreg.dec.sync.aligned.u32 24;
// REGS128: setmaxnreg.inc.sync.aligned.u32 240;
// PTX128: wgmma.mma_async.sync.aligned.m64n224k32.f32.e4m3.e4m3
// PTX128: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// PTX128: wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {{.*}}, 0, 1, 1;
// PTX256-NOT: m64n8k32
// PTX256: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// PTX256: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// Without value_layout the producer transposes V (so the CHECK-NOTs above
// can fail).
// ROWS: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// ROWS: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
func.func @vt_d128(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x128x?xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<f32>, %dk: memref<f32>, %dv: memref<f32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x128x?xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<f32>, memref<f32>, memref<f32>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}
func.func @vt_d256_causal(%q: memref<?x?x?x256xf8E4M3FN>, %k: memref<?x?x?x256xf8E4M3FN>, %v: memref<?x?x256x?xf8E4M3FN>, %o: memref<?x?x?x256xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xf8E4M3FN>, memref<?x?x?x256xf8E4M3FN>, memref<?x?x256x?xf8E4M3FN>) outs(%o : memref<?x?x?x256xbf16>) {causal = true, value_layout = "transposed_wgmma_e4m3_k32"}
  return
}
func.func @rows_d128(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<f32>, %dk: memref<f32>, %dv: memref<f32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<f32>, memref<f32>, memref<f32>)
  return
}
