// RUN: fattn-opt %s -split-input-file | fattn-opt -split-input-file | FileCheck %s
// RUN: fattn-opt %s -split-input-file -canonicalize | FileCheck %s --check-prefix=FOLD

// The two ops of the sm_90a fp8 layout round-trip: P's keys permuted (a
// tile and a vector of per-key factors), V transposed with its keys
// permuted, also for a head dim other than the keys.
// CHECK-LABEL: func.func @round_trip
// CHECK: %[[PP:.*]] = fattn.permute_keys %arg0 {key_permutation = "wgmma_e4m3_k32"} : tensor<128x128xf8E4M3FN>
// CHECK: %[[SP:.*]] = fattn.permute_keys %arg2 {key_permutation = "wgmma_e4m3_k32"} : tensor<64xf32>
// CHECK: %[[VT:.*]] = fattn.transpose_tile %arg1 {key_permutation = "wgmma_e4m3_k32"} : tensor<64x256xf8E4M3FN> -> tensor<256x64xf8E4M3FN>
// CHECK: return %[[PP]], %[[SP]], %[[VT]]
func.func @round_trip(%p: tensor<128x128xf8E4M3FN>, %v: tensor<64x256xf8E4M3FN>, %s: tensor<64xf32>)
    -> (tensor<128x128xf8E4M3FN>, tensor<64xf32>, tensor<256x64xf8E4M3FN>) {
  %pp = fattn.permute_keys %p {key_permutation = "wgmma_e4m3_k32"} : tensor<128x128xf8E4M3FN>
  %sp = fattn.permute_keys %s {key_permutation = "wgmma_e4m3_k32"} : tensor<64xf32>
  %vt = fattn.transpose_tile %v {key_permutation = "wgmma_e4m3_k32"} : tensor<64x256xf8E4M3FN> -> tensor<256x64xf8E4M3FN>
  return %pp, %sp, %vt : tensor<128x128xf8E4M3FN>, tensor<64xf32>, tensor<256x64xf8E4M3FN>
}

// -----

// Reordering or transposing equal values is a no-op: a splat folds (the
// zero P that a pipelined loop carries into an empty KV range).
// FOLD-LABEL: func.func @fold_splats
// FOLD-DAG: %[[P:.*]] = arith.constant dense<0.000000e+00> : tensor<64x32xf8E4M3FN>
// FOLD-DAG: %[[VT:.*]] = arith.constant dense<1.000000e+00> : tensor<16x32xf8E4M3FN>
// FOLD-NOT: fattn.permute_keys
// FOLD-NOT: fattn.transpose_tile
// FOLD: return %[[P]], %[[VT]]
func.func @fold_splats() -> (tensor<64x32xf8E4M3FN>, tensor<16x32xf8E4M3FN>) {
  %zero = arith.constant dense<0.0> : tensor<64x32xf8E4M3FN>
  %one = arith.constant dense<1.0> : tensor<32x16xf8E4M3FN>
  %pp = fattn.permute_keys %zero {key_permutation = "wgmma_e4m3_k32"} : tensor<64x32xf8E4M3FN>
  %vt = fattn.transpose_tile %one {key_permutation = "wgmma_e4m3_k32"} : tensor<32x16xf8E4M3FN> -> tensor<16x32xf8E4M3FN>
  return %pp, %vt : tensor<64x32xf8E4M3FN>, tensor<16x32xf8E4M3FN>
}

// -----

// A tile of distinct values is not folded.
// FOLD-LABEL: func.func @no_fold
// FOLD: fattn.permute_keys
// FOLD: fattn.transpose_tile
func.func @no_fold(%p: tensor<64x32xf8E4M3FN>) -> (tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN>) {
  %pp = fattn.permute_keys %p {key_permutation = "wgmma_e4m3_k32"} : tensor<64x32xf8E4M3FN>
  %ct = fattn.transpose_tile %pp {key_permutation = "wgmma_e4m3_k32"} : tensor<64x32xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  return %pp, %ct : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN>
}
