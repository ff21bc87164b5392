//===- AttentionVerification.h - shared operand checks ----------*- C++ -*-===//
//
// `fattn.attention`, `fattn.tiled_attention` and `fattn.attention_grad` take
// the same operands and attributes with the same rules; their verifiers call
// these functions.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_IR_ATTENTIONVERIFICATION_H
#define FATTN_DIALECT_FATTN_IR_ATTENTIONVERIFICATION_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlir::fattn {

/// Checks ranks, element types and every pair of sizes that must agree
/// (compared where both are static). `lse` may be null; `valueLayout` is the
/// op's `value_layout` (null when V is stored [batch, heads, seq, head_dim]).
LogicalResult verifyAttentionOperands(Operation *op, Value query, Value key,
                                      Value value, Value output, Value lse,
                                      StringAttr valueLayout);

/// Checks the FP8 descale operands (all null, or all set) and the block
/// sizes of per-block descales.
LogicalResult verifyDescales(Operation *op, Value query, Value key,
                             Value qDescale, Value kDescale, Value vDescale,
                             std::optional<int64_t> blockQ,
                             std::optional<int64_t> blockKV);

/// Checks that a window bound is -1 (unbounded) or non-negative.
LogicalResult verifyWindowBound(Operation *op, StringRef name, int64_t bound);

/// Checks that a scale is a positive finite number.
LogicalResult verifyScale(Operation *op, StringRef name, float scale);

/// Checks that a softcap is finite and >= 0 (0 = no softcap).
LogicalResult verifySoftcap(Operation *op, float softcap);

/// Checks that a value given either as an attribute or as an SSA operand
/// (`scale`, `softcap`) comes in one form, not both; and in one of them when
/// `required`.
LogicalResult verifyAttributeOrOperand(Operation *op, StringRef name,
                                       Attribute attr, Value operand,
                                       bool required);

/// Checks that `value` has the rank, element type and (where both are
/// static) sizes of `ref`: a gradient and the operand it is the gradient of.
LogicalResult verifySameShapeAs(Operation *op, StringRef name, Value value,
                                StringRef refName, Value ref);

/// The operands of a backward op (fattn.attention_grad and its tiled form):
/// Q, K, V, O and LSE as the forward op took them, dO of O's shape and each
/// gradient of its operand's.
template <typename GradOp>
LogicalResult verifyGradOperands(GradOp op) {
  Operation *o = op.getOperation();
  if (failed(verifyAttentionOperands(o, op.getQuery(), op.getKey(),
                                     op.getValue(), op.getOutput(),
                                     op.getLse(), /*valueLayout=*/nullptr)))
    return failure();
  return success(
      succeeded(verifySameShapeAs(o, "grad_output", op.getGradOutput(),
                                  "output", op.getOutput())) &&
      succeeded(verifySameShapeAs(o, "grad_query", op.getGradQuery(), "query",
                                  op.getQuery())) &&
      succeeded(verifySameShapeAs(o, "grad_key", op.getGradKey(), "key",
                                  op.getKey())) &&
      succeeded(verifySameShapeAs(o, "grad_value", op.getGradValue(), "value",
                                  op.getValue())));
}

/// The mask, scale and softcap attributes of fattn.attention and
/// fattn.attention_grad, as written (absent = null / std::nullopt).
struct AttentionAttributes {
  FloatAttr scale;
  std::optional<bool> causal;
  std::optional<int64_t> windowLeft, windowRight;
  FloatAttr softcap;
  /// Whether the scale is an SSA operand (no default to compute).
  bool dynamicScale = false;

  /// The attribute, or 1/sqrt(head dim of `query`).
  float effectiveScale(ShapedType query) const;
  /// The window bounds with `causal` folded in; -1 means unbounded.
  int64_t effectiveWindowLeft() const { return windowLeft.value_or(-1); }
  int64_t effectiveWindowRight() const {
    return causal.value_or(false) ? 0 : windowRight.value_or(-1);
  }
  /// The softcap, 0 when absent.
  float effectiveSoftcap() const {
    return softcap ? softcap.getValueAsDouble() : 0.0f;
  }
};

/// Checks the scale and softcap values, the window bounds, causal against
/// window_right, and that the default scale has a static head dim to come
/// from.
LogicalResult verifyAttentionAttributes(Operation *op,
                                        const AttentionAttributes &attrs,
                                        ShapedType query);

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_IR_ATTENTIONVERIFICATION_H
