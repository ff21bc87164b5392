//===- LinearExp2.h - e4m3 bytes of 2^x without exp2 ------------*- C++ -*-===//
//
// The sm_90a FP8 kernels with `linear-exp2` write P's e4m3 bytes without an
// exp2. With x = log2(256 P) (the kernel rounds 256 P, kFP8ProbabilityLog2),
// the byte of 2^x is 8 (floor(x) - 8 + 15) + round(8 (2^frac(x) - 1)); taking
// 2^f as 1 + f makes it round(8 x + 56): linear in x, carries included, exact
// at powers of two and at most 6% high between them. An offset of
// kLinearExp2Offset steps centers that error (mean about 0 over a power of
// two, RMS 3.2% with the rounding, against 2.7% for 256 P rounded to e4m3).
//
// The kernel computes u = byte / 256 as one saturating f32 FMA of the score
// (u in [0, 1]: scores of -inf, NaN and bytes below 0 give 0), packs two u to
// f16x2 and computes 256 u + 1536 in f16, whose ulp there is 1, so that each
// half's low byte is the rounded byte. linearExp2Byte models those steps on
// the host, for the unit tests; the kernel emitter takes its constants from
// here.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_UTILS_LINEAREXP2_H
#define FATTN_DIALECT_FATTN_UTILS_LINEAREXP2_H

#include <cmath>
#include <cstdint>

namespace mlir::fattn {

/// The offset, in e4m3 steps (1/8 of a power of two), that centers the
/// line's error.
inline constexpr float kLinearExp2Offset = -0.45f;
/// u = x * kLinearExp2Slope + kLinearExp2Intercept is the byte / 256.
inline constexpr float kLinearExp2Slope = 8.0f / 256.0f;
inline constexpr float kLinearExp2Intercept = (56.0f + kLinearExp2Offset) / 256.0f;
/// f16x2 words of the kernel's 256 u + 1536: 256.0 and 1536.0 (0x6600, whose
/// low byte is 0) in both halves.
inline constexpr uint32_t kLinearExp2F16Scale = 0x5C005C00u;
inline constexpr uint32_t kLinearExp2F16Magic = 0x66006600u;

/// `v` in [0, 1] rounded to f16 (to nearest even), as a float.
inline float roundToF16(float v) {
  if (v == 0.0f)
    return 0.0f;
  int exp;
  std::frexp(v, &exp); // v = m 2^exp, m in [0.5, 1)
  // 11 significant bits; below 2^-14 the subnormal grid of 2^-24.
  float ulp = std::ldexp(1.0f, exp < -13 ? -24 : exp - 11);
  return std::nearbyint(v / ulp) * ulp;
}

/// The e4m3 byte that the kernel writes for x = log2(256 P) (x = -inf for
/// P = 0).
inline uint8_t linearExp2Byte(float x) {
  float u = std::fma(x, kLinearExp2Slope, kLinearExp2Intercept);
  u = std::isnan(u) ? 0.0f : std::fmin(std::fmax(u, 0.0f), 1.0f);
  return static_cast<uint8_t>(std::nearbyint(roundToF16(u) * 256.0f));
}

/// The value of an f8E4M3FN byte (bias 7, 3 mantissa bits, no infinities;
/// 0x7f and 0xff are NaN).
inline float decodeE4M3(uint8_t byte) {
  int exp = (byte >> 3) & 0xf, mantissa = byte & 7;
  if (exp == 0xf && mantissa == 7)
    return NAN;
  float magnitude = exp == 0 ? std::ldexp(float(mantissa), -9)
                             : std::ldexp(1.0f + mantissa / 8.0f, exp - 7);
  return byte & 0x80 ? -magnitude : magnitude;
}

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_UTILS_LINEAREXP2_H
