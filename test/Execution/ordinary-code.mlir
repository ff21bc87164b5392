// Two attention ops, one inside a loop, among ordinary code that also uses
// vectors; each becomes its own CPU kernel.
// RUN: fattn-opt %s --fattn-cpu-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s
// RUN: fattn-opt %s --fattn-tile --fattn-lower-tiled-to-linalg | FileCheck %s --check-prefix=KERNELS

// KERNELS-DAG: func.func private @fattn_cpu_kernel(
// KERNELS-DAG: func.func private @fattn_cpu_kernel_0(

// Every V row is 1, so every output is 1 whatever the weights.
// CHECK: ( 1, 1 )
// CHECK: data =
// CHECK-NEXT: [1, 1, 1, 1]
// CHECK-NEXT: [1, 1, 1, 1]
// CHECK-NEXT: [1, 1, 1, 1]

func.func private @printMemrefF32(memref<*xf32>)
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %q = memref.alloc() : memref<1x1x3x4xf32>
  %v = memref.alloc() : memref<1x1x3x4xf32>
  %o = memref.alloc() : memref<1x1x3x4xf32>
  linalg.fill ins(%half : f32) outs(%q : memref<1x1x3x4xf32>)
  linalg.fill ins(%one : f32) outs(%v : memref<1x1x3x4xf32>)
  scf.for %i = %c0 to %c3 step %c1 {
    fattn.attention ins(%q, %q, %v : memref<1x1x3x4xf32>, memref<1x1x3x4xf32>, memref<1x1x3x4xf32>) outs(%o : memref<1x1x3x4xf32>) {causal = true}
  }
  fattn.attention ins(%q, %q, %o : memref<1x1x3x4xf32>, memref<1x1x3x4xf32>, memref<1x1x3x4xf32>) outs(%v : memref<1x1x3x4xf32>)
  %x = memref.load %v[%c0, %c0, %c1, %c1] : memref<1x1x3x4xf32>
  %vec = vector.broadcast %x : f32 to vector<2xf32>
  vector.print %vec : vector<2xf32>
  %ou = memref.cast %o : memref<1x1x3x4xf32> to memref<*xf32>
  call @printMemrefF32(%ou) : (memref<*xf32>) -> ()
  return
}
