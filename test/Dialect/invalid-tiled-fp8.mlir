// RUN: fattn-opt %s -split-input-file -verify-diagnostics

// The FP8 parts of the tiled form: descale loads and scaled products.

func.func @f(%d: memref<2x2xf16>, %i: index) {
  // expected-error @+1 {{'fattn.load_descale' op expected an f32 descale memref, found 'f16'}}
  %s = fattn.load_descale %d[%i, %i, %i] : memref<2x2xf16> -> tensor<16xf32>
  return
}

// -----

func.func @f(%d: memref<2xf32>, %i: index) {
  // expected-error @+1 {{expected a rank-0, rank-2 or rank-3 descale memref, found rank 1}}
  %s = fattn.load_descale %d[%i, %i, %i] : memref<2xf32> -> tensor<16xf32>
  return
}

// -----

func.func @f(%d: memref<f32>, %i: index) {
  // expected-error @+1 {{expected a rank-1 f32 result, found 'tensor<16x2xf32>'}}
  %s = fattn.load_descale %d[%i, %i, %i] : memref<f32> -> tensor<16x2xf32>
  return
}

// -----

func.func @f(%d: memref<2x2x4xf32>, %i: index) {
  // expected-error @+1 {{expected a block size exactly when the descale is per block (rank 3)}}
  %s = fattn.load_descale %d[%i, %i, %i] : memref<2x2x4xf32> -> tensor<16xf32>
  return
}

// -----

func.func @f(%d: memref<2x2xf32>, %i: index) {
  // expected-error @+1 {{expected a block size exactly when the descale is per block (rank 3)}}
  %s = fattn.load_descale %d[%i, %i, %i] {block = 16 : i64} : memref<2x2xf32> -> tensor<16xf32>
  return
}

// -----

func.func @f(%d: memref<2x2x4xf32>, %i: index) {
  // expected-error @+1 {{expected a positive block size, found -4}}
  %s = fattn.load_descale %d[%i, %i, %i] {block = -4 : i64} : memref<2x2x4xf32> -> tensor<16xf32>
  return
}

// -----

func.func @f(%a: tensor<16x32xf8E4M3FN>, %b: tensor<8x32xf8E4M3FN>, %s: tensor<8xf32>) {
  // expected-error @+1 {{'fattn.mma' op expected lhs_scale to be tensor<16xf32>, found 'tensor<8xf32>'}}
  %r = fattn.mma %a, %b lhs_scale(%s : tensor<8xf32>) {transpose_rhs} : tensor<16x32xf8E4M3FN>, tensor<8x32xf8E4M3FN> -> tensor<16x8xf32>
  return
}

// -----

func.func @f(%a: tensor<16x8xf8E4M3FN>, %b: tensor<8x32xf8E4M3FN>, %s: tensor<16xf32>) {
  // expected-error @+1 {{expected rhs_scale to be tensor<8xf32>, found 'tensor<16xf32>'}}
  %r = fattn.mma %a, %b rhs_scale(%s : tensor<16xf32>) : tensor<16x8xf8E4M3FN>, tensor<8x32xf8E4M3FN> -> tensor<16x32xf32>
  return
}

// -----

func.func @f(%a: tensor<16x16xf32>, %m: tensor<16xf32>, %l: tensor<16xf32>) {
  // expected-error @+1 {{'fattn.finalize' op expected an output of the accumulator's shape in f32, f16 or bf16, found 'tensor<16x16xf8E4M3FN>'}}
  %o, %lse = fattn.finalize %a, %m, %l {scale = 1.0 : f32} : tensor<16x16xf32>, tensor<16xf32> -> tensor<16x16xf8E4M3FN>
  return
}
