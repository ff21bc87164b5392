// REQUIRES: ptxas
// RUN: rm -rf %t && fattn-compile %s --arch sm_80 --emit json -o %t
// RUN: FileCheck %s < %t/fattn_fwd_d64_bf16_causal.json
// RUN: test -s %t/fattn_fwd_d64_bf16_causal.cubin

// The description of docs/KERNEL-ABI.md, beside the cubin.
// CHECK-DAG: "version": 1
// CHECK-DAG: "arch": "sm_80"
// CHECK-DAG: "entry": "fattn_fwd_d64_bf16_causal"
// CHECK-DAG: "cubin": "fattn_fwd_d64_bf16_causal.cubin"
// CHECK-DAG: "dtype": "bf16"
// CHECK-DAG: "head_dim_qk": 64
// CHECK-DAG: "causal": true
// CHECK-DAG: "window_left": -1
// CHECK-DAG: "window_right": 0
// CHECK-DAG: "has_lse": true
// CHECK-DAG: "block_m": 128
// CHECK-DAG: "threads": 128
// CHECK-DAG: "dynamic_smem_bytes": 55296
// CHECK-DAG: "name": "q_stride_b"
// CHECK-DAG: "name": "lse_stride_h"
func.func @fattn_fwd_d64_bf16_causal(%q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {causal = true}
  return
}
