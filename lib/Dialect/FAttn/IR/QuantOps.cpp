//===- QuantOps.cpp - FP8 accuracy ops ------------------------------------===//

#include "fattn/Dialect/FAttn/IR/FAttnQuantOps.h"
#include "fattn/Dialect/FAttn/IR/DestinationStyle.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fattn;

#define GET_OP_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnQuantOps.cpp.inc"

namespace {
/// "?" for a dynamic size, else the number.
std::string sizeStr(int64_t size) {
  return ShapedType::isDynamic(size) ? std::string("?") : std::to_string(size);
}

/// The signs operand (#1 of both ops): one f32 per column.
LogicalResult verifySignsType(Operation *op, Value signs) {
  auto type = cast<ShapedType>(signs.getType());
  if (type.getRank() == 1 && type.getElementType().isF32())
    return success();
  return op->emitOpError() << "operand #1 must be 1D "
                           << (isa<TensorType>(type) ? "tensor" : "memref")
                           << " of 32-bit float values, but got " << type;
}

/// Whether two sizes disagree (dynamic sizes agree with anything).
bool disagree(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}
} // namespace

LogicalResult HadamardRotateOp::verify() {
  if (failed(verifyOneShapedKind(*this, {{"input", getInput()},
                                         {"signs", getSigns()},
                                         {"output", getOutput()}})) ||
      failed(verifySignsType(*this, getSigns())))
    return failure();
  ShapedType in = getInput().getType(), out = getOutput().getType();
  if (in.getRank() < 1)
    return emitOpError("expected rows to rotate, found a rank-0 input");
  if (out.getRank() != in.getRank())
    return emitOpError() << "expected an output of rank " << in.getRank()
                         << ", found rank " << out.getRank();
  for (int64_t d = 0; d < in.getRank(); ++d)
    if (disagree(in.getDimSize(d), out.getDimSize(d)))
      return emitOpError() << "expected output dim " << d << " ("
                           << out.getDimSize(d) << ") to match input dim " << d
                           << " (" << in.getDimSize(d) << ")";
  int64_t width = in.getDimSize(in.getRank() - 1);
  if (ShapedType::isDynamic(width) || !llvm::isPowerOf2_64(width))
    return emitOpError() << "expected a static power-of-two row length, "
                            "found "
                         << sizeStr(width);
  for (auto [name, type] : {std::pair{"input", in}, std::pair{"output", out}}) {
    Type e = type.getElementType();
    if (!e.isF32() && !e.isF16() && !e.isBF16())
      return emitOpError() << "expected " << name
                           << " element type to be f32, f16 or bf16, found "
                           << e;
  }
  int64_t signs = getSigns().getType().getDimSize(0);
  if (disagree(signs, width))
    return emitOpError() << "expected " << width << " signs, found " << signs;
  return success();
}

LogicalResult QuantizeOp::verify() {
  if (failed(verifyOneShapedKind(*this, {{"input", getInput()},
                                         {"signs", getSigns()},
                                         {"output", getOutput()},
                                         {"descale", getDescale()}})) ||
      (getSigns() && failed(verifySignsType(*this, getSigns()))))
    return failure();
  ShapedType in = getInput().getType(), out = getOutput().getType();
  ShapedType descale = getDescale().getType();
  for (auto [name, type] : {std::pair{"input", in}, std::pair{"output", out}})
    if (type.getRank() != 4)
      return emitOpError() << "expected " << name
                           << " to be rank 4 ([batch, heads, seq, d]), found "
                              "rank "
                           << type.getRank();
  Type inElem = in.getElementType();
  if (!inElem.isF32() && !inElem.isF16() && !inElem.isBF16())
    return emitOpError()
           << "expected input element type to be f32, f16 or bf16, found "
           << inElem;
  if (!isa<Float8E4M3FNType>(out.getElementType()))
    return emitOpError() << "expected output element type to be f8E4M3FN, "
                            "found "
                         << out.getElementType();
  for (int64_t d = 0; d < 4; ++d)
    if (disagree(in.getDimSize(d), out.getDimSize(d)))
      return emitOpError() << "expected output dim " << d << " ("
                           << out.getDimSize(d) << ") to match input dim " << d
                           << " (" << in.getDimSize(d) << ")";

  if (!descale.getElementType().isF32())
    return emitOpError() << "expected descale element type to be f32, found "
                         << descale.getElementType();
  std::optional<int64_t> block = getBlock();
  if (block && *block <= 0)
    return emitOpError() << "expected a positive block, found " << *block;
  if (block && descale.getRank() != 3)
    return emitOpError() << "expected block only with a rank-3 (per-block) "
                            "descale, found rank "
                         << descale.getRank();
  int64_t batch = in.getDimSize(0), heads = in.getDimSize(1),
          seq = in.getDimSize(2);
  auto checkDim = [&](int64_t d, StringRef what,
                      int64_t expected) -> LogicalResult {
    if (!disagree(descale.getDimSize(d), expected))
      return success();
    return emitOpError() << "expected descale dim " << d << " ("
                         << descale.getDimSize(d) << ") to match the input's "
                         << what << " (" << expected << ")";
  };
  switch (descale.getRank()) {
  case 0:
    break;
  case 2: {
    if (failed(checkDim(0, "batch size", batch)))
      return failure();
    int64_t groups = descale.getDimSize(1);
    if (!ShapedType::isDynamic(groups) && !ShapedType::isDynamic(heads) &&
        (groups == 0 || heads % groups != 0))
      return emitOpError() << "expected the descale's head group count ("
                           << groups << ") to divide the head count (" << heads
                           << ")";
    break;
  }
  case 3: {
    if (!block)
      return emitOpError("expected a block attribute with a rank-3 "
                         "(per-block) descale");
    if (failed(checkDim(0, "batch size", batch)) ||
        failed(checkDim(1, "head count", heads)))
      return failure();
    int64_t blocks = descale.getDimSize(2);
    if (!ShapedType::isDynamic(seq) &&
        disagree(blocks, llvm::divideCeil(seq, *block)))
      return emitOpError() << "expected descale block count (" << blocks
                           << ") to be ceildiv(sequence length, block) = "
                           << llvm::divideCeil(seq, *block);
    break;
  }
  default:
    return emitOpError() << "expected descale to be rank 0 (per tensor), 2 "
                            "([batch, head groups]) or 3 ([batch, heads, "
                            "blocks]), found rank "
                         << descale.getRank();
  }

  if (TypedValue<ShapedType> signs = getSigns()) {
    int64_t width = in.getDimSize(3);
    if (ShapedType::isDynamic(width) || !llvm::isPowerOf2_64(width))
      return emitOpError() << "expected a static power-of-two d with signs, "
                              "found "
                           << sizeStr(width);
    int64_t count = signs.getType().getDimSize(0);
    if (disagree(count, width))
      return emitOpError() << "expected " << width << " signs, found " << count;
  }
  return success();
}

void HadamardRotateOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getDestinationStyleEffects(*this, effects);
}

void QuantizeOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getDestinationStyleEffects(*this, effects);
}
