// REQUIRES: ptxas
// RUN: rm -rf %t && fattn-compile %s --arch sm_90a --emit json --short-seqs -o %t
// RUN: FileCheck %s < %t/causal128.json
// RUN: FileCheck %s --check-prefix=FULL < %t/full128.json
// RUN: FileCheck %s --check-prefix=NOMAP < %t/full128.json
// RUN: FileCheck %s --check-prefix=PTX < %t/causal128.ptx
// RUN: FileCheck %s --check-prefix=NOMAP < %t/causal128.json
// RUN: FileCheck %s --check-prefix=NOPP < %t/causal128.ptx
// RUN: rm -rf %t.long && fattn-compile %s --arch sm_90a --emit json -o %t.long
// RUN: FileCheck %s --check-prefix=LONG < %t.long/causal128.json
// RUN: FileCheck %s --check-prefixes=NOMAP,UNTUNED < %t.long/causal128.json
// RUN: FileCheck %s --check-prefix=NOPP < %t.long/causal128.ptx
// RUN: FileCheck %s --check-prefixes=LONGFULL,UNTUNED < %t.long/full128.json
// RUN: FileCheck %s --check-prefix=NOPP < %t/full128.ptx
// RUN: FileCheck %s --check-prefix=NOPP < %t.long/full128.ptx
// RUN: FileCheck %s --check-prefix=C64 < %t/causal64.json
// RUN: FileCheck %s --check-prefixes=LONGC64,UNTUNED < %t.long/causal64.json
// RUN: rm -rf %t.n192 && fattn-compile %s --arch sm_90a --emit json --short-seqs --block-n 192 -o %t.n192
// RUN: FileCheck %s --check-prefix=N192 < %t.n192/causal128.json
// RUN: FileCheck %s --check-prefix=NOMAP < %t.n192/causal128.json
// RUN: rm -rf %t.sm80 && fattn-compile %s --arch sm_80 --emit json --short-seqs -o %t.sm80
// RUN: FileCheck %s --check-prefix=SM80 < %t.sm80/causal128.json

// --short-seqs, 16-bit head dim 128 causal: 128-key tiles, two Q buffers
// (2 x 32768 + 2 x 65536 bytes and the barriers, over 1024 of alignment),
// conditional rescaling and per-warpgroup KV ranges, without pingpong (no
// named-barrier turns) and without O's TMA stores (no o_map): O leaves from
// registers, 16 bytes per store, 4 per row for rows r and r + 8. The
// description says what the kernel is tuned for, so that a library keeps
// it beside the default one.
// CHECK-DAG: "block_n": 128
// CHECK-DAG: "dynamic_smem_bytes": 197728
// CHECK-DAG: "rescale_threshold": 8
// CHECK-DAG: "tuned_for": "short_seqs"
// PTX: wgmma.mma_async
// PTX-COUNT-8: st.global.v4.b32
// PTX-NOT: st.global
// PTX-NOT: bulk_group

// Without a mask: 128-key tiles instead of the default kernel's 160 (1024
// keys are then eight whole tiles), and otherwise the default's schedule: two
// Q buffers, direct stores, the split tail (the workspace parameter) and no
// pingpong, which beside the split tail measured 1-4% slower.
// FULL-DAG: "block_n": 128
// FULL-DAG: "dynamic_smem_bytes": 197728
// FULL-DAG: "workspace_bytes_per_cta": 69888
// FULL-DAG: "tuned_for": "short_seqs"
// LONGFULL-DAG: "block_n": 160
// LONGFULL-DAG: "workspace_bytes_per_cta": 69888

// Causal head dim 64: two consumer warpgroups (block_m 128) and 128-key
// tiles, against the default kernel's three (192) and 96-key tiles; both
// with per-warpgroup KV ranges and the work order's tail (tail_pairs).
// C64-DAG: "block_m": 128
// C64-DAG: "block_n": 128
// C64-DAG: "tuned_for": "short_seqs"
// C64-DAG: "name": "tail_pairs"
// LONGC64-DAG: "block_m": 192
// LONGC64-DAG: "block_n": 96
// LONGC64-DAG: "name": "tail_pairs"

// The default causal kernel: 192-key tiles, one Q buffer, no label (and
// neither pingpong nor the threshold).
// LONG-DAG: "block_n": 192
// LONG-DAG: "dynamic_smem_bytes": 230480

// Tiles from the command line that leave no room for a second Q buffer
// keep one, and with it the direct stores.
// N192-DAG: "block_n": 192
// N192-DAG: "dynamic_smem_bytes": 230480
// N192-DAG: "tuned_for": "short_seqs"

// Kernels that store O directly have no o_map; untuned ones no label.
// NOMAP-NOT: o_map
// UNTUNED-NOT: tuned_for
// NOPP-NOT: bar.arrive

// sm_80 kernels have no such tuning, only the label.
// SM80: "tuned_for": "short_seqs"
func.func @causal128(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}

func.func @full128(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}

func.func @causal64(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) {causal = true}
  return
}
