//===- SM80Builder.h - arithmetic of the sm_80 kernel (private) -*- C++ -*-===//
//
// The small builders that the sm_80 kernel emitter (AttentionKernel.cpp)
// and the patterns of its target ops (TargetToNVVM.cpp) share: constants,
// 32- and 64-bit index arithmetic, byte-offset pointers. The patterns build
// what the emitter built before the target ops existed, op for op, so that
// the kernels' PTX does not change (scripts/ptx_corpus.py).
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_LIB_CONVERSION_FATTNTONVVM_SM80_SM80BUILDER_H
#define FATTN_LIB_CONVERSION_FATTNTONVVM_SM80_SM80BUILDER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::fattn::sm80 {

class SM80Builder {
public:
  explicit SM80Builder(ImplicitLocOpBuilder &b)
      : b(b), ctx(b.getContext()), i1(b.getI1Type()), i32(b.getI32Type()),
        i64(b.getI64Type()), f32(b.getF32Type()),
        ptrG(LLVM::LLVMPointerType::get(ctx, 1)),
        ptrS(LLVM::LLVMPointerType::get(ctx, 3)) {}

  Value c32(int64_t v) {
    return arith::ConstantOp::create(b, b.getI32IntegerAttr(v));
  }
  Value c64(int64_t v) {
    return arith::ConstantOp::create(b, b.getI64IntegerAttr(v));
  }
  Value cf(double v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, c, x, y);
  }
  Value toI64(Value v) { return arith::ExtUIOp::create(b, i64, v); }
  /// `base` + `byteOffset` bytes, a pointer of `ptrType`.
  Value gep(Type ptrType, Value base, Value byteOffset) {
    return LLVM::GEPOp::create(b, ptrType, b.getI8Type(), base,
                               ValueRange{byteOffset});
  }

protected:
  ImplicitLocOpBuilder &b;
  MLIRContext *ctx;
  Type i1, i32, i64, f32, ptrG, ptrS;
};

} // namespace mlir::fattn::sm80

#endif // FATTN_LIB_CONVERSION_FATTNTONVVM_SM80_SM80BUILDER_H
