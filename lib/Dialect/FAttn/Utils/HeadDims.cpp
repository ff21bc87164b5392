//===- HeadDims.cpp - the head dims each GPU target compiles --------------===//

#include "fattn/Dialect/FAttn/Utils/HeadDims.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::fattn;

bool HeadDimRule::takes(int64_t headDim) const {
  if (granule == 0)
    return llvm::is_contained(listed, headDim);
  return headDim > 0 && headDim % granule == 0 && headDim <= max;
}

std::string HeadDimRule::describe() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (granule != 0) {
    os << "a head dim that is a multiple of " << granule << " up to " << max;
    return text;
  }
  os << "head dim ";
  for (auto [i, d] : llvm::enumerate(listed))
    os << (i == 0 ? "" : i + 1 == listed.size() ? " or " : ", ") << d;
  return text;
}

ArrayRef<HeadDimRule> mlir::fattn::headDimRules() {
  static const llvm::StringLiteral bits16[] = {"bf16", "f16"};
  static const llvm::StringLiteral e4m3[] = {"e4m3"};
  // sm_80: the head dims whose kernels its GPU tests check (the head dim
  // also sizes the shared-memory ring and the registers, which the sm_80
  // passes check against the tiles).
  static const int64_t sm80Listed[] = {64, 96, 128, 256};
  static const HeadDimRule rules[] = {
      {"sm_80", bits16, "16-bit", 0, 0, sm80Listed, false},
      // sm_90a 16-bit: Q, K and V are read in whole 128-byte atoms whose
      // columns past the head dim TMA fills with zeros; 256 is the widest
      // wgmma accumulator that fits the registers. O leaves in 8-column
      // groups, so multiples of 8 compile (0 spills), but those that are not
      // multiples of 16 have not run on a GPU yet: 16 until the head-dim
      // sweep (preset head-dims) passes there.
      {"sm_90a", bits16, "16-bit", 16, 256, {}, false},
      // sm_90a e4m3: the producer's V transpose and V^T's tiles work on
      // whole 128-byte rows.
      {"sm_90a", e4m3, "e4m3", 128, 256, {}, false},
  };
  return rules;
}

const HeadDimRule *mlir::fattn::headDimRule(StringRef arch, StringRef dtype) {
  for (const HeadDimRule &rule : headDimRules())
    if (rule.arch == arch && llvm::is_contained(rule.dtypes, dtype))
      return &rule;
  return nullptr;
}

/// The name of `element` in the kernels' descriptions ("" for the others).
static StringRef dtypeName(Type element) {
  if (element.isBF16())
    return "bf16";
  if (element.isF16())
    return "f16";
  if (isa<Float8E4M3FNType>(element))
    return "e4m3";
  return "";
}

/// A head dim as the IR prints it ("?" where it is dynamic).
static std::string headDimText(int64_t headDim) {
  return ShapedType::isDynamic(headDim) ? "?" : std::to_string(headDim);
}

std::optional<std::string> mlir::fattn::headDimsError(StringRef arch,
                                                      Type element,
                                                      int64_t headDimQK,
                                                      int64_t headDimV) {
  std::string text;
  llvm::raw_string_ostream os(text);
  const HeadDimRule *rule = headDimRule(arch, dtypeName(element));
  if (!rule) {
    os << arch << " has no kernel for " << element << " inputs";
    return text;
  }
  if (!rule->takes(headDimQK)) {
    os << arch << " needs " << rule->describe() << " for " << rule->inputs
       << " inputs, found " << headDimText(headDimQK);
    return text;
  }
  if (headDimV == headDimQK)
    return std::nullopt;
  if (!rule->valueMayDiffer) {
    os << arch << " needs V's head dim equal to Q's and K's, found "
       << headDimText(headDimQK) << " and " << headDimText(headDimV);
    return text;
  }
  if (!rule->takes(headDimV)) {
    os << arch << " needs " << rule->describe() << " for V of " << rule->inputs
       << " inputs, found " << headDimText(headDimV);
    return text;
  }
  return std::nullopt;
}
