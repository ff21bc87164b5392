//===- TiledGradOps.cpp - the tiled backward form -------------------------===//

#include "fattn/Dialect/FAttn/IR/AttentionVerification.h"
#include "fattn/Dialect/FAttn/IR/FAttnTiledGradOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fattn;

#define GET_OP_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnTiledGradOps.cpp.inc"

static RankedTensorType tileType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// The element types of the backward's inputs, outputs and rounded tiles.
static bool isGradElementType(Type t) {
  return t.isF32() || t.isF16() || t.isBF16();
}

/// I64Attr accessors return uint64_t; compare as signed.
static LogicalResult verifyGradBlockSizes(Operation *op, int64_t blockM,
                                          int64_t blockN) {
  if (blockM > 0 && blockN > 0)
    return success();
  return op->emitOpError() << "expected positive block sizes, found block_m = "
                           << blockM << ", block_n = " << blockN;
}

/// `vec` is the f32 row vector (LSE, D) of a tile of `rows` rows.
static LogicalResult verifyRowsOf(Operation *op, StringRef name,
                                  RankedTensorType vec, int64_t rows) {
  if (vec.getRank() == 1 && vec.getElementType().isF32() &&
      vec.getDimSize(0) == rows)
    return success();
  return op->emitOpError() << "expected " << name << " to be tensor<" << rows
                           << "xf32>, found " << vec;
}

/// `tile` is a rank-2 f32 tile (scores, probabilities, accumulators).
static LogicalResult verifyF32Tile(Operation *op, StringRef name,
                                   RankedTensorType tile) {
  if (tile.getRank() == 2 && tile.getElementType().isF32())
    return success();
  return op->emitOpError() << "expected " << name
                           << " to be a rank-2 f32 tile, found " << tile;
}

//===----------------------------------------------------------------------===//
// TiledAttentionGradOp
//===----------------------------------------------------------------------===//

/// A workspace holds f32 values of `ref`'s logical shape.
static LogicalResult verifyWorkspace(Operation *op, StringRef name,
                                     MemRefType workspace, StringRef refName,
                                     ShapedType ref) {
  bool sameSizes = workspace.getRank() == ref.getRank();
  for (int64_t d = 0; sameSizes && d < ref.getRank(); ++d)
    sameSizes = workspace.isDynamicDim(d) || ref.isDynamicDim(d) ||
                workspace.getDimSize(d) == ref.getDimSize(d);
  if (sameSizes && workspace.getElementType().isF32())
    return success();
  return op->emitOpError() << "expected the " << name
                           << " workspace to be f32 with the shape of "
                           << refName << " (" << ref << "), found "
                           << workspace;
}

LogicalResult TiledAttentionGradOp::verify() {
  Type elemType = getQuery().getType().getElementType();
  if (!isGradElementType(elemType))
    return emitOpError() << "expected query element type to be f32, f16 or "
                            "bf16, found "
                         << elemType;
  if (failed(verifyGradOperands(*this)))
    return failure();
  if (failed(verifyWorkspace(*this, "delta", getDelta().getType(), "lse",
                             getLse().getType())) ||
      failed(verifyWorkspace(*this, "dq_accum", getDqAccum().getType(), "query",
                             getQuery().getType())))
    return failure();
  if (failed(verifyScale(*this, "scale", getScale().convertToFloat())) ||
      failed(verifySoftcap(*this, getSoftcap().convertToFloat())) ||
      failed(verifyWindowBound(*this, "window_left", getWindowLeft())) ||
      failed(verifyWindowBound(*this, "window_right", getWindowRight())))
    return failure();
  return verifyGradBlockSizes(*this, getBlockM(), getBlockN());
}

LogicalResult TiledAttentionGradOp::verifyRegions() {
  struct Grid {
    Region &region;
    StringRef name, arguments;
  };
  for (Grid grid :
       {Grid{getPreprocess(), "preprocess", "batch, head, q_tile"},
        Grid{getBody(), "body", "batch, kv_head, kv_tile"},
        Grid{getPostprocess(), "postprocess", "batch, head, q_tile"}}) {
    Block &block = grid.region.front();
    if (block.getNumArguments() == 3 &&
        llvm::all_of(block.getArgumentTypes(),
                     [](Type t) { return t.isIndex(); }))
      continue;
    return emitOpError() << "expected the " << grid.name
                         << " region to take three index arguments ("
                         << grid.arguments << "), found "
                         << block.getNumArguments() << " argument(s)";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Tile ops
//===----------------------------------------------------------------------===//

LogicalResult QTileRangeOp::verify() {
  if (failed(verifyWindowBound(*this, "window_left", getWindowLeft())) ||
      failed(verifyWindowBound(*this, "window_right", getWindowRight())))
    return failure();
  return verifyGradBlockSizes(*this, getBlockM(), getBlockN());
}

LogicalResult RowDotOp::verify() {
  RankedTensorType lhs = tileType(getLhs());
  if (lhs.getRank() != 2 || !isGradElementType(lhs.getElementType()))
    return emitOpError() << "expected rank-2 tiles of f32, f16 or bf16, found "
                         << lhs;
  return verifyRowsOf(*this, "the result", tileType(getResult()),
                      lhs.getDimSize(0));
}

LogicalResult GradProbsOp::verify() {
  RankedTensorType scores = tileType(getScores());
  if (failed(verifyF32Tile(*this, "the scores", scores)) ||
      failed(verifyRowsOf(*this, "the log-sum-exp", tileType(getLse()),
                          scores.getDimSize(0))))
    return failure();
  return verifyScale(*this, "scale", getScale().convertToFloat());
}

LogicalResult GradScoresOp::verify() {
  RankedTensorType probs = tileType(getProbs());
  if (failed(verifyF32Tile(*this, "the probabilities", probs)) ||
      failed(verifyRowsOf(*this, "delta", tileType(getDelta()),
                          probs.getDimSize(0))) ||
      failed(verifySoftcap(*this, getSoftcap().convertToFloat())))
    return failure();
  bool capped = getSoftcap().convertToFloat() > 0;
  if (capped != static_cast<bool>(getCapped()))
    return emitOpError() << "expected the capped scores exactly when softcap > "
                            "0, found softcap = "
                         << getSoftcap().convertToFloat() << " and "
                         << (getCapped() ? "capped scores" : "none");
  if (getCapped() && getCapped().getType() != probs)
    return emitOpError() << "expected the capped scores to be " << probs
                         << ", found " << getCapped().getType();
  RankedTensorType result = tileType(getResult());
  if (result.getShape() != probs.getShape() ||
      !isGradElementType(result.getElementType()))
    return emitOpError() << "expected a result of shape " << probs.getDimSize(0)
                         << "x" << probs.getDimSize(1)
                         << " in f32, f16 or bf16, found " << result;
  return success();
}

LogicalResult MmaTransposeLhsOp::verify() {
  RankedTensorType lhs = tileType(getLhs()), rhs = tileType(getRhs());
  RankedTensorType result = tileType(getResult());
  if (lhs.getRank() != 2 || rhs.getRank() != 2)
    return emitOpError("expected rank-2 operands");
  if (failed(verifyF32Tile(*this, "the result", result)))
    return failure();
  Type rhsElem = rhs.getElementType(), lhsElem = lhs.getElementType();
  if (!isGradElementType(rhsElem) || (lhsElem != rhsElem && !lhsElem.isF32()))
    return emitOpError() << "expected rhs of f32, f16 or bf16 and lhs of f32 "
                            "or rhs's element type, found "
                         << lhsElem << " and " << rhsElem;
  if (lhs.getDimSize(0) != rhs.getDimSize(0))
    return emitOpError() << "expected the rows of lhs (" << lhs.getDimSize(0)
                         << ") and rhs (" << rhs.getDimSize(0)
                         << ") to match: both are the reduction";
  int64_t m = lhs.getDimSize(1), n = rhs.getDimSize(1);
  if (result.getDimSize(0) != m || result.getDimSize(1) != n)
    return emitOpError() << "expected a " << m << "x" << n << " result, found "
                         << result.getDimSize(0) << "x" << result.getDimSize(1);
  return success();
}

LogicalResult AccumulateTileOp::verify() {
  RankedTensorType tile = tileType(getTile());
  MemRefType dest = getDest().getType();
  if (failed(verifyF32Tile(*this, "the tile", tile)))
    return failure();
  if (dest.getRank() != 4 || !dest.getElementType().isF32())
    return emitOpError() << "expected a rank-4 f32 accumulator, found " << dest;
  if (!dest.isDynamicDim(3) && dest.getDimSize(3) != tile.getDimSize(1))
    return emitOpError() << "expected tile columns (" << tile.getDimSize(1)
                         << ") to match the accumulator's head dim ("
                         << dest.getDimSize(3) << ")";
  return success();
}

LogicalResult ScaleTileOp::verify() {
  RankedTensorType input = tileType(getInput()), result = tileType(getResult());
  if (!input.getElementType().isF32())
    return emitOpError() << "expected an f32 input, found " << input;
  if (result.getShape() != input.getShape() ||
      !isGradElementType(result.getElementType()))
    return emitOpError() << "expected a result of the input's shape in f32, "
                            "f16 or bf16, found "
                         << result;
  float scale = getScale().convertToFloat();
  if (!std::isfinite(scale))
    return emitOpError() << "expected a finite scale, found " << scale;
  return success();
}
