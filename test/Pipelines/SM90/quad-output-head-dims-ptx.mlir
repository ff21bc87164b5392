// REQUIRES: ptxas
// RUN: fattn-opt %s --fattn-sm90-pipeline="persistent=true" -o %t.mlir
// RUN: mlir-opt %t.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.isa.mlir %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// Which persistent 16-bit kernels store O through the quad transpose (each
// thread 16-byte units of one row) and which store the accumulator's 4-byte
// words as they are. Head dim 128: transposed, 4 units per row (128
// columns / 8 per unit / 4 threads) for rows r and r + 8; every SM stores
// its O at the same time at the end of an unmasked work item, and a quarter
// of the store instructions measured faster there.
// CHECK-LABEL: .entry fattn_fwd_sm90_d128_bf16
// CHECK: wgmma.mma_async
// CHECK-NOT: st.global
// CHECK: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK-COUNT-4: st.global.v4.b32
// CHECK-NOT: st.global.b32
// CHECK-COUNT-4: st.global.v4.b32
// CHECK-NOT: st.global
// CHECK: ret;
func.func @d128(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}

// Head dim 64: 4-byte words straight from the accumulator, 8 per row (64
// columns / 2 per word / 4 threads), for rows r and r + 8.
// CHECK-LABEL: .entry fattn_fwd_sm90_d64_bf16
// CHECK-NOT: st.global.v4
// CHECK-COUNT-16: st.global.b32
// CHECK-NOT: st.global
// CHECK: ret;
func.func @d64(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>)
  return
}
// PTXAS-COUNT-2: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
