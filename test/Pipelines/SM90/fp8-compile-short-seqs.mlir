// REQUIRES: ptxas
// RUN: rm -rf %t && fattn-compile %s --arch sm_90a --emit json --short-seqs -o %t
// RUN: FileCheck %s --check-prefix=DESC < %t/vt.json
// RUN: FileCheck %s --check-prefix=PTX < %t/vt.ptx
// RUN: FileCheck %s --check-prefix=NOSTG < %t/vt.ptx
// RUN: FileCheck %s --check-prefix=NARROW < %t/vt.ptx
// RUN: FileCheck %s --check-prefixes=NOMAP,ROWS < %t/rows.json
// RUN: FileCheck %s --check-prefixes=NOMAP,CAUSAL < %t/vt_causal.json
// RUN: FileCheck %s --check-prefixes=NOMAP,PERTENSOR < %t/vt_per_tensor.json
// RUN: rm -rf %t.long && fattn-compile %s --arch sm_90a --emit json -o %t.long
// RUN: FileCheck %s --check-prefixes=NOMAP,LONG < %t.long/vt.json
// RUN: rm -rf %t.longptx && fattn-compile %s --arch sm_90a --emit ptx -o %t.longptx
// RUN: FileCheck %s --check-prefix=REGSTORES < %t.longptx/vt.ptx
// RUN: FileCheck %s --check-prefix=WHOLE < %t.longptx/vt.ptx

// --short-seqs, FP8 head dim 128 with V^T without a mask: the narrow tail
// (a last partial tile of at most 64 keys computed on 64 columns: m64n64k32
// wgmmas for its S, four of them over the head dim), two stages of
// 224-key tiles, and O by TMA stores from a buffer of its own (128 rows of
// two 64-column bf16 atoms, 32768 bytes after the two e4m3 Q buffers), in the
// room of the default kernel's third stage. O's tensor map takes boxes of 64
// rows of one bf16 atom, as for 16-bit kernels.
// DESC: "dynamic_smem_bytes": 190560
// DESC: "narrow_tail": 64,
// DESC: "tuned_for": "short_seqs"
// DESC: "tensor": "v",
// DESC: "box": [
// DESC-NEXT: 1,
// DESC-NEXT: 1,
// DESC-NEXT: 64,
// DESC-NEXT: 64
// DESC-NEXT: ],
// DESC: "element_type": "bf16",
// DESC-NEXT: "name": "o_map",
// DESC-NEXT: "swizzle": "128B",
// DESC-NEXT: "tensor": "o",

// The epilogue: the store issuer waits until the previous item's stores have
// read the buffer, the warpgroup's barrier passes that on, O / l goes into
// the buffer, is fenced for the async proxy, and after the barrier the issuer
// stores the warpgroup's 64 rows, one TMA store per atom, and moves on.
// PTX: wgmma.mma_async.sync.aligned.m64n224k32.f32.e4m3.e4m3
// PTX: cp.async.bulk.wait_group.read 0;
// PTX-NEXT: $L__BB
// PTX-NEXT: bar.sync [[WGBAR:%r[0-9]+]], 128;
// PTX-COUNT-32: st.shared.b32
// PTX-NEXT: fence.proxy.async.shared::cta;
// PTX-NEXT: bar.sync [[WGBAR]], 128;
// PTX: mov.b32 [[C0:%r[0-9]+]], 0;
// PTX-NEXT: cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [[[MAP:%rd[0-9]+]], {[[C0]], [[ROW:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%rd[0-9]+}}];
// PTX-NEXT: mov.b32 [[C64:%r[0-9]+]], 64;
// PTX-NEXT: cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [[[MAP]], {[[C64]], [[ROW]], {{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%rd[0-9]+}}];
// PTX-NEXT: cp.async.bulk.commit_group;
// Shared memory outlives the last stores' reads.
// PTX: cp.async.bulk.wait_group.read 0;
// PTX-NEXT: ret;
// No O leaves by 4-byte st.global, as it does from the default kernel's
// registers (the 16-byte ones write the split tail's pieces, and the kernel
// has no LSE).
// NOSTG-NOT: st.global.b32

// V by rows (the producer transposes V), the causal kernel and per-tensor
// descales (where ptxas spills 4 bytes with the tuning) have no such tuning;
// without --short-seqs the kernel keeps three stages and stores O from
// registers.
// NOMAP-NOT: o_map
// ROWS: "tuned_for": "short_seqs"
// CAUSAL: "tuned_for": "short_seqs"
// PERTENSOR: "dynamic_smem_bytes": 219264
// PERTENSOR: "tuned_for": "short_seqs"
// LONG: "dynamic_smem_bytes": 219264
// NARROW-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// WHOLE-NOT: m64n64k32
// REGSTORES-COUNT-32: st.global.b32

func.func @vt(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x128x?xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?xf32>, %dk: memref<?x?xf32>, %dv: memref<?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x128x?xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

func.func @rows(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?xf32>, %dk: memref<?x?xf32>, %dv: memref<?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>)
  return
}

func.func @vt_causal(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x128x?xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?xf32>, %dk: memref<?x?xf32>, %dv: memref<?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x128x?xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) {value_layout = "transposed_wgmma_e4m3_k32", causal = true}
  return
}

func.func @vt_per_tensor(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x128x?xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<f32>, %dk: memref<f32>, %dv: memref<f32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x128x?xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<f32>, memref<f32>, memref<f32>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}
