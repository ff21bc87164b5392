// RUN: fattn-opt %s -split-input-file --fattn-sm80-pipeline="keep-target-ops=true" | FileCheck %s
// RUN: %if ptxas %{ rm -rf %t && fattn-compile %s --arch sm_80 --emit json -v -o %t 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=MLA < %t/mla_causal.ptx --implicit-check-not=ldmatrix.sync.aligned.m8n8.x4.trans --implicit-check-not=st.global %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=MMA < %t/mla_causal.ptx --implicit-check-not=mma.sync %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=MLA-JSON < %t/mla_causal.json %}

// V's head dim differing from Q's and K's on sm_80: S = Q K^T steps through
// Q's and K's head dim, P V and O through V's. Q, K and V share the row pitch
// of the wider head dim; each copy moves its own tensor's row bytes, and O
// leaves with V's.

// V wider than Q and K at the target level (L3), the pipeline's 128 x 64
// tiles: rows of 128 * 2 + 16 = 272 bytes; Q's and K's copies move 128 bytes
// a row, V's and O's 256.
// CHECK-LABEL: llvm.func @wide_value(
// CHECK:      fattn.sm80.copy_tile {{.*}} rows = 128, row_bytes = 128, row_pitch = 272
// CHECK:      fattn.sm80.copy_tile {{.*}} rows = 64, row_bytes = 128, row_pitch = 272
// CHECK:      fattn.sm80.copy_tile {{.*}} rows = 64, row_bytes = 256, row_pitch = 272
// CHECK:      fattn.sm80.store_rows {{.*}} rows = 32, row_bytes = 256, row_pitch = 272
func.func @wide_value(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}

// -----

// MLA's 192 and 128 as fattn-compile tunes it (head dim 192's tiles: 64
// query rows, 32 keys), without spills. Per KV tile and warp: S in 12 k16
// steps of 4 n8 tiles, P V in 2 k16 steps of V's 16 n8 tiles (8 transposed
// ldmatrix), each in the unmasked and the masked loop; O's 16 rows of 256
// bytes leave in 8 16-byte stores per lane.
// PTXAS-LABEL: Function properties for mla_causal
// PTXAS-NEXT:  0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// MMA-COUNT-160: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// MLA-COUNT-32: ldmatrix.sync.aligned.m8n8.x4.trans
// MLA-COUNT-8:  st.global.v4.b32
// MLA-JSON-DAG: "head_dim_qk": 192,
// MLA-JSON-DAG: "head_dim_v": 128,
// MLA-JSON-DAG: "block_m": 64,
// MLA-JSON-DAG: "block_n": 32,
func.func @mla_causal(%q: memref<?x?x?x192xbf16>, %k: memref<?x?x?x192xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x192xbf16>, memref<?x?x?x192xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}
