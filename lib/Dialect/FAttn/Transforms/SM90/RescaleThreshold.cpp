//===- RescaleThreshold.cpp - conditional rescaling (sm_90a) --------------===//
//
// FlashAttention-4's conditional rescaling: a row keeps its running max
// until a tile's max exceeds it by more than a threshold, so that O's
// rescale by 2^(m_old - m_new) becomes a multiplication by 1 that warps
// whose rows all kept their max skip. P then grows to 2^threshold before
// the kernel rounds it to the element type, where it must stay finite.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Transforms/SM90/LoweringChoices.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h"

#include <cmath>
#include <cstdio>
#include <string>

#define DEBUG_TYPE "fattn-sm90-rescale-threshold"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNSM90RESCALETHRESHOLD
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

LogicalResult mlir::fattn::checkSM90RescaleThreshold(TiledAttentionOp op,
                                                     float threshold) {
  bool fp8 = hasE4M3Inputs(op);
  // e4m3's largest value is 448, and the FP8 kernel rounds 256 P; f16's is
  // 65504 (bf16 reaches further, but one bound for both 16-bit types keeps
  // the choice's meaning simple).
  const float limit = fp8 ? std::log2(448.0f) - 8.0f : 15.0f;
  auto shortFloat = [](float v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.4g", double(v));
    return std::string(buf);
  };
  if (!(threshold >= 0.0f && threshold <= limit))
    return op.emitOpError()
           << "rescale-threshold " << shortFloat(threshold) << " must be in [0, "
           << shortFloat(limit) << "] for " << (fp8 ? "e4m3" : "16-bit")
           << " inputs (P grows to 2^threshold"
           << (fp8 ? " times 256" : "") << " before its rounding)";
  return success();
}

LogicalResult mlir::fattn::setSM90RescaleThreshold(TiledAttentionOp op,
                                                   float threshold) {
  if (failed(checkSM90RescaleThreshold(op, threshold)))
    return failure();
  return updateSM90ConsumerChoices(op, [&](SM90ConsumerChoices &consumers) {
    consumers.rescaleThreshold = threshold;
  });
}

namespace {
struct FAttnSM90RescaleThresholdPass
    : public fattn::impl::FAttnSM90RescaleThresholdBase<
          FAttnSM90RescaleThresholdPass> {
  using FAttnSM90RescaleThresholdBase::FAttnSM90RescaleThresholdBase;

  void runOnOperation() override {
    if (failed(forEachTiledAttention(getOperation(), [&](TiledAttentionOp op) {
          return setSM90RescaleThreshold(op, threshold);
        })))
      signalPassFailure();
  }
};
} // namespace
