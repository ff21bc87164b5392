// REQUIRES: ptxas
// RUN: rm -rf %t && fattn-compile %s --arch sm_90a --emit json -o %t
// RUN: FileCheck %s < %t/fattn_fwd_d128_e4m3.json
// RUN: FileCheck %s --check-prefix=BLOCK < %t/fattn_fwd_d128_e4m3_ds3.json
// RUN: FileCheck %s --check-prefix=VBLOCK < %t/fattn_fwd_d128_e4m3_dsv3.json
// RUN: FileCheck %s --check-prefix=D256 < %t/fattn_fwd_d256_e4m3_causal.json
// RUN: test -s %t/fattn_fwd_d256_e4m3_causal.cubin
// RUN: rm -rf %t.ptx && fattn-compile %s --arch sm_90a --emit ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=OVERLAP < %t.ptx/fattn_fwd_d256_e4m3_causal.ptx
// RUN: FileCheck %s --check-prefix=PLAIN < %t.ptx/fattn_fwd_d256_e4m3_ds3.ptx
// RUN: FileCheck %s --check-prefix=WIDE < %t.ptx/fattn_fwd_d128_e4m3.ptx
// RUN: FileCheck %s --check-prefix=LINEAR < %t/fattn_fwd_d128_e4m3.json
// RUN: rm -rf %t.exp2 && fattn-compile %s --arch sm_90a --emit ptx --linear-exp2=false -o %t.exp2
// RUN: FileCheck %s --check-prefix=EXP2 --implicit-check-not=fma.rn.sat < %t.exp2/fattn_fwd_d128_e4m3.ptx

// fattn-compile's FP8 tiles (docs/PERF.md): at head dim 128 without a mask
// and V by rows 192-key tiles with 32 producer and 232 consumer registers,
// P's e4m3 bytes from a linear 2^x and the row sums on the tensor cores (224
// with the exp2s, --linear-exp2=false), or 128 with per-block K or V descales
// (whole tiles per block of 128 rows, also when only V's are per block); the
// overlapped loop (S of the next tile in flight during the softmax: a wait
// for all but one wgmma group), except at head dim 256 with per-block K/V
// descales, where it spills and the plain loop runs.
// The description carries the FP8 ABI.
// In the overlapped loop O leaves through the quad transpose (16-byte
// stores), in the plain one as 4-byte words.
// OVERLAP: wgmma.wait_group.sync.aligned 1;
// OVERLAP: st.global.v4.b32
// WIDE-DAG: setmaxnreg.dec.sync.aligned.u32 32;
// WIDE-DAG: setmaxnreg.inc.sync.aligned.u32 232;
// WIDE-DAG: wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3
// WIDE-DAG: fma.rn.sat.f32
// WIDE-DAG: wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3
// LINEAR: "meta": {
// LINEAR-NEXT: "exp2": "linear",
// LINEAR: "row_sums": "mma"
// LINEAR: "workspace_bytes_per_cta":
// EXP2-DAG: setmaxnreg.inc.sync.aligned.u32 232;
// EXP2-DAG: wgmma.mma_async.sync.aligned.m64n224k32.f32.e4m3.e4m3
// EXP2-DAG: ex2.approx.ftz.f32
// PLAIN-NOT: wgmma.wait_group.sync.aligned 1;
// PLAIN: st.global.b32
// CHECK: "block_n": 192,
// CHECK: "descale": {
// CHECK-NEXT: "k": {
// CHECK-NEXT: "rank": 0
// CHECK: "dtype": "e4m3",
// CHECK: "out_dtype": "bf16",
// CHECK: "name": "q_descale",
// CHECK-NEXT: "type": "ptr"
// CHECK: "name": "v_descale_stride_blk",
// CHECK: "element_type": "e4m3",
// BLOCK: "block_n": 128,
// BLOCK: "block": 128,
// BLOCK-NEXT: "rank": 3
// VBLOCK: "block_n": 128,
// VBLOCK: "descale": {
// VBLOCK-NEXT: "k": {
// VBLOCK-NEXT: "rank": 2
// VBLOCK: "v": {
// VBLOCK-NEXT: "block": 128,
// VBLOCK-NEXT: "rank": 3
// D256: "block_n": 128,
// D256: "causal": true,
func.func @fattn_fwd_d128_e4m3(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<f32>, %dk: memref<f32>, %dv: memref<f32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<f32>, memref<f32>, memref<f32>)
  return
}
func.func @fattn_fwd_d128_e4m3_ds3(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {descale_block_q = 128 : i64, descale_block_kv = 128 : i64}
  return
}
func.func @fattn_fwd_d128_e4m3_dsv3(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?xf32>, %dk: memref<?x?xf32>, %dv: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?xf32>, memref<?x?xf32>, memref<?x?x?xf32>) {descale_block_kv = 128 : i64}
  return
}
func.func @fattn_fwd_d256_e4m3_causal(%q: memref<?x?x?x256xf8E4M3FN>, %k: memref<?x?x?x256xf8E4M3FN>, %v: memref<?x?x?x256xf8E4M3FN>, %o: memref<?x?x?x256xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xf8E4M3FN>, memref<?x?x?x256xf8E4M3FN>, memref<?x?x?x256xf8E4M3FN>) outs(%o : memref<?x?x?x256xbf16>) {causal = true}
  return
}
func.func @fattn_fwd_d256_e4m3_ds3(%q: memref<?x?x?x256xf8E4M3FN>, %k: memref<?x?x?x256xf8E4M3FN>, %v: memref<?x?x?x256xf8E4M3FN>, %o: memref<?x?x?x256xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xf8E4M3FN>, memref<?x?x?x256xf8E4M3FN>, memref<?x?x?x256xf8E4M3FN>) outs(%o : memref<?x?x?x256xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {descale_block_q = 128 : i64, descale_block_kv = 128 : i64}
  return
}
