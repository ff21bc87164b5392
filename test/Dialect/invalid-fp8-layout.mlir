// RUN: fattn-opt %s -split-input-file -verify-diagnostics

func.func @unknown_permutation(%p: tensor<64x32xf8E4M3FN>) {
  // expected-error @below {{'fattn.permute_keys' op unknown key permutation "mma_k16" (expected "wgmma_e4m3_k32")}}
  %pp = fattn.permute_keys %p {key_permutation = "mma_k16"} : tensor<64x32xf8E4M3FN>
  return
}

// -----

func.func @keys_not_multiple(%p: tensor<64x48xf8E4M3FN>) {
  // expected-error @below {{'fattn.permute_keys' op key permutation "wgmma_e4m3_k32" needs a multiple of 32 keys, found 48}}
  %pp = fattn.permute_keys %p {key_permutation = "wgmma_e4m3_k32"} : tensor<64x48xf8E4M3FN>
  return
}

// -----

func.func @permute_rank3(%p: tensor<2x64x32xf8E4M3FN>) {
  // expected-error @below {{'fattn.permute_keys' op expected a rank-1 or rank-2 tile, found rank 3}}
  %pp = fattn.permute_keys %p {key_permutation = "wgmma_e4m3_k32"} : tensor<2x64x32xf8E4M3FN>
  return
}

// -----

func.func @permute_missing_attr(%p: tensor<64x32xf8E4M3FN>) {
  // expected-error @below {{'fattn.permute_keys' op requires attribute 'key_permutation'}}
  %pp = fattn.permute_keys %p : tensor<64x32xf8E4M3FN>
  return
}

// -----

func.func @transpose_rank1(%v: tensor<32xf8E4M3FN>) {
  // expected-error @below {{'fattn.transpose_tile' op expected a rank-2 tile, found rank 1}}
  %vt = fattn.transpose_tile %v {key_permutation = "wgmma_e4m3_k32"} : tensor<32xf8E4M3FN> -> tensor<32xf8E4M3FN>
  return
}

// -----

func.func @transpose_not_transposed(%v: tensor<32x64xf8E4M3FN>) {
  // expected-error @below {{'fattn.transpose_tile' op expected the result to be the transposed tile 'tensor<64x32xf8E4M3FN>', found 'tensor<32x64xf8E4M3FN>'}}
  %vt = fattn.transpose_tile %v {key_permutation = "wgmma_e4m3_k32"} : tensor<32x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  return
}

// -----

func.func @transpose_element_type(%v: tensor<32x64xf8E4M3FN>) {
  // expected-error @below {{'fattn.transpose_tile' op expected the result to be the transposed tile 'tensor<64x32xf8E4M3FN>', found 'tensor<64x32xbf16>'}}
  %vt = fattn.transpose_tile %v {key_permutation = "wgmma_e4m3_k32"} : tensor<32x64xf8E4M3FN> -> tensor<64x32xbf16>
  return
}

// -----

func.func @transpose_keys_not_multiple(%v: tensor<16x64xf8E4M3FN>) {
  // expected-error @below {{'fattn.transpose_tile' op key permutation "wgmma_e4m3_k32" needs a multiple of 32 keys, found 16}}
  %vt = fattn.transpose_tile %v {key_permutation = "wgmma_e4m3_k32"} : tensor<16x64xf8E4M3FN> -> tensor<64x16xf8E4M3FN>
  return
}

// -----

func.func @transpose_unknown_permutation(%v: tensor<32x64xf8E4M3FN>) {
  // expected-error @below {{'fattn.transpose_tile' op unknown key permutation "" (expected "wgmma_e4m3_k32")}}
  %vt = fattn.transpose_tile %v {key_permutation = ""} : tensor<32x64xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
  return
}

// -----

func.func @permute_type_mismatch(%p: tensor<64x32xf8E4M3FN>) {
  // expected-error @below {{'fattn.permute_keys' op failed to verify that all of {input, result} have same type}}
  %pp = "fattn.permute_keys"(%p) {key_permutation = "wgmma_e4m3_k32"} : (tensor<64x32xf8E4M3FN>) -> tensor<64x32xbf16>
  return
}
