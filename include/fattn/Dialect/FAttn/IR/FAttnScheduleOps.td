//===- FAttnScheduleOps.td - sm_90a schedule ops -----------*- tablegen -*-===//
//
// The Hopper scheduling passes (--fattn-warp-specialize, --fattn-pingpong,
// --fattn-intra-wg-overlap, --fattn-persistent-tiles) write their decisions
// into the tiled form with these ops: warpgroup roles as regions of one op,
// the K/V ring as a producer/consumer channel with paired acquire/commit and
// wait/release ops, named barriers between consumer warpgroups, and the loop
// of a persistent CTA over its work items. The sm_90a lowering turns them
// into warpgroup branches with setmaxnreg, ring stages and phases on
// mbarriers, bar.sync/bar.arrive, and each role's loop over work items.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_IR_FATTNSCHEDULEOPS_TD
#define FATTN_DIALECT_FATTN_IR_FATTNSCHEDULEOPS_TD

include "fattn/Dialect/FAttn/IR/FAttnDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def FAttn_RingType : TypeDef<FAttn_Dialect, "Ring"> {
  let mnemonic = "ring";
  let summary = "a ring of `stages` slots, each holding one tile per element type";
  let description = [{
    A producer/consumer channel: `stages` slots, each holding one tile of
    every element type (for attention: a K tile and a V tile). Slots are used
    in FIFO order: the producer's n-th `fattn.ring_acquire` takes slot
    n mod stages once the consumers released it, and its `fattn.ring_commit`s
    fill that slot's elements; the consumers' n-th round of
    `fattn.ring_wait`s reads the same slot and `fattn.ring_release`s free it.
    Each element keeps its own count, so the K of one slot can be released
    (and refilled) before its V.

    ```mlir
    !fattn.ring<2, tensor<128x128xbf16>, tensor<128x128xbf16>>
    ```
  }];
  let parameters = (ins "int64_t":$stages,
                        ArrayRefParameter<"Type", "tile types">:$elementTypes);
  let assemblyFormat = "`<` $stages `,` $elementTypes `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Warpgroup roles
//===----------------------------------------------------------------------===//

def FAttn_WarpSpecializeOp : FAttn_Op<"warp_specialize",
    [RecursiveMemoryEffects, NoTerminator]> {
  let summary = "one producer warpgroup and several consumer warpgroups";
  let description = [{
    Splits the threads of a CTA by role. One producer warpgroup (128 threads)
    runs the `producer` region: it issues the copies that fill a
    `!fattn.ring`, and keeps `producer_registers` registers per thread. Each of
    `consumers` consumer warpgroups runs the `consumer` region with its index
    (0 .. consumers - 1) as the block argument, keeps `consumer_registers`
    registers per thread, and owns `consumer_rows` consecutive rows of the Q
    tile: warpgroup w computes rows [w * consumer_rows, (w + 1) *
    consumer_rows) of every tile value of the region (S, P, the softmax
    state, O), whole rows, so that no row reduction crosses warpgroups. In a
    `fattn.tiled_attention` the consumers' rows make up its `block_m`.
    Register counts are those of `setmaxnreg`: multiples of 8 in [24, 256],
    and all warpgroups together fit the 64K registers of an SM. Without them
    every warpgroup keeps the registers the kernel was compiled with.

    ```mlir
    fattn.warp_specialize attributes {consumer_registers = 240 : i64,
        consumer_rows = 64 : i64, consumers = 2 : i64,
        producer_registers = 24 : i64} producer {
      ...
    } consumer {
    ^bb0(%wg: index):
      ...
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<1>, IntMaxValue<3>]>:$consumers,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$consumer_rows,
                       OptionalAttr<I64Attr>:$producer_registers,
                       OptionalAttr<I64Attr>:$consumer_registers);
  let regions = (region SizedRegion<1>:$producer, SizedRegion<1>:$consumer);
  let assemblyFormat = "attr-dict-with-keyword `producer` $producer `consumer` $consumer";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The consumer warpgroup index (block argument of the consumer region).
    ::mlir::BlockArgument getWarpgroupIndex() {
      return getConsumer().front().getArgument(0);
    }
  }];
}

//===----------------------------------------------------------------------===//
// The work loop of a persistent kernel
//===----------------------------------------------------------------------===//

def FAttn_WorkLoopOp : FAttn_Op<"work_loop",
    [RecursiveMemoryEffects, NoTerminator]> {
  let summary = "each CTA loops over the (batch, head, Q tile) work items";
  let description = [{
    Makes the kernel persistent: the grid is one CTA per SM, and each CTA
    runs the region once per work item it takes, with the item's batch,
    head and Q tile as the block arguments (in the order of the
    `fattn.tiled_attention`'s own). Without it a CTA computes the one item of
    its grid coordinates. The op stands directly in the body of a
    `fattn.tiled_attention`, at most once, and the ops in its region take the
    item's coordinates from its arguments, not from the tiled op's block
    arguments. What outlives an item stays outside: the K/V ring, whose
    stages and phases run on from one item to the next. The order in which a
    CTA takes its items (a snake over rounds of the grid, the Q tiles
    reversed or not, the last rounds split) is the work plan's
    (`#fattn.sm90_work_plan` on the tiled op).

    ```mlir
    %ring = fattn.ring_create : <2, tensor<128x128xbf16>, tensor<128x128xbf16>>
    fattn.work_loop {
    ^bb0(%batch: index, %head: index, %q_tile: index):
      ...
      fattn.warp_specialize attributes {consumers = 2 : i64} producer {
        ...
      } consumer {
      ^bb0(%wg: index):
        ...
      }
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// The ring
//===----------------------------------------------------------------------===//

def FAttn_RingCreateOp : FAttn_Op<"ring_create",
    [MemoryEffects<[MemAlloc<DefaultResource>]>]> {
  let summary = "a fresh ring, all slots free";
  let results = (outs FAttn_RingType:$ring);
  let assemblyFormat = "attr-dict `:` type($ring)";
}

def FAttn_RingAcquireOp : FAttn_Op<"ring_acquire"> {
  let summary = "producer: wait until element `element` of the next slot is free";
  let description = [{
    Blocks the producer until the consumers released element `element` of
    the slot it fills next (at once for the first `stages` rounds). Paired
    with the `fattn.ring_commit` of the same element.
  }];
  let arguments = (ins FAttn_RingType:$ring, I64Attr:$element);
  let assemblyFormat = "$ring `[` $element `]` attr-dict `:` type($ring)";
  let hasVerifier = 1;
}

def FAttn_RingCommitOp : FAttn_Op<"ring_commit"> {
  let summary = "producer: fill one element of the acquired slot";
  let description = [{
    Makes `tile` element `element` of the slot of the last
    `fattn.ring_acquire` of that element; consumers waiting on it proceed once it has landed
    (on sm_90a: the TMA copy's transaction count completes the slot's full
    barrier of that element).
  }];
  let arguments = (ins FAttn_RingType:$ring, I64Attr:$element,
                       AnyRankedTensor:$tile);
  let assemblyFormat = [{
    $ring `[` $element `]` `,` $tile attr-dict `:` type($ring) `,` type($tile)
  }];
  let hasVerifier = 1;
}

def FAttn_RingWaitOp : FAttn_Op<"ring_wait"> {
  let summary = "consumer: wait for one element of the current slot";
  let description = [{
    Blocks until element `element` of the consumers' current slot has been
    committed and returns it. The slot stays owned (its shared memory is not
    overwritten) until the matching `fattn.ring_release`.
  }];
  let arguments = (ins FAttn_RingType:$ring, I64Attr:$element);
  let results = (outs AnyRankedTensor:$tile);
  let assemblyFormat = [{
    $ring `[` $element `]` attr-dict `:` type($ring) `->` type($tile)
  }];
  let hasVerifier = 1;
}

def FAttn_RingReleaseOp : FAttn_Op<"ring_release"> {
  let summary = "consumer: hand element `element` of the current slot back";
  let description = [{
    Ends the consumers' use of element `element` of their current slot: the
    producer may overwrite it. Releasing K once S = Q K^T is done lets the
    next K copy start while P V still reads V.
  }];
  let arguments = (ins FAttn_RingType:$ring, I64Attr:$element);
  let assemblyFormat = "$ring `[` $element `]` attr-dict `:` type($ring)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Named barriers
//===----------------------------------------------------------------------===//

class FAttn_NamedBarrierOp<string mnemonic> : FAttn_Op<mnemonic> {
  let arguments = (ins Index:$id, I64Attr:$threads);
  let assemblyFormat = "$id `,` $threads attr-dict";
  let hasVerifier = 1;
}

def FAttn_NamedBarrierSyncOp : FAttn_NamedBarrierOp<"named_barrier_sync"> {
  let summary = "wait at named barrier `id` until `threads` threads reached it";
  let description = [{
    `bar.sync id, threads`: the calling warps arrive and wait until `threads`
    threads (a multiple of 32) have arrived at barrier `id` (1 to 15; 0 is the
    CTA-wide barrier). With `fattn.named_barrier_arrive` it orders consumer
    warpgroups (pingpong scheduling).
  }];
}

def FAttn_NamedBarrierArriveOp : FAttn_NamedBarrierOp<"named_barrier_arrive"> {
  let summary = "arrive at named barrier `id` without waiting";
  let description = [{
    `bar.arrive id, threads`: counts the calling warps towards the `threads`
    that release the waiters of barrier `id`, and goes on.
  }];
}

#endif // FATTN_DIALECT_FATTN_IR_FATTNSCHEDULEOPS_TD
