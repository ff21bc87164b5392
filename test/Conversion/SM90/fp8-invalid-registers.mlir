// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-fp8-layout \
// RUN:   | sed -e 's/producer_registers = 56/producer_registers = 40/' \
// RUN:   | not fattn-opt --convert-fattn-to-nvvm-sm90 2>&1 | FileCheck %s --check-prefix=REGS
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize \
// RUN:   --fattn-intra-wg-overlap --fattn-pingpong="barrier-base=14" --fattn-fp8-layout --convert-fattn-to-nvvm-sm90 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PINGPONG

// The FP8 producer warpgroup transposes V: it needs its 56 registers (with
// 40 the transpose spills) and the named barrier 15, which pingpong must not
// take.
// REGS: error: 'fattn.tiled_attention' op the sm_90a FP8 kernel's producer warpgroup transposes V and needs at least 56 registers, found producer_registers = 40
// PINGPONG: error: 'fattn.tiled_attention' op pingpong barriers 14 and 15 collide with the FP8 producer's barrier 15
func.func @fp8(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
