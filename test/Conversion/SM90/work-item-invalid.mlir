// The sm_90a kernel computes one work item per CTA, or per turn of a
// persistent CTA's loop: its batch, head and Q tile are the block arguments
// of the fattn.work_loop (or of the tiled op without one), and every op of
// the item must take them as they are. Variants of the hand-written L2 of
// work-loop.mlir that do otherwise are refused, naming the op, instead of
// being lowered as if they took the item's coordinates.
//
// The KV tile range of another Q tile:
// RUN: sed 's/fattn.kv_tile_range %q_tile,/fattn.kv_tile_range %c1,/' %S/work-loop.mlir | not fattn-opt --convert-fattn-to-nvvm-sm90 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: error: 'fattn.kv_tile_range' op expected the work item's Q tile (argument 2 of the fattn.work_loop's block, the one the sm_90a kernel computes), found a value computed by 'arith.constant'
//
// Q's tile of another head:
// RUN: sed 's/fattn.load_tile %arg0\[%batch, %head, %3\]/fattn.load_tile %arg0[%batch, %c1, %3]/' %S/work-loop.mlir | not fattn-opt --convert-fattn-to-nvvm-sm90 2>&1 | FileCheck %s --check-prefix=HEAD
// HEAD: error: 'fattn.load_tile' op expected the work item's head (argument 1 of the fattn.work_loop's block, the one the sm_90a kernel computes), found a value computed by 'arith.constant'
//
// O stored with batch and head swapped:
// RUN: sed 's/fattn.store_tile %output, %arg3\[%batch, %head, %3\]/fattn.store_tile %output, %arg3[%head, %batch, %3]/' %S/work-loop.mlir | not fattn-opt --convert-fattn-to-nvvm-sm90 2>&1 | FileCheck %s --check-prefix=BATCH
// BATCH: error: 'fattn.store_tile' op expected the work item's batch (argument 0 of the fattn.work_loop's block, the one the sm_90a kernel computes), found argument 1 of a block of 'fattn.work_loop'
//
// A ring created per work item: the kernel's ring runs on across items.
// RUN: sed -e '/%ring = fattn.ring_create/d' -e 's/^\(    ^bb0(%batch: index, %head: index, %q_tile: index):\)$/\1\n      %ring = fattn.ring_create : <2, tensor<64x64xbf16>, tensor<64x64xbf16>>/' %S/work-loop.mlir | not fattn-opt --convert-fattn-to-nvvm-sm90 2>&1 | FileCheck %s --check-prefix=RING
// RING: error: 'fattn.ring_create' op expected before the fattn.work_loop: the sm_90a kernel runs one ring's stages and phases on from one work item to the next
//
// Without a work loop, the coordinates are the tiled op's (the CTA's grid
// position): K's tile of another batch than the item's.
// RUN: sed -n 's,^// L0: ,,p' %S/work-loop.mlir | fattn-opt --fattn-tile="block-m=128 block-n=64" --fattn-sm90-tma --fattn-warp-specialize \
// RUN:   | sed 's/fattn.load_tile %arg1\[%arg4,/fattn.load_tile %arg1[%arg5,/' | not fattn-opt --convert-fattn-to-nvvm-sm90 2>&1 | FileCheck %s --check-prefix=GRID
// GRID: error: 'fattn.load_tile' op expected the work item's batch (argument 0 of the fattn.tiled_attention's block, the one the sm_90a kernel computes), found argument 1 of a block of 'fattn.tiled_attention'
