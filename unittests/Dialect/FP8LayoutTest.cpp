//===- FP8LayoutTest.cpp - the wgmma_e4m3_k32 key permutation -------------===//
//
// The permutation lets a thread build the A operand of an e4m3 `wgmma ...
// k32` (register A) from its own f32 accumulator values, with byte permutes
// only. Checked here against the two register layouts of the PTX ISA, as
// seen by one thread of a warp (lane % 4 = q decides the columns):
//   accumulator (m64nN, f32): columns 8g + 2q and 8g + 2q + 1 of each
//     8-column group g (rows r and r + 8);
//   A operand (m64k32, e4m3): a0 / a1 hold k = 4q .. 4q + 3 (rows r, r + 8),
//     a2 / a3 hold k = 16 + 4q .. 16 + 4q + 3.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/IR/FAttnFP8Ops.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir::fattn;

namespace {
/// The quad (lane % 4) whose accumulator holds column `col`.
int64_t accumulatorQuad(int64_t col) { return (col % 8) / 2; }

/// The quad whose A registers hold k slot `slot`.
int64_t operandQuad(int64_t slot) { return (slot % 16) / 4; }

TEST(WgmmaE4M3K32KeyPermutation, EachSlotComesFromTheSameThread) {
  for (int64_t slot = 0; slot < 256; ++slot)
    EXPECT_EQ(operandQuad(slot), accumulatorQuad(wgmmaE4M3K32KeySource(slot)))
        << "slot " << slot << " would need a shuffle between threads";
}

TEST(WgmmaE4M3K32KeyPermutation, RegisterBytesInAccumulatorOrder) {
  // Register a0 (a2) of quad q, bytes 0..3: the thread's columns of groups
  // 0 and 1 (2 and 3), low group first, as cvt.e4m3x2 packs pairs.
  for (int64_t chunk = 0; chunk < 4; ++chunk)
    for (int64_t half = 0; half < 2; ++half)
      for (int64_t q = 0; q < 4; ++q)
        for (int64_t byte = 0; byte < 4; ++byte) {
          int64_t slot = 32 * chunk + 16 * half + 4 * q + byte;
          int64_t group = 2 * half + byte / 2;
          int64_t col = 32 * chunk + 8 * group + 2 * q + byte % 2;
          EXPECT_EQ(wgmmaE4M3K32KeySource(slot), col) << "slot " << slot;
        }
}

TEST(WgmmaE4M3K32KeyPermutation, PermutesEveryChunkOfThirtyTwoKeys) {
  for (int64_t chunk = 0; chunk < 8; ++chunk) {
    std::set<int64_t> sources;
    for (int64_t slot = 32 * chunk; slot < 32 * (chunk + 1); ++slot) {
      int64_t source = wgmmaE4M3K32KeySource(slot);
      EXPECT_EQ(source / 32, chunk) << "slot " << slot << " leaves its chunk";
      sources.insert(source);
    }
    EXPECT_EQ(sources.size(), 32u) << "chunk " << chunk << " is not a permutation";
  }
}

TEST(WgmmaE4M3K32KeyPermutation, FirstQuadAsDocumented) {
  // slots 4q .. 4q + 3 <- keys 2q, 2q + 1, 2q + 8, 2q + 9
  const int64_t expected[16] = {0, 1, 8, 9, 2, 3, 10, 11,
                                4, 5, 12, 13, 6, 7, 14, 15};
  for (int64_t slot = 0; slot < 16; ++slot)
    EXPECT_EQ(wgmmaE4M3K32KeySource(slot), expected[slot]);
}

TEST(KeyPermutationNames, KnownAndUnknown) {
  EXPECT_EQ(getKeyPermutationMultiple("wgmma_e4m3_k32"), 32);
  EXPECT_EQ(getKeyPermutationMultiple("wgmma_e4m3_k16"), std::nullopt);
  EXPECT_EQ(getKeyPermutationMultiple(""), std::nullopt);
  for (int64_t slot = 0; slot < 64; ++slot)
    EXPECT_EQ(getKeySource(kWgmmaE4M3K32KeyPermutation, slot),
              wgmmaE4M3K32KeySource(slot));
}
} // namespace
