//===- Passes.td - fattn sm_90a transforms -----------------*- tablegen -*-===//

#ifndef FATTN_DIALECT_FATTN_TRANSFORMS_SM90_PASSES_TD
#define FATTN_DIALECT_FATTN_TRANSFORMS_SM90_PASSES_TD

include "mlir/Pass/PassBase.td"

def FAttnSM90TMA : Pass<"fattn-sm90-tma"> {
  let summary = "Plan TMA bulk tensor copies and the mbarrier ring of the tiled form";
  let description = [{
    Decides how the tiles of each `fattn.tiled_attention` move between
    global and shared memory on sm_90a: Q, K and V tiles arrive by
    `cp.async.bulk.tensor` in boxes of one 128-byte swizzle atom of a row (64
    16-bit columns, 128 e4m3 ones) into 128B-swizzled shared memory; K and V
    use a ring of `stages` buffers, each guarded by a full barrier
    (arrive.expect_tx, one for K and one for V so that S = Q K^T starts
    before V lands) and an empty barrier (the consumers' release); O leaves
    from registers with row-predicated stores (tails), or with
    `tma-store=true` by TMA stores from shared memory. The plan is recorded
    as a `#fattn.sm90_tma_plan` in `fattn.sm90.tma` on the op, which the
    sm_90a lowering implements:

    ```mlir
    fattn.tiled_attention ... attributes {block_m = 128 : i64, block_n = 128 : i64,
        fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128,
                                              box_cols = 64, store = registers>}
    ```
  }];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"2",
           "Buffers in the K/V ring (>= 2: the next tile's copy is in flight "
           "during the current tile's math)">,
    Option<"tmaStore", "tma-store", "bool", /*default=*/"false",
           "O leaves by TMA stores, which the consumers do not wait for, "
           "through its work item's Q buffer (16-bit types; the lowering "
           "needs the second of --fattn-sm90-q-buffers) or, for e4m3, a "
           "shared buffer of its own">,
  ];
}

def FAttnWarpSpecialize : Pass<"fattn-warp-specialize"> {
  let summary = "Split the tiled form into a TMA producer warpgroup and consumer warpgroups";
  let description = [{
    Rewrites the body of each `fattn.tiled_attention` planned by
    `--fattn-sm90-tma` into a `fattn.warp_specialize`: the producer region
    walks the visible KV tiles and fills a `!fattn.ring` (one slot per stage,
    a K and a V tile per slot) with `fattn.ring_acquire` / `fattn.load_tile` /
    `fattn.ring_commit`; the consumer region runs the online softmax over one
    loop of the same tiles, taking K and V with `fattn.ring_wait` and handing
    each slot back with `fattn.ring_release`. The KV loops of `--fattn-tile`
    (masked edges, unmasked middle) become one loop in which only edge tiles
    are masked. The producer gives registers to the consumers (setmaxnreg)
    unless both register options are 0.

    ```mlir
    fattn.warp_specialize attributes {consumer_registers = 240 : i64,
        consumers = 2 : i64, producer_registers = 24 : i64} producer {
      scf.for %j = %lo to %hi step %c1 {
        fattn.ring_acquire %ring : !fattn.ring<2, tensor<128x128xbf16>, tensor<128x128xbf16>>
        %k = fattn.load_tile %key[...]
        fattn.ring_commit %ring[0], %k : ...
        ...
      }
    } consumer {
    ^bb0(%wg: index):
      ... scf.for %j = %lo to %hi ... {
        %k = fattn.ring_wait %ring[0] : ... -> tensor<128x128xbf16>
        ...
        fattn.ring_release %ring : ...
      }
    }
    ```
  }];
  let options = [
    Option<"consumers", "consumers", "int64_t", /*default=*/"2",
           "Consumer warpgroups; each owns 64 query rows (block_m = 64 * consumers)">,
    Option<"producerRegisters", "producer-registers", "int64_t", /*default=*/"24",
           "Registers per producer thread after setmaxnreg.dec (0 with "
           "consumer-registers=0: no setmaxnreg)">,
    Option<"consumerRegisters", "consumer-registers", "int64_t", /*default=*/"240",
           "Registers per consumer thread after setmaxnreg.inc">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def FAttnIntraWarpgroupOverlap : Pass<"fattn-intra-wg-overlap"> {
  let summary = "Software-pipeline the consumer loop: issue Q K^T of tile j with P V of tile j - 1, then the softmax of tile j";
  let description = [{
    Inside the consumer region of a `fattn.warp_specialize`, rewrites the KV
    loop so that each iteration issues S_j = Q K_j^T and O += P_{j-1} V_{j-1}
    back to back and only then computes the softmax of S_j: the softmax of
    one tile runs while the tensor cores work on the two GEMMs (FlashAttention-3,
    intra-warpgroup overlap). The first tile's Q K^T and softmax move into a
    prologue and the last tile's P V into an epilogue (both guarded by the
    loop being non-empty); P crosses iterations in registers. Needs a ring of
    at least two stages: K of tile j is waited for while tile j - 1 still
    holds its slot.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def FAttnPingpong : Pass<"fattn-pingpong"> {
  let summary = "Alternate the consumer warpgroups' GEMMs with named barriers";
  let description = [{
    Orders the two consumer warpgroups of a `fattn.warp_specialize` so that
    one's softmax runs while the other's GEMMs occupy the tensor cores
    (FlashAttention-3 pingpong scheduling): each run of GEMM issues in the
    consumer region (the prologue's Q K^T, the loop's Q K^T and P V, the
    epilogue's P V) starts with `fattn.named_barrier_sync` on the
    warpgroup's own barrier (`barrier-base` + wg) and ends with
    `fattn.named_barrier_arrive` on the other's; warpgroup 1 arrives once
    up front so that warpgroup 0 goes first. Barriers count the 256 threads
    of both consumers.
  }];
  let options = [
    Option<"barrierBase", "barrier-base", "int64_t", /*default=*/"1",
           "First named barrier id (consumer warpgroup w uses barrier-base + w)">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def FAttnPersistentTiles : Pass<"fattn-persistent-tiles"> {
  let summary = "Make the sm_90a kernel persistent: one CTA per SM looping over (Q tile, head, batch) work items";
  let description = [{
    Wraps the body of each warp-specialized `fattn.tiled_attention` in a
    `fattn.work_loop`: everything but the K/V ring (created before the loop,
    since its stages and phases run on across work items) moves into the
    loop's region, whose block arguments (batch, head, Q tile) replace the
    tiled op's. The sm_90a lowering implements the loop as a persistent tile
    scheduler: the grid becomes the number of SMs, and each CTA loops over
    (Q tile, head, batch) work items, one per round of the grid, in snake
    order (CTA c takes item c of even rounds and G - 1 - c of odd ones). The
    Q tile varies fastest, so that the CTAs running at the same time work on
    the same head and share its K and V in L2; masked kernels with few
    (batch, head) pairs (for several CTAs per pair) take the Q tile slowest,
    so that each round's causal items have about one length. With the work
    plan's `q_tile_order = reverse` (the default,
    `--fattn-sm90-q-tile-order`), the longest causal tiles come first. The
    producer warpgroup prefetches the next work item's Q and K/V tiles while
    the consumers finish the current one (its epilogue and O store), which a
    kernel of one CTA per tile cannot overlap.

    An op without a `fattn.warp_specialize` (run `--fattn-warp-specialize`
    first) is an error: the prefetch across work items is the producer
    warpgroup's job. An op that has a work loop already is left as it is.

    ```mlir
    fattn.tiled_attention ins(...) outs(...) attributes {...} {
    ^bb0(%arg4: index, %arg5: index, %arg6: index):
      %ring = fattn.ring_create : <2, ...>
      fattn.work_loop {
      ^bb0(%batch: index, %head: index, %q_tile: index):
        ...
        fattn.warp_specialize attributes {...} producer { ... } consumer { ... }
      }
    }
    ```
  }];
}

def FAttnFP8Layout : Pass<"fattn-fp8-layout"> {
  let summary = "Lay out the fp8 P V product for e4m3 wgmma: V transposed with its keys permuted, P permuted alike";
  let description = [{
    e4m3 wgmma reads both operands K-major, and P comes from the registers
    of the S = Q K^T accumulator, whose columns a thread holds in another
    order than the A operand's k slots. For every `fattn.tiled_attention` on
    f8E4M3FN, rewrites each P V product `fattn.mma %p, %v` into
    `fattn.mma %pp, %vt {transpose_rhs}` where
    `%vt = fattn.transpose_tile %v {key_permutation = "wgmma_e4m3_k32"}` and
    `%pp = fattn.permute_keys %p {key_permutation = "wgmma_e4m3_k32"}`:
    the same permutation of the keys on both sides, so the product is
    unchanged, and P needs only byte permutes inside each thread (prmt).
    V's descale, one factor per KV tile, moves from V's rows to the
    product's columns.

    After `--fattn-warp-specialize` the producer warpgroup transposes: it
    loads V into a staging buffer, acquires the ring slot, writes the
    transposed tile into it and commits it, so the ring's V element becomes
    V^T and the consumers only swap the bytes of P. Without warp
    specialization the transpose follows each V load. Run it after the
    other scheduling passes (--fattn-intra-wg-overlap, --fattn-pingpong),
    which expect the P V product as --fattn-tile builds it. Other element
    types are left unchanged.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

//===----------------------------------------------------------------------===//
// Lowering choices: each pass records one parameter of the op's
// #fattn.sm90_work_plan (fattn.sm90.work) or #fattn.sm90_consumer_plan
// (fattn.sm90.consumers), checked against the op and the decisions recorded
// before it (LoweringChoices.h). Run them after the schedule passes.
//===----------------------------------------------------------------------===//

def FAttnSM90QTileOrder : Pass<"fattn-sm90-q-tile-order"> {
  let summary = "Choose the order in which the grid takes a head's Q tiles";
  let description = [{
    Records `q_tile_order` in the op's `#fattn.sm90_work_plan`: `reverse`
    (the lowering's default) starts with the last Q tiles, the longest under
    a causal mask; `forward` keeps the launch order.

    ```mlir
    fattn.tiled_attention ... attributes {...,
        fattn.sm90.work = #fattn.sm90_work_plan<q_tile_order = forward>}
    ```
  }];
  let options = [
    Option<"order", "order", "::mlir::fattn::SM90QTileOrder",
           /*default=*/"::mlir::fattn::SM90QTileOrder::Reverse",
           "The Q tile order: forward or reverse",
           [{::llvm::cl::values(
             clEnumValN(::mlir::fattn::SM90QTileOrder::Forward, "forward",
                        "launch order"),
             clEnumValN(::mlir::fattn::SM90QTileOrder::Reverse, "reverse",
                        "the last (longest causal) Q tiles first"))}]>,
  ];
}

def FAttnSM90QBuffers : Pass<"fattn-sm90-q-buffers"> {
  let summary = "Choose the shared-memory buffers of Q (2: the next work item's Q is copied early)";
  let description = [{
    Records `q_buffers` in the op's `#fattn.sm90_work_plan`. With two
    buffers a persistent CTA's work items take them in turn, and the
    producer copies the next item's Q while the consumers still read the
    current one's. Persistent tiles only (`--fattn-persistent-tiles`
    first): "q-buffers 2 must be 1, or 2 with persistent tiles".
  }];
  let options = [
    Option<"count", "count", "int64_t", /*default=*/"2",
           "Buffers of Q: 1, or 2 with persistent tiles">,
  ];
}

def FAttnSM90WorkTail : Pass<"fattn-sm90-work-tail"> {
  let summary = "Choose how a persistent grid takes the work items of its last rounds";
  let description = [{
    Records `tail` in the op's `#fattn.sm90_work_plan`, for persistent
    kernels (`--fattn-persistent-tiles` first). `split`: the items past the
    last whole round are cut along their KV tiles among all CTAs and
    combined through a global workspace (unmasked attention; not with a
    16-bit kernel's TMA stores, nor with per-block V descales). `pairs`: the
    last (batch, head) pairs' items come Q tile slowest, longest first, and
    the launcher chooses how many pairs (masked attention). `none`: whole
    items in the snake order.
  }];
  let options = [
    Option<"tail", "tail", "::mlir::fattn::SM90WorkTail",
           /*default=*/"::mlir::fattn::SM90WorkTail::Split",
           "The tail: none, split or pairs",
           [{::llvm::cl::values(
             clEnumValN(::mlir::fattn::SM90WorkTail::None, "none",
                        "whole items in the snake order"),
             clEnumValN(::mlir::fattn::SM90WorkTail::Split, "split",
                        "items cut along their KV tiles (unmasked)"),
             clEnumValN(::mlir::fattn::SM90WorkTail::Pairs, "pairs",
                        "the last pairs' items Q tile slowest (masked)"))}]>,
  ];
}

def FAttnSM90ValueMma : Pass<"fattn-sm90-value-mma"> {
  let summary = "Choose how O += P V is split into wgmma";
  let description = [{
    Records `value_mma` in the op's `#fattn.sm90_consumer_plan`: one wgmma
    over the whole head dim (`whole`, the lowering's default) or one per
    64-column atom (`per_atom`, whose accumulators fit where the whole head
    dim's would not).
  }];
  let options = [
    Option<"form", "form", "::mlir::fattn::SM90ValueMma",
           /*default=*/"::mlir::fattn::SM90ValueMma::PerAtom",
           "The P V wgmma: whole or per_atom",
           [{::llvm::cl::values(
             clEnumValN(::mlir::fattn::SM90ValueMma::Whole, "whole",
                        "one wgmma over the whole head dim"),
             clEnumValN(::mlir::fattn::SM90ValueMma::PerAtom, "per_atom",
                        "one wgmma per 64-column atom"))}]>,
  ];
}

def FAttnSM90RowSumMma : Pass<"fattn-sm90-row-sum-mma"> {
  let summary = "Compute the softmax's row sums on the tensor cores";
  let description = [{
    Records `row_sums = mma` in the op's `#fattn.sm90_consumer_plan`: each
    tile's row sums become P times a shared-memory tile of ones (an m64n8
    wgmma per k step of P V) instead of adds of the consumer threads. With
    an LSE (which needs the sums of the unrounded probabilities) or
    per-block V descales the pass warns that the choice is ignored and
    records nothing.
  }];
}

def FAttnSM90LinearExp2 : Pass<"fattn-sm90-linear-exp2"> {
  let summary = "FP8: P's e4m3 bytes from a linear 2^x, without MUFU.EX2";
  let description = [{
    Records `exp2 = linear` in the op's `#fattn.sm90_consumer_plan`: P's
    e4m3 bytes come from a linear 2^x within each power of two (a saturating
    FMA per score, f16x2 math per two). No f32 probability is left for the
    row sums, so it needs `row_sums = mma` (`--fattn-sm90-row-sum-mma`
    first) and e4m3 inputs.
  }];
}

def FAttnSM90RescaleThreshold : Pass<"fattn-sm90-rescale-threshold"> {
  let summary = "Conditional rescaling: keep a row's max until a tile's exceeds it by a threshold";
  let description = [{
    Records `rescale_threshold` in the op's `#fattn.sm90_consumer_plan`: a
    row keeps its running max until a tile's max exceeds it by more than
    the threshold (log2 units of the scaled scores), and warps whose rows
    all kept theirs skip O's rescale. P grows to 2^threshold (times 256 for
    e4m3) before its rounding, so the threshold is at most 15 for 16-bit
    inputs and log2(448 / 256) for e4m3. 0: off.
  }];
  let options = [
    Option<"threshold", "threshold", "float", /*default=*/"0.0f",
           "The threshold in log2 units (0: off)">,
  ];
}

def FAttnSM90NarrowTail : Pass<"fattn-sm90-narrow-tail"> {
  let summary = "Compute a work item's short last KV tile on fewer columns";
  let description = [{
    Records `narrow_tail` in the op's `#fattn.sm90_consumer_plan`: when a
    work item's last KV tile is the sequence's partial one with at most
    `keys` keys (and not the item's first), the overlapped loop stops a tile
    early and a second copy of its body computes that tile on `keys`
    columns. `keys` is a multiple of the wgmma k step (16, 32 for e4m3)
    below block_n; it needs the overlapped loop (`--fattn-intra-wg-overlap`
    first), no mask and K descales per tile, not per key. 0: off.
  }];
  let options = [
    Option<"keys", "keys", "int64_t", /*default=*/"0",
           "Keys of the narrow tile (0: off)">,
  ];
}

def FAttnSM90WarpgroupKVRanges : Pass<"fattn-sm90-warpgroup-kv-ranges"> {
  let summary = "Let each consumer warpgroup compute only the KV tiles its own rows see";
  let description = [{
    Records `kv_ranges = warpgroup` in the op's `#fattn.sm90_consumer_plan`:
    under a causal mask or a right window each consumer warpgroup stops at
    the last KV tile its own 64 rows see, and hands the tiles past it back
    unread. Needs the producer warpgroup (`--fattn-warp-specialize`), no
    pingpong (whose turns every warpgroup takes equally often) and no split
    tail (run it after `--fattn-sm90-work-tail`).
  }];
}

#endif // FATTN_DIALECT_FATTN_TRANSFORMS_SM90_PASSES_TD
