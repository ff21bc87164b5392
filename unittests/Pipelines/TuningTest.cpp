//===- TuningTest.cpp - the tuning table of fattn's kernels ---------------===//
//
// Tuning.h's table against its own promises: the short-sequence rows exclude
// each other, --short-seqs changes a kernel's options exactly where a row
// says there is a short-sequence kernel, choices that depend on the tiles
// follow the command line's, and a few configurations get the options that
// measured fastest (docs/PERF.md).
//
//===----------------------------------------------------------------------===//

#include "fattn/Pipelines/Tuning.h"

#include "gtest/gtest.h"

#include <tuple>
#include <vector>

using namespace mlir::fattn;

namespace {
auto fields(const SM90Tuning &t) {
  return std::make_tuple(t.blockM, t.blockN, t.stages, t.consumers,
                         t.persistent, t.pingpong, t.intraWgOverlap,
                         t.rowSumMma, t.linearExp2, t.rescaleThreshold,
                         t.qBuffers, t.tmaStore, t.narrowTail, t.splitTail,
                         t.workOrderTail, t.warpgroupKVRanges,
                         t.producerRegisters, t.consumerRegisters);
}

/// Configurations on both sides of every condition of the table.
std::vector<AttentionFacts> grid() {
  std::vector<AttentionFacts> all;
  const std::array<int64_t, 3> descales[] = {
      {-1, -1, -1}, {0, 0, 0}, {2, 2, 2}, {0, 2, 2},
      {0, 0, 2},    {3, 2, 2}, {2, 3, 2}, {2, 2, 3}};
  for (bool fp8 : {false, true})
    for (int64_t headDim : {32, 64, 65, 96, 97, 112, 128, 129, 256})
      for (MaskKind mask : {MaskKind::None, MaskKind::Causal, MaskKind::Window})
        for (bool softcap : {false, true})
          for (bool lse : {false, true})
            for (bool valueT : {false, true})
              for (const auto &ranks : descales) {
                // V^T and descales are FP8's.
                if (!fp8 && (valueT || ranks[0] != -1))
                  continue;
                AttentionFacts f;
                f.fp8 = fp8;
                f.headDim = headDim;
                f.mask = mask;
                f.softcap = softcap;
                f.lse = lse;
                f.valueTransposed = valueT;
                f.descaleRanks = ranks;
                all.push_back(f);
              }
  return all;
}

AttentionFacts bf16(int64_t headDim, MaskKind mask) {
  AttentionFacts f;
  f.headDim = headDim;
  f.mask = mask;
  return f;
}

AttentionFacts fp8PerHeadVT(MaskKind mask) {
  AttentionFacts f = bf16(128, mask);
  f.fp8 = true;
  f.valueTransposed = true;
  f.descaleRanks = {2, 2, 2};
  return f;
}

TuningRequest shortSeqs() {
  TuningRequest r;
  r.shortSeqs = true;
  return r;
}
} // namespace

TEST(Tuning, ShortSeqsRowsExcludeEachOther) {
  for (const AttentionFacts &f : grid()) {
    int matches = 0;
    for (const ShortSeqsRule &rule : shortSeqsRules())
      matches += rule.when.matches(f);
    EXPECT_LE(matches, 1) << "head dim " << f.headDim;
  }
}

// The rows are what Python reads to choose the short-sequence kernel: a row
// without a different kernel, or a kernel without a row, would be a library
// that builds a kernel twice or a kernel flash_attn_func never runs.
TEST(Tuning, ShortSeqsChangesExactlyTheRowsKernels) {
  int tuned = 0;
  for (const AttentionFacts &f : grid()) {
    bool differs = fields(tuneSM90(f, shortSeqs())) != fields(tuneSM90(f));
    bool hasRow = shortSeqsRule(f) != nullptr;
    EXPECT_EQ(differs, hasRow)
        << "fp8 " << f.fp8 << " head dim " << f.headDim << " mask "
        << int(f.mask) << " softcap " << f.softcap << " lse " << f.lse
        << " V^T " << f.valueTransposed << " descales " << f.descaleRanks[0]
        << f.descaleRanks[1] << f.descaleRanks[2];
    tuned += hasRow;
  }
  EXPECT_GT(tuned, 0);
}

// FP8's short-sequence kernel needs the linear 2^x.
TEST(Tuning, ShortSeqsFP8NeedsLinearExp2) {
  AttentionFacts f = fp8PerHeadVT(MaskKind::None);
  ASSERT_NE(shortSeqsRule(f), nullptr);
  EXPECT_EQ(shortSeqsRule(f)->kernel, ShortSeqsKernel::FP8);
  TuningRequest exp2s = shortSeqs();
  exp2s.linearExp2 = false;
  EXPECT_EQ(shortSeqsRule(f, exp2s), nullptr);
  EXPECT_EQ(fields(tuneSM90(f, exp2s)), [&] {
    TuningRequest r;
    r.linearExp2 = false;
    return fields(tuneSM90(f, r));
  }());
}

TEST(Tuning, SM90Unmasked128) {
  SM90Tuning t = tuneSM90(bf16(128, MaskKind::None));
  EXPECT_EQ(t.blockM, 128);
  EXPECT_EQ(t.blockN, 160);
  EXPECT_EQ(t.consumers, 2);
  EXPECT_EQ(t.rescaleThreshold, 8.0f);
  EXPECT_EQ(t.qBuffers, 2);
  EXPECT_TRUE(t.persistent);
  EXPECT_TRUE(t.splitTail);
  EXPECT_FALSE(t.pingpong);
  EXPECT_EQ(tuneSM90(bf16(128, MaskKind::None), shortSeqs()).blockN, 128);
}

TEST(Tuning, SM90Causal64) {
  SM90Tuning t = tuneSM90(bf16(64, MaskKind::Causal));
  EXPECT_EQ(t.blockM, 192);
  EXPECT_EQ(t.consumers, 3);
  EXPECT_EQ(t.blockN, 96);
  EXPECT_TRUE(t.workOrderTail);
  EXPECT_TRUE(t.warpgroupKVRanges);
  SM90Tuning s = tuneSM90(bf16(64, MaskKind::Causal), shortSeqs());
  EXPECT_EQ(s.blockM, 128);
  EXPECT_EQ(s.consumers, 2);
  EXPECT_EQ(s.blockN, 128);
}

TEST(Tuning, SM90WindowsOneCTAPerTile) {
  SM90Tuning t = tuneSM90(bf16(128, MaskKind::Window));
  EXPECT_FALSE(t.persistent);
  EXPECT_EQ(t.blockN, 128);
  EXPECT_EQ(t.qBuffers, 1);
}

TEST(Tuning, SM90FP8) {
  SM90Tuning t = tuneSM90(fp8PerHeadVT(MaskKind::None));
  EXPECT_EQ(t.blockN, 224);
  EXPECT_EQ(t.stages, 3);
  EXPECT_TRUE(t.rowSumMma);
  EXPECT_TRUE(t.linearExp2);
  EXPECT_TRUE(t.pingpong);
  EXPECT_TRUE(t.splitTail);
  EXPECT_EQ(t.rescaleThreshold, 0.8f);
  SM90Tuning s = tuneSM90(fp8PerHeadVT(MaskKind::None), shortSeqs());
  EXPECT_EQ(s.stages, 2);
  EXPECT_TRUE(s.tmaStore);
  EXPECT_EQ(s.narrowTail, 64);
  // Per-block K factors need whole tiles per block.
  AttentionFacts perBlock = fp8PerHeadVT(MaskKind::None);
  perBlock.descaleRanks = {2, 3, 2};
  EXPECT_EQ(tuneSM90(perBlock).blockN, 128);
  EXPECT_FALSE(tuneSM90(perBlock).rowSumMma);
}

// The rows and consumers follow the command line's tiles, and a second Q
// buffer only where shared memory has room for it.
TEST(Tuning, SM90RequestedTiles) {
  TuningRequest r;
  r.blockM = 128;
  EXPECT_EQ(tuneSM90(bf16(64, MaskKind::Causal), r).consumers, 2);
  r.blockN = 192;
  r.stages = 3;
  SM90Tuning t = tuneSM90(bf16(128, MaskKind::None), r);
  EXPECT_EQ(t.blockN, 192);
  EXPECT_EQ(t.stages, 3);
  EXPECT_EQ(t.qBuffers, 1);
}

TEST(Tuning, SM80Tiles) {
  EXPECT_EQ(tuneSM80(bf16(128, MaskKind::None)).blockN, 64);
  EXPECT_EQ(tuneSM80(bf16(256, MaskKind::None)).blockM, 64);
  EXPECT_EQ(tuneSM80(bf16(256, MaskKind::None)).blockN, 32);
}

TEST(Tuning, DescaleRoutes) {
  AttentionFacts perTensor = fp8PerHeadVT(MaskKind::None);
  perTensor.descaleRanks = {0, 0, 0};
  int routed = 0;
  for (const DescaleRoute &route : descaleRoutes()) {
    routed += route.when.matches(perTensor);
    // A route leads to a kernel that takes no route itself.
    AttentionFacts target = perTensor;
    target.descaleRanks = route.descaleRanks;
    for (const DescaleRoute &other : descaleRoutes())
      EXPECT_FALSE(other.when.matches(target));
  }
  EXPECT_EQ(routed, 1);
  // No descales (factors of 1) are not per-tensor descales.
  perTensor.descaleRanks = {-1, -1, -1};
  for (const DescaleRoute &route : descaleRoutes())
    EXPECT_FALSE(route.when.matches(perTensor));
}

// V's head dim differing from Q's and K's: the tiles of the wider of the two
// (a kernel that fits where the kernel of two equal head dims that wide
// fits), and no row of the tables, which speak of one head dim.
TEST(Tuning, ValueHeadDimDiffers) {
  for (MaskKind mask : {MaskKind::None, MaskKind::Causal, MaskKind::Window})
    for (auto [d, dv] : {std::pair<int64_t, int64_t>{192, 128}, {64, 256},
                         {128, 64}, {64, 40}}) {
      AttentionFacts f = bf16(d, mask);
      f.headDimV = dv;
      int64_t wide = std::max(d, dv);
      EXPECT_EQ(f.tileHeadDim(), wide);
      EXPECT_EQ(fields(tuneSM90(f)), fields(tuneSM90(bf16(wide, mask))))
          << d << "/" << dv;
      EXPECT_EQ(shortSeqsRule(f, shortSeqs()), nullptr) << d << "/" << dv;
      EXPECT_EQ(fields(tuneSM90(f, shortSeqs())), fields(tuneSM90(f)));
    }
}

// sm_80 with V's head dim differing: the wider head dim's rows and keys,
// and 32-key tiles only where both K's and V's rows split into the copies of
// 128 threads (multiples of 32).
TEST(Tuning, SM80ValueHeadDimDiffers) {
  AttentionFacts mla = bf16(192, MaskKind::Causal);
  mla.headDimV = 128;
  SM80Tuning t = tuneSM80(mla, {});
  EXPECT_EQ(t.blockM, 64);
  EXPECT_EQ(t.blockN, 32);
  AttentionFacts rows = bf16(192, MaskKind::None);
  rows.headDimV = 144;
  EXPECT_EQ(tuneSM80(rows, {}).blockN, 64);
  AttentionFacts wide = bf16(64, MaskKind::None);
  wide.headDimV = 256;
  EXPECT_EQ(tuneSM80(wide, {}).blockM, 64);
  EXPECT_EQ(tuneSM80(wide, {}).blockN, 32);
}
