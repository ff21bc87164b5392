// REQUIRES: ptxas
// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k block-n=80 persistent=true" -o %t.mlir
// RUN: mlir-opt %t.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.isa.mlir %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// Head dim 256, causal, persistent (Q's buffer is reloaded during the
// epilogue, so O is not staged there): the quad's four threads transpose
// their 4-byte words (two butterfly stages: shuffles by 2, then by 1) and
// each stores whole 16-byte units: 8 per row of the thread (256 columns / 8
// per unit / 4 threads), for rows r and r + 8.
// CHECK: .entry k(
// CHECK: wgmma.mma_async
// CHECK-NOT: st.global
// CHECK: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK-COUNT-8: st.global.v4.b32
// CHECK-NOT: st.global.b32
// CHECK-COUNT-8: st.global.v4.b32
// CHECK-NOT: st.global
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @attn(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>, %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>) outs(%o : memref<?x?x?x256xbf16>) {causal = true}
  return
}
