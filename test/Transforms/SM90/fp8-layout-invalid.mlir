// RUN: fattn-opt %s -split-input-file --fattn-fp8-layout -verify-diagnostics

// The P V product is permuted in chunks of one e4m3 wgmma k step.
func.func @block_n(%q: memref<1x1x64x32xf8E4M3FN>, %k: memref<1x1x64x32xf8E4M3FN>, %v: memref<1x1x64x32xf8E4M3FN>, %o: memref<1x1x64x32xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op needs block_n to be a multiple of 32 (the keys of one e4m3 wgmma k step), found 48}}
  fattn.tiled_attention ins(%q, %k, %v : memref<1x1x64x32xf8E4M3FN>, memref<1x1x64x32xf8E4M3FN>, memref<1x1x64x32xf8E4M3FN>) outs(%o : memref<1x1x64x32xbf16>) attributes {block_m = 64 : i64, block_n = 48 : i64, scale = 1.0 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %t: index):
  }
  return
}

// -----

// V's factor moves to the product's columns: it must be one per KV tile.
func.func @v_descale_inside_tile(%q: memref<1x1x128x32xf8E4M3FN>, %k: memref<1x1x128x32xf8E4M3FN>, %v: memref<1x1x128x32xf8E4M3FN>, %o: memref<1x1x128x32xbf16>, %dq: memref<1x1x2xf32>, %dk: memref<1x1x4xf32>, %dv: memref<1x1x4xf32>) {
  // expected-error @below {{'fattn.tiled_attention' op needs one V descale per KV tile: descale_block_kv (40) must be a multiple of block_n (64)}}
  fattn.tiled_attention ins(%q, %k, %v : memref<1x1x128x32xf8E4M3FN>, memref<1x1x128x32xf8E4M3FN>, memref<1x1x128x32xf8E4M3FN>) outs(%o : memref<1x1x128x32xbf16>) descale(%dq, %dk, %dv : memref<1x1x2xf32>, memref<1x1x4xf32>, memref<1x1x4xf32>) attributes {block_m = 64 : i64, block_n = 64 : i64, descale_block_q = 64 : i64, descale_block_kv = 40 : i64, scale = 1.0 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %t: index):
  }
  return
}

// -----

func.func @applied_twice(%q: memref<1x1x64x32xf8E4M3FN>, %k: memref<1x1x64x32xf8E4M3FN>, %v: memref<1x1x64x32xf8E4M3FN>, %o: memref<1x1x64x32xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op already has the fp8 layout (fattn.transpose_tile or fattn.permute_keys found)}}
  fattn.tiled_attention ins(%q, %k, %v : memref<1x1x64x32xf8E4M3FN>, memref<1x1x64x32xf8E4M3FN>, memref<1x1x64x32xf8E4M3FN>) outs(%o : memref<1x1x64x32xbf16>) attributes {block_m = 64 : i64, block_n = 64 : i64, scale = 1.0 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %t: index):
    %c0 = arith.constant 0 : index
    %vv = fattn.load_tile %v[%b, %h, %c0] : memref<1x1x64x32xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
    %vt = fattn.transpose_tile %vv {key_permutation = "wgmma_e4m3_k32"} : tensor<64x32xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  }
  return
}

// -----

func.func @no_product(%q: memref<1x1x64x32xf8E4M3FN>, %k: memref<1x1x64x32xf8E4M3FN>, %v: memref<1x1x64x32xf8E4M3FN>, %o: memref<1x1x64x32xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op has no P V product to lay out}}
  fattn.tiled_attention ins(%q, %k, %v : memref<1x1x64x32xf8E4M3FN>, memref<1x1x64x32xf8E4M3FN>, memref<1x1x64x32xf8E4M3FN>) outs(%o : memref<1x1x64x32xbf16>) attributes {block_m = 64 : i64, block_n = 64 : i64, scale = 1.0 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %t: index):
  }
  return
}

// -----

// A V tile used other than as the rhs of P V: the transpose would change it.
func.func @v_as_keys(%q: memref<1x1x64x32xf8E4M3FN>, %k: memref<1x1x64x32xf8E4M3FN>, %v: memref<1x1x64x32xf8E4M3FN>, %o: memref<1x1x64x32xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op expected each V tile to be only the rhs of P V products (fattn.mma without transpose_rhs), found a use by fattn.mma}}
  fattn.tiled_attention ins(%q, %k, %v : memref<1x1x64x32xf8E4M3FN>, memref<1x1x64x32xf8E4M3FN>, memref<1x1x64x32xf8E4M3FN>) outs(%o : memref<1x1x64x32xbf16>) attributes {block_m = 64 : i64, block_n = 64 : i64, scale = 1.0 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %t: index):
    %c0 = arith.constant 0 : index
    %qq = fattn.load_tile %q[%b, %h, %c0] : memref<1x1x64x32xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
    %vv = fattn.load_tile %v[%b, %h, %c0] : memref<1x1x64x32xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
    %s = fattn.mma %qq, %vv {transpose_rhs} : tensor<64x32xf8E4M3FN>, tensor<64x32xf8E4M3FN> -> tensor<64x64xf32>
  }
  return
}

// -----

func.func @two_value_commits(%q: memref<1x1x64x32xf8E4M3FN>, %k: memref<1x1x64x32xf8E4M3FN>, %v: memref<1x1x64x32xf8E4M3FN>, %o: memref<1x1x64x32xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op expected the producer to commit V to the ring once}}
  fattn.tiled_attention ins(%q, %k, %v : memref<1x1x64x32xf8E4M3FN>, memref<1x1x64x32xf8E4M3FN>, memref<1x1x64x32xf8E4M3FN>) outs(%o : memref<1x1x64x32xbf16>) attributes {block_m = 64 : i64, block_n = 64 : i64, scale = 1.0 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %t: index):
    %ring = fattn.ring_create : !fattn.ring<2, tensor<64x32xf8E4M3FN>, tensor<64x32xf8E4M3FN>>
    fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 1 : i64} producer {
      %c0 = arith.constant 0 : index
      %v0 = fattn.load_tile %v[%b, %h, %c0] : memref<1x1x64x32xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
      fattn.ring_commit %ring[0], %v0 : !fattn.ring<2, tensor<64x32xf8E4M3FN>, tensor<64x32xf8E4M3FN>>, tensor<64x32xf8E4M3FN>
      fattn.ring_commit %ring[1], %v0 : !fattn.ring<2, tensor<64x32xf8E4M3FN>, tensor<64x32xf8E4M3FN>>, tensor<64x32xf8E4M3FN>
    } consumer {
    ^bb0(%wg: index):
    }
  }
  return
}

// -----

func.func @value_not_in_ring(%q: memref<1x1x64x32xf8E4M3FN>, %k: memref<1x1x64x32xf8E4M3FN>, %v: memref<1x1x64x32xf8E4M3FN>, %o: memref<1x1x64x32xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op expected the producer to commit the V tiles to the ring (the form --fattn-warp-specialize builds)}}
  fattn.tiled_attention ins(%q, %k, %v : memref<1x1x64x32xf8E4M3FN>, memref<1x1x64x32xf8E4M3FN>, memref<1x1x64x32xf8E4M3FN>) outs(%o : memref<1x1x64x32xbf16>) attributes {block_m = 64 : i64, block_n = 64 : i64, scale = 1.0 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %t: index):
    %ring = fattn.ring_create : !fattn.ring<2, tensor<64x32xf8E4M3FN>>
    fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 1 : i64} producer {
      %c0 = arith.constant 0 : index
      %k0 = fattn.load_tile %k[%b, %h, %c0] : memref<1x1x64x32xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
      fattn.ring_commit %ring[0], %k0 : !fattn.ring<2, tensor<64x32xf8E4M3FN>>, tensor<64x32xf8E4M3FN>
    } consumer {
    ^bb0(%wg: index):
    }
  }
  return
}

// -----

// The consumers' V waits feed only P V products.
func.func @ring_value_other_use(%q: memref<1x1x64x32xf8E4M3FN>, %k: memref<1x1x64x32xf8E4M3FN>, %v: memref<1x1x64x32xf8E4M3FN>, %o: memref<1x1x64x32xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op expected each V tile to be only the rhs of P V products (fattn.mma without transpose_rhs), found a use by fattn.store_tile}}
  fattn.tiled_attention ins(%q, %k, %v : memref<1x1x64x32xf8E4M3FN>, memref<1x1x64x32xf8E4M3FN>, memref<1x1x64x32xf8E4M3FN>) outs(%o : memref<1x1x64x32xbf16>) attributes {block_m = 64 : i64, block_n = 64 : i64, scale = 1.0 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %t: index):
    %ring = fattn.ring_create : !fattn.ring<2, tensor<64x32xf8E4M3FN>>
    fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 1 : i64} producer {
      %c0 = arith.constant 0 : index
      %v0 = fattn.load_tile %v[%b, %h, %c0] : memref<1x1x64x32xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
      fattn.ring_commit %ring[0], %v0 : !fattn.ring<2, tensor<64x32xf8E4M3FN>>, tensor<64x32xf8E4M3FN>
    } consumer {
    ^bb0(%wg: index):
      %c0 = arith.constant 0 : index
      %w = fattn.ring_wait %ring[0] : !fattn.ring<2, tensor<64x32xf8E4M3FN>> -> tensor<64x32xf8E4M3FN>
      fattn.store_tile %w, %v[%b, %h, %c0] : tensor<64x32xf8E4M3FN>, memref<1x1x64x32xf8E4M3FN>
    }
  }
  return
}

// -----

// The ring's V element becomes V^T: a ring from outside cannot change type.
func.func @ring_from_outside(%q: memref<1x1x64x32xf8E4M3FN>, %k: memref<1x1x64x32xf8E4M3FN>, %v: memref<1x1x64x32xf8E4M3FN>, %o: memref<1x1x64x32xbf16>, %ring: !fattn.ring<2, tensor<64x32xf8E4M3FN>>) {
  // expected-error @below {{'fattn.tiled_attention' op expected the ring that carries V to be created by a fattn.ring_create inside the op}}
  fattn.tiled_attention ins(%q, %k, %v : memref<1x1x64x32xf8E4M3FN>, memref<1x1x64x32xf8E4M3FN>, memref<1x1x64x32xf8E4M3FN>) outs(%o : memref<1x1x64x32xbf16>) attributes {block_m = 64 : i64, block_n = 64 : i64, scale = 1.0 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %t: index):
    fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 1 : i64} producer {
      %c0 = arith.constant 0 : index
      %v0 = fattn.load_tile %v[%b, %h, %c0] : memref<1x1x64x32xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
      fattn.ring_commit %ring[0], %v0 : !fattn.ring<2, tensor<64x32xf8E4M3FN>>, tensor<64x32xf8E4M3FN>
    } consumer {
    ^bb0(%wg: index):
    }
  }
  return
}
