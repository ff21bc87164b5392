//===- WorkOrder.h - the work items of a persistent CTA ---------*- C++ -*-===//
//
// A persistent kernel runs one CTA per SM over the (Q tile, batch, head)
// work items. Which item a CTA takes in each round is written once here,
// over an abstract integer type as KVTileRange.h, so that the same formula
// emits the sm_90a kernel's code and is unit-tested on int64_t (every item
// exactly once, and the balance of causal rounds).
//
// Round r of a grid of G CTAs takes items [r G, (r + 1) G); CTA c takes item
// c of even rounds and G - 1 - c of odd ones (a snake: with items of unequal
// length, a CTA that took a long one takes a short one next). Item w is
// (Q tile rank, pair) with pair = batch * heads + head:
//   - Q tile fastest, without a mask: w = pair * numQTiles + rank. The CTAs
//     of a round share pairs, and so their K and V in L2.
//   - Masked attention (items of unequal length) of at least
//     kMinWindowQTiles Q tiles in windows: the items of
//     the Q tile fastest order are cut into windows of two rounds (2 G
//     items; the last window also takes the items past the last whole one),
//     and each window takes its items with the rank slowest (longest first
//     with reverseQTiles), then the pair. A window thus holds the same items
//     as two rounds of the Q tile fastest order, a few consecutive pairs
//     (2 G / numQTiles and the two it cuts) whose K and V stay in L2 while
//     the window runs, and the snake pairs a window's item c with its item
//     2 G - 1 - c: long with short, the balance of a longest-first order. A
//     rank slowest over all pairs (this order's former choice where pairs
//     were few, pairs * ctasPerPair <= G) balanced as well but streamed the
//     K and V of every pair in each round: at 16-bit head dim 128, 8k
//     causal, 32 pairs (128 MB of K and V) it read K and V from DRAM about
//     ten times (ncu, 2026-12-07: 1.4 GB, an L2 hit rate of 62%). Sections
//     of whole pairs that fit L2, each with the rank slowest
//     (FlashAttention-3's order, which its kernels deal out dynamically),
//     break the snake at every section boundary: a model of the rounds puts
//     the longest CTA 20% past the ideal at 8k and 16k;
//     windows of whole rounds keep it within 0.1-1.6% at the benchmark's
//     shapes, 1.3-3.4% at 3k (unit-tested, WorkOrderTest.cpp).
//   - Masked attention of fewer Q tiles: with few pairs the rank slowest
//     over all pairs, rank = w / pairs, pair = w mod pairs; with many the Q
//     tile fastest (or the launcher's tail, below). Its items are short and
//     its pairs' K and V small: the windows' longer decode and their
//     spread over more pairs measured slower there (kMinWindowQTiles).
//   - With the launcher's tail (launchTail) and many pairs (pairs *
//     ctasPerPair > G): the Q tile fastest, then, for the last T pairs ("the
//     tail"), the Q tile slowest: their items follow the others as w = head
//     + rank * T + (pair - (pairs - T)), head = (pairs - T) * numQTiles. The
//     last rounds then hold the tail's longest items first and the snake
//     pairs them with its shortest: a fixed order of the Q tile fastest
//     leaves the last round and a part of one unpaired, 3% of the makespan
//     at the benchmark's causal 2k. T is a launch parameter, chosen by the
//     launcher (chooseTailPairs: the least makespan in a model of the
//     rounds) within kMaxTailBytes of K and V. With few pairs the tail is
//     all pairs (the rank slowest over all), or the windows from
//     kMinWindowQTiles Q tiles on.
// With reverseQTiles, rank 0 is the last Q tile (the longest causal one).
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_UTILS_WORKORDER_H
#define FATTN_DIALECT_FATTN_UTILS_WORKORDER_H

#include "fattn/Dialect/FAttn/Utils/KVTileRange.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace mlir::fattn {

/// Compile-time parameters of the work order.
struct WorkOrderParams {
  /// Items differ in length (causal or windowed attention).
  bool masked;
  bool reverseQTiles;
  /// Masked: pairs are few where pairs * ctasPerPair <= grid (above).
  int64_t ctasPerPair;
  /// Masked: the launcher passes the tail's pairs (tailPairCount).
  bool launchTail = false;
};

/// Masked attention takes the windows from this many Q tiles on: 4k rows
/// and more at block_m 192 (16-bit head dim 64), 3k and more at 128 (head
/// dims 128 and 256). Below, with fewer and shorter items, the windows
/// measured slower than the orders before them (H100, causal 1k and 2k:
/// head dim 256 -16% and -7%, head dim 64 -1.5%), from there faster (4k-16k:
/// +1% to +7%, GQA prefill +3% to +11%; docs/PERF.md).
inline constexpr int64_t kMinWindowQTiles = 22;

template <typename Int> struct WorkItem { Int qTile, pair; };
template <typename Int> struct RankAndPair { Int rank, pair; };

/// The item CTA `cta` of a grid of `grid` takes in round `round`.
/// `Ops` provides: Int, Bool, cst(int64_t), add, sub, mul, isOdd(Int) ->
/// Bool, select(Bool, Int, Int). Values are non-negative.
template <typename Ops>
typename Ops::Int workIndex(Ops &ops, typename Ops::Int round,
                            typename Ops::Int grid, typename Ops::Int cta) {
  auto slot = ops.select(ops.isOdd(round),
                         ops.sub(ops.sub(grid, ops.cst(1)), cta), cta);
  return ops.add(ops.mul(round, grid), slot);
}

/// The tail's pairs T (above) of masked attention with launchTail, 1 <= T
/// <= pairs, from the launcher's `requested` count (a tail of 0 or 1 pair is
/// the Q tile fastest throughout; with few pairs, all of them); 0
/// otherwise, where decodeWorkItem takes no T.
/// Computed once per launch; `Ops` as decodeWorkItem's.
template <typename Ops>
typename Ops::Int tailPairCount(Ops &ops, typename Ops::Int pairs,
                                typename Ops::Int grid,
                                const WorkOrderParams &p,
                                typename Ops::Int requested) {
  if (!p.masked || !p.launchTail)
    return ops.cst(0);
  auto few = ops.le(ops.mul(pairs, ops.cst(p.ctasPerPair)), grid);
  auto tail = ops.max(ops.min(requested, pairs), ops.cst(1));
  return ops.select(few, pairs, tail);
}

/// The (rank, pair) of item `index` in windows of `window` items (above:
/// 2 G; one window of all items is the rank slowest over all pairs, windows
/// of numQTiles items the Q tile fastest). A window holds the items [begin,
/// end) of the Q tile fastest order, v = pair * numQTiles + rank; with begin = a numQTiles + b and end
/// = a' numQTiles + b', rank r has the pairs [a + (r < b), a' + (r < b')),
/// n + (r < b') - (r < b) of them (n = a' - a): ranks below min(b, b') have
/// n pairs, those up to max(b, b') n + 1 (b < b') or n - 1, the others n.
/// The item's rank and pair follow from the segment of equal counts that
/// holds its offset in the window.
template <typename Ops>
RankAndPair<typename Ops::Int>
windowedItem(Ops &ops, typename Ops::Int index, typename Ops::Int numQTiles,
             typename Ops::Int pairs, typename Ops::Int window) {
  auto total = ops.mul(numQTiles, pairs);
  // The last window takes the items past the last whole one.
  auto last = ops.sub(ops.max(ops.div(total, window), ops.cst(1)), ops.cst(1));
  auto q = ops.min(ops.div(index, window), last);
  auto begin = ops.mul(q, window);
  auto end = ops.select(ops.lt(q, last), ops.add(begin, window), total);
  auto a = ops.div(begin, numQTiles), b = ops.rem(begin, numQTiles);
  auto b2 = ops.rem(end, numQTiles);
  auto n = ops.sub(ops.div(end, numQTiles), a);
  auto rising = ops.lt(b, b2);
  auto low = ops.select(rising, b, b2), high = ops.select(rising, b2, b);
  auto middle = ops.select(rising, ops.add(n, ops.cst(1)),
                           ops.sub(n, ops.cst(1)));
  // Items before rank `low` and before rank `high`.
  auto beforeLow = ops.mul(n, low);
  auto beforeHigh = ops.add(beforeLow, ops.mul(middle, ops.sub(high, low)));
  auto offset = ops.sub(index, begin);
  auto inLow = ops.lt(offset, beforeLow);
  auto inMiddle = ops.lt(offset, beforeHigh);
  // A segment that holds the offset has at least one pair per rank.
  auto firstRank =
      ops.select(inLow, ops.cst(0), ops.select(inMiddle, low, high));
  auto firstItem =
      ops.select(inLow, ops.cst(0), ops.select(inMiddle, beforeLow, beforeHigh));
  auto perRank = ops.select(inLow, n, ops.select(inMiddle, middle, n));
  auto within = ops.sub(offset, firstItem);
  auto rank = ops.add(firstRank, ops.div(within, perRank));
  auto firstPair =
      ops.add(a, ops.select(ops.lt(rank, b), ops.cst(1), ops.cst(0)));
  return {rank, ops.add(firstPair, ops.rem(within, perRank))};
}

/// Work item `index` (< numQTiles * pairs), with `tailPairs` from
/// tailPairCount where the launcher passes it (launchTail; else unused).
/// Besides the above, `Ops` provides div, rem, lt and le on non-negative
/// values (Int, Int), min, max and opaque (the value, which a kernel
/// recomputes its uses of in each item).
template <typename Ops>
WorkItem<typename Ops::Int>
decodeWorkItem(Ops &ops, typename Ops::Int index, typename Ops::Int numQTiles,
               typename Ops::Int pairs, typename Ops::Int grid,
               const WorkOrderParams &p, typename Ops::Int tailPairs) {
  if (!p.masked) {
    auto rank = ops.rem(index, numQTiles);
    return {p.reverseQTiles ? ops.sub(ops.sub(numQTiles, ops.cst(1)), rank)
                            : rank,
            ops.div(index, numQTiles)};
  }
  // One decode for every masked order without the tail: windows of 2 G
  // items from kMinWindowQTiles Q tiles on; below, with few pairs one
  // window of all items (the rank slowest over all pairs), with many
  // windows of one pair's items (the Q tile fastest). The window's size
  // is computed per item from an opaque copy of `pairs`: hoisted out of
  // the kernels' item loops, it and the window's bounds would hold
  // registers there (ptxas spilled at head dim 128).
  auto windowPairs = ops.opaque(pairs);
  auto few = ops.le(ops.mul(windowPairs, ops.cst(p.ctasPerPair)), grid);
  auto total = ops.mul(numQTiles, windowPairs);
  auto longEnough = ops.le(ops.cst(kMinWindowQTiles), numQTiles);
  auto window = ops.select(longEnough, ops.add(grid, grid),
                           ops.select(few, total, numQTiles));
  RankAndPair<typename Ops::Int> windowed =
      windowedItem(ops, index, numQTiles, windowPairs, window);
  auto rank = windowed.rank;
  auto pair = windowed.pair;
  if (p.launchTail) {
    // Many pairs: the Q tile fastest, then the tail's last T pairs with
    // the rank slowest (few pairs: the windows above).
    auto first = ops.sub(pairs, tailPairs);
    auto head = ops.mul(first, numQTiles);
    auto inTail = ops.le(head, index);
    // Out of the tail the offset is negative (or wraps): its quotient is
    // not selected.
    auto offset = ops.sub(index, head);
    auto tailRank = ops.select(inTail, ops.div(offset, tailPairs),
                               ops.rem(index, numQTiles));
    auto tailPair =
        ops.select(inTail, ops.add(first, ops.rem(offset, tailPairs)),
                   ops.div(index, numQTiles));
    rank = ops.select(few, rank, tailRank);
    pair = ops.select(few, pair, tailPair);
  }
  auto qTile =
      p.reverseQTiles ? ops.sub(ops.sub(numQTiles, ops.cst(1)), rank) : rank;
  return {qTile, pair};
}

/// The CTA that takes item `index` (the inverse of workIndex).
inline int64_t workCta(int64_t index, int64_t grid) {
  int64_t round = index / grid, slot = index % grid;
  return round % 2 ? grid - 1 - slot : slot;
}

/// What the model of chooseTailPairs charges a work item beyond its KV
/// tiles: its boundary (O's stores, the next Q, the first S and softmax
/// alone) took 2.3 iterations in a phase trace (docs/PERF.md).
inline constexpr int64_t kItemOverheadTiles = 2;
/// chooseTailPairs tries tails of up to this many rounds of the grid.
inline constexpr int64_t kMaxTailRounds = 8;
/// The tail's pairs run in the same rounds, one CTA per pair, each pair's
/// Q tiles in later rounds: launchers keep the tail's K and V within this
/// many bytes, which L2 holds between the rounds (a tail of 16-bit head dim
/// 256 pairs whose K and V, about 100 MB, did not fit ran 25% slower at 1k
/// keys; docs/PERF.md, 2026-12-01).
inline constexpr int64_t kMaxTailBytes = 24 << 20;

/// The tail's pairs with the least makespan (the longest CTA's sum of
/// `kvTiles(qTile) + kItemOverheadTiles` over its items; ties to the
/// shorter tail), among tails of at most kMaxTailRounds rounds and
/// `maxTail` pairs; 0 when the order has no choice (no mask, no items, or
/// few pairs). Host code: an O(items + tails^2 numQTiles + tails grid)
/// sweep, in which the items before each candidate's tail are charged
/// once.
template <typename KVTiles>
int64_t chooseTailPairs(int64_t numQTiles, int64_t pairs, int64_t grid,
                        WorkOrderParams p, KVTiles kvTiles,
                        int64_t maxTail = INT64_MAX) {
  Int64Ops ops;
  p.launchTail = true;
  if (!p.masked || numQTiles <= 0 || pairs <= 1 || grid <= 0 ||
      pairs * p.ctasPerPair <= grid)
    return 0;
  std::vector<int64_t> cost(numQTiles);
  for (int64_t t = 0; t < numQTiles; ++t)
    cost[t] = std::max<int64_t>(kvTiles(t), 0) + kItemOverheadTiles;
  int64_t total = numQTiles * pairs;
  maxTail = std::clamp<int64_t>(
      std::min(maxTail, kMaxTailRounds * grid / numQTiles), 1, pairs);
  std::vector<int64_t> load(grid, 0), withTail(grid);
  int64_t best = 1, bestSpan = INT64_MAX, done = 0;
  for (int64_t tail = maxTail; tail >= 1; --tail) {
    int64_t head = (pairs - tail) * numQTiles;
    for (; done < head; ++done)
      load[workCta(done, grid)] +=
          cost[decodeWorkItem(ops, done, numQTiles, pairs, grid, p, tail).qTile];
    withTail = load;
    for (int64_t w = head; w < total; ++w)
      withTail[workCta(w, grid)] +=
          cost[decodeWorkItem(ops, w, numQTiles, pairs, grid, p, tail).qTile];
    int64_t span = *std::max_element(withTail.begin(), withTail.end());
    if (span <= bestSpan) {
      best = tail;
      bestSpan = span;
    }
  }
  return best;
}

/// The split tail (persistent kernels of unmasked attention, whose items
/// all have the same `tiles` KV tiles). When the grid does not divide the
/// `total` items, a last round of whole items would leave CTAs idle while
/// the others finish it. Instead the items past the last whole round are cut
/// along their KV tiles: their U = (total mod grid) * tiles tile units are
/// dealt out in order, CTA c taking units [tailStart(c), tailStart(c + 1)),
/// tailStart(c) = c U / grid (rounded down). Fewer than `tiles` units per
/// CTA, so a CTA's share spans at most two items: its pieces 0 and 1. The
/// piece that holds an item's first tile combines the others (kept in a
/// workspace slot of the CTA that computed them); every other piece is the
/// first (or only) piece of its CTA, so each CTA fills at most one slot.
/// With no tiles (an empty key sequence), or more than kMaxSplitTiles (so
/// that the kernel's 32-bit products cta * U stay below 2^31 on grids of up
/// to 256 CTAs), nothing is split: the last round stays a round of whole
/// items.
template <typename Int> struct TailPiece {
  /// The piece's work item, or `total` when the CTA has no such piece.
  Int item;
  /// The piece's KV tiles, [firstTile, endTile) of the item's `tiles`.
  Int firstTile, endTile;
  /// The item's rank among the split ones (item - first split item).
  Int rank;
};

inline constexpr int64_t kMaxSplitTiles = 1 << 15;

/// Whether items of `tiles` KV tiles are split (see above).
template <typename Ops>
typename Ops::Int splitsTiles(Ops &ops, typename Ops::Int tiles) {
  auto none = ops.cst(0), one = ops.cst(1);
  return ops.select(ops.lt(tiles, one), none,
                    ops.select(ops.lt(ops.cst(kMaxSplitTiles), tiles), none, one));
}

/// Rounds of whole items before the split ones.
template <typename Ops>
typename Ops::Int splitRounds(Ops &ops, typename Ops::Int total,
                              typename Ops::Int grid, typename Ops::Int tiles) {
  auto whole = ops.div(total, grid);
  auto ceil = ops.div(ops.add(total, ops.sub(grid, ops.cst(1))), grid);
  return ops.select(ops.lt(splitsTiles(ops, tiles), ops.cst(1)), ceil, whole);
}

/// The tile units of the split items (0 when nothing is split).
template <typename Ops>
typename Ops::Int tailUnits(Ops &ops, typename Ops::Int total,
                            typename Ops::Int grid, typename Ops::Int tiles) {
  auto rounds = splitRounds(ops, total, grid, tiles);
  auto left = ops.sub(total, ops.mul(rounds, grid));
  return ops.mul(ops.mul(left, tiles), splitsTiles(ops, tiles));
}

/// The first tail unit of CTA `cta` (tailStart above).
template <typename Ops>
typename Ops::Int tailStart(Ops &ops, typename Ops::Int cta,
                            typename Ops::Int units, typename Ops::Int grid) {
  return ops.div(ops.mul(cta, units), grid);
}

/// The CTA whose share holds tail unit `unit` (< units): the last c with
/// tailStart(c) <= unit, ((unit + 1) grid - 1) / units.
template <typename Ops>
typename Ops::Int tailCtaOfUnit(Ops &ops, typename Ops::Int unit,
                                typename Ops::Int units,
                                typename Ops::Int grid) {
  auto scaled = ops.sub(ops.mul(ops.add(unit, ops.cst(1)), grid), ops.cst(1));
  return ops.div(scaled, ops.max(units, ops.cst(1)));
}

/// Piece `piece` (0, 1, ...; from 2 on there is none) of CTA `cta`'s share
/// of the split tail. Values are non-negative; `Ops` as decodeWorkItem's
/// plus min and max.
template <typename Ops>
TailPiece<typename Ops::Int>
tailPiece(Ops &ops, typename Ops::Int piece, typename Ops::Int cta,
          typename Ops::Int grid, typename Ops::Int total,
          typename Ops::Int tiles) {
  auto rounds = splitRounds(ops, total, grid, tiles);
  auto units = tailUnits(ops, total, grid, tiles);
  auto perItem = ops.max(tiles, ops.cst(1));
  auto begin = tailStart(ops, cta, units, grid);
  auto end = tailStart(ops, ops.add(cta, ops.cst(1)), units, grid);
  // Piece 0 ends at the share's end or at the end of its first item.
  auto itemEnd = ops.mul(ops.add(ops.div(begin, perItem), ops.cst(1)), perItem);
  auto split = ops.min(end, itemEnd);
  auto isFirst = ops.lt(piece, ops.cst(1));
  auto lo = ops.select(isFirst, begin, split);
  auto hi = ops.select(isFirst, split,
                       ops.select(ops.lt(piece, ops.cst(2)), end, lo));
  // lo is begin or split, both the same for all of the CTA's items: the
  // rank as a choice between their quotients keeps the division out of the
  // work loop (loop-invariant), not in the chain that decodes each item.
  auto rank = ops.select(isFirst, ops.div(begin, perItem),
                         ops.div(split, perItem));
  auto item = ops.add(ops.mul(rounds, grid), rank);
  auto origin = ops.mul(rank, perItem);
  return {ops.select(ops.lt(lo, hi), item, total), ops.sub(lo, origin),
          ops.sub(hi, origin), rank};
}

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_UTILS_WORKORDER_H
