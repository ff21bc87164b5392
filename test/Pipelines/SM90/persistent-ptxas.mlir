// REQUIRES: ptxas
// RUN: rm -rf %t && fattn-compile %s --arch sm_90a --emit json -o %t
// RUN: FileCheck %s --check-prefix=GRID-PT < %t/bf16_d128.json
// RUN: FileCheck %s --check-prefix=GRID-PT < %t/fp8_d128.json
// RUN: FileCheck %s --check-prefix=GRID-PT < %t/fp8_d256.json
// RUN: FileCheck %s --check-prefix=GRID-PT < %t/bf16_d128_causal.json
// RUN: FileCheck %s --check-prefix=GRID-CTA < %t/bf16_d128_window.json
// RUN: FileCheck %s --check-prefix=GRID-PT < %t/bf16_d256.json
// RUN: FileCheck %s --check-prefix=GRID-PT < %t/bf16_d256_causal.json
// RUN: FileCheck %s --check-prefix=GRID-PT < %t/fp8_d128_causal.json
// RUN: %ptxas -arch=sm_90a -v %t/bf16_d128.ptx -o %t/a.cubin 2>&1 | FileCheck %s --implicit-check-not=C7508
// RUN: %ptxas -arch=sm_90a -v %t/bf16_d128_causal.ptx -o %t/d.cubin 2>&1 | FileCheck %s --implicit-check-not=C7508
// RUN: %ptxas -arch=sm_90a -v %t/bf16_d256_causal.ptx -o %t/e.cubin 2>&1 | FileCheck %s --implicit-check-not=C7508
// RUN: %ptxas -arch=sm_90a -v %t/bf16_d256.ptx -o %t/h.cubin 2>&1 | FileCheck %s --implicit-check-not=C7508
// RUN: %ptxas -arch=sm_90a -v %t/fp8_d128.ptx -o %t/b.cubin 2>&1 | FileCheck %s --implicit-check-not=C7513
// RUN: %ptxas -arch=sm_90a -v %t/fp8_d256.ptx -o %t/c.cubin 2>&1 | FileCheck %s --implicit-check-not=C7513
// RUN: %ptxas -arch=sm_90a -v %t/bf16_d128_causal_softcap_lse.ptx -o %t/f.cubin 2>&1 | FileCheck %s --implicit-check-not=C7508
// RUN: %ptxas -arch=sm_90a -v %t/bf16_d256_causal_softcap_lse.ptx -o %t/g.cubin 2>&1 | FileCheck %s --implicit-check-not=C7508
// RUN: FileCheck %s --check-prefix=SOFTCAP128 < %t/bf16_d128_causal_softcap_lse.json
// RUN: FileCheck %s --check-prefix=SOFTCAP256 < %t/bf16_d256_causal_softcap_lse.json
// RUN: FileCheck %s --check-prefix=FP8-CAUSAL < %t/fp8_d128_causal.json
// RUN: %ptxas -arch=sm_90a -v %t/fp8_d128_causal.ptx -o %t/i.cubin 2>&1 | FileCheck %s --implicit-check-not=C7513
// RUN: FileCheck %s --check-prefix=LAZY-JSON < %t/bf16_d256.json
// RUN: FileCheck %s --check-prefix=LAZY-PTX < %t/bf16_d256_causal_softcap_lse.ptx
// RUN: FileCheck %s --check-prefix=LAZY-JSON < %t/bf16_d128.json
// RUN: FileCheck %s --check-prefix=GRID-PT --implicit-check-not=rescale_threshold < %t/bf16_d128_causal.json
// RUN: FileCheck %s --check-prefix=GRID-PT --implicit-check-not=rescale_threshold < %t/fp8_d256.json
// RUN: FileCheck %s --check-prefix=GRID-CTA --implicit-check-not=rescale_threshold < %t/bf16_d256_window.json
// RUN: FileCheck %s --check-prefix=LAZY-JSON < %t/bf16_d64_causal.json
// RUN: FileCheck %s --check-prefix=TAIL < %t/bf16_d64_causal.json
// RUN: %ptxas -arch=sm_90a -v %t/bf16_d64_causal.ptx -o %t/l.cubin 2>&1 | FileCheck %s --implicit-check-not=C7508
// RUN: FileCheck %s --check-prefix=GRID-PT --implicit-check-not=work_order < %t/bf16_d128_causal.json
// RUN: FileCheck %s --check-prefix=GRID-PT --implicit-check-not=work_order < %t/bf16_d256_causal.json
// RUN: FileCheck %s --check-prefix=GRID-PT --implicit-check-not=work_order < %t/fp8_d128_causal.json
// RUN: FileCheck %s --check-prefix=GRID-PT --implicit-check-not=rescale_threshold < %t/bf16_d64.json
// RUN: FileCheck %s --check-prefix=PP < %t/bf16_d256.ptx
// RUN: FileCheck %s --check-prefix=PP < %t/bf16_d256_causal.ptx
// RUN: FileCheck %s --check-prefix=PP < %t/fp8_d128_vt_causal.ptx
// RUN: %ptxas -arch=sm_90a -v %t/fp8_d128_vt_causal.ptx -o %t/j.cubin 2>&1 | FileCheck %s --implicit-check-not=C7513
// RUN: FileCheck %s --check-prefix=PP < %t/fp8_d128_vt_head_causal.ptx
// RUN: %ptxas -arch=sm_90a -v %t/fp8_d128_vt_head_causal.ptx -o %t/k.cubin 2>&1 | FileCheck %s --implicit-check-not=C7513
// RUN: FileCheck %s --check-prefix=ROWSUMS < %t/fp8_d128_vt_causal.json
// RUN: FileCheck %s --check-prefix=ROWSUMS < %t/fp8_d128_vt_head_causal.json
// RUN: FileCheck %s --check-prefix=NOPP --implicit-check-not="bar.arrive 1," < %t/bf16_d128.ptx
// RUN: FileCheck %s --check-prefix=NOPP --implicit-check-not="bar.arrive 1," < %t/bf16_d128_causal.ptx
// RUN: FileCheck %s --check-prefix=NOPP --implicit-check-not="bar.arrive 1," < %t/bf16_d256_causal_softcap_lse.ptx
// RUN: FileCheck %s --check-prefix=NOPP --implicit-check-not="bar.arrive 1," < %t/fp8_d128.ptx
// RUN: FileCheck %s --check-prefix=NOPP --implicit-check-not="bar.arrive 1," < %t/fp8_d256.ptx

// Head dim 256 rescales O only when a row's max moves past 2^8 (16-bit; the
// FP8 kernel here has per-block descales, whose O is always rescaled, and
// sliding windows do not, not measured), and so do head dim 64 causal (not
// without a mask) and 16-bit head dim 128 without a mask (not causal): the
// description says so, and the PTX has the warps' votes.
// LAZY-JSON: "meta": {
// LAZY-JSON-NEXT: "rescale_threshold": 8
// LAZY-PTX-COUNT-2: vote.sync.any.pred

// Pingpong where it measured faster (docs/PERF.md): 16-bit head dim 256
// without a mask and causal (not with softcap), and FP8 head dim 128 causal
// with V^T and the row sums on the tensor cores; not at 16-bit head dim 128
// (causal equal, and slower beside the split tail without a mask) nor for
// the other FP8 kernels. The turns open once and close once.
// PP: bar.arrive 1, 256;
// PP: bar.sync {{%r[0-9]+}}, 256;
// PP: bar.arrive {{%r[0-9]+}}, 256;
// PP: bar.sync 1, 256;
// NOPP: .entry
// With pingpong the FP8 causal kernels sum P's rows on the tensor cores,
// with per-(batch, head) descales too (without pingpong those spilled).
// ROWSUMS: "row_sums": "mma"

// fattn-compile runs --fattn-persistent-tiles where it measured faster
// (docs/PERF.md): causal, and without a mask. Not with a sliding window
// (not measured).
// GRID-PT: "grid": [
// GRID-PT-NEXT: [
// GRID-PT-NEXT: "num_sms",
// GRID-PT-NEXT: 1
// GRID-PT-NEXT: ]
// GRID-PT-NEXT: ]
// GRID-CTA: "grid": [
// GRID-CTA-NEXT: [
// GRID-CTA-NEXT: "seq_q",
// The persistent kernels assemble without spills: the work loop's item,
// ring ordinal and item count fit beside the consumers' accumulators. With
// softcap's tanh, the causal kernels take smaller KV tiles for that.
// SOFTCAP128: "block_n": 128
// SOFTCAP256: "block_n": 64
// FP8 head dim 128 with V by rows takes 192-key tiles causal too (32 / 232
// registers, P's bytes from a linear 2^x and the row sums on the tensor
// cores; 224 with V^T).
// FP8-CAUSAL: "block_n": 192
// The work order's tail at 16-bit head dim 64 causal (+2.7-3% at 2k): the
// launcher's tail_pairs after seq_k, and the order in the description. Not
// at 16-bit head dim 128 causal (4 bytes of spills) nor for FP8 (not
// measured).
// TAIL: "name": "seq_k",
// TAIL: "name": "tail_pairs",
// TAIL-NEXT: "type": "u32"
// TAIL: "work_order": {
// TAIL-NEXT: "ctas_per_pair": 1,
// TAIL-NEXT: "reverse_q_tiles": true
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @bf16_d128(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
func.func @bf16_d128_causal(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}
func.func @bf16_d128_window(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {window_left = 256 : i64, window_right = 0 : i64}
  return
}
func.func @bf16_d64(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>)
  return
}
func.func @bf16_d64_causal(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) {causal = true}
  return
}
func.func @bf16_d256_window(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>, %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>) outs(%o : memref<?x?x?x256xbf16>) {window_left = 256 : i64, window_right = 0 : i64}
  return
}
func.func @fp8_d128_causal(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<f32>, %dk: memref<f32>, %dv: memref<f32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<f32>, memref<f32>, memref<f32>) {causal = true}
  return
}
func.func @bf16_d256(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>, %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>) outs(%o : memref<?x?x?x256xbf16>)
  return
}
func.func @bf16_d256_causal(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>, %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>) outs(%o : memref<?x?x?x256xbf16>) {causal = true}
  return
}
func.func @fp8_d128(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<f32>, %dk: memref<f32>, %dv: memref<f32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<f32>, memref<f32>, memref<f32>)
  return
}
func.func @fp8_d256(%q: memref<?x?x?x256xf8E4M3FN>, %k: memref<?x?x?x256xf8E4M3FN>, %v: memref<?x?x?x256xf8E4M3FN>, %o: memref<?x?x?x256xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xf8E4M3FN>, memref<?x?x?x256xf8E4M3FN>, memref<?x?x?x256xf8E4M3FN>) outs(%o : memref<?x?x?x256xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {descale_block_q = 128 : i64, descale_block_kv = 128 : i64}
  return
}
func.func @bf16_d128_causal_softcap_lse(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>, %lse: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) lse(%lse : memref<?x?x?xf32>) {causal = true, softcap = 30.0 : f32}
  return
}
func.func @bf16_d256_causal_softcap_lse(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>, %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>, %lse: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>) outs(%o : memref<?x?x?x256xbf16>) lse(%lse : memref<?x?x?xf32>) {causal = true, softcap = 30.0 : f32}
  return
}
func.func @fp8_d128_vt_causal(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x128x?xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<f32>, %dk: memref<f32>, %dv: memref<f32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x128x?xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<f32>, memref<f32>, memref<f32>) {causal = true, value_layout = "transposed_wgmma_e4m3_k32"}
  return
}
func.func @fp8_d128_vt_head_causal(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x128x?xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?xf32>, %dk: memref<?x?xf32>, %dv: memref<?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x128x?xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) {causal = true, value_layout = "transposed_wgmma_e4m3_k32"}
  return
}
