//===- HeadDims.h - the head dims each GPU target compiles -----*- C++ -*-===//
//
// Which head dims the sm_80 and sm_90a kernels take, per kind of input
// element, in one table: the lowerings refuse the others with the message
// these functions give, and `fattn-compile --print-tuning` exports the table
// (tuningRulesJSON, "head_dims"), from which the Python package refuses
// them before it compiles or looks up a kernel.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_UTILS_HEADDIMS_H
#define FATTN_DIALECT_FATTN_UTILS_HEADDIMS_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::fattn {

/// The head dims of one target's kernels for Q, K and V of some element
/// types.
struct HeadDimRule {
  /// "sm_80" or "sm_90a".
  llvm::StringLiteral arch;
  /// The element types of Q, K and V, as the kernels' descriptions name them
  /// ("bf16", "f16", "e4m3").
  llvm::ArrayRef<llvm::StringLiteral> dtypes;
  /// What the diagnostics call these inputs ("16-bit", "e4m3").
  llvm::StringLiteral inputs;
  /// Every multiple of `granule` from `min` up to `max`.
  int64_t granule = 0, min = 0, max = 0;
  /// Whether V's head dim may differ from Q's and K's.
  bool valueMayDiffer = false;
  /// Where they differ: a head dim of at most `narrow` goes only with one
  /// of at most `narrowPartnerMax` (0: with any).
  int64_t narrow = 0, narrowPartnerMax = 0;

  /// Whether Q's and K's head dim (or V's, where it may differ) is taken.
  bool takes(int64_t headDim) const;
  /// Whether Q's and K's head dim and V's, each taken, go together.
  bool takesPair(int64_t headDimQK, int64_t headDimV) const;
  /// "a head dim that is a multiple of 8 from 16 up to 256" ("a multiple of
  /// 16 up to 256" where the smallest is the granule).
  std::string describe() const;
};

/// Every rule, by target and then element type.
llvm::ArrayRef<HeadDimRule> headDimRules();

/// The rule of `arch` for Q, K and V of `dtype` ("bf16", "f16", "e4m3"), or
/// null where `arch` has no kernel for them.
const HeadDimRule *headDimRule(llvm::StringRef arch, llvm::StringRef dtype);

/// Why `arch` compiles no kernel for Q, K and V of `element` with these
/// static head dims, or std::nullopt where it does: "sm_80 needs a head dim
/// that is a multiple of 8 from 16 up to 256 for 16-bit inputs, found 12".
std::optional<std::string> headDimsError(llvm::StringRef arch, Type element,
                                         int64_t headDimQK, int64_t headDimV);

/// headDimsError of sm_80 and of sm_90a.
inline std::optional<std::string>
sm80HeadDimsError(Type element, int64_t headDimQK, int64_t headDimV) {
  return headDimsError("sm_80", element, headDimQK, headDimV);
}
inline std::optional<std::string>
sm90HeadDimsError(Type element, int64_t headDimQK, int64_t headDimV) {
  return headDimsError("sm_90a", element, headDimQK, headDimV);
}

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_UTILS_HEADDIMS_H
