// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --convert-fattn-to-nvvm-sm90="consumers=1" -verify-diagnostics
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --convert-fattn-to-nvvm-sm90="consumers=3" 2>&1 | FileCheck %s --check-prefix=THREE

// The schedule options the lowering cannot implement: one consumer
// warpgroup (pingpong and the 128-row tile need two), and a block_m that is
// not 64 rows per consumer warpgroup.
// THREE: op the sm_90a lowering needs block_m = 64 * consumer warpgroups = 192, found 128
func.func @one_consumer(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op the sm_90a lowering needs 2 or 3 consumer warpgroups, found 1}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>)
  return
}
