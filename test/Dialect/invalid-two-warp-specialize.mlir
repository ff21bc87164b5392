// RUN: fattn-opt %s -split-input-file -verify-diagnostics

// One producer warpgroup and one set of consumer warpgroups per kernel: a
// second fattn.warp_specialize in a fattn.tiled_attention (which the
// sm_90a lowering ignored) is refused, in the tiled op's body or in its
// work loop, and so is one nested deeper.

func.func @two(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.tiled_attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %m: index):
    // expected-error @below {{'fattn.warp_specialize' op expected one fattn.warp_specialize per fattn.tiled_attention}}
    fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 2 : i64} producer {
      %c0 = arith.constant 0 : index
    } consumer {
    ^bb0(%wg: index):
    }
    fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 2 : i64} producer {
      %c0 = arith.constant 0 : index
    } consumer {
    ^bb0(%wg: index):
    }
  }
  return
}

// -----

func.func @two_in_work_loop(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.tiled_attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%grid_b: index, %grid_h: index, %grid_m: index):
    fattn.work_loop {
    ^bb0(%b: index, %h: index, %m: index):
      // expected-error @below {{'fattn.warp_specialize' op expected one fattn.warp_specialize per fattn.tiled_attention}}
      fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 2 : i64} producer {
        %c0 = arith.constant 0 : index
      } consumer {
      ^bb0(%wg: index):
      }
      fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 2 : i64} producer {
        %c0 = arith.constant 0 : index
      } consumer {
      ^bb0(%wg: index):
      }
    }
  }
  return
}

// -----

// Nested in another op, the warpgroups would run only where it runs (the
// sm_90a lowering built a kernel without them).
func.func @nested(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.tiled_attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %m: index):
    %c = arith.constant true
    scf.if %c {
      // expected-error @below {{'fattn.warp_specialize' op expected to be directly in the body of its fattn.tiled_attention or of its fattn.work_loop}}
      fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 2 : i64} producer {
        %c0 = arith.constant 0 : index
      } consumer {
      ^bb0(%wg: index):
      }
    }
  }
  return
}
