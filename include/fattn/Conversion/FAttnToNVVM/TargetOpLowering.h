//===- TargetOpLowering.h - One pattern per target op -----------*- C++ -*-===//
//
// The machinery that the sm_80 and sm_90a L3 -> L4 conversions share: one
// ConvertOpToLLVMPattern per target op, whose body is a target's
// `Lowering::lower(op, adaptor, rewriter)` building what the op stands for in
// the op's place, and the list of target ops that gives both the patterns
// and the ops the conversion target refuses.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_CONVERSION_FATTNTONVVM_TARGETOPLOWERING_H
#define FATTN_CONVERSION_FATTNTONVVM_TARGETOPLOWERING_H

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::fattn {

/// Replaces `op` by `result`, or erases it where `result` is null (an op
/// without results).
inline void replaceTargetOp(ConversionPatternRewriter &rewriter, Operation *op,
                            Value result) {
  if (result)
    rewriter.replaceOp(op, result);
  else
    rewriter.eraseOp(op);
}

/// Replaces `op` by `results`, or erases it where there are none.
inline void replaceTargetOp(ConversionPatternRewriter &rewriter, Operation *op,
                            ValueRange results) {
  if (results.empty())
    rewriter.eraseOp(op);
  else
    rewriter.replaceOp(op, results);
}

/// The pattern of target op `OpTy`: `Lowering::lower(op, adaptor, rewriter)`
/// builds in the op's place what it stands for and returns the op's
/// replacement, a Value (null for none) or a range of values. Building in
/// place keeps the kernel's instructions in their order through L3.
template <typename Lowering, typename OpTy>
struct TargetOpLowering : ConvertOpToLLVMPattern<OpTy> {
  using ConvertOpToLLVMPattern<OpTy>::ConvertOpToLLVMPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    replaceTargetOp(rewriter, op, Lowering::lower(op, adaptor, rewriter));
    return success();
  }
};

/// A target's ops, lowered by `Lowering`: their patterns, and the ops
/// that the conversion target marks illegal, from one list.
template <typename Lowering, typename... OpTys> struct TargetOpSet {
  static void addPatterns(LLVMTypeConverter &converter,
                          RewritePatternSet &patterns) {
    patterns.add<TargetOpLowering<Lowering, OpTys>...>(converter);
  }
  static void markIllegal(ConversionTarget &target) {
    target.addIllegalOp<OpTys...>();
  }
};

} // namespace mlir::fattn

#endif // FATTN_CONVERSION_FATTNTONVVM_TARGETOPLOWERING_H
