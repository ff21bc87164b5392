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
#include "fattn/Dialect/FAttn/Utils/SM90FP8Transpose.h"

#include "gtest/gtest.h"

#include <array>
#include <map>
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

// One step of the sm_90a producer's V transpose (SM90FP8Transpose.h), run
// with the PTX semantics of ldmatrix.x4, prmt and stmatrix.x4.trans on 16
// keys x 32 columns of V whose bytes are their own (key, column).
using Byte = std::pair<int64_t, int64_t>; // (key, column) of V
using Word = std::array<Byte, 4>;

Word prmt(const Word &a, const Word &b, uint32_t selector) {
  Word out;
  for (int i = 0; i < 4; ++i) {
    uint32_t pick = (selector >> (4 * i)) & 7;
    out[i] = pick < 4 ? a[pick] : b[pick - 4];
  }
  return out;
}

/// V^T bytes written by one step: (V^T row, key slot) -> V byte.
std::map<std::pair<int64_t, int64_t>, Byte> transposeStep() {
  std::map<std::pair<int64_t, int64_t>, Byte> out;
  for (int64_t lane = 0; lane < 32; ++lane) {
    int64_t r = lane / 4, c = lane % 4;
    // ldmatrix: register i = row r of matrix i, bytes 4c .. 4c + 3.
    std::array<Word, 4> loaded;
    for (int64_t i = 0; i < 4; ++i) {
      sm90::TransposeLoadRow row = sm90::fp8TransposeLoadRow(8 * i + r);
      for (int64_t b = 0; b < 4; ++b)
        loaded[i][b] = {row.key, 16 * row.unit + 4 * c + b};
    }
    uint32_t selector = sm90::fp8TransposeSelector(lane);
    std::array<Word, 4> stored = {
        prmt(loaded[0], loaded[1], selector),
        prmt(loaded[0], loaded[1], selector ^ 0x2222),
        prmt(loaded[2], loaded[3], selector),
        prmt(loaded[2], loaded[3], selector ^ 0x2222)};
    // stmatrix.trans: the low half of register i goes to row 2c of matrix
    // i, the high half to row 2c + 1, both at b16 column r.
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t half = 0; half < 2; ++half) {
        int64_t vtRow = sm90::fp8TransposeStoreRow(8 * i + 2 * c + half);
        for (int64_t b = 0; b < 2; ++b) {
          auto [it, fresh] =
              out.insert({{vtRow, 2 * r + b}, stored[i][2 * half + b]});
          EXPECT_TRUE(fresh) << "V^T row " << vtRow << " slot " << 2 * r + b
                             << " written twice";
        }
      }
  }
  return out;
}

TEST(SM90FP8Transpose, EveryByteOfVTransposedWithPermutedKeys) {
  auto out = transposeStep();
  EXPECT_EQ(out.size(), 32u * 16u);
  for (int64_t row = 0; row < 32; ++row)
    for (int64_t slot = 0; slot < 16; ++slot) {
      Byte expected = {wgmmaE4M3K32KeySource(slot), row};
      Byte written = out[{row, slot}];
      EXPECT_EQ(written, expected) << "V^T row " << row << " slot " << slot;
    }
}

TEST(SM90FP8Transpose, LaneMapsDependOnTheBitsTheKernelTablesIndex) {
  // The sm_90a emitter packs the maps into tables indexed by lane % 16 (the
  // load row's key, the store row mod 16) and by (lane / 2) % 4 (the
  // selector); the load unit and the store row / 16 are lane / 16.
  for (int64_t lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(sm90::fp8TransposeLoadRow(lane).key,
              sm90::fp8TransposeLoadRow(lane % 16).key);
    EXPECT_EQ(sm90::fp8TransposeLoadRow(lane).unit, lane / 16);
    EXPECT_EQ(sm90::fp8TransposeStoreRow(lane) % 16,
              sm90::fp8TransposeStoreRow(lane % 16) % 16);
    EXPECT_EQ(sm90::fp8TransposeStoreRow(lane) / 16, lane / 16);
    EXPECT_EQ(sm90::fp8TransposeSelector(lane),
              sm90::fp8TransposeSelector(2 * ((lane / 2) % 4)));
  }
}

TEST(SM90FP8Transpose, RowsOfAMatrixHitDistinctSwizzleUnits) {
  // The 128-byte swizzle puts unit u of row x at unit u ^ (x % 8): the 8
  // rows of a matrix (one 16-byte unit each) are conflict free when their
  // rows differ mod 8, at a fixed unit.
  for (int64_t matrix = 0; matrix < 4; ++matrix) {
    std::set<int64_t> keys, vtRows, units;
    for (int64_t row = 0; row < 8; ++row) {
      sm90::TransposeLoadRow load = sm90::fp8TransposeLoadRow(8 * matrix + row);
      keys.insert(load.key % 8);
      units.insert(load.unit);
      vtRows.insert(sm90::fp8TransposeStoreRow(8 * matrix + row) % 8);
    }
    EXPECT_EQ(keys.size(), 8u) << "ldmatrix matrix " << matrix;
    EXPECT_EQ(units.size(), 1u) << "ldmatrix matrix " << matrix;
    EXPECT_EQ(vtRows.size(), 8u) << "stmatrix matrix " << matrix;
  }
}
} // namespace
