// RUN: fattn-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the tiled form.

func.func @f(%Q: memref<?x?x?x16xf32>, %K: memref<?x?x?x16xf32>, %V: memref<?x?x?x16xf32>, %O: memref<?x?x?x16xf32>) {
  // expected-error @+1 {{'fattn.tiled_attention' op expected positive block sizes, found block_m = 0, block_n = 8}}
  fattn.tiled_attention ins(%Q, %K, %V : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) outs(%O : memref<?x?x?x16xf32>) attributes {block_m = 0 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @f(%Q: memref<?x?x?x16xf32>, %K: memref<?x?x?x16xf32>, %V: memref<?x?x?x16xf32>, %O: memref<?x?x?x16xf32>) {
  // expected-error @+1 {{expected the body to take three index arguments (batch, head, q_tile), found 2 argument(s)}}
  fattn.tiled_attention ins(%Q, %K, %V : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) outs(%O : memref<?x?x?x16xf32>) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index):
  }
  return
}

// -----

func.func @f(%Q: memref<?x?x?x16xf32>, %K: memref<?x?x?x16xf32>, %V: memref<?x?x?x16xf32>, %O: memref<?x?x?x16xf32>) {
  // expected-error @+1 {{expected scale to be a positive finite number, found -2.500000e-01}}
  fattn.tiled_attention ins(%Q, %K, %V : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) outs(%O : memref<?x?x?x16xf32>) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = -0.25 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @f(%Q: memref<?x?x?x16xf32>, %K: memref<?x?x?x16xf32>, %V: memref<?x?x?x16xf32>, %O: memref<?x?x?x16xf32>) {
  // expected-error @+1 {{expected softcap to be a finite number >= 0 (0 = none), found -1.000000e+00}}
  fattn.tiled_attention ins(%Q, %K, %V : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) outs(%O : memref<?x?x?x16xf32>) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = -1.0 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @f(%Q: memref<?x?x?x16xf32>, %K: memref<?x?x?x16xf32>, %V: memref<?x?x?x16xf32>, %O: memref<?x?x?x16xf32>) {
  // expected-error @+1 {{expected window_left to be -1 (unbounded) or >= 0, found -7}}
  fattn.tiled_attention ins(%Q, %K, %V : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) outs(%O : memref<?x?x?x16xf32>) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = 0.0 : f32, window_left = -7 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @f(%Q: memref<?x?x?x16xf32>, %K: memref<?x?x?x8xf32>, %V: memref<?x?x?x16xf32>, %O: memref<?x?x?x16xf32>) {
  // expected-error @+1 {{expected key head dim (8) to match query head dim (16)}}
  fattn.tiled_attention ins(%Q, %K, %V : memref<?x?x?x16xf32>, memref<?x?x?x8xf32>, memref<?x?x?x16xf32>) outs(%O : memref<?x?x?x16xf32>) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @f(%Q: memref<?x?x?x16xf32>, %i: index) {
  // expected-error @+1 {{'fattn.load_tile' op expected a rank-1 or rank-2 tile, found rank 3}}
  %t = fattn.load_tile %Q[%i, %i, %i] : memref<?x?x?x16xf32> -> tensor<2x16x16xf32>
  return
}

// -----

func.func @f(%Q: memref<?x?x16xf32>, %i: index) {
  // expected-error @+1 {{expected a rank-4 memref for a rank-2 tile, found rank 3}}
  %t = fattn.load_tile %Q[%i, %i, %i] : memref<?x?x16xf32> -> tensor<16x16xf32>
  return
}

// -----

func.func @f(%Q: memref<?x?x?x16xf32>, %i: index) {
  // expected-error @+1 {{expected tile element type 'f16' to match the memref's, found 'f32'}}
  %t = fattn.load_tile %Q[%i, %i, %i] : memref<?x?x?x16xf32> -> tensor<16x16xf16>
  return
}

// -----

func.func @f(%Q: memref<?x?x?x16xi8>, %i: index) {
  // expected-error @+1 {{'fattn.load_tile' op expected a tile of f32, f16, bf16 or f8E4M3FN elements, found 'i8'}}
  %t = fattn.load_tile %Q[%i, %i, %i] : memref<?x?x?x16xi8> -> tensor<16x16xi8>
  return
}

// -----

func.func @f(%t: tensor<16x16xi32>, %O: memref<?x?x?x16xi32>, %i: index) {
  // expected-error @+1 {{'fattn.store_tile' op expected a tile of f32, f16, bf16 or f8E4M3FN elements, found 'i32'}}
  fattn.store_tile %t, %O[%i, %i, %i] : tensor<16x16xi32>, memref<?x?x?x16xi32>
  return
}

// -----

func.func @f(%Q: memref<?x?x?x16xf32>, %i: index) {
  // expected-error @+1 {{expected tile columns (32) to match the memref head dim (16)}}
  %t = fattn.load_tile %Q[%i, %i, %i] : memref<?x?x?x16xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @f(%Q: memref<?x?x?x16xf32>, %i: index) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of any type values}}
  %t = fattn.load_tile %Q[%i, %i, %i] : memref<?x?x?x16xf32> -> tensor<?x16xf32>
  return
}

// -----

func.func @f(%t: tensor<16xf32>, %O: memref<?x?x?x16xf32>, %i: index) {
  // expected-error @+1 {{'fattn.store_tile' op expected a rank-3 memref for a rank-1 tile, found rank 4}}
  fattn.store_tile %t, %O[%i, %i, %i] : tensor<16xf32>, memref<?x?x?x16xf32>
  return
}

// -----

func.func @f(%i: index) {
  // expected-error @+1 {{'fattn.kv_tile_range' op expected positive block sizes, found block_m = 16, block_n = -8}}
  %a, %b, %c, %d = fattn.kv_tile_range %i, %i, %i {block_m = 16 : i64, block_n = -8 : i64, window_left = -1 : i64, window_right = 0 : i64}
  return
}

// -----

func.func @f(%i: index) {
  // expected-error @+1 {{expected window_right to be -1 (unbounded) or >= 0, found -3}}
  %a, %b, %c, %d = fattn.kv_tile_range %i, %i, %i {block_m = 16 : i64, block_n = 8 : i64, window_left = -1 : i64, window_right = -3 : i64}
  return
}

// -----

func.func @f(%a: tensor<16xf32>, %b: tensor<16x8xf32>) {
  // expected-error @+1 {{'fattn.mma' op expected rank-2 operands and result}}
  %r = fattn.mma %a, %b : tensor<16xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return
}

// -----

func.func @f(%a: tensor<16x16xf16>, %b: tensor<16x8xbf16>) {
  // expected-error @+1 {{expected operands of one element type among f32, f16, bf16, f8E4M3FN, found 'f16' and 'bf16'}}
  %r = fattn.mma %a, %b : tensor<16x16xf16>, tensor<16x8xbf16> -> tensor<16x8xf32>
  return
}

// -----

func.func @f(%a: tensor<16x16xf16>, %b: tensor<16x8xf16>) {
  // expected-error @+1 {{expected an f32 result, found 'f16'}}
  %r = fattn.mma %a, %b : tensor<16x16xf16>, tensor<16x8xf16> -> tensor<16x8xf16>
  return
}

// -----

func.func @f(%a: tensor<16x16xf32>, %b: tensor<16x8xf32>) {
  // expected-error @+1 {{expected the rhs reduction size (8) to match the lhs columns (16)}}
  %r = fattn.mma %a, %b {transpose_rhs} : tensor<16x16xf32>, tensor<16x8xf32> -> tensor<16x16xf32>
  return
}

// -----

func.func @f(%a: tensor<16x16xf32>, %b: tensor<16x8xf32>) {
  // expected-error @+1 {{expected a 16x8 result, found 16x16}}
  %r = fattn.mma %a, %b : tensor<16x16xf32>, tensor<16x8xf32> -> tensor<16x16xf32>
  return
}

// -----

func.func @f(%a: tensor<16x16xf32>, %b: tensor<16x8xf32>, %c: tensor<16x4xf32>) {
  // expected-error @+1 {{expected the accumulator type to be the result type 'tensor<16x8xf32>', found 'tensor<16x4xf32>'}}
  %r = fattn.mma %a, %b acc(%c : tensor<16x4xf32>) : tensor<16x16xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return
}

// -----

func.func @f(%s: tensor<16x8xf16>, %i: index) {
  // expected-error @+1 {{'fattn.mask' op expected a rank-2 f32 scores tile, found 'tensor<16x8xf16>'}}
  %r = fattn.mask %s at [%i, %i] seq_lens(%i, %i) {window_left = -1 : i64, window_right = 0 : i64} : tensor<16x8xf16>
  return
}

// -----

func.func @f(%s: tensor<16x8xf32>, %i: index) {
  // expected-error @+1 {{expected window_left to be -1 (unbounded) or >= 0, found -9}}
  %r = fattn.mask %s at [%i, %i] seq_lens(%i, %i) {window_left = -9 : i64, window_right = 0 : i64} : tensor<16x8xf32>
  return
}

// -----

func.func @f(%s: tensor<16x8xf32>) {
  // expected-error @+1 {{'fattn.softcap' op expected a positive finite softcap, found 0.000000e+00}}
  %r = fattn.softcap %s {scale = 0.5 : f32, softcap = 0.0 : f32} : tensor<16x8xf32>
  return
}

// -----

func.func @f(%s: tensor<16x8xf32>) {
  // expected-error @+1 {{expected scale to be a positive finite number, found 0.000000e+00}}
  %r = fattn.softcap %s {scale = 0.0 : f32, softcap = 1.0 : f32} : tensor<16x8xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'fattn.softmax_init' op expected a rank-2 f32 accumulator, found 'tensor<16x16xbf16>'}}
  %m, %l, %a = fattn.softmax_init : tensor<16xf32>, tensor<16xf32>, tensor<16x16xbf16>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{expected the running max to be tensor<16xf32>, found 'tensor<8xf32>'}}
  %m, %l, %a = fattn.softmax_init : tensor<8xf32>, tensor<16xf32>, tensor<16x16xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{expected the running sum to be tensor<16xf32>, found 'tensor<16xf16>'}}
  %m, %l, %a = fattn.softmax_init : tensor<16xf32>, tensor<16xf16>, tensor<16x16xf32>
  return
}

// -----

func.func @f(%s: tensor<16x8xf32>, %m: tensor<16xf32>, %l: tensor<16xf32>) {
  // expected-error @+1 {{'fattn.softmax_update' op expected probabilities of shape 16x8 in f32, f16, bf16 or f8E4M3FN, found 'tensor<16x4xbf16>'}}
  %p, %m1, %l1, %al = fattn.softmax_update %s, %m, %l {scale = 1.0 : f32} : tensor<16x8xf32>, tensor<16xf32> -> tensor<16x4xbf16>
  return
}

// -----

func.func @f(%s: tensor<16x8xf32>, %m: tensor<8xf32>, %l: tensor<8xf32>) {
  // expected-error @+1 {{expected the running max to be tensor<16xf32>, found 'tensor<8xf32>'}}
  %p, %m1, %l1, %al = fattn.softmax_update %s, %m, %l {scale = 1.0 : f32} : tensor<16x8xf32>, tensor<8xf32> -> tensor<16x8xbf16>
  return
}

// -----

func.func @f(%s: tensor<16x8xf32>, %m: tensor<16xf32>, %l: tensor<16xf32>) {
  // expected-error @+1 {{expected scale to be a positive finite number, found -1.000000e+00}}
  %p, %m1, %l1, %al = fattn.softmax_update %s, %m, %l {scale = -1.0 : f32} : tensor<16x8xf32>, tensor<16xf32> -> tensor<16x8xbf16>
  return
}

// -----

func.func @f(%a: tensor<16x16xf32>, %al: tensor<8xf32>) {
  // expected-error @+1 {{'fattn.rescale' op expected alpha to be tensor<16xf32>, found 'tensor<8xf32>'}}
  %r = fattn.rescale %a, %al : tensor<16x16xf32>, tensor<8xf32>
  return
}

// -----

func.func @f(%a: tensor<16x16xf16>, %al: tensor<16xf32>) {
  // expected-error @+1 {{'fattn.rescale' op expected a rank-2 f32 accumulator, found 'tensor<16x16xf16>'}}
  %r = fattn.rescale %a, %al : tensor<16x16xf16>, tensor<16xf32>
  return
}

// -----

func.func @f(%a: tensor<16x16xf32>, %m: tensor<16xf32>, %l: tensor<16xf32>) {
  // expected-error @+1 {{'fattn.finalize' op expected an output of the accumulator's shape in f32, f16 or bf16, found 'tensor<16x8xbf16>'}}
  %o, %lse = fattn.finalize %a, %m, %l {scale = 1.0 : f32} : tensor<16x16xf32>, tensor<16xf32> -> tensor<16x8xbf16>
  return
}

// -----

func.func @f(%a: tensor<16x16xf32>, %m: tensor<16xf16>, %l: tensor<16xf16>) {
  // expected-error @+1 {{expected the running max to be tensor<16xf32>, found 'tensor<16xf16>'}}
  %o, %lse = fattn.finalize %a, %m, %l {scale = 1.0 : f32} : tensor<16x16xf32>, tensor<16xf16> -> tensor<16x16xbf16>
  return
}

// -----

func.func @f(%Q: memref<?x?x?x16xf32>, %K: memref<?x?x?x16xf32>, %V: memref<?x?x?x16xf32>, %O: memref<?x?x?x16xf32>, %s: f32) {
  // expected-error @+1 {{'fattn.tiled_attention' op expected the scale as an attribute or an operand, not both}}
  fattn.tiled_attention ins(%Q, %K, %V : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) outs(%O : memref<?x?x?x16xf32>) scale(%s : f32) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @f(%Q: memref<?x?x?x16xf32>, %K: memref<?x?x?x16xf32>, %V: memref<?x?x?x16xf32>, %O: memref<?x?x?x16xf32>) {
  // expected-error @+1 {{'fattn.tiled_attention' op expected the scale as an attribute or an operand}}
  fattn.tiled_attention ins(%Q, %K, %V : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) outs(%O : memref<?x?x?x16xf32>) attributes {block_m = 16 : i64, block_n = 8 : i64, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @f(%Q: memref<?x?x?x16xf32>, %K: memref<?x?x?x16xf32>, %V: memref<?x?x?x16xf32>, %O: memref<?x?x?x16xf32>, %c: f32) {
  // expected-error @+1 {{'fattn.tiled_attention' op expected the softcap as an attribute or an operand, not both}}
  fattn.tiled_attention ins(%Q, %K, %V : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) outs(%O : memref<?x?x?x16xf32>) softcap(%c : f32) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @f(%s: tensor<16x8xf32>, %c: f32) {
  // expected-error @+1 {{'fattn.softcap' op expected the softcap as an attribute or an operand, not both}}
  %r = fattn.softcap %s softcap(%c : f32) {scale = 0.5 : f32, softcap = 1.0 : f32} : tensor<16x8xf32>
  return
}

// -----

func.func @f(%s: tensor<16x8xf32>, %c: f32) {
  // expected-error @+1 {{'fattn.softcap' op expected the scale as an attribute or an operand}}
  %r = fattn.softcap %s softcap(%c : f32) : tensor<16x8xf32>
  return
}

// -----

func.func @f(%s: tensor<16x8xf32>, %m: tensor<16xf32>, %l: tensor<16xf32>, %x: f32) {
  // expected-error @+1 {{'fattn.softmax_update' op expected the scale as an attribute or an operand, not both}}
  %p, %m1, %l1, %al = fattn.softmax_update %s, %m, %l scale(%x : f32) {scale = 1.0 : f32} : tensor<16x8xf32>, tensor<16xf32> -> tensor<16x8xbf16>
  return
}

// -----

func.func @f(%s: tensor<16x8xf32>, %m: tensor<16xf32>, %l: tensor<16xf32>) {
  // expected-error @+1 {{'fattn.softmax_update' op expected the scale as an attribute or an operand}}
  %p, %m1, %l1, %al = fattn.softmax_update %s, %m, %l : tensor<16x8xf32>, tensor<16xf32> -> tensor<16x8xbf16>
  return
}

// -----

func.func @f(%a: tensor<16x16xf32>, %m: tensor<16xf32>, %l: tensor<16xf32>, %x: f32) {
  // expected-error @+1 {{'fattn.finalize' op expected the scale as an attribute or an operand, not both}}
  %o, %lse = fattn.finalize %a, %m, %l scale(%x : f32) {scale = 1.0 : f32} : tensor<16x16xf32>, tensor<16xf32> -> tensor<16x16xbf16>
  return
}
