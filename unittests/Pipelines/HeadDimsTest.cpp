//===- HeadDimsTest.cpp - the head dims each GPU target compiles ----------===//
//
// HeadDims.h's rules against what the lowerings promise: every head dim of
// 1 to 1024 taken or refused as the target's kernels are written, and the
// diagnostics the lowerings emit.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Utils/HeadDims.h"
#include "fattn/Dialect/FAttn/Utils/SM80Layout.h"
#include "fattn/Pipelines/Tuning.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::fattn;

namespace {
TEST(HeadDims, RulesTakeTheirHeadDims) {
  for (int64_t d = -1; d <= 1024; ++d) {
    EXPECT_EQ(headDimRule("sm_80", "bf16")->takes(d),
              d >= 16 && d % 8 == 0 && d <= 256)
        << d;
    EXPECT_EQ(headDimRule("sm_90a", "f16")->takes(d),
              d > 0 && d % 8 == 0 && d <= 256)
        << d;
    EXPECT_EQ(headDimRule("sm_90a", "e4m3")->takes(d), d == 128 || d == 256)
        << d;
  }
  EXPECT_EQ(headDimRule("sm_80", "e4m3"), nullptr);
  EXPECT_EQ(headDimRule("sm_90a", "f32"), nullptr);
  EXPECT_EQ(headDimRule("sm_100a", "bf16"), nullptr);
  // Each (target, element type) has one rule.
  for (const HeadDimRule &rule : headDimRules())
    for (llvm::StringRef dtype : rule.dtypes)
      EXPECT_EQ(headDimRule(rule.arch, dtype), &rule);
}

// The sm_80 rule takes exactly the head dims whose tuned tiles split into
// the copies of fattn.sm80.copy_tile (128 threads, rows of block_m for Q
// and of block_n for K and V, all multiples of an mma.sync fragment's 16),
// which --fattn-sm80-async-copy checks.
TEST(HeadDims, SM80TakesWhatItsTunedTilesCopy) {
  const HeadDimRule *rule = headDimRule("sm_80", "bf16");
  for (int64_t d = 8; d <= 256; d += 8) {
    for (int64_t dv = 8; dv <= 256; dv += 8) {
      AttentionFacts facts;
      facts.headDim = d;
      facts.headDimV = dv;
      SM80Tuning t = tuneSM80(facts, TuningRequest());
      auto multiple = [](int64_t headDim) {
        return std::max<int64_t>(16, sm80::copyRowsPerStep(headDim, 2, 128));
      };
      bool copies = t.blockM % multiple(d) == 0 &&
                    t.blockN % std::max(multiple(d), multiple(dv)) == 0;
      EXPECT_EQ(rule->takes(d) && rule->takes(dv) && rule->takesPair(d, dv),
                copies)
          << d << " and " << dv << ": block_m " << t.blockM << ", block_n "
          << t.blockN;
    }
  }
}

TEST(HeadDims, Describe) {
  EXPECT_EQ(headDimRule("sm_80", "f16")->describe(),
            "a head dim that is a multiple of 8 from 16 up to 256");
  EXPECT_EQ(headDimRule("sm_90a", "bf16")->describe(),
            "a head dim that is a multiple of 8 up to 256");
}

TEST(HeadDims, Errors) {
  MLIRContext context;
  Builder b(&context);
  Type bf16 = b.getBF16Type(), e4m3 = b.getType<Float8E4M3FNType>();
  EXPECT_EQ(sm80HeadDimsError(bf16, 128, 128), std::nullopt);
  EXPECT_EQ(sm80HeadDimsError(bf16, 80, 80), std::nullopt);
  // Multiples of 8 that are not of 16: a last k-step of 8 columns.
  EXPECT_EQ(sm80HeadDimsError(bf16, 72, 72), std::nullopt);
  EXPECT_EQ(sm80HeadDimsError(bf16, 248, 248), std::nullopt);
  EXPECT_EQ(sm80HeadDimsError(bf16, 36, 36),
            "sm_80 needs a head dim that is a multiple of 8 from 16 up to 256 "
            "for 16-bit inputs, found 36");
  EXPECT_EQ(sm80HeadDimsError(bf16, 264, 264),
            "sm_80 needs a head dim that is a multiple of 8 from 16 up to 256 "
            "for 16-bit inputs, found 264");
  EXPECT_EQ(sm80HeadDimsError(bf16, 192, 128), std::nullopt);
  EXPECT_EQ(sm80HeadDimsError(bf16, 128, 72), std::nullopt);
  EXPECT_EQ(sm80HeadDimsError(bf16, 40, 136), std::nullopt);
  EXPECT_EQ(sm80HeadDimsError(bf16, 128, 68),
            "sm_80 needs a head dim that is a multiple of 8 from 16 up to 256 "
            "for V of 16-bit inputs, found 68");
  // Head dim 8, and 16 beside 248 or 256: the tuned tiles do not split into
  // the 128 threads' copies (SM80TakesWhatItsTunedTilesCopy).
  EXPECT_EQ(sm80HeadDimsError(bf16, 8, 8),
            "sm_80 needs a head dim that is a multiple of 8 from 16 up to 256 "
            "for 16-bit inputs, found 8");
  EXPECT_EQ(sm80HeadDimsError(bf16, 64, 8),
            "sm_80 needs a head dim that is a multiple of 8 from 16 up to 256 "
            "for V of 16-bit inputs, found 8");
  EXPECT_EQ(sm80HeadDimsError(bf16, 16, 256),
            "sm_80 needs Q's and K's head dim and V's to be at most 240 where "
            "either is 16 or less, for 16-bit inputs, found 16 and 256");
  EXPECT_EQ(sm80HeadDimsError(bf16, 248, 16),
            "sm_80 needs Q's and K's head dim and V's to be at most 240 where "
            "either is 16 or less, for 16-bit inputs, found 248 and 16");
  EXPECT_EQ(sm80HeadDimsError(bf16, 16, 240), std::nullopt);
  EXPECT_EQ(sm80HeadDimsError(bf16, 24, 256), std::nullopt);
  EXPECT_EQ(sm90HeadDimsError(bf16, 8, 8), std::nullopt);
  EXPECT_EQ(sm90HeadDimsError(bf16, 16, 256), std::nullopt);
  EXPECT_EQ(sm80HeadDimsError(e4m3, 128, 128),
            "sm_80 has no kernel for f8E4M3FN inputs");
  EXPECT_EQ(sm90HeadDimsError(bf16, 40, 40), std::nullopt);
  EXPECT_EQ(sm90HeadDimsError(bf16, 264, 264),
            "sm_90a needs a head dim that is a multiple of 8 up to 256 for "
            "16-bit inputs, found 264");
  // V's head dim may differ in 16 bits (MLA's 192 and 128), by the same
  // rule; not for e4m3.
  EXPECT_EQ(sm90HeadDimsError(bf16, 192, 128), std::nullopt);
  EXPECT_EQ(sm90HeadDimsError(bf16, 64, 256), std::nullopt);
  EXPECT_EQ(sm90HeadDimsError(bf16, 192, 132),
            "sm_90a needs a head dim that is a multiple of 8 up to 256 for V "
            "of 16-bit inputs, found 132");
  EXPECT_EQ(sm90HeadDimsError(bf16, 128, ShapedType::kDynamic),
            "sm_90a needs a head dim that is a multiple of 8 up to 256 for V "
            "of 16-bit inputs, found ?");
  EXPECT_EQ(sm90HeadDimsError(e4m3, 256, 256), std::nullopt);
  EXPECT_EQ(sm90HeadDimsError(e4m3, 256, 128),
            "sm_90a needs V's head dim equal to Q's and K's, found 256 and "
            "128");
  EXPECT_EQ(sm90HeadDimsError(e4m3, 64, 64),
            "sm_90a needs a head dim that is a multiple of 128 up to 256 for "
            "e4m3 inputs, found 64");
  EXPECT_EQ(sm90HeadDimsError(bf16, ShapedType::kDynamic, 64),
            "sm_90a needs a head dim that is a multiple of 8 up to 256 for "
            "16-bit inputs, found ?");
  EXPECT_EQ(sm90HeadDimsError(b.getF32Type(), 64, 64),
            "sm_90a has no kernel for f32 inputs");
}
} // namespace
