// REQUIRES: ptxas
// RUN: rm -rf %t && fattn-compile %s --arch sm_80 --emit json -v -o %t 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=MMA < %t/d40_causal.ptx --implicit-check-not=mma.sync
// RUN: FileCheck %s --check-prefix=LDM < %t/d40_causal.ptx --implicit-check-not=ldmatrix.sync --implicit-check-not=st.global.v4
// RUN: FileCheck %s --check-prefix=D136 < %t/d136.ptx --implicit-check-not=st.global.v4
// RUN: FileCheck %s --check-prefix=D40-JSON < %t/d40_causal.json
// RUN: FileCheck %s --check-prefix=D104-JSON < %t/d104_softcap.json
// RUN: FileCheck %s --check-prefix=D248-JSON < %t/d248_softcap.json

// sm_80 head dims that are multiples of 8 but not of 16, as fattn-compile
// tunes them: each assembles without spills or stack, with every mask, the
// softcap, the LSE, f16 and V's head dim differing either way. Tiles: 128
// query rows up to 96 and at 128, 64 from 104 to 120 (104 spills with a
// softcap at 128 rows) and above 128; 32 keys at 248, whose 64-key ring
// (rows of 528 bytes) does not fit the 163 KiB of an sm_80 CTA.
// PTXAS-LABEL: Function properties for d40_causal
// PTXAS-NEXT:  0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-LABEL: Function properties for d56_f16
// PTXAS-NEXT:  0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-LABEL: Function properties for d72_window
// PTXAS-NEXT:  0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-LABEL: Function properties for d104_softcap
// PTXAS-NEXT:  0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-LABEL: Function properties for d120_causal
// PTXAS-NEXT:  0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-LABEL: Function properties for d136
// PTXAS-NEXT:  0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-LABEL: Function properties for d200_causal
// PTXAS-NEXT:  0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-LABEL: Function properties for d248_softcap
// PTXAS-NEXT:  0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-LABEL: Function properties for d40_v72
// PTXAS-NEXT:  0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-LABEL: Function properties for d72_v40
// PTXAS-NEXT:  0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-LABEL: Function properties for d136_v200
// PTXAS-NEXT:  0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-LABEL: Function properties for d248_v128
// PTXAS-NEXT:  0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-LABEL: Function properties for d128_v248
// PTXAS-NEXT:  0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// Head dim 40, per KV tile and warp (2 fragments of 16 rows, 8 n8 tiles of
// keys): S in 3 k-steps of 16 columns, the last of 8 (2 x 4 x 2 x 3 = 48
// mma.sync), P V in 4 k-chunks of 5 n8 tiles (40), in the unmasked and the
// masked loop; K in 3 x 4 ldmatrix a loop, Q in 2 x 3 once; V in 4 x 3
// transposed ones (the third giving one n8 tile); O's 32 rows of 80 bytes
// leave in 5 16-byte stores per lane.
// MMA-COUNT-176: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// LDM-COUNT-6:  ldmatrix.sync.aligned.m8n8.x4.shared.b16
// LDM-COUNT-12: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// LDM-COUNT-12: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// LDM-COUNT-12: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// LDM-COUNT-12: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// LDM-COUNT-5:  st.global.v4.b32

// Head dim 136, 64 query rows: a warp's 16 rows of 17 chunks (272) leave in
// 9 rounds of its 32 lanes, the last by 16 of them.
// D136-COUNT-9: st.global.v4.b32

// D40-JSON-DAG: "head_dim_qk": 40,
// D40-JSON-DAG: "block_m": 128,
// D40-JSON-DAG: "block_n": 64,
// D40-JSON-DAG: "dynamic_smem_bytes": 43008,
// D104-JSON-DAG: "block_m": 64,
// D104-JSON-DAG: "block_n": 64,
// D248-JSON-DAG: "block_m": 64,
// D248-JSON-DAG: "block_n": 32,
// D248-JSON-DAG: "dynamic_smem_bytes": 101376,
func.func @d40_causal(%q: memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {causal = true}
  return
}

func.func @d56_f16(%q: memref<?x?x?x56xf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x56xf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x56xf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x56xf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x56xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x56xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x56xf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x56xf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>)
  return
}

func.func @d72_window(%q: memref<?x?x?x72xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x72xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x72xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x72xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x72xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x72xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x72xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x72xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {causal = true, window_left = 128 : i64}
  return
}

func.func @d104_softcap(%q: memref<?x?x?x104xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x104xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x104xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x104xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x104xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x104xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x104xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x104xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {causal = true, softcap = 30.0 : f32}
  return
}

func.func @d120_causal(%q: memref<?x?x?x120xf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x120xf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x120xf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x120xf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x120xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x120xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x120xf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x120xf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {causal = true}
  return
}

func.func @d136(%q: memref<?x?x?x136xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x136xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x136xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x136xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x136xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x136xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x136xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x136xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>)
  return
}

func.func @d200_causal(%q: memref<?x?x?x200xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x200xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x200xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x200xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x200xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x200xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x200xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x200xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {causal = true}
  return
}

func.func @d248_softcap(%q: memref<?x?x?x248xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x248xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x248xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x248xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x248xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x248xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x248xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x248xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {causal = true, softcap = 30.0 : f32}
  return
}

func.func @d40_v72(%q: memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x72xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x72xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x72xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x72xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {causal = true}
  return
}

func.func @d72_v40(%q: memref<?x?x?x72xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x72xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x72xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x72xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x40xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>)
  return
}

func.func @d136_v200(%q: memref<?x?x?x136xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x136xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x200xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x200xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x136xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x136xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x200xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x200xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {causal = true}
  return
}

func.func @d248_v128(%q: memref<?x?x?x248xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x248xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x248xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x248xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {causal = true}
  return
}

func.func @d128_v248(%q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x248xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x248xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x248xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x248xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>)
  return
}
