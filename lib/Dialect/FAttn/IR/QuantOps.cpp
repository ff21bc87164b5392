//===- QuantOps.cpp - FP8 accuracy ops ------------------------------------===//

#include "fattn/Dialect/FAttn/IR/FAttnQuantOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fattn;

#define GET_OP_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnQuantOps.cpp.inc"

LogicalResult HadamardRotateOp::verify() {
  MemRefType in = getInput().getType(), out = getOutput().getType();
  if (in.getRank() < 1)
    return emitOpError("expected rows to rotate, found a rank-0 input");
  if (out.getRank() != in.getRank())
    return emitOpError() << "expected an output of rank " << in.getRank()
                         << ", found rank " << out.getRank();
  for (int64_t d = 0; d < in.getRank(); ++d)
    if (!in.isDynamicDim(d) && !out.isDynamicDim(d) &&
        in.getDimSize(d) != out.getDimSize(d))
      return emitOpError() << "expected output dim " << d << " ("
                           << out.getDimSize(d) << ") to match input dim " << d
                           << " (" << in.getDimSize(d) << ")";
  int64_t width = in.getDimSize(in.getRank() - 1);
  if (ShapedType::isDynamic(width) || !llvm::isPowerOf2_64(width))
    return emitOpError() << "expected a static power-of-two row length, "
                            "found "
                         << (ShapedType::isDynamic(width)
                                 ? std::string("?")
                                 : std::to_string(width));
  for (auto [name, type] : {std::pair{"input", in}, std::pair{"output", out}}) {
    Type e = type.getElementType();
    if (!e.isF32() && !e.isF16() && !e.isBF16())
      return emitOpError() << "expected " << name
                           << " element type to be f32, f16 or bf16, found "
                           << e;
  }
  int64_t signs = getSigns().getType().getDimSize(0);
  if (!ShapedType::isDynamic(signs) && signs != width)
    return emitOpError() << "expected " << width << " signs, found " << signs;
  return success();
}
