//===- WorkOrderTest.cpp - the work items of persistent CTAs --------------===//
//
// The sm_90a persistent kernel emits WorkOrder.h's formulas. Every work item
// must be taken exactly once whatever the grid, the orders must keep their
// promises (the Q tile fastest shares (batch, head) pairs within a round;
// reverse-q-tiles puts the longest causal tile first), and the causal
// rounds must stay balanced: the reason for the snake and the masked order.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Utils/KVTileRange.h"
#include "fattn/Dialect/FAttn/Utils/WorkOrder.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <vector>

using namespace mlir::fattn;

namespace {
/// For each CTA, its items in order: (qTile, pair).
std::vector<std::vector<WorkItem<int64_t>>>
assign(int64_t numQTiles, int64_t pairs, int64_t grid,
       const WorkOrderParams &p) {
  Int64Ops ops;
  std::vector<std::vector<WorkItem<int64_t>>> items(grid);
  int64_t total = numQTiles * pairs;
  for (int64_t cta = 0; cta < grid; ++cta)
    for (int64_t round = 0;; ++round) {
      int64_t index = workIndex(ops, round, grid, cta);
      if (index >= total)
        break;
      items[cta].push_back(
          decodeWorkItem(ops, index, numQTiles, pairs, grid, p));
    }
  return items;
}

/// Every (qTile, pair) exactly once.
void checkCoverage(int64_t numQTiles, int64_t pairs, int64_t grid,
                   const WorkOrderParams &p) {
  SCOPED_TRACE(testing::Message()
               << "qTiles=" << numQTiles << " pairs=" << pairs << " grid="
               << grid << " masked=" << p.masked << " reverse="
               << p.reverseQTiles << " ctasPerPair=" << p.ctasPerPair);
  std::vector<int> seen(numQTiles * pairs, 0);
  for (const auto &cta : assign(numQTiles, pairs, grid, p))
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
                      const WorkOrderParams &p) {
  int64_t longest = 0;
  for (const auto &cta : assign(numQTiles, pairs, grid, p)) {
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
      for (int64_t ctasPerPair : {1, 2, 4})
        for (int64_t numQTiles : {1, 2, 7, 16, 43, 128})
          for (int64_t pairs : {1, 3, 8, 16, 33, 64, 128, 256})
            for (int64_t grid : {1, 5, 66, 132, 133})
              checkCoverage(numQTiles, pairs, grid,
                            {masked, reverse, ctasPerPair});
}

TEST(WorkOrder, QTileFastestSharesPairsAndLongestFirst) {
  // Round 0 without a mask: CTAs 0 .. numQTiles - 1 take one pair's tiles,
  // the last (longest causal) Q tile first with reverse-q-tiles.
  auto items = assign(16, 64, 132, {false, true, 2});
  for (int64_t cta = 0; cta < 16; ++cta) {
    EXPECT_EQ(items[cta][0].pair, 0);
    EXPECT_EQ(items[cta][0].qTile, 15 - cta);
  }
  // Many pairs with a mask: the same order.
  auto masked = assign(16, 128, 132, {true, true, 2});
  EXPECT_EQ(masked[1][0].pair, 0);
  // Few pairs with a mask: the Q tile slowest, longest first.
  auto few = assign(128, 16, 132, {true, true, 2});
  for (int64_t cta = 0; cta < 16; ++cta) {
    EXPECT_EQ(few[cta][0].qTile, 127);
    EXPECT_EQ(few[cta][0].pair, cta);
  }
}

TEST(WorkOrder, CausalRoundsStayBalanced) {
  // bf16/f16 on 132 SMs, B * N = 16384 tokens, H * D = 2048: (head dim,
  // block_m, CTAs per pair) and seq lengths 2k .. 16k, the shapes of
  // docs/PERF.md. The kernel's order stays within 4% of the ideal; the Q
  // tile fastest alone (what the snake and the masked order replace) does
  // not.
  struct Shape {
    int64_t headDim, blockM, ctasPerPair;
  };
  bool worseSomewhere = false;
  for (Shape s : {Shape{64, 192, 1}, Shape{128, 128, 2}, Shape{256, 128, 4}})
    for (int64_t n : {2048, 4096, 8192, 16384}) {
      int64_t numQTiles = (n + s.blockM - 1) / s.blockM;
      int64_t pairs = (16384 / n) * (2048 / s.headDim);
      double ours =
          causalMakespan(numQTiles, pairs, 132, {true, true, s.ctasPerPair});
      EXPECT_LE(ours, 1.04) << "head dim " << s.headDim << ", " << n
                            << " tokens";
      worseSomewhere |= causalMakespan(numQTiles, pairs, 132,
                                       {false, true, s.ctasPerPair}) > 1.2;
    }
  EXPECT_TRUE(worseSomewhere);
}
