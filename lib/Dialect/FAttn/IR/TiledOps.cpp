//===- TiledOps.cpp - the tiled online-softmax form -----------------------===//

#include "fattn/Dialect/FAttn/IR/AttentionVerification.h"
#include "fattn/Dialect/FAttn/IR/FAttnFP8Ops.h"
#include "fattn/Dialect/FAttn/IR/FAttnOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fattn;

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// I64Attr accessors return uint64_t; compare as signed.
static LogicalResult verifyBlockSizes(Operation *op, int64_t blockM,
                                      int64_t blockN) {
  if (blockM <= 0 || blockN <= 0)
    return op->emitOpError()
           << "expected positive block sizes, found block_m = " << blockM
           << ", block_n = " << blockN;
  return success();
}

static bool isSupportedElementType(Type t) {
  return t.isF32() || t.isF16() || t.isBF16() || isa<Float8E4M3FNType>(t);
}

/// The scale and the softcap of fattn.tiled_attention and fattn.softcap:
/// each an attribute or an operand; a scale attribute positive and finite; a
/// softcap attribute finite and >= 0 (`positiveSoftcap`: > 0).
static LogicalResult verifyScalars(Operation *op, FloatAttr scale,
                                   Value dynamicScale, FloatAttr softcap,
                                   Value dynamicSoftcap,
                                   bool positiveSoftcap = false) {
  if (failed(verifyAttributeOrOperand(op, "scale", scale, dynamicScale,
                                      /*required=*/true)) ||
      failed(verifyAttributeOrOperand(op, "softcap", softcap, dynamicSoftcap,
                                      /*required=*/true)))
    return failure();
  if (scale && failed(verifyScale(op, "scale", scale.getValueAsDouble())))
    return failure();
  if (!softcap)
    return success();
  float cap = softcap.getValueAsDouble();
  if (positiveSoftcap && (!std::isfinite(cap) || cap <= 0.0f))
    return op->emitOpError() << "expected a positive finite softcap, found "
                             << cap;
  return verifySoftcap(op, cap);
}

/// The scale of fattn.softmax_update and fattn.finalize.
static LogicalResult verifyScaleForm(Operation *op, FloatAttr scale,
                                     Value dynamicScale) {
  if (failed(verifyAttributeOrOperand(op, "scale", scale, dynamicScale,
                                      /*required=*/true)))
    return failure();
  return scale ? verifyScale(op, "scale", scale.getValueAsDouble())
               : success();
}

//===----------------------------------------------------------------------===//
// TiledAttentionOp
//===----------------------------------------------------------------------===//

LogicalResult TiledAttentionOp::verify() {
  if (failed(verifyAttentionOperands(*this, getQuery(), getKey(), getValue(),
                                     getOutput(), getLse(),
                                     getValueLayoutAttr())) ||
      failed(verifyDescales(*this, getQuery(), getKey(), getQDescale(),
                            getKDescale(), getVDescale(), getDescaleBlockQ(),
                            getDescaleBlockKv())) ||
      failed(verifyScalars(*this, getScaleAttr(), getDynamicScale(),
                           getSoftcapAttr(), getDynamicSoftcap())) ||
      failed(verifyWindowBound(*this, "window_left", getWindowLeft())) ||
      failed(verifyWindowBound(*this, "window_right", getWindowRight())))
    return failure();
  if (failed(verifyBlockSizes(*this, getBlockM(), getBlockN())))
    return failure();
  // A tile of a transposed V starts at a run of permuted keys and holds
  // whole k steps of the P V product that reads it.
  int64_t multiple = *getKeyPermutationMultiple(kWgmmaE4M3K32KeyPermutation);
  if (hasTransposedValue() && getBlockN() % multiple != 0)
    return emitOpError() << "expected block_n to be a multiple of " << multiple
                         << " with value_layout = \"" << kTransposedValueLayout
                         << "\", found " << getBlockN();
  return success();
}

LogicalResult TiledAttentionOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != 3 ||
      !llvm::all_of(body.getArgumentTypes(),
                    [](Type t) { return t.isIndex(); }))
    return emitOpError("expected the body to take three index arguments "
                       "(batch, head, q_tile), found ")
           << body.getNumArguments() << " argument(s)";
  WalkResult result = getBody().walk([&](LoadTileOp load) {
    Value source = load.getSource();
    if (source != getKey() && source != getValue())
      return WalkResult::advance();
    // V's tiles are read the way value_layout stores V.
    if (source == getValue() && load.getTransposed() != hasTransposedValue()) {
      load.emitOpError() << (hasTransposedValue()
                                 ? "reads by rows a V that value_layout stores "
                                   "transposed: expected {transposed}"
                                 : "is {transposed} but V is stored by rows "
                                   "(no value_layout)");
      return WalkResult::interrupt();
    }
    // K and V tiles hold block_n keys (the rows, or a transposed tile's
    // columns): the kernels size their buffers and the softmax by block_n.
    auto tile = cast<RankedTensorType>(load.getType());
    if (tile.getRank() != 2)
      return WalkResult::advance();
    int64_t keys = tile.getDimSize(load.getTransposed() ? 1 : 0);
    if (keys != getBlockN()) {
      load.emitOpError() << "loads a tile of " << keys << " keys of "
                         << (source == getKey() ? "K" : "V")
                         << ", expected block_n = " << getBlockN();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// LoadTileOp / StoreTileOp
//===----------------------------------------------------------------------===//

/// A tile of rank r addresses a memref of rank r + 2 ([batch, head, rows...]);
/// their element types and head dim sizes must agree (the memref's dim 3, or
/// its dim 2 and the tile's rows for a `transposed` load).
static LogicalResult verifyTileAccess(Operation *op, RankedTensorType tile,
                                      MemRefType mem, bool transposed = false) {
  if (tile.getRank() != 1 && tile.getRank() != 2)
    return op->emitOpError()
           << "expected a rank-1 or rank-2 tile, found rank " << tile.getRank();
  if (mem.getRank() != tile.getRank() + 2)
    return op->emitOpError()
           << "expected a rank-" << tile.getRank() + 2 << " memref for a rank-"
           << tile.getRank() << " tile, found rank " << mem.getRank();
  if (mem.getElementType() != tile.getElementType())
    return op->emitOpError()
           << "expected tile element type " << tile.getElementType()
           << " to match the memref's, found " << mem.getElementType();
  // Tiles carry the attention's operands (Q, K, V, O, the LSE), whose
  // element types these are.
  if (!isSupportedElementType(tile.getElementType()))
    return op->emitOpError() << "expected a tile of f32, f16, bf16 or "
                                "f8E4M3FN elements, found "
                             << tile.getElementType();
  if (transposed) {
    if (tile.getRank() != 2)
      return op->emitOpError("expected a rank-2 tile for a transposed load");
    if (!mem.isDynamicDim(2) && mem.getDimSize(2) != tile.getDimSize(0))
      return op->emitOpError()
             << "expected tile rows (" << tile.getDimSize(0)
             << ") to match the head dim of the transposed memref (dim 2, "
             << mem.getDimSize(2) << ")";
    return success();
  }
  if (tile.getRank() == 2 && !mem.isDynamicDim(3) &&
      mem.getDimSize(3) != tile.getDimSize(1))
    return op->emitOpError()
           << "expected tile columns (" << tile.getDimSize(1)
           << ") to match the memref head dim (" << mem.getDimSize(3) << ")";
  return success();
}

LogicalResult LoadTileOp::verify() {
  return verifyTileAccess(*this, tensorType(getResult()), getSource().getType(),
                          getTransposed());
}

LogicalResult StoreTileOp::verify() {
  return verifyTileAccess(*this, tensorType(getTile()), getDest().getType());
}

//===----------------------------------------------------------------------===//
// KVTileRangeOp
//===----------------------------------------------------------------------===//

LogicalResult KVTileRangeOp::verify() {
  if (failed(verifyBlockSizes(*this, getBlockM(), getBlockN())))
    return failure();
  if (failed(verifyWindowBound(*this, "window_left", getWindowLeft())) ||
      failed(verifyWindowBound(*this, "window_right", getWindowRight())))
    return failure();
  return success();
}

static LogicalResult verifyRowVector(Operation *op, StringRef name,
                                     RankedTensorType vec, int64_t rows);

//===----------------------------------------------------------------------===//
// MmaOp
//===----------------------------------------------------------------------===//

LogicalResult MmaOp::verify() {
  RankedTensorType lhs = tensorType(getLhs()), rhs = tensorType(getRhs());
  RankedTensorType result = tensorType(getResult());
  if (lhs.getRank() != 2 || rhs.getRank() != 2 || result.getRank() != 2)
    return emitOpError("expected rank-2 operands and result");
  if (lhs.getElementType() != rhs.getElementType() ||
      !isSupportedElementType(lhs.getElementType()))
    return emitOpError() << "expected operands of one element type among f32, "
                            "f16, bf16, f8E4M3FN, found "
                         << lhs.getElementType() << " and "
                         << rhs.getElementType();
  if (!result.getElementType().isF32())
    return emitOpError() << "expected an f32 result, found "
                         << result.getElementType();
  int64_t m = lhs.getDimSize(0), k = lhs.getDimSize(1);
  bool transposed = getTransposeRhs();
  int64_t rk = rhs.getDimSize(transposed ? 1 : 0);
  int64_t n = rhs.getDimSize(transposed ? 0 : 1);
  if (rk != k)
    return emitOpError() << "expected the rhs reduction size (" << rk
                         << ") to match the lhs columns (" << k << ")";
  if (result.getDimSize(0) != m || result.getDimSize(1) != n)
    return emitOpError() << "expected a " << m << "x" << n << " result, found "
                         << result.getDimSize(0) << "x" << result.getDimSize(1);
  if (getAcc() && getAcc().getType() != result)
    return emitOpError() << "expected the accumulator type to be the result "
                            "type "
                         << result << ", found " << getAcc().getType();
  if (getLhsScale() &&
      failed(verifyRowVector(*this, "lhs_scale", tensorType(getLhsScale()), m)))
    return failure();
  if (getRhsScale() &&
      failed(verifyRowVector(*this, "rhs_scale", tensorType(getRhsScale()),
                             rhs.getDimSize(0))))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// LoadDescaleOp
//===----------------------------------------------------------------------===//

LogicalResult LoadDescaleOp::verify() {
  MemRefType source = getSource().getType();
  RankedTensorType result = tensorType(getResult());
  if (!source.getElementType().isF32())
    return emitOpError() << "expected an f32 descale memref, found "
                         << source.getElementType();
  if (source.getRank() != 0 && source.getRank() != 2 && source.getRank() != 3)
    return emitOpError() << "expected a rank-0, rank-2 or rank-3 descale "
                            "memref, found rank "
                         << source.getRank();
  if (result.getRank() != 1 || !result.getElementType().isF32())
    return emitOpError() << "expected a rank-1 f32 result, found " << result;
  std::optional<int64_t> block = getBlock();
  if ((source.getRank() == 3) != block.has_value())
    return emitOpError("expected a block size exactly when the descale is "
                       "per block (rank 3)");
  if (block && *block <= 0)
    return emitOpError() << "expected a positive block size, found " << *block;
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise tile ops
//===----------------------------------------------------------------------===//

static LogicalResult verifyScoresTile(Operation *op, RankedTensorType scores) {
  if (scores.getRank() != 2 || !scores.getElementType().isF32())
    return op->emitOpError()
           << "expected a rank-2 f32 scores tile, found " << scores;
  return success();
}

/// The row-vector state (m, l, alpha, lse) of an M-row tile is tensor<Mxf32>.
static LogicalResult verifyRowVector(Operation *op, StringRef name,
                                     RankedTensorType vec, int64_t rows) {
  if (vec.getRank() != 1 || !vec.getElementType().isF32() ||
      vec.getDimSize(0) != rows)
    return op->emitOpError() << "expected " << name << " to be tensor<" << rows
                             << "xf32>, found " << vec;
  return success();
}

LogicalResult MaskOp::verify() {
  if (failed(verifyScoresTile(*this, tensorType(getScores()))) ||
      failed(verifyWindowBound(*this, "window_left", getWindowLeft())) ||
      failed(verifyWindowBound(*this, "window_right", getWindowRight())))
    return failure();
  return success();
}

LogicalResult SoftcapOp::verify() {
  if (failed(verifyScoresTile(*this, tensorType(getScores()))) ||
      failed(verifyScalars(*this, getScaleAttr(), getDynamicScale(),
                           getSoftcapAttr(), getDynamicSoftcap(),
                           /*positiveSoftcap=*/true)))
    return failure();
  return success();
}

LogicalResult SoftmaxInitOp::verify() {
  RankedTensorType acc = tensorType(getAcc());
  if (acc.getRank() != 2 || !acc.getElementType().isF32())
    return emitOpError() << "expected a rank-2 f32 accumulator, found " << acc;
  int64_t rows = acc.getDimSize(0);
  if (failed(verifyRowVector(*this, "the running max", tensorType(getMax()),
                             rows)) ||
      failed(verifyRowVector(*this, "the running sum", tensorType(getSum()),
                             rows)))
    return failure();
  return success();
}

LogicalResult SoftmaxUpdateOp::verify() {
  RankedTensorType scores = tensorType(getScores());
  if (failed(verifyScoresTile(*this, scores)) ||
      failed(verifyScaleForm(*this, getScaleAttr(), getDynamicScale())) ||
      failed(verifyRowVector(*this, "the running max", tensorType(getMax()),
                             scores.getDimSize(0))))
    return failure();
  RankedTensorType probs = tensorType(getProbs());
  if (probs.getShape() != scores.getShape() ||
      !isSupportedElementType(probs.getElementType()))
    return emitOpError() << "expected probabilities of shape "
                         << scores.getDimSize(0) << "x" << scores.getDimSize(1)
                         << " in f32, f16, bf16 or f8E4M3FN, found " << probs;
  return success();
}

LogicalResult RescaleOp::verify() {
  RankedTensorType acc = tensorType(getAcc());
  if (acc.getRank() != 2 || !acc.getElementType().isF32())
    return emitOpError() << "expected a rank-2 f32 accumulator, found " << acc;
  return verifyRowVector(*this, "alpha", tensorType(getAlpha()),
                         acc.getDimSize(0));
}

LogicalResult FinalizeOp::verify() {
  RankedTensorType acc = tensorType(getAcc());
  if (acc.getRank() != 2 || !acc.getElementType().isF32())
    return emitOpError() << "expected a rank-2 f32 accumulator, found " << acc;
  if (failed(verifyScaleForm(*this, getScaleAttr(), getDynamicScale())) ||
      failed(verifyRowVector(*this, "the running max", tensorType(getMax()),
                             acc.getDimSize(0))))
    return failure();
  RankedTensorType out = tensorType(getOutput());
  Type outElem = out.getElementType();
  if (out.getShape() != acc.getShape() ||
      !(outElem.isF32() || outElem.isF16() || outElem.isBF16()))
    return emitOpError() << "expected an output of the accumulator's shape in "
                            "f32, f16 or bf16, found "
                         << out;
  return success();
}
