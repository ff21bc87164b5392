//===- AttentionRewrite.cpp - the matched form as fattn.attention ---------===//
//
// fattn::raiseAttention: matches the form ending at a P V contraction and
// replaces it with fattn.attention in the tensor form (Q, K, V reshaped to
// [batch, heads, seq, dim], the mask as fattn's mask attributes), erasing
// the ops that only fed it.
//
//===----------------------------------------------------------------------===//

#include "AttentionMatchers.h"

#include "fattn/Dialect/FAttn/Transforms/Transforms.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/RegionUtils.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fattn;
using namespace mlir::fattn::raising;

namespace {
/// The mask attributes of fattn.attention.
struct MaskAttributes {
  BoolAttr causal;
  IntegerAttr windowLeft, windowRight;
};

/// The mask attributes for top-left aligned bounds on key - query, or
/// failure when they are not expressible or hide every key of some row
/// (where fattn gives 0 and the softmax NaN or a mean).
FailureOr<MaskAttributes> getMaskAttributes(Builder &b, KeyBounds bounds,
                                            int64_t seqQ, int64_t seqK) {
  MaskAttributes attrs;
  if (!bounds.lower && !bounds.upper)
    return attrs;
  if (ShapedType::isDynamic(seqQ) || ShapedType::isDynamic(seqK))
    return failure();
  // fattn keeps seqK - seqQ - left <= key - query <= seqK - seqQ + right.
  int64_t shift = seqK - seqQ;
  if (bounds.upper) {
    int64_t right = *bounds.upper - shift;
    // Row 0 sees key 0 only if upper >= 0.
    if (*bounds.upper < 0 || right < 0)
      return failure();
    if (right == 0)
      attrs.causal = b.getBoolAttr(true);
    else
      attrs.windowRight = b.getI64IntegerAttr(right);
  }
  if (bounds.lower) {
    int64_t left = shift - *bounds.lower;
    // The last row sees the last key only if seqQ - 1 + lower <= seqK - 1.
    if (left < 0 || seqQ - 1 + *bounds.lower > seqK - 1 ||
        (bounds.upper && *bounds.lower > *bounds.upper))
      return failure();
    attrs.windowLeft = b.getI64IntegerAttr(left);
  }
  return attrs;
}

/// The reassociation that merges the batch dims of a rank-`rank` tensor
/// ([b..., s, d] -> [prod(b...), s, d]).
SmallVector<ReassociationIndices> getBatchMergingGroups(int64_t rank) {
  SmallVector<ReassociationIndices> groups(1);
  for (int64_t d = 0; d < rank - 2; ++d)
    groups[0].push_back(d);
  groups.push_back({rank - 2});
  groups.push_back({rank - 1});
  return groups;
}

/// [b..., s, d] -> [1, prod(b...), s, d].
Value toHeadsOfOneBatch(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() != 3) {
    v = tensor::CollapseShapeOp::create(b, loc, v,
                                        getBatchMergingGroups(type.getRank()));
    type = cast<RankedTensorType>(v.getType());
  }
  SmallVector<int64_t> shape{1};
  llvm::append_range(shape, type.getShape());
  SmallVector<OpFoldResult> sizes{b.getIndexAttr(1)};
  llvm::append_range(sizes, tensor::getMixedSizes(b, loc, v));
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v,
      getBatchMergingGroups(4), sizes);
}

bool isAttentionElementType(Type t) {
  return t.isF32() || t.isF16() || t.isBF16();
}
} // namespace

FailureOr<AttentionOp> mlir::fattn::raiseAttention(RewriterBase &rewriter,
                                                   Operation *pvContraction) {
  FailureOr<BatchContraction> pv = matchBatchContraction(pvContraction);
  if (failed(pv))
    return failure();
  FailureOr<AttentionMatch> match = matchAttention(*pv);
  if (failed(match))
    return failure();
  auto qType = cast<RankedTensorType>(match->query.getType());
  auto kType = cast<RankedTensorType>(match->key.getType());
  auto vType = cast<RankedTensorType>(match->value.getType());
  auto oType = cast<RankedTensorType>(pvContraction->getResult(0).getType());
  Type elem = qType.getElementType();
  if (!isAttentionElementType(elem) || kType.getElementType() != elem ||
      vType.getElementType() != elem || oType.getElementType() != elem ||
      match->keyGroups != match->valueGroups)
    return failure();
  for (RankedTensorType type : {qType, kType, vType})
    if (type.getRank() < 3)
      return failure();
  if (!std::isfinite(match->scale) || match->scale <= 0.0 ||
      !std::isfinite(static_cast<float>(match->scale)))
    return failure();
  FailureOr<MaskAttributes> mask = getMaskAttributes(
      rewriter, match->bounds, qType.getDimSize(qType.getRank() - 2),
      kType.getDimSize(kType.getRank() - 2));
  if (failed(mask))
    return failure();

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(pvContraction);
  Location loc = pvContraction->getLoc();
  // Rank-4 operands of one static batch size are [batch, heads, seq, dim]
  // as they are; others become the heads of a batch of 1, their batch dims
  // flattened in order (which keeps query head n on KV head n / group).
  bool asIs = llvm::all_of(
      ArrayRef<RankedTensorType>{qType, kType, vType}, [&](auto type) {
        return type.getRank() == 4 && !type.isDynamicDim(0) &&
               type.getDimSize(0) == qType.getDimSize(0);
      });
  Value q =
      asIs ? match->query : toHeadsOfOneBatch(rewriter, loc, match->query);
  Value k = asIs ? match->key : toHeadsOfOneBatch(rewriter, loc, match->key);
  Value v =
      asIs ? match->value : toHeadsOfOneBatch(rewriter, loc, match->value);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, q);
  sizes.back() = tensor::getMixedSizes(rewriter, loc, v).back();
  Value init = tensor::EmptyOp::create(rewriter, loc, sizes, elem);
  auto attention = AttentionOp::create(
      rewriter, loc, TypeRange{init.getType()}, q, k, v, init, /*lse=*/Value(),
      /*q_descale=*/Value(), /*k_descale=*/Value(), /*v_descale=*/Value(),
      /*dynamic_scale=*/Value(), /*dynamic_softcap=*/Value(),
      rewriter.getF32FloatAttr(match->scale), mask->causal, mask->windowLeft,
      mask->windowRight, /*softcap=*/nullptr, /*descale_block_q=*/nullptr,
      /*descale_block_kv=*/nullptr, /*value_layout=*/nullptr);
  Value result = attention.getResultTensors()[0];
  if (result.getType() != oType) {
    // [b, h, s, d] -> [b * h, s, d] -> the P V product's batch dims.
    result = tensor::CollapseShapeOp::create(rewriter, loc, result,
                                             getBatchMergingGroups(4));
    if (oType.getRank() != 3)
      result = tensor::ExpandShapeOp::create(
          rewriter, loc, oType, result, getBatchMergingGroups(oType.getRank()),
          tensor::getMixedSizes(rewriter, loc, pv->op.getDpsInits()[0]));
  }
  // The ops of the matched form that only fed the P V product go with it.
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.filter = [&](Operation *op) {
    return !llvm::is_contained(op->getResults(), match->query) &&
           !llvm::is_contained(op->getResults(), match->key) &&
           !llvm::is_contained(op->getResults(), match->value);
  };
  (void)getBackwardSlice(pvContraction, &slice, options);
  rewriter.replaceOp(pvContraction, result);
  for (Operation *op : llvm::reverse(slice))
    if (isOpTriviallyDead(op))
      rewriter.eraseOp(op);
  return attention;
}
