// RUN: fattn-opt %s -split-input-file -fattn-deallocate-cpu-kernels | FileCheck %s

// Only functions marked fattn.cpu_kernel get deallocations; the others,
// which may already free their buffers, are left as written.
// CHECK-LABEL: func.func private @kernel
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: bufferization.dealloc (%[[A]] : memref<16xf32>) if (%{{.*}})
// CHECK-LABEL: func.func @user
// CHECK: %[[B:.*]] = memref.alloc
// CHECK-NOT: bufferization.dealloc
// CHECK: memref.dealloc %[[B]]
func.func private @kernel(%n: index, %out: memref<16xf32>) attributes {fattn.cpu_kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %tmp = memref.alloc() : memref<16xf32>
    memref.copy %out, %tmp : memref<16xf32> to memref<16xf32>
    memref.copy %tmp, %out : memref<16xf32> to memref<16xf32>
  }
  return
}
func.func @user(%out: memref<16xf32>) {
  %b = memref.alloc() : memref<16xf32>
  memref.copy %out, %b : memref<16xf32> to memref<16xf32>
  memref.dealloc %b : memref<16xf32>
  return
}
