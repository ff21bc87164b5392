// RUN: fattn-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{expected at least one stage, found 0}}
func.func @no_stage(%r: !fattn.ring<0, tensor<64x64xbf16>>)

// -----

// expected-error @below {{expected statically shaped tensor elements, found 'tensor<?x64xbf16>'}}
func.func @dynamic_tile(%r: !fattn.ring<2, tensor<?x64xbf16>>)

// -----

// expected-error @below {{expected statically shaped tensor elements, found 'memref<64xf32>'}}
func.func @memref_tile(%r: !fattn.ring<2, memref<64xf32>>)

// -----

func.func @consumer_registers() {
  // expected-error @below {{expected consumer_registers to be a multiple of 8 in [24, 256] (setmaxnreg), found 260}}
  fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 1 : i64, producer_registers = 24 : i64, consumer_registers = 260 : i64} producer {
    %c0 = arith.constant 0 : index
  } consumer {
  ^bb0(%wg: index):
  }
  return
}

// -----

func.func @too_many_consumers() {
  // expected-error @below {{'fattn.warp_specialize' op attribute 'consumers' failed to satisfy constraint}}
  fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 4 : i64, producer_registers = 24 : i64, consumer_registers = 96 : i64} producer {
    %c0 = arith.constant 0 : index
  } consumer {
  ^bb0(%wg: index):
  }
  return
}

// -----

func.func @producer_args() {
  // expected-error @below {{expected a producer region without arguments}}
  fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64, consumer_registers = 240 : i64} producer {
  ^bb0(%x: index):
  } consumer {
  ^bb0(%wg: index):
  }
  return
}

// -----

func.func @consumer_args() {
  // expected-error @below {{expected the consumer region to take the consumer warpgroup index (one index argument)}}
  fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64, consumer_registers = 240 : i64} producer {
    %c0 = arith.constant 0 : index
  } consumer {
  ^bb0(%wg: i32):
  }
  return
}

// -----

func.func @acquire_outside(%r: !fattn.ring<2, tensor<64x64xbf16>>) {
  // expected-error @below {{expected to be inside the producer region of a fattn.warp_specialize}}
  fattn.ring_acquire %r[0] : !fattn.ring<2, tensor<64x64xbf16>>
  return
}

// -----

func.func @wait_in_producer(%r: !fattn.ring<2, tensor<64x64xbf16>>) {
  fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64, consumer_registers = 240 : i64} producer {
    // expected-error @below {{expected to be inside the consumer region of a fattn.warp_specialize}}
    %t = fattn.ring_wait %r[0] : !fattn.ring<2, tensor<64x64xbf16>> -> tensor<64x64xbf16>
  } consumer {
  ^bb0(%wg: index):
  }
  return
}

// -----

func.func @release_in_producer(%r: !fattn.ring<2, tensor<64x64xbf16>>) {
  fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64, consumer_registers = 240 : i64} producer {
    // expected-error @below {{expected to be inside the consumer region of a fattn.warp_specialize}}
    fattn.ring_release %r[0] : !fattn.ring<2, tensor<64x64xbf16>>
  } consumer {
  ^bb0(%wg: index):
  }
  return
}

// -----

func.func @commit_in_consumer(%r: !fattn.ring<2, tensor<64x64xbf16>>, %t: tensor<64x64xbf16>) {
  fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64, consumer_registers = 240 : i64} producer {
    %c0 = arith.constant 0 : index
  } consumer {
  ^bb0(%wg: index):
    // expected-error @below {{expected to be inside the producer region of a fattn.warp_specialize}}
    fattn.ring_commit %r[0], %t : !fattn.ring<2, tensor<64x64xbf16>>, tensor<64x64xbf16>
  }
  return
}

// -----

func.func @element_range(%r: !fattn.ring<2, tensor<64x64xbf16>>, %t: tensor<64x64xbf16>) {
  fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64, consumer_registers = 240 : i64} producer {
    // expected-error @below {{element 1 is out of range for a ring of 1 element type(s)}}
    fattn.ring_commit %r[1], %t : !fattn.ring<2, tensor<64x64xbf16>>, tensor<64x64xbf16>
  } consumer {
  ^bb0(%wg: index):
  }
  return
}

// -----

func.func @element_type(%r: !fattn.ring<2, tensor<64x64xbf16>>) {
  fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64, consumer_registers = 240 : i64} producer {
    %c0 = arith.constant 0 : index
  } consumer {
  ^bb0(%wg: index):
    // expected-error @below {{expected a tile of type 'tensor<64x64xbf16>' for element 0, found 'tensor<64x64xf16>'}}
    %t = fattn.ring_wait %r[0] : !fattn.ring<2, tensor<64x64xbf16>> -> tensor<64x64xf16>
  }
  return
}

// -----

func.func @barrier_threads() {
  fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64, consumer_registers = 240 : i64} producer {
    %c0 = arith.constant 0 : index
  } consumer {
  ^bb0(%wg: index):
    // expected-error @below {{expected a thread count that is a positive multiple of 32 (at most 1024), found 100}}
    fattn.named_barrier_sync %wg, 100
  }
  return
}

// -----

func.func @barrier_zero() {
  fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64, consumer_registers = 240 : i64} producer {
    %c0 = arith.constant 0 : index
  } consumer {
  ^bb0(%wg: index):
    %c0 = arith.constant 0 : index
    // expected-error @below {{barrier 0 is the CTA-wide barrier; named barriers are 1 to 15}}
    fattn.named_barrier_arrive %c0, 256
  }
  return
}

// -----

func.func @barrier_id() {
  fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64, consumer_registers = 240 : i64} producer {
    %c0 = arith.constant 0 : index
  } consumer {
  ^bb0(%wg: index):
    %c16 = arith.constant 16 : index
    // expected-error @below {{expected a barrier id in [1, 15], found 16}}
    fattn.named_barrier_sync %c16, 256
  }
  return
}

// -----

func.func @barrier_outside(%id: index) {
  // expected-error @below {{expected to be inside the consumer region of a fattn.warp_specialize}}
  fattn.named_barrier_sync %id, 256
  return
}

// -----

func.func @half_registers() {
  // expected-error @below {{expected both producer_registers and consumer_registers, or neither}}
  fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
    %c0 = arith.constant 0 : index
  } consumer {
  ^bb0(%wg: index):
  }
  return
}

// -----

func.func @release_range(%r: !fattn.ring<2, tensor<64x64xbf16>>) {
  fattn.warp_specialize attributes {consumer_rows = 64 : i64, consumers = 2 : i64} producer {
    %c0 = arith.constant 0 : index
  } consumer {
  ^bb0(%wg: index):
    // expected-error @below {{element 2 is out of range for a ring of 1 element type(s)}}
    fattn.ring_release %r[2] : !fattn.ring<2, tensor<64x64xbf16>>
  }
  return
}

// -----

func.func @work_loop_outside_tiled_op() {
  // expected-error @below {{'fattn.work_loop' op expected to be directly in the body of a fattn.tiled_attention}}
  fattn.work_loop {
  ^bb0(%b: index, %h: index, %m: index):
  }
  return
}

// -----

func.func @work_loop_arguments(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.tiled_attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%grid_b: index, %grid_h: index, %grid_m: index):
    // expected-error @below {{'fattn.work_loop' op expected the region to take the work item's batch, head and Q tile (3 index arguments), found 2 argument(s)}}
    fattn.work_loop {
    ^bb0(%b: index, %h: index):
    }
  }
  return
}

// -----

func.func @two_work_loops(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.tiled_attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%grid_b: index, %grid_h: index, %grid_m: index):
    // expected-error @below {{'fattn.work_loop' op expected one fattn.work_loop per fattn.tiled_attention}}
    fattn.work_loop {
    ^bb0(%b: index, %h: index, %m: index):
    }
    fattn.work_loop {
    ^bb0(%b: index, %h: index, %m: index):
    }
  }
  return
}

// -----

// Inside the loop the tiled op's arguments are the CTA's grid coordinates,
// not the work item's.
func.func @work_loop_grid_coordinate(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.tiled_attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%grid_b: index, %grid_h: index, %grid_m: index):
    // expected-error @below {{'fattn.work_loop' op expected the work item's coordinates from the region's arguments, found a use of the fattn.tiled_attention's argument #2 (a grid coordinate)}}
    fattn.work_loop {
    ^bb0(%b: index, %h: index, %m: index):
      %c128 = arith.constant 128 : index
      // expected-note @below {{used here}}
      %row = arith.muli %grid_m, %c128 : index
    }
  }
  return
}

// -----

func.func @no_consumer_rows() {
  // expected-error @below {{'fattn.warp_specialize' op requires attribute 'consumer_rows'}}
  fattn.warp_specialize attributes {consumers = 2 : i64} producer {
    %c0 = arith.constant 0 : index
  } consumer {
  ^bb0(%wg: index):
  }
  return
}

// -----

func.func @zero_consumer_rows() {
  // expected-error @below {{'fattn.warp_specialize' op attribute 'consumer_rows' failed to satisfy constraint}}
  fattn.warp_specialize attributes {consumer_rows = 0 : i64, consumers = 2 : i64} producer {
    %c0 = arith.constant 0 : index
  } consumer {
  ^bb0(%wg: index):
  }
  return
}

// -----

// Each row of the Q tile has one consumer warpgroup: two of 32 rows leave
// half of a 128-row tile without one.
func.func @consumer_rows_block_m(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.tiled_attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) attributes {block_m = 128 : i64, block_n = 64 : i64, scale = 1.250000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %m: index):
    // expected-error @below {{'fattn.warp_specialize' op expected the consumer warpgroups' rows to make up the Q tile's block_m = 128, found 2 x consumer_rows = 32}}
    fattn.warp_specialize attributes {consumer_rows = 32 : i64, consumers = 2 : i64} producer {
      %c0 = arith.constant 0 : index
    } consumer {
    ^bb0(%wg: index):
    }
  }
  return
}
