// RUN: fattn-opt %s --fattn-cpu-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s

// x = (1, 2, 3, 4), signs = (1, -1, 1, 1): x * signs = (1, -2, 3, 4), and
// with H4 = [[1,1,1,1],[1,-1,1,-1],[1,1,-1,-1],[1,-1,-1,1]] / 2 the row is
// (6, 2, -8, 4) / 2 = (3, 1, -4, 2). The second row, e0 with signs, gives
// (1, 1, 1, 1) / 2.
// CHECK: data =
// CHECK-NEXT: [3, 1, -4, 2]
// CHECK-NEXT: [0.5, 0.5, 0.5, 0.5]

memref.global "private" constant @x : memref<2x4xf32> = dense<[[1.0, 2.0, 3.0, 4.0], [1.0, 0.0, 0.0, 0.0]]>
memref.global "private" constant @signs : memref<4xf32> = dense<[1.0, -1.0, 1.0, 1.0]>
func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %x = memref.get_global @x : memref<2x4xf32>
  %s = memref.get_global @signs : memref<4xf32>
  %y = memref.alloc() : memref<2x4xf32>
  fattn.hadamard_rotate ins(%x : memref<2x4xf32>) signs(%s : memref<4xf32>) outs(%y : memref<2x4xf32>)
  %u = memref.cast %y : memref<2x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %y : memref<2x4xf32>
  return
}
