// REQUIRES: ptxas
// RUN: rm -rf %t && fattn-compile %s --arch sm_90a --emit json -o %t
// RUN: FileCheck %s < %t/fattn_fwd_d128_bf16_gqa.json
// RUN: test -s %t/fattn_fwd_d128_bf16_gqa.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t/fattn_fwd_d128_bf16_gqa.ptx
// RUN: FileCheck %s --check-prefix=D64 < %t/fattn_fwd_d64_causal.json
// RUN: FileCheck %s --check-prefix=D64U < %t/fattn_fwd_d64.json
// RUN: FileCheck %s --check-prefix=D256 < %t/fattn_fwd_d256.json
// RUN: FileCheck %s --check-prefix=D128C < %t/fattn_fwd_d128_causal.json
// RUN: FileCheck %s --check-prefix=D128W < %t/fattn_fwd_d128_window.json
// RUN: FileCheck %s --check-prefix=NOWS < %t/fattn_fwd_d64_causal.json
// RUN: FileCheck %s --check-prefix=NOWS < %t/fattn_fwd_d256.json
// RUN: FileCheck %s --check-prefix=NOWS < %t/fattn_fwd_d128_causal.json
// RUN: FileCheck %s --check-prefix=NOWS < %t/fattn_fwd_d128_window.json
// RUN: not fattn-compile %s --arch sm_70 --emit json -o %t 2>&1 | FileCheck %s --check-prefix=ARCH

// The sm_90a description: the KERNEL-ABI parameters followed by the three
// TMA tensor maps, with the PTX named as the fallback image.
// CHECK-DAG: "arch": "sm_90a"
// CHECK-DAG: "entry": "fattn_fwd_d128_bf16_gqa"
// CHECK-DAG: "cubin": "fattn_fwd_d128_bf16_gqa.cubin"
// CHECK-DAG: "ptx": "fattn_fwd_d128_bf16_gqa.ptx"
// CHECK-DAG: "threads": 384
// CHECK-DAG: "name": "q_map"
// CHECK-DAG: "name": "k_map"
// CHECK-DAG: "name": "v_map"
// CHECK-DAG: "type": "tensormap"
// CHECK-DAG: "swizzle": "128B"

// The measured tile shapes by head dim: 160-row KV tiles at head dim 128
// without a mask (with the rescale threshold and the split tail), 192 causal, 128
// with a sliding window; three consumer
// warpgroups (block_m 192, 512 threads) at head dim 64, with 96-row KV tiles
// when causal; 80-row KV tiles at head dim 256.
// Without a mask at head dim 128 the ring of 160-key tiles leaves room for
// a second Q buffer (q-buffers=2): 2 x 32768 + 2 x 81920 bytes and the
// barriers, over the 1024 of alignment; 192-key tiles (causal) leave none.
// CHECK-DAG: "block_m": 128
// CHECK-DAG: "block_n": 160
// CHECK-DAG: "dynamic_smem_bytes": 230496
// D128C-DAG: "block_n": 192
// D128C-DAG: "dynamic_smem_bytes": 230480
// D128C-DAG: "threads": 384
// D128W-DAG: "block_n": 128
// D64-DAG: "block_m": 192
// D64-DAG: "block_n": 96
// D64-DAG: "threads": 512
// Without a mask, head dims 64 and 128 split the grid's last partial round
// of work items along their KV tiles (split-tail), through a workspace of
// 256 bytes of counters and 36 (68) words per consumer thread (of 384 (256))
// per CTA; the other kernels have none.
// CHECK-DAG: "workspace_bytes_per_cta": 69888
// NOWS-NOT: workspace
// D64U-DAG: "block_m": 192
// D64U-DAG: "block_n": 128
// D64U-DAG: "name": "workspace",
// D64U-DAG: "workspace_bytes_per_cta": 55552
// D256-DAG: "block_m": 128
// D256-DAG: "block_n": 80
// D256-DAG: "threads": 384

// PTX: .target sm_90a
// PTX: .entry fattn_fwd_d128_bf16_gqa(
// PTX: cp.async.bulk.tensor
// PTX: wgmma.mma_async

// ARCH: fattn-compile: error: --arch sm_70 is not supported (sm_80, sm_90a)
func.func @fattn_fwd_d128_bf16_gqa(%q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>)
  return
}

func.func @fattn_fwd_d128_causal(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}

func.func @fattn_fwd_d128_window(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {window_left = 256 : i64, window_right = 0 : i64}
  return
}

func.func @fattn_fwd_d64_causal(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) {causal = true}
  return
}

func.func @fattn_fwd_d256(%q: memref<?x?x?x256xf16>, %k: memref<?x?x?x256xf16>, %v: memref<?x?x?x256xf16>, %o: memref<?x?x?x256xf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xf16>, memref<?x?x?x256xf16>, memref<?x?x?x256xf16>) outs(%o : memref<?x?x?x256xf16>)
  return
}

func.func @fattn_fwd_d64(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>)
  return
}
