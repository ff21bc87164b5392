// Schedules in the IR that the sm_90a lowering does not implement.
// One consumer warpgroup (the kernel's tile needs two or three):
// RUN: not fattn-opt %s --fattn-tile="block-m=64 block-n=128" --fattn-sm90-tma --fattn-warp-specialize="consumers=1 producer-registers=24 consumer-registers=240" --convert-fattn-to-nvvm-sm90 2>&1 | FileCheck %s --check-prefix=ONE
// Without warp specialization the consumers are block_m / 64 warpgroups, so
// block_m must be a multiple of 64:
// RUN: not fattn-opt %s --fattn-tile="block-m=160 block-n=128" --fattn-sm90-tma --convert-fattn-to-nvvm-sm90 2>&1 | FileCheck %s --check-prefix=ROWS
// A pingpong barrier that is not the kernel's protocol (wg 1 would wait on
// its own barrier 1 + 2 * wg = 3, not base + wg):
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-pingpong \
// RUN:   | sed -e 's/arith.addi %c1_4, %arg7 : index/arith.addi %c1_4, %arg7 : index\n %wrongtwice = arith.addi %arg7, %arg7 : index\n %wrongid = arith.addi %c1_4, %wrongtwice : index/' \
// RUN:         -e 's/fattn.named_barrier_sync %5, 256/fattn.named_barrier_sync %wrongid, 256/' \
// RUN:   | not fattn-opt --convert-fattn-to-nvvm-sm90 2>&1 | FileCheck %s --check-prefix=PINGPONG
// An arrival on a barrier nobody waits on (base + 5):
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-pingpong \
// RUN:   | sed -e 's/fattn.named_barrier_arrive %c1_4, 256/%wrongsix = arith.constant 6 : index\n fattn.named_barrier_arrive %wrongsix, 256/' \
// RUN:   | not fattn-opt --convert-fattn-to-nvvm-sm90 2>&1 | FileCheck %s --check-prefix=ARRIVE

// ONE: 'fattn.tiled_attention' op the sm_90a lowering needs 2 or 3 consumer warpgroups, found 1
// ROWS: 'fattn.tiled_attention' op the sm_90a lowering needs block_m = 64 * consumer warpgroups = 128, found 160
// ARRIVE: 'fattn.named_barrier_arrive' op is not a pingpong barrier the sm_90a lowering implements: expected to arrive on the other warpgroup's barrier
// PINGPONG: 'fattn.named_barrier_sync' op is not a pingpong barrier the sm_90a lowering implements: expected to wait on barrier base + warpgroup
func.func @attn(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) {causal = true}
  return
}
