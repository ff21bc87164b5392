//===- AttentionVerification.h - shared operand checks ----------*- C++ -*-===//
//
// `fattn.attention` and `fattn.tiled_attention` take the same operands with
// the same rules; both verifiers call these functions.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_IR_ATTENTIONVERIFICATION_H
#define FATTN_DIALECT_FATTN_IR_ATTENTIONVERIFICATION_H

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

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_IR_ATTENTIONVERIFICATION_H
