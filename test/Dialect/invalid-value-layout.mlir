// RUN: fattn-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of value_layout (V stored as V^T,
// [batch, kv_heads, head_dim, keys]) and of fattn.load_tile {transposed}.

func.func @f(%q: memref<2x8x100x64xf8E4M3FN>, %k: memref<2x2x100x64xf8E4M3FN>, %v: memref<2x2x64x112xf8E4M3FN>, %o: memref<2x8x100x64xbf16>) {
  // expected-error @+1 {{'fattn.attention' op expected value_layout to be "transposed_wgmma_e4m3_k32" or absent, found "transposed"}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf8E4M3FN>, memref<2x2x100x64xf8E4M3FN>, memref<2x2x64x112xf8E4M3FN>) outs(%o : memref<2x8x100x64xbf16>) {value_layout = "transposed"}
  return
}

// -----

// An empty name is not the absence of the attribute.
func.func @f(%q: memref<2x8x100x64xf8E4M3FN>, %k: memref<2x2x100x64xf8E4M3FN>, %v: memref<2x2x100x64xf8E4M3FN>, %o: memref<2x8x100x64xbf16>) {
  // expected-error @+1 {{expected value_layout to be "transposed_wgmma_e4m3_k32" or absent, found ""}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf8E4M3FN>, memref<2x2x100x64xf8E4M3FN>, memref<2x2x100x64xf8E4M3FN>) outs(%o : memref<2x8x100x64xbf16>) {value_layout = ""}
  return
}

// -----

func.func @f(%q: memref<2x8x100x64xbf16>, %k: memref<2x2x100x64xbf16>, %v: memref<2x2x64x112xbf16>, %o: memref<2x8x100x64xbf16>) {
  // expected-error @+1 {{'fattn.attention' op expected f8E4M3FN query, key and value with value_layout = "transposed_wgmma_e4m3_k32", found 'bf16'}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xbf16>, memref<2x2x100x64xbf16>, memref<2x2x64x112xbf16>) outs(%o : memref<2x8x100x64xbf16>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

// -----

func.func @f(%q: memref<2x8x100x64xf8E4M3FN>, %k: memref<2x2x100x64xf8E4M3FN>, %v: memref<2x64x112xf8E4M3FN>, %o: memref<2x8x100x64xbf16>) {
  // expected-error @+1 {{'fattn.attention' op expected value to be a rank-4 memref [batch, heads, head_dim, keys], found rank 3}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf8E4M3FN>, memref<2x2x100x64xf8E4M3FN>, memref<2x64x112xf8E4M3FN>) outs(%o : memref<2x8x100x64xbf16>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

// -----

func.func @f(%q: memref<2x8x100x64xf8E4M3FN>, %k: memref<2x2x100x64xf8E4M3FN>, %v: memref<3x2x64x112xf8E4M3FN>, %o: memref<2x8x100x64xbf16>) {
  // expected-error @+1 {{'fattn.attention' op expected value batch size (3) to match query batch size (2)}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf8E4M3FN>, memref<2x2x100x64xf8E4M3FN>, memref<3x2x64x112xf8E4M3FN>) outs(%o : memref<2x8x100x64xbf16>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

// -----

func.func @f(%q: memref<2x8x100x64xf8E4M3FN>, %k: memref<2x2x100x64xf8E4M3FN>, %v: memref<2x4x64x112xf8E4M3FN>, %o: memref<2x8x100x64xbf16>) {
  // expected-error @+1 {{'fattn.attention' op expected value head count (4) to match key head count (2)}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf8E4M3FN>, memref<2x2x100x64xf8E4M3FN>, memref<2x4x64x112xf8E4M3FN>) outs(%o : memref<2x8x100x64xbf16>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

// -----

// V's head dim is its dim 2: 32 here, while O has 64 (and V's dim 3, the
// keys, is 64 too, which must not be taken for the head dim).
func.func @f(%q: memref<2x8x40x64xf8E4M3FN>, %k: memref<2x2x40x64xf8E4M3FN>, %v: memref<2x2x32x64xf8E4M3FN>, %o: memref<2x8x40x64xbf16>) {
  // expected-error @+1 {{'fattn.attention' op expected output head dim (64) to match value head dim (32)}}
  fattn.attention ins(%q, %k, %v : memref<2x8x40x64xf8E4M3FN>, memref<2x2x40x64xf8E4M3FN>, memref<2x2x32x64xf8E4M3FN>) outs(%o : memref<2x8x40x64xbf16>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

// -----

// keys >= seq_k (100 <= 100) but not whole runs of 16 permuted keys.
func.func @f(%q: memref<2x8x100x64xf8E4M3FN>, %k: memref<2x2x100x64xf8E4M3FN>, %v: memref<2x2x64x100xf8E4M3FN>, %o: memref<2x8x100x64xbf16>) {
  // expected-error @+1 {{'fattn.attention' op expected the key count of a transposed value (dim 3) to be a multiple of 16, found 100}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf8E4M3FN>, memref<2x2x100x64xf8E4M3FN>, memref<2x2x64x100xf8E4M3FN>) outs(%o : memref<2x8x100x64xbf16>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

// -----

// The multiple of 16 is checked with a dynamic seq_k too.
func.func @f(%q: memref<?x?x?x64xf8E4M3FN>, %k: memref<?x?x?x64xf8E4M3FN>, %v: memref<?x?x64x40xf8E4M3FN>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @+1 {{expected the key count of a transposed value (dim 3) to be a multiple of 16, found 40}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>, memref<?x?x64x40xf8E4M3FN>) outs(%o : memref<?x?x?x64xbf16>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

// -----

func.func @f(%q: memref<2x8x100x64xf8E4M3FN>, %k: memref<2x2x100x64xf8E4M3FN>, %v: memref<2x2x64x96xf8E4M3FN>, %o: memref<2x8x100x64xbf16>) {
  // expected-error @+1 {{'fattn.attention' op expected the key count of a transposed value (96) to be at least the key sequence length (100)}}
  fattn.attention ins(%q, %k, %v : memref<2x8x100x64xf8E4M3FN>, memref<2x2x100x64xf8E4M3FN>, memref<2x2x64x96xf8E4M3FN>) outs(%o : memref<2x8x100x64xbf16>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

// -----

// The same checks on the tiled form (shared verifier).
func.func @f(%Q: memref<2x8x100x64xf8E4M3FN>, %K: memref<2x2x100x64xf8E4M3FN>, %V: memref<2x2x64x96xf8E4M3FN>, %O: memref<2x8x100x64xbf16>) {
  // expected-error @+1 {{'fattn.tiled_attention' op expected the key count of a transposed value (96) to be at least the key sequence length (100)}}
  fattn.tiled_attention ins(%Q, %K, %V : memref<2x8x100x64xf8E4M3FN>, memref<2x2x100x64xf8E4M3FN>, memref<2x2x64x96xf8E4M3FN>) outs(%O : memref<2x8x100x64xbf16>) attributes {block_m = 64 : i64, block_n = 64 : i64, scale = 0.125 : f32, softcap = 0.0 : f32, value_layout = "transposed_wgmma_e4m3_k32", window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

// A tile of V^T holds whole k steps (32 keys) of the P V product.
func.func @f(%Q: memref<?x?x?x64xf8E4M3FN>, %K: memref<?x?x?x64xf8E4M3FN>, %V: memref<?x?x64x?xf8E4M3FN>, %O: memref<?x?x?x64xbf16>) {
  // expected-error @+1 {{'fattn.tiled_attention' op expected block_n to be a multiple of 32 with value_layout = "transposed_wgmma_e4m3_k32", found 48}}
  fattn.tiled_attention ins(%Q, %K, %V : memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>, memref<?x?x64x?xf8E4M3FN>) outs(%O : memref<?x?x?x64xbf16>) attributes {block_m = 64 : i64, block_n = 48 : i64, scale = 0.125 : f32, softcap = 0.0 : f32, value_layout = "transposed_wgmma_e4m3_k32", window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @f(%V: memref<?x?x32x?xf8E4M3FN>, %i: index) {
  // expected-error @+1 {{'fattn.load_tile' op expected tile rows (64) to match the head dim of the transposed memref (dim 2, 32)}}
  %t = fattn.load_tile %V[%i, %i, %i] {transposed} : memref<?x?x32x?xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
  return
}

// -----

// The tile's columns are keys, not the memref's dim 3 (160 here): no check
// against it, but a plain load of the same memref compares dim 3.
func.func @f(%V: memref<?x?x32x160xf8E4M3FN>, %i: index) {
  %t = fattn.load_tile %V[%i, %i, %i] {transposed} : memref<?x?x32x160xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  // expected-error @+1 {{'fattn.load_tile' op expected tile columns (64) to match the memref head dim (160)}}
  %u = fattn.load_tile %V[%i, %i, %i] : memref<?x?x32x160xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  return
}

// -----

func.func @f(%L: memref<?x?x?xf32>, %i: index) {
  // expected-error @+1 {{'fattn.load_tile' op expected a rank-2 tile for a transposed load}}
  %t = fattn.load_tile %L[%i, %i, %i] {transposed} : memref<?x?x?xf32> -> tensor<64xf32>
  return
}

// -----

// V's tiles are read the way value_layout stores V: transposed.
func.func @f(%Q: memref<?x?x?x64xf8E4M3FN>, %K: memref<?x?x?x64xf8E4M3FN>, %V: memref<?x?x64x?xf8E4M3FN>, %O: memref<?x?x?x64xbf16>) {
  fattn.tiled_attention ins(%Q, %K, %V : memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>, memref<?x?x64x?xf8E4M3FN>) outs(%O : memref<?x?x?x64xbf16>) attributes {block_m = 64 : i64, block_n = 64 : i64, scale = 0.125 : f32, softcap = 0.0 : f32, value_layout = "transposed_wgmma_e4m3_k32", window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %m: index):
    // expected-error @+1 {{'fattn.load_tile' op reads by rows a V that value_layout stores transposed: expected {transposed}}}
    %v = fattn.load_tile %V[%b, %h, %m] : memref<?x?x64x?xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  }
  return
}

// -----

// ... and by rows without value_layout.
func.func @f(%Q: memref<?x?x?x64xf8E4M3FN>, %K: memref<?x?x?x64xf8E4M3FN>, %V: memref<?x?x?x64xf8E4M3FN>, %O: memref<?x?x?x64xbf16>) {
  fattn.tiled_attention ins(%Q, %K, %V : memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>) outs(%O : memref<?x?x?x64xbf16>) attributes {block_m = 64 : i64, block_n = 64 : i64, scale = 0.125 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %m: index):
    // expected-error @+1 {{'fattn.load_tile' op is {transposed} but V is stored by rows (no value_layout)}}
    %v = fattn.load_tile %V[%b, %h, %m] {transposed} : memref<?x?x?x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  }
  return
}

// -----

// K and V tiles hold block_n keys: a K tile of other rows ...
func.func @f(%Q: memref<?x?x?x64xbf16>, %K: memref<?x?x?x64xbf16>, %V: memref<?x?x?x64xbf16>, %O: memref<?x?x?x64xbf16>) {
  fattn.tiled_attention ins(%Q, %K, %V : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%O : memref<?x?x?x64xbf16>) attributes {block_m = 64 : i64, block_n = 64 : i64, scale = 0.125 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %m: index):
    // expected-error @+1 {{'fattn.load_tile' op loads a tile of 32 keys of K, expected block_n = 64}}
    %k = fattn.load_tile %K[%b, %h, %m] : memref<?x?x?x64xbf16> -> tensor<32x64xbf16>
  }
  return
}

// -----

// ... or a V^T tile of other columns.
func.func @f(%Q: memref<?x?x?x64xf8E4M3FN>, %K: memref<?x?x?x64xf8E4M3FN>, %V: memref<?x?x64x?xf8E4M3FN>, %O: memref<?x?x?x64xbf16>) {
  fattn.tiled_attention ins(%Q, %K, %V : memref<?x?x?x64xf8E4M3FN>, memref<?x?x?x64xf8E4M3FN>, memref<?x?x64x?xf8E4M3FN>) outs(%O : memref<?x?x?x64xbf16>) attributes {block_m = 64 : i64, block_n = 64 : i64, scale = 0.125 : f32, softcap = 0.0 : f32, value_layout = "transposed_wgmma_e4m3_k32", window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %m: index):
    // expected-error @+1 {{'fattn.load_tile' op loads a tile of 128 keys of V, expected block_n = 64}}
    %v = fattn.load_tile %V[%b, %h, %m] {transposed} : memref<?x?x64x?xf8E4M3FN> -> tensor<64x128xf8E4M3FN>
  }
  return
}
