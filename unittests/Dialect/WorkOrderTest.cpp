//===- WorkOrderTest.cpp - the work items of persistent CTAs --------------===//
//
// The sm_90a persistent kernel emits WorkOrder.h's formulas. Every work item
// must be taken exactly once whatever the grid and the tail, the orders must
// keep their promises (the Q tile fastest shares (batch, head) pairs within
// a round; a masked window holds two rounds of those items, longest first;
// reverse-q-tiles puts the longest causal tile first), and the causal rounds
// must stay balanced: the reason for the snake, the windows and the
// launcher's choice of the tail.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Utils/KVTileRange.h"
#include "fattn/Dialect/FAttn/Utils/WorkOrder.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

using namespace mlir::fattn;

namespace {
/// For each CTA, its items in order: (qTile, pair), with the launcher's
/// `tailPairs`.
std::vector<std::vector<WorkItem<int64_t>>>
assign(int64_t numQTiles, int64_t pairs, int64_t grid,
       const WorkOrderParams &p, int64_t tailPairs = 0) {
  Int64Ops ops;
  std::vector<std::vector<WorkItem<int64_t>>> items(grid);
  int64_t total = numQTiles * pairs;
  int64_t tail = tailPairCount(ops, pairs, grid, p, tailPairs);
  for (int64_t cta = 0; cta < grid; ++cta)
    for (int64_t round = 0;; ++round) {
      int64_t index = workIndex(ops, round, grid, cta);
      if (index >= total)
        break;
      EXPECT_EQ(workCta(index, grid), cta);
      items[cta].push_back(
          decodeWorkItem(ops, index, numQTiles, pairs, grid, p, tail));
    }
  return items;
}

/// Every (qTile, pair) exactly once.
void checkCoverage(int64_t numQTiles, int64_t pairs, int64_t grid,
                   const WorkOrderParams &p, int64_t tailPairs) {
  SCOPED_TRACE(testing::Message()
               << "qTiles=" << numQTiles << " pairs=" << pairs << " grid="
               << grid << " masked=" << p.masked << " reverse="
               << p.reverseQTiles << " ctasPerPair=" << p.ctasPerPair
               << " launchTail=" << p.launchTail << " tailPairs=" << tailPairs);
  std::vector<int> seen(numQTiles * pairs, 0);
  for (const auto &cta : assign(numQTiles, pairs, grid, p, tailPairs))
    for (WorkItem<int64_t> item : cta) {
      ASSERT_GE(item.qTile, 0);
      ASSERT_LT(item.qTile, numQTiles);
      ASSERT_GE(item.pair, 0);
      ASSERT_LT(item.pair, pairs);
      ++seen[item.pair * numQTiles + item.qTile];
    }
  for (int count : seen)
    ASSERT_EQ(count, 1);
}

/// The longest CTA's causal work over the ideal (seq_q = seq_k, Q tile t
/// visits t + 1 KV tiles of the Q tile's size).
double causalMakespan(int64_t numQTiles, int64_t pairs, int64_t grid,
                      const WorkOrderParams &p, int64_t tailPairs = 0) {
  int64_t longest = 0;
  for (const auto &cta : assign(numQTiles, pairs, grid, p, tailPairs)) {
    int64_t load = 0;
    for (WorkItem<int64_t> item : cta)
      load += item.qTile + 1;
    longest = std::max(longest, load);
  }
  double ideal = double(numQTiles * (numQTiles + 1) / 2 * pairs) / grid;
  return longest / ideal;
}
} // namespace

TEST(WorkOrder, EveryItemOnce) {
  for (bool masked : {false, true})
    for (bool reverse : {false, true})
      for (bool launchTail : {false, true})
      for (int64_t ctasPerPair : {1, 2, 4})
        for (int64_t numQTiles : {1, 2, 7, 16, 43, 128})
          for (int64_t pairs : {1, 3, 8, 16, 33, 64, 128, 256})
            for (int64_t grid : {1, 5, 66, 132, 133})
              for (int64_t tail : {int64_t(0), int64_t(1), int64_t(2),
                                   pairs / 2, pairs - 1, pairs, pairs + 3})
                checkCoverage(numQTiles, pairs, grid,
                              {masked, reverse, ctasPerPair, launchTail}, tail);
}

TEST(WorkOrder, QTileFastestSharesPairsAndLongestFirst) {
  // Round 0 without a mask: CTAs 0 .. numQTiles - 1 take one pair's tiles,
  // the last (longest causal) Q tile first with reverse-q-tiles.
  auto items = assign(16, 64, 132, {false, true, 2});
  for (int64_t cta = 0; cta < 16; ++cta) {
    EXPECT_EQ(items[cta][0].pair, 0);
    EXPECT_EQ(items[cta][0].qTile, 15 - cta);
  }
  // With a mask and few pairs the first window (two rounds of 132) holds
  // pairs 0 and 1 and Q tiles 127 .. 120 of pair 2 (the Q tile fastest
  // order's first 264 items), longest first: CTAs 0 .. 2 take Q tile 127 of
  // pairs 0 .. 2, CTA 3 Q tile 126 of pair 0.
  auto few = assign(128, 16, 132, {true, true, 2});
  for (int64_t cta = 0; cta < 3; ++cta) {
    EXPECT_EQ(few[cta][0].qTile, 127);
    EXPECT_EQ(few[cta][0].pair, cta);
  }
  EXPECT_EQ(few[3][0].qTile, 126);
  EXPECT_EQ(few[3][0].pair, 0);
  // The snake's second round gives CTA 0 the window's last item, the
  // shortest: Q tile 0 of pair 1.
  EXPECT_EQ(few[0][1].qTile, 0);
  EXPECT_EQ(few[0][1].pair, 1);
}

namespace {
/// The masked order's windows: the items of each 2 grid positions (the
/// last window to the end) are those of the Q tile fastest order, by rank
/// then pair.
void checkWindows(int64_t numQTiles, int64_t pairs, int64_t grid,
                  const WorkOrderParams &p) {
  SCOPED_TRACE(testing::Message() << "qTiles=" << numQTiles << " pairs="
                                  << pairs << " grid=" << grid);
  Int64Ops ops;
  int64_t total = numQTiles * pairs, window = 2 * grid;
  int64_t windows = std::max<int64_t>(total / window, 1);
  for (int64_t q = 0; q < windows; ++q) {
    int64_t begin = q * window, end = q + 1 < windows ? begin + window : total;
    std::vector<std::pair<int64_t, int64_t>> expected, found;
    for (int64_t v = begin; v < end; ++v) {
      int64_t rank = v % numQTiles;
      expected.push_back({rank, v / numQTiles});
      WorkItem<int64_t> item =
          decodeWorkItem(ops, v, numQTiles, pairs, grid, p, pairs);
      int64_t foundRank =
          p.reverseQTiles ? numQTiles - 1 - item.qTile : item.qTile;
      found.push_back({foundRank, item.pair});
    }
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(found, expected) << "window " << q;
  }
}
} // namespace

TEST(WorkOrder, MaskedWindowsHoldTwoRoundsLongestFirst) {
  // Grids below, at and above the Q tiles (windows within one pair, across
  // a few, more than all items), with and without the launcher's tail (few
  // pairs: the windows too), reversed and not.
  for (bool reverse : {false, true})
    for (auto [launchTail, ctasPerPair] :
         {std::pair<bool, int64_t>{false, 1}, {false, 3}, {true, 1}})
      for (int64_t numQTiles : {kMinWindowQTiles, int64_t(43), int64_t(64),
                                int64_t(128), int64_t(300)})
        for (int64_t pairs : {1, 3, 8, 16, 32, 33})
          for (int64_t grid : {1, 5, 66, 132, 133}) {
            WorkOrderParams p{true, reverse, ctasPerPair, launchTail};
            if (launchTail && pairs * ctasPerPair > grid)
              continue;
            checkWindows(numQTiles, pairs, grid, p);
          }
}

TEST(WorkOrder, MaskedBelowTheWindowsTheEarlierOrders) {
  // Fewer than kMinWindowQTiles Q tiles: with few pairs the rank slowest
  // over all pairs (with the launcher's tail: a tail of all pairs), with
  // many the Q tile fastest.
  Int64Ops ops;
  for (bool launchTail : {false, true})
    for (int64_t numQTiles : {int64_t(1), int64_t(7), kMinWindowQTiles - 1})
      for (int64_t pairs : {1, 8, 33, 200})
        for (int64_t grid : {5, 132}) {
          WorkOrderParams p{true, false, 2, launchTail};
          bool few = pairs * 2 <= grid;
          int64_t tail = tailPairCount(ops, pairs, grid, p, 1);
          for (int64_t w = 0; w < numQTiles * pairs; ++w) {
            WorkItem<int64_t> item =
                decodeWorkItem(ops, w, numQTiles, pairs, grid, p, tail);
            int64_t rank = few ? w / pairs : w % numQTiles;
            int64_t pair = few ? w % pairs : w / numQTiles;
            if (launchTail && !few && pair >= pairs - tail) {
              int64_t offset = w - (pairs - tail) * numQTiles;
              rank = offset / tail;
              pair = pairs - tail + offset % tail;
            }
            ASSERT_EQ(item.qTile, rank) << "item " << w;
            ASSERT_EQ(item.pair, pair) << "item " << w;
          }
        }
}

TEST(WorkOrder, MaskedWindowsKeepFewPairsInL2) {
  // The shape (16-bit head dim 128, 8k causal, batch 2, 16 heads:
  // 64 Q tiles of 128 rows, 32 pairs, 132 SMs): a window spans at most
  // 2 * 132 / 64 + 2 pairs (K and V of 6 pairs, 24 MB), where the rank
  // slowest over all pairs spanned all 32 pairs (128 MB) in each round.
  // The last window, which takes the 200 items past the last whole one,
  // spans up to twice as many.
  WorkOrderParams p{true, true, 3};
  Int64Ops ops;
  int64_t numQTiles = 64, pairs = 32, grid = 132, total = numQTiles * pairs;
  int64_t windows = total / (2 * grid);
  for (int64_t q = 0; q < windows; ++q) {
    int64_t begin = q * 2 * grid,
            end = q + 1 < windows ? begin + 2 * grid : total;
    int64_t lo = pairs, hi = -1;
    for (int64_t w = begin; w < end; ++w) {
      int64_t pair = decodeWorkItem(ops, w, numQTiles, pairs, grid, p, 0).pair;
      lo = std::min(lo, pair);
      hi = std::max(hi, pair);
    }
    EXPECT_LE(hi - lo + 1, (end - begin) / numQTiles + 2) << "window " << q;
    EXPECT_LE(hi - lo + 1, q + 1 < windows ? 6 : 9) << "window " << q;
    // Llama-3-8B's heads (32 query heads, 8 KV heads) at batch 1: the
    // query heads of a KV head are consecutive pairs, so a window reads the
    // K and V of at most 3 KV heads (4 in the last).
    EXPECT_LE(hi / 4 - lo / 4 + 1, q + 1 < windows ? 3 : 4) << "window " << q;
  }
}

TEST(WorkOrder, CausalRoundsStayBalanced) {
  // bf16/f16 on 132 SMs, B * N = 16384 tokens, H * D = 2048: (head dim,
  // block_m, CTAs per pair) and seq lengths 2k .. 16k, the shapes of
  // docs/PERF.md, and 3k between them. The windows stay within 1.6% of the
  // ideal (2.3% and 3.4% at 3k, where 3 * 132 items are not whole windows
  // of the Q tiles of whole pairs), the launcher's tail (chosen in its own
  // model, which charges each item 2 more tiles) within 2.5%; the Q tile
  // fastest with the snake (a tail of one pair, many pairs) within 12% (3%
  // at 2k, 9-11% at 3k), and the Q tile fastest alone (no snake) does not.
  struct Shape {
    int64_t headDim, blockM, ctasPerPair;
  };
  bool worseSomewhere = false, tailHelps = false;
  for (Shape s : {Shape{64, 192, 1}, Shape{128, 128, 2}, Shape{256, 128, 4}})
    for (int64_t n : {2048, 3072, 4096, 8192, 16384}) {
      SCOPED_TRACE(testing::Message() << "head dim " << s.headDim << ", " << n
                                      << " tokens");
      int64_t numQTiles = (n + s.blockM - 1) / s.blockM;
      int64_t pairs = (16384 / n) * (2048 / s.headDim);
      WorkOrderParams p{true, true, s.ctasPerPair, true};
      int64_t tail = chooseTailPairs(numQTiles, pairs, 132, p,
                                     [](int64_t t) { return t + 1; });
      double ours = causalMakespan(numQTiles, pairs, 132, p, tail);
      double windows =
          causalMakespan(numQTiles, pairs, 132, {true, true, s.ctasPerPair}, 0);
      double qTileFastest = causalMakespan(numQTiles, pairs, 132, p, 1);
      if (numQTiles >= kMinWindowQTiles)
        EXPECT_LE(windows, n == 3072 ? 1.035 : 1.016);
      EXPECT_LE(ours, 1.025);
      EXPECT_LE(ours, qTileFastest);
      EXPECT_LE(qTileFastest, 1.12);
      // With few pairs the windows, whatever the launcher passes.
      if (pairs * s.ctasPerPair <= 132)
        EXPECT_EQ(ours, windows);
      tailHelps |= qTileFastest - ours > 0.02;
      worseSomewhere |= causalMakespan(numQTiles, pairs, 132,
                                       {false, true, s.ctasPerPair}) > 1.2;
    }
  EXPECT_TRUE(tailHelps);
  EXPECT_TRUE(worseSomewhere);
}

namespace {
/// chooseTailPairs' model: the longest CTA's sum of kvTiles + overhead.
int64_t modelSpan(int64_t numQTiles, int64_t pairs, int64_t grid,
                  const WorkOrderParams &p, int64_t tailPairs,
                  int64_t (*kvTiles)(int64_t)) {
  int64_t longest = 0;
  for (const auto &cta : assign(numQTiles, pairs, grid, p, tailPairs)) {
    int64_t load = 0;
    for (WorkItem<int64_t> item : cta)
      load += kvTiles(item.qTile) + kItemOverheadTiles;
    longest = std::max(longest, load);
  }
  return longest;
}
int64_t twoPerQTile(int64_t qTile) { return 2 * qTile + 2; }
} // namespace

TEST(WorkOrder, ChooseTailPairs) {
  auto kv = [](int64_t t) { return twoPerQTile(t); };
  // No choice: no mask, few pairs (all of them form the tail), one pair.
  EXPECT_EQ(chooseTailPairs(11, 256, 132, {false, true, 1}, kv), 0);
  EXPECT_EQ(chooseTailPairs(11, 132, 132, {true, true, 1}, kv), 0);
  EXPECT_EQ(chooseTailPairs(11, 66, 132, {true, true, 2}, kv), 0);
  EXPECT_EQ(chooseTailPairs(11, 1, 132, {true, true, 1}, kv), 0);
  // The benchmark's head dim 64 causal at 2k (192-row Q tiles of 96-key
  // tiles, 8 x 32 pairs): the Q tile fastest leaves the last round and a
  // third of one unpaired.
  WorkOrderParams p{true, true, 1, true};
  int64_t tail = chooseTailPairs(11, 256, 132, p, kv);
  EXPECT_GT(tail, 1);
  EXPECT_LT(double(modelSpan(11, 256, 132, p, tail, twoPerQTile)),
            0.98 * double(modelSpan(11, 256, 132, p, 0, twoPerQTile)));
  // A cap (the launcher's L2 budget) bounds the choice.
  for (int64_t cap : {1, 5, 17})
    EXPECT_LE(chooseTailPairs(11, 256, 132, p, kv, cap), cap);
  // The least span of the candidates (at most kMaxTailRounds rounds), the
  // shortest such tail; shapes where grid and Q tiles share no factor.
  for (auto [numQTiles, pairs, grid] :
       {std::tuple<int64_t, int64_t, int64_t>{11, 256, 132},
        {16, 170, 132},
        {7, 50, 13},
        {3, 40, 7},
        {43, 9, 5}}) {
    SCOPED_TRACE(testing::Message() << numQTiles << " Q tiles, " << pairs
                                    << " pairs, grid " << grid);
    int64_t chosen = chooseTailPairs(numQTiles, pairs, grid, p, kv);
    int64_t span = modelSpan(numQTiles, pairs, grid, p, chosen, twoPerQTile);
    int64_t maxTail =
        std::min(pairs, std::max<int64_t>(1, kMaxTailRounds * grid / numQTiles));
    ASSERT_GE(chosen, 1);
    ASSERT_LE(chosen, maxTail);
    for (int64_t t = 1; t <= maxTail; ++t) {
      int64_t other = modelSpan(numQTiles, pairs, grid, p, t, twoPerQTile);
      EXPECT_LE(span, other) << "tail " << t;
      if (t < chosen)
        EXPECT_LT(span, other) << "tail " << t;
    }
  }
}

namespace {
/// The split tail's pieces of every CTA: whole rounds, then pieces 0 and 1
/// (the kernel's loop stops at the first piece without an item).
struct Piece {
  int64_t cta, item, firstTile, endTile, rank;
};
std::vector<Piece> tailPieces(int64_t total, int64_t grid, int64_t tiles) {
  Int64Ops ops;
  std::vector<Piece> pieces;
  for (int64_t cta = 0; cta < grid; ++cta)
    for (int64_t piece = 0; piece < 4; ++piece) {
      TailPiece<int64_t> p = tailPiece(ops, piece, cta, grid, total, tiles);
      if (p.item >= total)
        break;
      EXPECT_LT(piece, 2) << "a CTA has at most two pieces";
      pieces.push_back({cta, p.item, p.firstTile, p.endTile, p.rank});
    }
  return pieces;
}
} // namespace

TEST(WorkOrder, SplitTailCoversEveryTileOnce) {
  Int64Ops ops;
  for (int64_t grid : {1, 7, 132})
    for (int64_t total : {1, 5, 131, 132, 133, 200, 2048, 2816})
      for (int64_t tiles : {int64_t(0), int64_t(1), int64_t(2), int64_t(13),
                            int64_t(103), kMaxSplitTiles + 1}) {
        SCOPED_TRACE(testing::Message() << "total=" << total << " grid="
                                        << grid << " tiles=" << tiles);
        int64_t rounds = splitRounds(ops, total, grid, tiles);
        // Whole rounds: every item below rounds * grid once (workIndex
        // within a round is a permutation), none past `total`.
        std::vector<int> whole(total, 0);
        for (int64_t r = 0; r < rounds; ++r)
          for (int64_t cta = 0; cta < grid; ++cta) {
            int64_t index = workIndex(ops, r, grid, cta);
            if (index < total)
              ++whole[index];
          }
        int64_t first = std::min(rounds * grid, total);
        for (int64_t i = 0; i < total; ++i)
          ASSERT_EQ(whole[i], i < first ? 1 : 0);
        // The split items: every tile exactly once, by pieces whose owner
        // (the piece with tile 0) lists every other piece's CTA.
        std::vector<std::vector<int>> seen(total - first,
                                           std::vector<int>(tiles, 0));
        std::vector<int> slots(grid, 0);
        int64_t units = tailUnits(ops, total, grid, tiles);
        for (const Piece &p : tailPieces(total, grid, tiles)) {
          ASSERT_GE(p.item, first);
          ASSERT_EQ(p.rank, p.item - first);
          ASSERT_LT(p.firstTile, p.endTile);
          ASSERT_LE(p.endTile, tiles);
          for (int64_t t = p.firstTile; t < p.endTile; ++t)
            ++seen[p.rank][t];
          if (p.firstTile != 0) {
            ++slots[p.cta];
            continue;
          }
          // The owner: the CTAs after it up to the item's last unit's CTA
          // hold its other pieces (those with a non-empty share).
          int64_t last =
              tailCtaOfUnit(ops, (p.rank + 1) * tiles - 1, units, grid);
          ASSERT_GE(last, p.cta);
          EXPECT_EQ(last == p.cta, p.endTile == tiles);
          for (int64_t c = p.cta + 1; c <= last; ++c) {
            int64_t begin = tailStart(ops, c, units, grid);
            int64_t end = tailStart(ops, c + 1, units, grid);
            if (begin == end)
              continue;
            ASSERT_GT(begin, p.rank * tiles);
            ASSERT_LT(begin, (p.rank + 1) * tiles);
          }
        }
        for (const auto &item : seen)
          for (int count : item)
            ASSERT_EQ(count, 1);
        for (int count : slots)
          ASSERT_LE(count, 1) << "one workspace slot per CTA";
      }
}

TEST(WorkOrder, SplitTailBalancesTheLastRound) {
  // Head dim 128 on 132 SMs: 2048 items of 13 tiles (2k keys, 160-key
  // tiles) take 16 rounds whole; split, no CTA does more than 15.52 items'
  // worth of tiles, rounded up to a tile.
  Int64Ops ops;
  int64_t total = 2048, grid = 132, tiles = 13;
  EXPECT_EQ(splitRounds(ops, total, grid, tiles), 15);
  int64_t longest = 0;
  for (int64_t cta = 0; cta < grid; ++cta) {
    int64_t load = 15 * tiles;
    for (int64_t piece = 0; piece < 2; ++piece) {
      TailPiece<int64_t> p = tailPiece(ops, piece, cta, grid, total, tiles);
      if (p.item < total)
        load += p.endTile - p.firstTile;
    }
    longest = std::max(longest, load);
  }
  EXPECT_EQ(longest, 15 * tiles + (68 * tiles + grid - 1) / grid);
  // Items of more than kMaxSplitTiles tiles stay whole, so that the
  // kernel's cta * U fits in 32 bits on grids of up to 256 CTAs.
  EXPECT_EQ(splitRounds(ops, total, grid, kMaxSplitTiles), 15);
  EXPECT_EQ(splitRounds(ops, total, grid, kMaxSplitTiles + 1), 16);
  EXPECT_EQ(tailUnits(ops, total, grid, kMaxSplitTiles + 1), 0);
  EXPECT_LT(256 * 255 * kMaxSplitTiles, int64_t(1) << 31);
}
