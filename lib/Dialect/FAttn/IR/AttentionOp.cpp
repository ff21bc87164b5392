//===- AttentionOp.cpp - fattn.attention ----------------------------------===//

#include "fattn/Dialect/FAttn/IR/AttentionVerification.h"
#include "fattn/Dialect/FAttn/IR/DestinationStyle.h"
#include "fattn/Dialect/FAttn/IR/FAttnFP8Ops.h"
#include "fattn/Dialect/FAttn/IR/FAttnOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fattn;

namespace {
// Logical dims of Q, K, V, O.
enum Dim : unsigned { kBatch = 0, kHeads = 1, kSeq = 2, kHeadDim = 3 };
const char *const kDimNames[] = {"batch size", "head count", "sequence length",
                                 "head dim"};

/// A named operand of the op (a memref, or a tensor in the tensor form of
/// fattn.attention), for diagnostics.
struct NamedOperand {
  StringRef name;
  ShapedType type;
};
} // namespace

static FailureOr<ShapedType> checkRank(Operation *op, StringRef name, Value v,
                                       int64_t rank, StringRef dims) {
  auto type = cast<ShapedType>(v.getType());
  if (type.getRank() != rank)
    return op->emitOpError()
           << "expected " << name << " to be a rank-" << rank << " "
           << (isa<TensorType>(type) ? "tensor" : "memref") << " " << dims
           << ", found rank " << type.getRank();
  return type;
}

/// Both sizes must agree when both are static.
static LogicalResult checkSameSize(Operation *op, NamedOperand a, unsigned dimA,
                                   NamedOperand ref, unsigned dimRef,
                                   StringRef what) {
  int64_t sa = a.type.getDimSize(dimA), sr = ref.type.getDimSize(dimRef);
  if (ShapedType::isDynamic(sa) || ShapedType::isDynamic(sr) || sa == sr)
    return success();
  return op->emitOpError() << "expected " << a.name << " " << what << " (" << sa
                           << ") to match " << ref.name << " " << what << " ("
                           << sr << ")";
}

/// V stored as V^T (`value_layout`): FP8, [batch, kv_heads, head_dim, keys]
/// with keys a multiple of 16 (whole permuted runs) and at least K's
/// sequence length.
static LogicalResult checkTransposedValue(Operation *op, StringAttr layout,
                                          NamedOperand q, NamedOperand k,
                                          NamedOperand v, NamedOperand o) {
  if (layout.getValue() != kTransposedValueLayout)
    return op->emitOpError() << "expected value_layout to be \""
                             << kTransposedValueLayout << "\" or absent, found \""
                             << layout.getValue() << "\"";
  if (!isa<Float8E4M3FNType>(q.type.getElementType()))
    return op->emitOpError() << "expected f8E4M3FN query, key and value with "
                                "value_layout = \""
                             << kTransposedValueLayout << "\", found "
                             << q.type.getElementType();
  if (failed(checkSameSize(op, v, kBatch, q, kBatch, kDimNames[kBatch])) ||
      failed(checkSameSize(op, v, kHeads, k, kHeads, kDimNames[kHeads])) ||
      failed(checkSameSize(op, o, kHeadDim, v, 2, kDimNames[kHeadDim])))
    return failure();
  int64_t keys = v.type.getDimSize(3), seq = k.type.getDimSize(kSeq);
  if (!ShapedType::isDynamic(keys) && keys % 16 != 0)
    return op->emitOpError() << "expected the key count of a transposed value "
                                "(dim 3) to be a multiple of 16, found "
                             << keys;
  if (!ShapedType::isDynamic(keys) && !ShapedType::isDynamic(seq) &&
      keys < seq)
    return op->emitOpError()
           << "expected the key count of a transposed value (" << keys
           << ") to be at least the key sequence length (" << seq << ")";
  return success();
}

LogicalResult mlir::fattn::verifyAttentionOperands(Operation *op, Value query,
                                                   Value key, Value value,
                                                   Value output, Value lse,
                                                   StringAttr valueLayout) {
  const char *bhsd = "[batch, heads, seq, head_dim]";
  FailureOr<ShapedType> qt = checkRank(op, "query", query, 4, bhsd);
  if (failed(qt))
    return failure();
  FailureOr<ShapedType> kt = checkRank(op, "key", key, 4, bhsd);
  if (failed(kt))
    return failure();
  FailureOr<ShapedType> vt =
      checkRank(op, "value", value, 4,
                valueLayout ? "[batch, heads, head_dim, keys]" : bhsd);
  if (failed(vt))
    return failure();
  FailureOr<ShapedType> ot = checkRank(op, "output", output, 4, bhsd);
  if (failed(ot))
    return failure();
  NamedOperand q{"query", *qt}, k{"key", *kt}, v{"value", *vt}, o{"output", *ot};

  Type elemType = q.type.getElementType();
  bool fp8 = isa<Float8E4M3FNType>(elemType);
  if (!elemType.isF32() && !elemType.isF16() && !elemType.isBF16() && !fp8)
    return op->emitOpError() << "expected query element type to be f32, f16, "
                                "bf16 or f8E4M3FN, found "
                             << elemType;
  for (NamedOperand other : {k, v})
    if (other.type.getElementType() != elemType)
      return op->emitOpError()
             << "expected " << other.name << " element type to match query ("
             << elemType << "), found " << other.type.getElementType();
  // FP8 attention writes bf16 (as FlashAttention-3); otherwise O is Q's type.
  Type outType = fp8 ? Type(BFloat16Type::get(op->getContext())) : elemType;
  if (o.type.getElementType() != outType)
    return op->emitOpError()
           << "expected output element type to be " << outType
           << (fp8 ? " for f8E4M3FN inputs" : " (the query's)") << ", found "
           << o.type.getElementType();

  for (NamedOperand other : {k, o})
    if (failed(checkSameSize(op, other, kBatch, q, kBatch, kDimNames[kBatch])))
      return failure();
  if (failed(checkSameSize(op, o, kHeads, q, kHeads, kDimNames[kHeads])) ||
      failed(checkSameSize(op, o, kSeq, q, kSeq, kDimNames[kSeq])) ||
      failed(checkSameSize(op, k, kHeadDim, q, kHeadDim, kDimNames[kHeadDim])))
    return failure();
  if (valueLayout) {
    if (failed(checkTransposedValue(op, valueLayout, q, k, v, o)))
      return failure();
  } else if (failed(checkSameSize(op, v, kBatch, q, kBatch,
                                  kDimNames[kBatch])) ||
             failed(checkSameSize(op, v, kHeads, k, kHeads,
                                  kDimNames[kHeads])) ||
             failed(checkSameSize(op, v, kSeq, k, kSeq, kDimNames[kSeq])) ||
             failed(checkSameSize(op, o, kHeadDim, v, kHeadDim,
                                  kDimNames[kHeadDim]))) {
    return failure();
  }

  int64_t hq = q.type.getDimSize(kHeads), hkv = k.type.getDimSize(kHeads);
  if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hkv) &&
      (hkv == 0 || hq % hkv != 0))
    return op->emitOpError()
           << "expected query head count (" << hq
           << ") to be a multiple of key/value head count (" << hkv << ")";

  if (!lse)
    return success();
  FailureOr<ShapedType> lt =
      checkRank(op, "lse", lse, 3, "[batch, heads, seq]");
  if (failed(lt))
    return failure();
  NamedOperand l{"lse", *lt};
  if (!l.type.getElementType().isF32())
    return op->emitOpError() << "expected lse element type to be f32, found "
                             << l.type.getElementType();
  for (unsigned d : {kBatch, kHeads, kSeq})
    if (failed(checkSameSize(op, l, d, q, d, kDimNames[d])))
      return failure();
  return success();
}

/// One descale operand: f32, rank 0, 2 ([batch, kv_heads]) or 3
/// ([batch, heads, blocks] with `block` rows per block).
static LogicalResult checkDescale(Operation *op, StringRef name, Value descale,
                                  NamedOperand data, NamedOperand kv,
                                  StringRef blockName,
                                  std::optional<int64_t> block) {
  auto type = cast<ShapedType>(descale.getType());
  if (!type.getElementType().isF32())
    return op->emitOpError()
           << "expected " << name << " element type to be f32, found "
           << type.getElementType();
  NamedOperand d{name, type};
  switch (type.getRank()) {
  case 0:
    break;
  case 2:
    if (failed(checkSameSize(op, d, kBatch, data, kBatch, kDimNames[kBatch])) ||
        failed(checkSameSize(op, d, kHeads, kv, kHeads, kDimNames[kHeads])))
      return failure();
    break;
  case 3: {
    if (!block)
      return op->emitOpError() << "expected " << blockName << " for the "
                               << "per-block " << name;
    if (failed(checkSameSize(op, d, kBatch, data, kBatch, kDimNames[kBatch])) ||
        failed(checkSameSize(op, d, kHeads, data, kHeads, kDimNames[kHeads])))
      return failure();
    int64_t blocks = type.getDimSize(2), seq = data.type.getDimSize(kSeq);
    if (!ShapedType::isDynamic(blocks) && !ShapedType::isDynamic(seq) &&
        blocks != (seq + *block - 1) / *block)
      return op->emitOpError()
             << "expected " << name << " block count (" << blocks
             << ") to be ceildiv(" << data.name << " sequence length, "
             << blockName << ") = " << (seq + *block - 1) / *block;
    break;
  }
  default:
    return op->emitOpError()
           << "expected " << name << " to be rank 0 (per tensor), 2 "
           << "([batch, kv_heads]) or 3 ([batch, heads, blocks]), found rank "
           << type.getRank();
  }
  return success();
}

LogicalResult mlir::fattn::verifyDescales(Operation *op, Value query, Value key,
                                          Value qDescale, Value kDescale,
                                          Value vDescale,
                                          std::optional<int64_t> blockQ,
                                          std::optional<int64_t> blockKV) {
  for (auto [name, block] : {std::pair{"descale_block_q", blockQ},
                             std::pair{"descale_block_kv", blockKV}})
    if (block && *block <= 0)
      return op->emitOpError()
             << "expected a positive " << name << ", found " << *block;
  if (!qDescale)
    return success();
  auto qType = cast<ShapedType>(query.getType());
  if (!isa<Float8E4M3FNType>(qType.getElementType()))
    return op->emitOpError() << "expected f8E4M3FN query, key and value with "
                                "descale operands, found "
                             << qType.getElementType();
  NamedOperand q{"query", qType}, k{"key", cast<ShapedType>(key.getType())};
  if (failed(checkDescale(op, "q_descale", qDescale, q, k, "descale_block_q",
                          blockQ)) ||
      failed(checkDescale(op, "k_descale", kDescale, k, k, "descale_block_kv",
                          blockKV)) ||
      failed(checkDescale(op, "v_descale", vDescale, k, k, "descale_block_kv",
                          blockKV)))
    return failure();
  return success();
}

LogicalResult mlir::fattn::verifyWindowBound(Operation *op, StringRef name,
                                             int64_t bound) {
  if (bound < -1)
    return op->emitOpError()
           << "expected " << name << " to be -1 (unbounded) or >= 0, found "
           << bound;
  return success();
}

LogicalResult mlir::fattn::verifyScale(Operation *op, StringRef name,
                                       float scale) {
  if (!std::isfinite(scale) || scale <= 0.0f)
    return op->emitOpError()
           << "expected " << name << " to be a positive finite number, found "
           << scale;
  return success();
}

LogicalResult mlir::fattn::verifySoftcap(Operation *op, float softcap) {
  if (!std::isfinite(softcap) || softcap < 0.0f)
    return op->emitOpError()
           << "expected softcap to be a finite number >= 0 (0 = none), found "
           << softcap;
  return success();
}

LogicalResult mlir::fattn::verifyAttributeOrOperand(Operation *op,
                                                    StringRef name,
                                                    Attribute attr,
                                                    Value operand,
                                                    bool required) {
  if (attr && operand)
    return op->emitOpError() << "expected the " << name
                             << " as an attribute or an operand, not both";
  if (required && !attr && !operand)
    return op->emitOpError() << "expected the " << name
                             << " as an attribute or an operand";
  return success();
}

LogicalResult mlir::fattn::verifySameShapeAs(Operation *op, StringRef name,
                                             Value value, StringRef refName,
                                             Value ref) {
  auto refType = cast<ShapedType>(ref.getType());
  FailureOr<ShapedType> type =
      checkRank(op, name, value, refType.getRank(),
                ("like " + refName).str());
  if (failed(type))
    return failure();
  if (type->getElementType() != refType.getElementType())
    return op->emitOpError()
           << "expected " << name << " element type to match " << refName
           << " (" << refType.getElementType() << "), found "
           << type->getElementType();
  for (unsigned d = 0; d < refType.getRank(); ++d)
    if (failed(checkSameSize(op, {name, *type}, d, {refName, refType}, d,
                             kDimNames[d])))
      return failure();
  return success();
}

float AttentionAttributes::effectiveScale(ShapedType query) const {
  if (scale)
    return scale.getValueAsDouble();
  int64_t headDim = query.getDimSize(kHeadDim);
  return 1.0f / std::sqrt(static_cast<float>(headDim));
}

LogicalResult
mlir::fattn::verifyAttentionAttributes(Operation *op,
                                       const AttentionAttributes &attrs,
                                       ShapedType query) {
  if (attrs.scale &&
      failed(verifyScale(op, "scale", attrs.scale.getValueAsDouble())))
    return failure();
  if (attrs.softcap &&
      failed(verifySoftcap(op, attrs.softcap.getValueAsDouble())))
    return failure();
  if (attrs.windowLeft &&
      failed(verifyWindowBound(op, "window_left", *attrs.windowLeft)))
    return failure();
  if (attrs.windowRight) {
    if (failed(verifyWindowBound(op, "window_right", *attrs.windowRight)))
      return failure();
    if (attrs.causal.value_or(false) && *attrs.windowRight != 0)
      return op->emitOpError() << "expected window_right to be 0 or absent "
                                  "when causal = true, found "
                               << *attrs.windowRight;
  }
  if (!attrs.scale && !attrs.dynamicScale && query.isDynamicDim(kHeadDim))
    return op->emitOpError("expected a static query head dim or an explicit "
                           "scale, found head dim ?");
  return success();
}

static AttentionAttributes attributesOf(AttentionOp op) {
  return {op.getScaleAttr(),       op.getCausal(),
          op.getWindowLeft(),      op.getWindowRight(),
          op.getSoftcapAttr(),     static_cast<bool>(op.getDynamicScale())};
}

LogicalResult AttentionOp::verify() {
  if (failed(verifyOneShapedKind(
          *this, {{"query", getQuery()}, {"key", getKey()},
                  {"value", getValue()}, {"output", getOutput()},
                  {"lse", getLse()}, {"q_descale", getQDescale()},
                  {"k_descale", getKDescale()}, {"v_descale", getVDescale()}})))
    return failure();
  if (failed(verifyAttentionOperands(*this, getQuery(), getKey(), getValue(),
                                     getOutput(), getLse(),
                                     getValueLayoutAttr())) ||
      failed(verifyDescales(*this, getQuery(), getKey(), getQDescale(),
                            getKDescale(), getVDescale(), getDescaleBlockQ(),
                            getDescaleBlockKv())) ||
      failed(verifyAttributeOrOperand(*this, "scale", getScaleAttr(),
                                      getDynamicScale(), /*required=*/false)) ||
      failed(verifyAttributeOrOperand(*this, "softcap", getSoftcapAttr(),
                                      getDynamicSoftcap(), /*required=*/false)))
    return failure();
  return verifyAttentionAttributes(*this, attributesOf(*this),
                                   getQuery().getType());
}

void AttentionOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getDestinationStyleEffects(*this, effects);
}

float AttentionOp::getEffectiveScale() {
  return attributesOf(*this).effectiveScale(getQuery().getType());
}

int64_t AttentionOp::getEffectiveWindowLeft() {
  return attributesOf(*this).effectiveWindowLeft();
}

int64_t AttentionOp::getEffectiveWindowRight() {
  return attributesOf(*this).effectiveWindowRight();
}

float AttentionOp::getEffectiveSoftcap() {
  return attributesOf(*this).effectiveSoftcap();
}
