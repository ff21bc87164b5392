//===- QTileRangeTest.cpp - the Q tile range against brute force ----------===//
//
// computeQTileRange (the backward pass's loop over the Q tiles that see a KV
// tile) must visit every Q tile with a row that sees some key of the KV
// tile, and claim "no mask needed" only for Q tiles whose rows all see every
// key of it; its masked/unmasked split must agree, pair by pair, with the
// forward's computeKVTileRange on tiles that fit inside both sequences. The
// deterministic backward also inverts it: the KV tiles whose Q tile range
// holds a Q tile are exactly that Q tile's computeKVTileRange, each one's
// rank the offset from its lo.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Utils/QTileRange.h"

#include "MaskBruteForce.h"

#include "gtest/gtest.h"

using namespace mlir::fattn;

namespace {
void checkAgainstBruteForce(int64_t seqQ, int64_t seqK,
                            const KVTileRangeParams &p) {
  Int64Ops ops;
  int64_t qTiles = (seqQ + p.blockM - 1) / p.blockM;
  int64_t kTiles = (seqK + p.blockN - 1) / p.blockN;
  for (int64_t kt = 0; kt < kTiles; ++kt) {
    KVTileRange<int64_t> r = computeQTileRange(ops, kt, seqQ, seqK, p);
    SCOPED_TRACE(testing::Message()
                 << "seqQ=" << seqQ << " seqK=" << seqK << " bm=" << p.blockM
                 << " bn=" << p.blockN << " wl=" << p.windowLeft << " wr="
                 << p.windowRight << " kvTile=" << kt << " -> [" << r.lo
                 << ", " << r.fullLo << ", " << r.fullHi << ", " << r.hi
                 << ")");
    ASSERT_LE(0, r.lo);
    ASSERT_LE(r.lo, r.fullLo);
    ASSERT_LE(r.fullLo, r.fullHi);
    ASSERT_LE(r.fullHi, r.hi);
    ASSERT_LE(r.hi, qTiles);
    int64_t lastKey = std::min((kt + 1) * p.blockN, seqK);
    for (int64_t qt = 0; qt < qTiles; ++qt) {
      bool any = false, all = true;
      for (int64_t i = qt * p.blockM; i < (qt + 1) * p.blockM; ++i)
        for (int64_t j = kt * p.blockN; j < lastKey; ++j) {
          bool v = seesKey(i, j, seqQ, seqK, p.windowLeft, p.windowRight);
          any |= v;
          all &= v;
        }
      bool visited = r.lo <= qt && qt < r.hi;
      bool unmasked = r.fullLo <= qt && qt < r.fullHi;
      if (any)
        EXPECT_TRUE(visited) << "Q tile " << qt << " sees the tile but is "
                             << "skipped";
      if (unmasked)
        EXPECT_TRUE(all) << "Q tile " << qt << " is unmasked but not all seen";
      // Pairs the forward visits unmasked the backward visits unmasked too
      // (tiles inside both sequences): the same mask work in both passes.
      KVTileRange<int64_t> f = computeKVTileRange(ops, qt, seqQ, seqK, p);
      bool inside = (qt + 1) * p.blockM <= seqQ && (kt + 1) * p.blockN <= seqK;
      if (inside)
        EXPECT_EQ(unmasked, f.fullLo <= kt && kt < f.fullHi)
            << "Q tile " << qt << ": the forward and backward masks differ";
    }
  }
}

TEST(QTileRange, MatchesBruteForce) {
  forEachMaskCase(checkAgainstBruteForce);
}

/// The deterministic backward's order (waitForGradQueryTurn): KV tile kt
/// adds its dQ of Q tile qt after the kt - lo KV tiles below it that visit
/// qt, lo = computeKVTileRange(qt).lo. A KV tile missing from [lo, hi) would
/// leave the counter short of a later tile's rank: a deadlock.
void checkInverse(int64_t seqQ, int64_t seqK, const KVTileRangeParams &p) {
  Int64Ops ops;
  int64_t qTiles = (seqQ + p.blockM - 1) / p.blockM;
  int64_t kTiles = (seqK + p.blockN - 1) / p.blockN;
  for (int64_t qt = 0; qt < qTiles; ++qt) {
    KVTileRange<int64_t> f = computeKVTileRange(ops, qt, seqQ, seqK, p);
    for (int64_t kt = 0; kt < kTiles; ++kt) {
      KVTileRange<int64_t> r = computeQTileRange(ops, kt, seqQ, seqK, p);
      EXPECT_EQ(r.lo <= qt && qt < r.hi, f.lo <= kt && kt < f.hi)
          << "seqQ=" << seqQ << " seqK=" << seqK << " bm=" << p.blockM
          << " bn=" << p.blockN << " wl=" << p.windowLeft
          << " wr=" << p.windowRight << ": Q tile " << qt << ", KV tile "
          << kt;
    }
  }
}

TEST(QTileRange, InvertsTheKVTileRange) {
  forEachMaskCase(checkInverse);
  // The backward's tiles: 64 query rows, 64 or 128 keys.
  for (int64_t seqQ : {1, 63, 64, 65, 200, 513})
    for (int64_t seqK : {1, 100, 128, 129, 390, 1000})
      for (int64_t bn : {64, 128})
        for (auto [wl, wr] : {std::pair<int64_t, int64_t>{-1, -1},
                              {-1, 0}, {100, 20}, {0, 0}, {300, -1}})
          checkInverse(seqQ, seqK, {64, bn, wl, wr});
}

TEST(QTileRange, CausalSkipsThePast) {
  Int64Ops ops;
  // Square causal, tiles of 64: KV tile 1 (keys 64..127) is seen by Q tile
  // 1 (the diagonal, masked) and, unmasked, by Q tiles 2 and 3.
  KVTileRange<int64_t> r = computeQTileRange(ops, int64_t{1}, int64_t{256},
                                             int64_t{256}, {64, 64, -1, 0});
  EXPECT_EQ(r.lo, 1);
  EXPECT_EQ(r.fullLo, 2);
  EXPECT_EQ(r.fullHi, 4);
  EXPECT_EQ(r.hi, 4);
}

TEST(QTileRange, KeysThatNoRowSeesVisitNothing) {
  Int64Ops ops;
  // A window of 4 keys to the left of the diagonal, seq_q = 16 < seq_k = 200:
  // the rows see keys 180..199 only, so KV tile 0 is seen by no Q tile.
  KVTileRange<int64_t> r = computeQTileRange(ops, int64_t{0}, int64_t{16},
                                             int64_t{200}, {16, 16, 4, 0});
  EXPECT_EQ(r.lo, r.hi);
}
} // namespace
