// A program in the user's form: ordinary scf/arith/memref/linalg code around
// fattn.attention, lowered by the CPU pipeline and run by mlir-runner.
// RUN: fattn-opt %s --fattn-cpu-pipeline="block-m=2 block-n=2" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s

// Q = 0 gives every visible key the same weight, and V[j] = j, so row i's
// output is the mean index of the keys it sees and its LSE is log(count).
// Causal with Sq = 5 > Sk = 3 (bottom-right aligned): rows 0 and 1 see no
// key (O = 0, LSE = -inf, never NaN), row 2 sees {0}, row 3 {0, 1}, row 4
// {0, 1, 2}.

// CHECK: data =
// CHECK-NEXT: [0,   0]
// CHECK-NEXT: [0,   0]
// CHECK-NEXT: [0,   0]
// CHECK-NEXT: [0.5,   0.5]
// CHECK-NEXT: [1,   1]
// CHECK: data =
// CHECK-NEXT: [-inf,  -inf,  0,  0.693147,  1.09861]

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %q = memref.alloc() : memref<1x1x5x2xf32>
  %k = memref.alloc() : memref<1x1x3x2xf32>
  %v = memref.alloc() : memref<1x1x3x2xf32>
  %o = memref.alloc() : memref<1x1x5x2xf32>
  %lse = memref.alloc() : memref<1x1x5xf32>
  linalg.fill ins(%zero : f32) outs(%q : memref<1x1x5x2xf32>)
  linalg.fill ins(%zero : f32) outs(%k : memref<1x1x3x2xf32>)
  linalg.fill ins(%nan : f32) outs(%o : memref<1x1x5x2xf32>)
  linalg.fill ins(%nan : f32) outs(%lse : memref<1x1x5xf32>)
  scf.for %j = %c0 to %c3 step %c1 {
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    scf.for %d = %c0 to %c2 step %c1 {
      memref.store %jf, %v[%c0, %c0, %j, %d] : memref<1x1x3x2xf32>
    }
  }
  fattn.attention ins(%q, %k, %v : memref<1x1x5x2xf32>, memref<1x1x3x2xf32>, memref<1x1x3x2xf32>)
                  outs(%o : memref<1x1x5x2xf32>) lse(%lse : memref<1x1x5xf32>) {causal = true}
  %ou = memref.cast %o : memref<1x1x5x2xf32> to memref<*xf32>
  call @printMemrefF32(%ou) : (memref<*xf32>) -> ()
  %lu = memref.cast %lse : memref<1x1x5xf32> to memref<*xf32>
  call @printMemrefF32(%lu) : (memref<*xf32>) -> ()
  memref.dealloc %q : memref<1x1x5x2xf32>
  memref.dealloc %k : memref<1x1x3x2xf32>
  memref.dealloc %v : memref<1x1x3x2xf32>
  memref.dealloc %o : memref<1x1x5x2xf32>
  memref.dealloc %lse : memref<1x1x5xf32>
  return
}
