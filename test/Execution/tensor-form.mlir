// fattn.attention in the tensor form, in a program on tensors: one-shot
// bufferization (function boundaries included) gives the memref form, which
// the CPU pipeline lowers for mlir-runner.
// RUN: fattn-opt %s --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   | fattn-opt --fattn-cpu-pipeline="block-m=2 block-n=2" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s

// Q = 0 gives every visible key the same weight, and V[j] = (j, 10 j), so
// causal row i (Sq = Sk = 4) gets the mean of keys 0..i, (i / 2, 5 i), and
// LSE log(i + 1).

// CHECK: data =
// CHECK-NEXT: [0,   0]
// CHECK-NEXT: [0.5,   5]
// CHECK-NEXT: [1,   10]
// CHECK-NEXT: [1.5,   15]
// CHECK: data =
// CHECK-NEXT: [0,  0.693147,  1.09861,  1.38629]

func.func private @printMemrefF32(memref<*xf32>)

func.func @attend(%q: tensor<1x1x4x2xf32>, %k: tensor<1x1x4x2xf32>, %v: tensor<1x1x4x2xf32>) -> (tensor<1x1x4x2xf32>, tensor<1x1x4xf32>) {
  %o = tensor.empty() : tensor<1x1x4x2xf32>
  %l = tensor.empty() : tensor<1x1x4xf32>
  %r:2 = fattn.attention ins(%q, %k, %v : tensor<1x1x4x2xf32>, tensor<1x1x4x2xf32>, tensor<1x1x4x2xf32>)
                         outs(%o : tensor<1x1x4x2xf32>) lse(%l : tensor<1x1x4xf32>) {causal = true}
                         -> tensor<1x1x4x2xf32>, tensor<1x1x4xf32>
  return %r#0, %r#1 : tensor<1x1x4x2xf32>, tensor<1x1x4xf32>
}

func.func @main() {
  %q = arith.constant dense<0.0> : tensor<1x1x4x2xf32>
  %k = arith.constant dense<[[[[1.0, 2.0], [3.0, -1.0], [0.5, 0.25], [-2.0, 4.0]]]]> : tensor<1x1x4x2xf32>
  %v = arith.constant dense<[[[[0.0, 0.0], [1.0, 10.0], [2.0, 20.0], [3.0, 30.0]]]]> : tensor<1x1x4x2xf32>
  %o, %lse = call @attend(%q, %k, %v) : (tensor<1x1x4x2xf32>, tensor<1x1x4x2xf32>, tensor<1x1x4x2xf32>) -> (tensor<1x1x4x2xf32>, tensor<1x1x4xf32>)
  %ob = bufferization.to_buffer %o : tensor<1x1x4x2xf32> to memref<1x1x4x2xf32>
  %ou = memref.cast %ob : memref<1x1x4x2xf32> to memref<*xf32>
  call @printMemrefF32(%ou) : (memref<*xf32>) -> ()
  %lb = bufferization.to_buffer %lse : tensor<1x1x4xf32> to memref<1x1x4xf32>
  %lu = memref.cast %lb : memref<1x1x4xf32> to memref<*xf32>
  call @printMemrefF32(%lu) : (memref<*xf32>) -> ()
  return
}
