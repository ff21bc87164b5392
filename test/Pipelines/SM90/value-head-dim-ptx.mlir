// REQUIRES: ptxas
// RUN: rm -rf %t && fattn-compile %s --arch sm_90a --emit json -v -o %t 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=MLA < %t/mla_causal.ptx --implicit-check-not=wgmma.mma_async --implicit-check-not=cp.async.bulk.tensor --implicit-check-not=st.global
// RUN: FileCheck %s --check-prefix=MLA-JSON < %t/mla_causal.json
// RUN: FileCheck %s --check-prefix=SOFTCAP < %t/mla_softcap_lse.ptx --implicit-check-not=wgmma.mma_async
// RUN: FileCheck %s --check-prefix=WIDE < %t/wide_value_window.ptx --implicit-check-not=cp.async.bulk.tensor --implicit-check-not=ld.shared.v4
// RUN: FileCheck %s --check-prefix=WIDE-ST < %t/wide_value_window.ptx --implicit-check-not=st.global
// RUN: FileCheck %s --check-prefix=WIDE-JSON < %t/wide_value_window.json

// V's head dim differing from Q's and K's, compiled as flash_attn_func asks
// for it (the tiles of the wider head dim, Tuning.h): S = Q K^T steps through
// Q's and K's head dim, P V and O span V's.

// Without spills, the heaviest (softcap and an LSE) included.
// PTXAS-LABEL: Function properties for mla_causal
// PTXAS-NEXT:  0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-LABEL: Function properties for mla_softcap_lse
// PTXAS-NEXT:  0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-LABEL: Function properties for wide_value_window
// PTXAS-NEXT:  0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// MLA's 192 and 128, causal: 80-key tiles (those of head dim 192). S is
// twelve m64n80k16 steps through 192 columns, P V five m64n128k16 steps
// through the 80 keys, each in the overlapped loop's body and its peeled
// copy; TMA copies Q's and K's three atoms and V's two; each thread stores
// O's 128 columns of its two rows as four 16-byte units each.
// MLA-COUNT-8:  cp.async.bulk.tensor.4d
// MLA-COUNT-24: wgmma.mma_async.sync.aligned.m64n80k16.f32.bf16.bf16
// MLA-COUNT-10: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// MLA-COUNT-8:  st.global.v4.b32

// 128 rows of Q and two stages of 80 keys: 3 x 16 KiB of Q, 2 x 30 KiB of K,
// 2 x 20 KiB of V, the barriers and 1 KiB of alignment.
// MLA-JSON-DAG: "head_dim_qk": 192,
// MLA-JSON-DAG: "head_dim_v": 128,
// MLA-JSON-DAG: "block_n": 80,
// MLA-JSON-DAG: "dynamic_smem_bytes": 152656,

// SOFTCAP-COUNT-24: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// SOFTCAP-COUNT-8:  wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16

// V wider than Q and K with a window (one CTA per Q tile): one atom of Q and
// K, two of V; O passes through Q's buffer, which holds its 128 columns, and
// leaves in eight 16-byte units per thread.
// WIDE-COUNT-4: cp.async.bulk.tensor.4d
// WIDE-COUNT-8: ld.shared.v4.b32
// WIDE-ST-COUNT-8: st.global.v4.b32
// WIDE-JSON-DAG: "head_dim_qk": 64,
// WIDE-JSON-DAG: "head_dim_v": 128,
// WIDE-JSON-DAG: "window_left": 64,

func.func @mla_causal(%q: memref<?x?x?x192xbf16>, %k: memref<?x?x?x192xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x192xbf16>, memref<?x?x?x192xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}

func.func @mla_softcap_lse(%q: memref<?x?x?x192xf16>, %k: memref<?x?x?x192xf16>, %v: memref<?x?x?x128xf16>, %o: memref<?x?x?x128xf16>, %lse: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x192xf16>, memref<?x?x?x192xf16>, memref<?x?x?x128xf16>) outs(%o : memref<?x?x?x128xf16>) lse(%lse : memref<?x?x?xf32>) {causal = true, softcap = 30.0 : f32}
  return
}

func.func @wide_value_window(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {window_left = 64 : i64, window_right = 32 : i64}
  return
}
