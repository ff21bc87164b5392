//===- FastDivisionTest.cpp - division through a multiplier and a shift ---===//
//
// The persistent sm_90a kernel decodes its work items with FastDivision.h's
// multiplier and shift instead of div.u32. A wrong quotient would send a
// CTA to the wrong (Q tile, head, batch), so the formula is checked against
// n / d on every divisor up to 4096, on the divisors near each power of two
// up to 2^31, and on the dividends where a rounding error would show: the
// multiples of d and their neighbours, and the largest dividends.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Utils/FastDivision.h"

#include "gtest/gtest.h"

#include <random>
#include <vector>

using namespace mlir::fattn;

namespace {
constexpr uint32_t kLastDividend = uint32_t(kFastDividendLimit - 1);

/// Dividends where floor(n / d) changes or is largest.
std::vector<uint32_t> edgeDividends(uint32_t d) {
  std::vector<uint32_t> n = {0, 1, 2, kLastDividend, kLastDividend - 1};
  uint32_t top = kLastDividend / d * d; // the largest multiple of d
  for (uint64_t k : {uint64_t(1), uint64_t(2), uint64_t(3), uint64_t(top / d)}) {
    uint64_t multiple = k * d;
    if (multiple > kLastDividend)
      continue;
    for (int64_t delta : {-1, 0, 1}) {
      int64_t v = int64_t(multiple) + delta;
      if (v >= 0 && v <= int64_t(kLastDividend))
        n.push_back(uint32_t(v));
    }
  }
  return n;
}

void checkDivisor(uint32_t d, std::mt19937 &rng) {
  DivisionMagic magic = divisionMagic(d);
  SCOPED_TRACE(testing::Message() << "d=" << d << " m=" << magic.multiplier
                                  << " l=" << magic.shift);
  ASSERT_EQ(magic.shift, ceilLog2(d));
  for (uint32_t n : edgeDividends(d))
    ASSERT_EQ(divideByMagic(n, magic), n / d) << "n=" << n;
  std::uniform_int_distribution<uint32_t> any(0, kLastDividend);
  for (int i = 0; i < 64; ++i) {
    uint32_t n = any(rng);
    ASSERT_EQ(divideByMagic(n, magic), n / d) << "n=" << n;
  }
}

TEST(FastDivision, SmallDivisors) {
  std::mt19937 rng(7);
  for (uint32_t d = 1; d <= 4096; ++d)
    checkDivisor(d, rng);
}

TEST(FastDivision, DivisorsNearPowersOfTwo) {
  std::mt19937 rng(11);
  for (uint32_t k = 1; k <= 31; ++k) {
    uint64_t p = uint64_t(1) << k;
    for (int64_t delta : {-2, -1, 0, 1, 2}) {
      uint64_t d = p + delta;
      if (d >= 1 && d <= kMaxFastDivisor)
        checkDivisor(uint32_t(d), rng);
    }
  }
}

TEST(FastDivision, EveryDividendOfSmallDivisors) {
  // Every dividend below 2^20 for the divisors a kernel meets most (the
  // heads, the query heads per KV head, a few Q tile counts).
  for (uint32_t d : {1u, 2u, 3u, 5u, 7u, 11u, 16u, 24u, 32u, 96u, 128u, 171u}) {
    DivisionMagic magic = divisionMagic(d);
    for (uint32_t n = 0; n < (1u << 20); ++n)
      ASSERT_EQ(divideByMagic(n, magic), n / d) << "d=" << d << " n=" << n;
  }
}

TEST(FastDivision, MultiplierFits32Bits) {
  // m = ceil(2^(31 + l) / d) < 2^32 needs d > 2^(l - 1): the smallest d of
  // each l is the worst case.
  for (uint32_t l = 1; l <= 31; ++l) {
    uint64_t d = (uint64_t(1) << (l - 1)) + 1;
    uint64_t m = ((uint64_t(1) << (31 + l)) + d - 1) / d;
    ASSERT_LT(m, uint64_t(1) << 32) << "l=" << l;
  }
  EXPECT_EQ(divisionMagic(1).multiplier, 1u << 31);
  EXPECT_EQ(divisionMagic(1).shift, 0u);
  EXPECT_EQ(divisionMagic(uint32_t(kMaxFastDivisor)).multiplier, 1u << 31);
}
} // namespace
