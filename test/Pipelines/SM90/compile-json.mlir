// REQUIRES: ptxas
// RUN: rm -rf %t && fattn-compile %s --arch sm_90a --emit json -o %t
// RUN: FileCheck %s < %t/fattn_fwd_d128_bf16_gqa.json
// RUN: test -s %t/fattn_fwd_d128_bf16_gqa.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t/fattn_fwd_d128_bf16_gqa.ptx
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

// PTX: .target sm_90a
// PTX: .entry fattn_fwd_d128_bf16_gqa(
// PTX: cp.async.bulk.tensor
// PTX: wgmma.mma_async

// ARCH: fattn-compile: error: --arch sm_70 is not supported (sm_80, sm_90a)
func.func @fattn_fwd_d128_bf16_gqa(%q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>)
  return
}
