// RUN: fattn-opt %s --fattn-cpu-pipeline | FileCheck %s

// The whole module reaches the LLVM dialect: the attention runs in an
// outlined private kernel that frees its temporaries, and the user's code
// (which frees its own buffers) is lowered as written.
// CHECK-NOT: fattn.
// CHECK-NOT: linalg.
// CHECK-NOT: memref.
// CHECK-NOT: scf.
// CHECK-NOT: bufferization.
// CHECK-LABEL: llvm.func @fattn_cpu_kernel(
// CHECK: llvm.call @malloc
// CHECK: llvm.intr.exp2
// CHECK: llvm.call @free
// CHECK-LABEL: llvm.func @user(
// CHECK: llvm.call @malloc
// CHECK: llvm.call @fattn_cpu_kernel(
// CHECK: llvm.call @free
func.func @user(%q: memref<2x4x50x16xf32>, %k: memref<2x2x70x16xf32>, %v: memref<2x2x70x16xf32>) {
  %o = memref.alloc() : memref<2x4x50x16xf32>
  fattn.attention ins(%q, %k, %v : memref<2x4x50x16xf32>, memref<2x2x70x16xf32>, memref<2x2x70x16xf32>)
                  outs(%o : memref<2x4x50x16xf32>) {causal = true, softcap = 10.0 : f32}
  memref.dealloc %o : memref<2x4x50x16xf32>
  return
}
