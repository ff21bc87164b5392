//===- LinearExp2Test.cpp - e4m3 bytes of 2^x without exp2 -----------------===//
//
// linearExp2Byte (LinearExp2.h) against its promises: exact at powers of
// two, monotone, no byte past 0x7e (448) up to the rescale threshold's limit,
// 0 for P = 0 and NaN, and an error that stays within 1.3 times that of 256 P
// rounded to e4m3, centered.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Utils/LinearExp2.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace mlir::fattn;

namespace {
/// 256 P = 2^x rounded to e4m3 (to nearest even), as cvt.rn.satfinite does
/// for values in e4m3's normal range.
float roundToE4M3(float v) {
  int exp;
  std::frexp(v, &exp);
  float ulp = std::ldexp(1.0f, exp - 4);
  return std::nearbyint(v / ulp) * ulp;
}

/// Relative errors of the decoded byte over x in [lo, hi).
struct ErrorStats {
  double mean = 0, rms = 0, maxAbs = 0;
};
template <typename Fn>
ErrorStats errorsOver(float lo, float hi, int samples, Fn value) {
  ErrorStats s;
  for (int i = 0; i < samples; ++i) {
    float x = lo + (hi - lo) * (i + 0.5f) / samples;
    double exact = std::exp2(double(x));
    double rel = value(x) / exact - 1.0;
    s.mean += rel;
    s.rms += rel * rel;
    s.maxAbs = std::fmax(s.maxAbs, std::fabs(rel));
  }
  s.mean /= samples;
  s.rms = std::sqrt(s.rms / samples);
  return s;
}
} // namespace

TEST(LinearExp2, DecodeE4M3) {
  EXPECT_EQ(decodeE4M3(0x00), 0.0f);
  EXPECT_EQ(decodeE4M3(0x01), std::ldexp(1.0f, -9));
  EXPECT_EQ(decodeE4M3(0x08), std::ldexp(1.0f, -6));
  EXPECT_EQ(decodeE4M3(0x78), 256.0f);
  EXPECT_EQ(decodeE4M3(0x7e), 448.0f);
  EXPECT_TRUE(std::isnan(decodeE4M3(0x7f)));
  EXPECT_EQ(decodeE4M3(0xb8), -1.0f);
}

TEST(LinearExp2, ExactAtPowersOfTwo) {
  // 256 P = 2^k: from e4m3's smallest normal to P = 1 (x = 8).
  for (int k = -6; k <= 8; ++k) {
    uint8_t byte = linearExp2Byte(float(k));
    EXPECT_EQ(byte, 8 * k + 56) << "x = " << k;
    EXPECT_EQ(decodeE4M3(byte), std::ldexp(1.0f, k)) << "x = " << k;
  }
}

TEST(LinearExp2, MonotoneAndBounded) {
  // Up to the rescale threshold's limit for e4m3 (256 P <= 448).
  const float top = std::log2(448.0f);
  uint8_t previous = 0;
  for (int i = 0; i <= 200000; ++i) {
    float x = -40.0f + (top + 40.0f) * i / 200000.0f;
    uint8_t byte = linearExp2Byte(x);
    EXPECT_GE(byte, previous) << "x = " << x;
    EXPECT_LE(byte, 0x7e) << "x = " << x;
    previous = byte;
  }
  EXPECT_EQ(linearExp2Byte(top), 0x7e);
}

TEST(LinearExp2, ZeroForNoProbability) {
  EXPECT_EQ(linearExp2Byte(-std::numeric_limits<float>::infinity()), 0);
  EXPECT_EQ(linearExp2Byte(std::numeric_limits<float>::quiet_NaN()), 0);
  EXPECT_EQ(linearExp2Byte(-1e30f), 0);
  // Below the byte's half step at 0: 256 P < 2^-7 gives 0, not a wrapped byte.
  EXPECT_EQ(linearExp2Byte(-7.1f), 0);
}

TEST(LinearExp2, ErrorAgainstRoundedE4M3) {
  // Over the normal range of 256 P (x in [-6, 8], 1/8 of a step apart on
  // average several times over), the line's error is centered, at most the
  // rounding's half step plus the line's 3% off, and within 1.3 times the
  // RMS of rounding 256 P itself.
  const int samples = 1 << 20;
  ErrorStats line = errorsOver(-6.0f, 8.0f, samples, [](float x) {
    return double(decodeE4M3(linearExp2Byte(x)));
  });
  ErrorStats rounded = errorsOver(-6.0f, 8.0f, samples, [](float x) {
    return double(roundToE4M3(std::exp2(x)));
  });
  EXPECT_LT(std::fabs(line.mean), 5e-3);
  EXPECT_LT(line.maxAbs, 0.0625 + 0.035);
  EXPECT_LT(line.rms, 1.3 * rounded.rms);
  EXPECT_GT(line.rms, rounded.rms); // the line costs something
  RecordProperty("line_rms", std::to_string(line.rms));
  RecordProperty("rounded_rms", std::to_string(rounded.rms));
}
