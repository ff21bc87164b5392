// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=192 block-n=64" --fattn-sm90-tma --fattn-warp-specialize="consumers=3 producer-registers=32 consumer-registers=160" --fattn-intra-wg-overlap --convert-fattn-to-nvvm-sm90 -verify-diagnostics
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=256" --fattn-sm90-tma="stages=4" --fattn-warp-specialize --fattn-intra-wg-overlap --convert-fattn-to-nvvm-sm90 2>&1 | FileCheck %s --check-prefix=SMEM

// V wider than Q and K: O's accumulators span V's head dim (256 here), so
// the register budget is V's, although Q and K are 64 wide; so is the value
// ring's share of shared memory: 4 stages of 256 keys take 128 KiB each for V
// and 32 KiB for K, and O's 4 atoms widen Q's buffer to 64 KiB (720896 bytes,
// the barriers and 1 KiB of alignment).
// SMEM: error: 'fattn.tiled_attention' op the sm_90a kernel needs 722064 bytes of shared memory, more than the 232448 an sm_90a CTA can have: lower block_n or stages
func.func @wide_value_three_consumers(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op the sm_90a kernel needs 160 registers per consumer thread for O += P V on head dim 256 (128 accumulators and 32 others), more than the 128 each of its 512 threads can have (block_m = 192): lower block_m or set wide-value-mma=false}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x256xbf16>) outs(%o : memref<?x?x?x256xbf16>)
  return
}
