//===- HeadDims.cpp - the head dims each GPU target compiles --------------===//

#include "fattn/Dialect/FAttn/Utils/HeadDims.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::fattn;

bool HeadDimRule::takes(int64_t headDim) const {
  return headDim >= min && headDim % granule == 0 && headDim <= max;
}

bool HeadDimRule::takesPair(int64_t headDimQK, int64_t headDimV) const {
  return narrow == 0 || std::min(headDimQK, headDimV) > narrow ||
         std::max(headDimQK, headDimV) <= narrowPartnerMax;
}

std::string HeadDimRule::describe() const {
  std::string from =
      min > granule ? (" from " + llvm::Twine(min)).str() : std::string();
  return ("a head dim that is a multiple of " + llvm::Twine(granule) + from +
          " up to " + llvm::Twine(max))
      .str();
}

ArrayRef<HeadDimRule> mlir::fattn::headDimRules() {
  static const llvm::StringLiteral bits16[] = {"bf16", "f16"};
  static const llvm::StringLiteral e4m3[] = {"e4m3"};
  static const HeadDimRule rules[] = {
      // sm_80: S = Q K^T steps through Q's and K's head dim 16 columns at a
      // time (mma.sync m16n8k16; a last step of 8 takes zeros for the other
      // 8) and O through V's 8 at a time, so the two may differ; rows leave
      // in 16-byte (8-column) chunks; the tiles that tuneSM80 picks keep
      // every multiple of 8 up to 256 free of spills. The 128 threads copy
      // a tile in steps of 128 / (chunks per row) rows, which must divide
      // the tile: 128 rows at head dim 8, more than the 64 keys of the
      // tuned tiles, and 64 rows at 16, more than the 32 keys of the tiles
      // whose other head dim is 248 or 256 (where 64-key rings do not fit).
      {"sm_80", bits16, "16-bit", 8, 16, 256, true, 16, 240},
      // sm_90a 16-bit: Q, K and V are read in whole 128-byte atoms whose
      // columns past the head dim TMA fills with zeros; 256 is the widest
      // wgmma accumulator that fits the registers; O leaves in 8-column
      // groups. S = Q K^T steps through Q's and K's head dim, P V and O
      // span V's, so the two may differ (MLA's 192 and 128).
      {"sm_90a", bits16, "16-bit", 8, 8, 256, true},
      // sm_90a e4m3: the producer's V transpose and V^T's tiles work on
      // whole 128-byte rows.
      {"sm_90a", e4m3, "e4m3", 128, 128, 256, false},
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
  if (!rule->takesPair(headDimQK, headDimV)) {
    os << arch << " needs Q's and K's head dim and V's to be at most "
       << rule->narrowPartnerMax << " where either is " << rule->narrow
       << " or less, for " << rule->inputs << " inputs, found "
       << headDimText(headDimQK) << " and " << headDimText(headDimV);
    return text;
  }
  return std::nullopt;
}
