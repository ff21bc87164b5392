//===- FastDivision.h - division by a run-time divisor, fast ----*- C++ -*-===//
//
// A persistent sm_90a kernel decodes each work item with divisions by values
// that are known only at launch (the Q tiles per (batch, head), the heads,
// the query heads per KV head) but that stay the same for the whole launch.
// For a `div.u32` by a loop-invariant register ptxas hoists the reciprocal
// (I2F, MUFU.RCP, F2I) out of the loop, but each quotient still takes a
// multiply-high and two dependent compare-and-correct steps, and the decode
// chains three quotients. Here each divisor d gets, once per launch, a
// multiplier m and a shift l such that for every dividend n < 2^31
//
//   n / d = mulhi(2 n, m) >> l,   l = ceil(log2 d),  m = ceil(2^(31 + l) / d)
//
// (Granlund and Montgomery's round-up method): mulhi(2 n, m) >> l is
// floor(n m / 2^(31 + l)), and m = 2^(31 + l) / d + e with 0 <= e < 1 puts
// it at n / d + n e / 2^(31 + l), whose excess is below 2^-l <= 1 / d; no
// fraction n / d reaches that close to the next integer. m fits 32 bits for
// 1 <= d <= 2^31 (d > 2^(l - 1)).
//
// The CPU functions below are the reference that the unit tests check
// against n / d; the kernel emitter computes the same m and l once, before
// the consumers' work loop, and each quotient with the same three
// operations (lib/Conversion/FAttnToNVVM/SM90: addFastDivisor, TextIntOps).
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_UTILS_FASTDIVISION_H
#define FATTN_DIALECT_FATTN_UTILS_FASTDIVISION_H

#include <cstdint>

namespace mlir::fattn {

/// The largest divisor with a 32-bit multiplier.
inline constexpr uint64_t kMaxFastDivisor = uint64_t(1) << 31;
/// Dividends must be below this.
inline constexpr uint64_t kFastDividendLimit = uint64_t(1) << 31;

struct DivisionMagic {
  uint32_t multiplier;
  uint32_t shift;
};

/// ceil(log2 d) for d >= 1: 32 minus the leading zeros of d - 1.
constexpr uint32_t ceilLog2(uint32_t d) {
  uint32_t bits = 0;
  for (uint32_t x = d - 1; x != 0; x >>= 1)
    ++bits;
  return bits;
}

/// m and l for 1 <= d <= kMaxFastDivisor.
constexpr DivisionMagic divisionMagic(uint32_t d) {
  uint32_t l = ceilLog2(d);
  uint64_t m = ((uint64_t(1) << (31 + l)) + d - 1) / d;
  return {uint32_t(m), l};
}

/// n / d for n < kFastDividendLimit, through d's magic.
constexpr uint32_t divideByMagic(uint32_t n, DivisionMagic magic) {
  uint64_t high = (uint64_t(n << 1) * magic.multiplier) >> 32;
  return uint32_t(high) >> magic.shift;
}

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_UTILS_FASTDIVISION_H
