//===- FP8Ops.cpp - the sm_90a FP8 operand layout -------------------------===//

#include "fattn/Dialect/FAttn/IR/FAttnFP8Ops.h"
#include "fattn/Dialect/FAttn/IR/FAttnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::fattn;

#define GET_OP_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnFP8Ops.cpp.inc"

//===----------------------------------------------------------------------===//
// Key permutations
//===----------------------------------------------------------------------===//

std::optional<int64_t> mlir::fattn::getKeyPermutationMultiple(StringRef name) {
  // One k step of e4m3 wgmma: 32 keys.
  if (name == kWgmmaE4M3K32KeyPermutation)
    return 32;
  return std::nullopt;
}

int64_t mlir::fattn::wgmmaE4M3K32KeySource(int64_t slot) {
  // The accumulator gives thread q (lane % 4) columns 2q, 2q + 1 of each
  // 8-column group; the A operand wants 4 consecutive k slots per register.
  // Packing the thread's columns of two neighbouring groups into one
  // register needs no shuffle between threads.
  int64_t c = slot % 16, quad = c / 4, pos = c % 4;
  return 16 * (slot / 16) + 2 * quad + pos % 2 + 8 * (pos / 2);
}

int64_t mlir::fattn::getKeySource(StringRef name, int64_t slot) {
  if (name == kWgmmaE4M3K32KeyPermutation)
    return wgmmaE4M3K32KeySource(slot);
  llvm_unreachable("unknown key permutation");
}

/// Checks that `name` is a known permutation and that `keys` is a multiple
/// of what it needs.
static LogicalResult verifyKeyPermutation(Operation *op, StringRef name,
                                          int64_t keys) {
  std::optional<int64_t> multiple = getKeyPermutationMultiple(name);
  if (!multiple)
    return op->emitOpError() << "unknown key permutation \"" << name
                             << "\" (expected \""
                             << kWgmmaE4M3K32KeyPermutation << "\")";
  if (keys % *multiple != 0)
    return op->emitOpError() << "key permutation \"" << name << "\" needs a "
                             << "multiple of " << *multiple
                             << " keys, found " << keys;
  return success();
}

//===----------------------------------------------------------------------===//
// PermuteKeysOp
//===----------------------------------------------------------------------===//

LogicalResult PermuteKeysOp::verify() {
  auto type = cast<RankedTensorType>(getInput().getType());
  if (type.getRank() != 1 && type.getRank() != 2)
    return emitOpError() << "expected a rank-1 or rank-2 tile, found rank "
                         << type.getRank();
  return verifyKeyPermutation(*this, getKeyPermutation(),
                              type.getShape().back());
}

OpFoldResult PermuteKeysOp::fold(FoldAdaptor adaptor) {
  // Reordering equal values changes nothing (e.g. the zero P that the
  // pipelined loop carries into an empty KV range).
  if (isa_and_nonnull<SplatElementsAttr>(adaptor.getInput()))
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// TransposeTileOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeTileOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (input.getRank() != 2)
    return emitOpError() << "expected a rank-2 tile, found rank "
                         << input.getRank();
  auto transposed = RankedTensorType::get(
      {input.getDimSize(1), input.getDimSize(0)}, input.getElementType());
  if (result != transposed)
    return emitOpError() << "expected the result to be the transposed tile "
                         << transposed << ", found " << result;
  return verifyKeyPermutation(*this, getKeyPermutation(),
                              input.getDimSize(0));
}

LogicalResult TransposeTileOp::canonicalize(TransposeTileOp op,
                                            PatternRewriter &rewriter) {
  // A splat stays a splat; a new constant of the transposed shape replaces
  // it (fattn has no constant materializer, so this is not a fold).
  SplatElementsAttr splat;
  if (!matchPattern(op.getInput(), m_Constant(&splat)))
    return failure();
  rewriter.replaceOpWithNewOp<arith::ConstantOp>(
      op, splat.resizeSplat(cast<ShapedType>(op.getResult().getType())));
  return success();
}

//===----------------------------------------------------------------------===//
// The permuted P V product
//===----------------------------------------------------------------------===//

Value mlir::fattn::createPermutedValueProduct(OpBuilder &b, Location loc,
                                              Type resultType, Value p,
                                              Value vt, Value acc,
                                              Value lhsScale,
                                              Value valueRowScale) {
  Value pp =
      PermuteKeysOp::create(b, loc, p.getType(), p, kWgmmaE4M3K32KeyPermutation);
  Value columnScale;
  if (valueRowScale) {
    // Every key of the tile has the same factor, so scaling the keys equals
    // scaling the output columns by the first one.
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value factor = tensor::ExtractOp::create(b, loc, valueRowScale, zero);
    int64_t columns = cast<RankedTensorType>(vt.getType()).getDimSize(0);
    columnScale =
        tensor::SplatOp::create(b, loc, factor, ArrayRef<int64_t>{columns});
  }
  return MmaOp::create(b, loc, resultType, pp, vt, acc, lhsScale, columnScale,
                       /*transpose_rhs=*/true);
}

bool mlir::fattn::hasOneValueFactorPerTile(Value vDescale,
                                           std::optional<uint64_t> block,
                                           int64_t blockN) {
  return !vDescale || cast<MemRefType>(vDescale.getType()).getRank() != 3 ||
         !block || static_cast<int64_t>(*block) % blockN == 0;
}
