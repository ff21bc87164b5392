// RUN: fattn-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: fattn-opt %s -split-input-file -verify-diagnostics | fattn-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @rotate
// CHECK: fattn.hadamard_rotate ins(%{{.*}} : memref<?x?x?x128xbf16>) signs(%{{.*}} : memref<128xf32>) outs(%{{.*}} : memref<?x?x?x128xf32>)
func.func @rotate(%x: memref<?x?x?x128xbf16>, %s: memref<128xf32>, %y: memref<?x?x?x128xf32>) {
  fattn.hadamard_rotate ins(%x : memref<?x?x?x128xbf16>) signs(%s : memref<128xf32>) outs(%y : memref<?x?x?x128xf32>)
  return
}

// -----

func.func @not_power_of_two(%x: memref<4x96xf32>, %s: memref<96xf32>, %y: memref<4x96xf32>) {
  // expected-error @+1 {{'fattn.hadamard_rotate' op expected a static power-of-two row length, found 96}}
  fattn.hadamard_rotate ins(%x : memref<4x96xf32>) signs(%s : memref<96xf32>) outs(%y : memref<4x96xf32>)
  return
}

// -----

func.func @dynamic_row(%x: memref<4x?xf32>, %s: memref<?xf32>, %y: memref<4x?xf32>) {
  // expected-error @+1 {{expected a static power-of-two row length, found ?}}
  fattn.hadamard_rotate ins(%x : memref<4x?xf32>) signs(%s : memref<?xf32>) outs(%y : memref<4x?xf32>)
  return
}

// -----

func.func @rank0(%x: memref<f32>, %s: memref<1xf32>, %y: memref<f32>) {
  // expected-error @+1 {{expected rows to rotate, found a rank-0 input}}
  fattn.hadamard_rotate ins(%x : memref<f32>) signs(%s : memref<1xf32>) outs(%y : memref<f32>)
  return
}

// -----

func.func @rank(%x: memref<4x8xf32>, %s: memref<8xf32>, %y: memref<2x4x8xf32>) {
  // expected-error @+1 {{expected an output of rank 2, found rank 3}}
  fattn.hadamard_rotate ins(%x : memref<4x8xf32>) signs(%s : memref<8xf32>) outs(%y : memref<2x4x8xf32>)
  return
}

// -----

func.func @shape(%x: memref<4x8xf32>, %s: memref<8xf32>, %y: memref<5x8xf32>) {
  // expected-error @+1 {{expected output dim 0 (5) to match input dim 0 (4)}}
  fattn.hadamard_rotate ins(%x : memref<4x8xf32>) signs(%s : memref<8xf32>) outs(%y : memref<5x8xf32>)
  return
}

// -----

func.func @elem(%x: memref<4x8xi8>, %s: memref<8xf32>, %y: memref<4x8xf32>) {
  // expected-error @+1 {{expected input element type to be f32, f16 or bf16, found 'i8'}}
  fattn.hadamard_rotate ins(%x : memref<4x8xi8>) signs(%s : memref<8xf32>) outs(%y : memref<4x8xf32>)
  return
}

// -----

func.func @signs(%x: memref<4x8xf32>, %s: memref<4xf32>, %y: memref<4x8xf32>) {
  // expected-error @+1 {{expected 8 signs, found 4}}
  fattn.hadamard_rotate ins(%x : memref<4x8xf32>) signs(%s : memref<4xf32>) outs(%y : memref<4x8xf32>)
  return
}

// -----

func.func @signs_type(%x: memref<4x8xf32>, %s: memref<8xf16>, %y: memref<4x8xf32>) {
  // expected-error @+1 {{operand #1 must be 1D memref of 32-bit float values}}
  fattn.hadamard_rotate ins(%x : memref<4x8xf32>) signs(%s : memref<8xf16>) outs(%y : memref<4x8xf32>)
  return
}
