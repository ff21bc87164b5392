//===- AttentionGradOp.cpp - fattn.attention_grad -------------------------===//

#include "fattn/Dialect/FAttn/IR/AttentionVerification.h"
#include "fattn/Dialect/FAttn/IR/DestinationStyle.h"
#include "fattn/Dialect/FAttn/IR/FAttnGradOps.h"

using namespace mlir;
using namespace mlir::fattn;

#define GET_OP_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnGradOps.cpp.inc"

static AttentionAttributes attributesOf(AttentionGradOp op) {
  return {op.getScaleAttr(), op.getCausal(), op.getWindowLeft(),
          op.getWindowRight(), op.getSoftcapAttr()};
}

LogicalResult AttentionGradOp::verify() {
  if (failed(verifyOneShapedKind(
          *this, {{"query", getQuery()},
                  {"key", getKey()},
                  {"value", getValue()},
                  {"output", getOutput()},
                  {"grad_output", getGradOutput()},
                  {"lse", getLse()},
                  {"grad_query", getGradQuery()},
                  {"grad_key", getGradKey()},
                  {"grad_value", getGradValue()}})))
    return failure();
  Type elemType = getQuery().getType().getElementType();
  if (!elemType.isF32() && !elemType.isF16() && !elemType.isBF16())
    return emitOpError() << "expected query element type to be f32, f16 or "
                            "bf16 (the gradient has no FP8 form), found "
                         << elemType;
  if (failed(verifyGradOperands(*this)))
    return failure();
  return verifyAttentionAttributes(*this, attributesOf(*this),
                                   getQuery().getType());
}

void AttentionGradOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getDestinationStyleEffects(*this, effects);
}

float AttentionGradOp::getEffectiveScale() {
  return attributesOf(*this).effectiveScale(getQuery().getType());
}

int64_t AttentionGradOp::getEffectiveWindowLeft() {
  return attributesOf(*this).effectiveWindowLeft();
}

int64_t AttentionGradOp::getEffectiveWindowRight() {
  return attributesOf(*this).effectiveWindowRight();
}

float AttentionGradOp::getEffectiveSoftcap() {
  return attributesOf(*this).effectiveSoftcap();
}
