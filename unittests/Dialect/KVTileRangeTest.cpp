//===- KVTileRangeTest.cpp - the KV tile range against brute force --------===//
//
// computeKVTileRange must visit every tile that some valid row sees, skip
// only tiles that no row sees, and claim "no mask needed" only for tiles
// that every valid row sees entirely (and that lie inside seq_k).
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Utils/KVTileRange.h"

#include "MaskBruteForce.h"

#include "gtest/gtest.h"

using namespace mlir::fattn;

namespace {
/// Checks one configuration against the definition, tile by tile.
void checkAgainstBruteForce(int64_t seqQ, int64_t seqK,
                            const KVTileRangeParams &p) {
  Int64Ops ops;
  int64_t qTiles = (seqQ + p.blockM - 1) / p.blockM;
  int64_t kTiles = (seqK + p.blockN - 1) / p.blockN;
  for (int64_t qt = 0; qt < qTiles; ++qt) {
    KVTileRange<int64_t> r = computeKVTileRange(ops, qt, seqQ, seqK, p);
    SCOPED_TRACE(testing::Message()
                 << "seqQ=" << seqQ << " seqK=" << seqK << " bm=" << p.blockM
                 << " bn=" << p.blockN << " wl=" << p.windowLeft << " wr="
                 << p.windowRight << " qTile=" << qt << " -> [" << r.lo << ", "
                 << r.fullLo << ", " << r.fullHi << ", " << r.hi << ")");
    ASSERT_LE(0, r.lo);
    ASSERT_LE(r.lo, r.fullLo);
    ASSERT_LE(r.fullLo, r.fullHi);
    ASSERT_LE(r.fullHi, r.hi);
    ASSERT_LE(r.hi, std::max<int64_t>(kTiles, 0));
    int64_t lastRow = std::min((qt + 1) * p.blockM, seqQ);
    for (int64_t kt = 0; kt < kTiles; ++kt) {
      bool any = false, all = true;
      for (int64_t i = qt * p.blockM; i < lastRow; ++i)
        for (int64_t j = kt * p.blockN; j < (kt + 1) * p.blockN; ++j) {
          bool v = seesKey(i, j, seqQ, seqK, p.windowLeft, p.windowRight);
          any |= v;
          all &= v;
        }
      bool visited = r.lo <= kt && kt < r.hi;
      bool unmasked = r.fullLo <= kt && kt < r.fullHi;
      if (any)
        EXPECT_TRUE(visited) << "tile " << kt << " is seen but skipped";
      if (unmasked)
        EXPECT_TRUE(all) << "tile " << kt << " is unmasked but not all seen";
    }
    // Tight: the visited range starts and ends on tiles that some row sees.
    if (r.hi > r.lo) {
      for (int64_t kt : {r.lo, r.hi - 1}) {
        bool any = false;
        for (int64_t i = qt * p.blockM; i < lastRow; ++i)
          for (int64_t j = kt * p.blockN; j < (kt + 1) * p.blockN; ++j)
            any |= seesKey(i, j, seqQ, seqK, p.windowLeft, p.windowRight);
        EXPECT_TRUE(any) << "boundary tile " << kt << " is seen by no row";
      }
    }
  }
}

TEST(KVTileRange, MatchesBruteForce) {
  forEachMaskCase(checkAgainstBruteForce);
}

TEST(KVTileRange, NoMaskVisitsEverythingUnmasked) {
  Int64Ops ops;
  // 128 keys in tiles of 32: all four tiles are full for every Q tile.
  KVTileRange<int64_t> r = computeKVTileRange(ops, int64_t{1}, int64_t{100},
                                              int64_t{128}, {64, 32, -1, -1});
  EXPECT_EQ(r.lo, 0);
  EXPECT_EQ(r.fullLo, 0);
  EXPECT_EQ(r.fullHi, 4);
  EXPECT_EQ(r.hi, 4);
}

TEST(KVTileRange, CausalSkipsTheFuture) {
  Int64Ops ops;
  // Square causal, tiles of 64: Q tile 1 (rows 64..127) sees key tiles 0
  // (full) and 1 (the diagonal, masked); tile 2 and beyond are skipped.
  KVTileRange<int64_t> r = computeKVTileRange(ops, int64_t{1}, int64_t{256},
                                              int64_t{256}, {64, 64, -1, 0});
  EXPECT_EQ(r.lo, 0);
  EXPECT_EQ(r.fullLo, 0);
  EXPECT_EQ(r.fullHi, 1);
  EXPECT_EQ(r.hi, 2);
}

TEST(KVTileRange, RowsThatSeeNothingVisitNothing) {
  Int64Ops ops;
  // Causal with seq_q = 100 > seq_k = 10: the first 90 rows see no key, so
  // Q tile 0 (rows 0..15) visits no tile at all.
  KVTileRange<int64_t> r = computeKVTileRange(ops, int64_t{0}, int64_t{100},
                                              int64_t{10}, {16, 16, -1, 0});
  EXPECT_EQ(r.lo, r.hi);
}
} // namespace
