// The scheduling passes refuse IR they cannot schedule, with a diagnostic.
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-warp-specialize 2>&1 | FileCheck %s --check-prefix=NOPLAN
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize=consumers=3 2>&1 | FileCheck %s --check-prefix=BLOCKM
// RUN: not fattn-opt %s --fattn-tile="block-m=256 block-n=128" --fattn-sm90-tma --fattn-warp-specialize=consumers=4 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-warp-specialize 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize=producer-registers=20 2>&1 | FileCheck %s --check-prefix=REGS
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-intra-wg-overlap 2>&1 | FileCheck %s --check-prefix=OVERLAP
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-intra-wg-overlap 2>&1 | FileCheck %s --check-prefix=OVERLAP2
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-pingpong 2>&1 | FileCheck %s --check-prefix=PINGPONG
// RUN: not fattn-opt %s --fattn-tile="block-m=192 block-n=128" --fattn-sm90-tma --fattn-warp-specialize="consumers=3 consumer-registers=160" --fattn-pingpong 2>&1 | FileCheck %s --check-prefix=PINGPONG3
// RUN: not fattn-opt %s --fattn-tile="block-m=192 block-n=128" --fattn-sm90-tma --fattn-warp-specialize=consumers=3 2>&1 | FileCheck %s --check-prefix=REGSUM
// 48 + 2 x 232 fills an SM's 64K registers, but a CTA of 384 threads starts
// with 168 each (64512): the consumers' setmaxnreg.inc would wait forever.
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize="producer-registers=48 consumer-registers=232" 2>&1 | FileCheck %s --check-prefix=REGSUM2
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-pingpong=barrier-base=15 2>&1 | FileCheck %s --check-prefix=BASE
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-pingpong --fattn-pingpong 2>&1 | FileCheck %s --check-prefix=PINGPONG2
// A one-stage ring (hand-edited: --fattn-sm90-tma plans at least two):
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize | sed -e 's/<2, tensor/<1, tensor/g' \
// RUN:   | not fattn-opt --fattn-intra-wg-overlap 2>&1 | FileCheck %s --check-prefix=STAGES
// The lowering implements the work loop of a persistent kernel only with a
// producer warpgroup in it (hand-edited: --fattn-persistent-tiles refuses to
// build the loop in an op without one):
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma \
// RUN:   | sed -e 's/^\( *\)\^bb0(%arg4: index, %arg5: index, %arg6: index):/\1^bb0(%b: index, %h: index, %m: index):\n\1fattn.work_loop {\n\1^bb0(%arg4: index, %arg5: index, %arg6: index):/' -e 's/^    return/    }\n    return/' \
// RUN:   | not fattn-opt --convert-fattn-to-nvvm-sm90 2>&1 | FileCheck %s --check-prefix=PERSISTENT

// The lowering gives each consumer warpgroup the rows of one wgmma (64);
// one warpgroup owning all 128 rows (hand-edited) is refused:
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize \
// RUN:   | sed -e 's/consumer_rows = 64 : i64, consumers = 2/consumer_rows = 128 : i64, consumers = 1/' \
// RUN:   | not fattn-opt --convert-fattn-to-nvvm-sm90 2>&1 | FileCheck %s --check-prefix=ROWS

// ROWS: 'fattn.warp_specialize' op expected consumer_rows = 64 (the sm_90a lowering gives each consumer warpgroup the rows of one wgmma), found 128
// STAGES: 'fattn.warp_specialize' op intra-warpgroup overlap needs a ring of at least 2 stages
// PERSISTENT: 'fattn.work_loop' op expected a fattn.warp_specialize in its region: the sm_90a lowering implements the loop over work items with a producer warpgroup (run --fattn-warp-specialize before --fattn-persistent-tiles)
// NOPLAN: 'fattn.tiled_attention' op has no TMA plan: run --fattn-sm90-tma first
// BLOCKM: 'fattn.tiled_attention' op with 3 consumer warpgroups of 64 rows, block_m must be 192, found 128
// COUNT: 'fattn.tiled_attention' op expected 1 to 3 consumer warpgroups, found 4
// TWICE: 'fattn.tiled_attention' op is already warp-specialized
// REGS: 'fattn.warp_specialize' op expected producer_registers to be a multiple of 8 in [24, 256] (setmaxnreg), found 20
// REGSUM: 'fattn.warp_specialize' op needs 95232 registers for one producer and 3 consumer warpgroups, more than the 65536 that a CTA of 512 threads starts with (setmaxnreg only moves registers between its warps)
// REGSUM2: 'fattn.warp_specialize' op needs 65536 registers for one producer and 2 consumer warpgroups, more than the 64512 that a CTA of 384 threads starts with (setmaxnreg only moves registers between its warps)
// OVERLAP: 'fattn.tiled_attention' op has no consumer warpgroups to pipeline: run --fattn-warp-specialize first
// OVERLAP2: 'fattn.warp_specialize' op the consumer loop is already pipelined
// PINGPONG: 'fattn.tiled_attention' op has no consumer warpgroups to order: run --fattn-warp-specialize first
// PINGPONG3: 'fattn.warp_specialize' op pingpong alternates two consumer warpgroups, found 3
// BASE: 'fattn.warp_specialize' op pingpong needs named barriers barrier-base and barrier-base + 1 in [1, 15], found barrier-base 15
// PINGPONG2: 'fattn.warp_specialize' op the consumer warpgroups are already ordered by named barriers
func.func @causal(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}
