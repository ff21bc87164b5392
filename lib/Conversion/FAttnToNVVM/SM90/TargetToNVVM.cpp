//===- TargetToNVVM.cpp - sm_90a target ops (L3) to NVVM ------------------===//
//
// One ConvertOpToLLVMPattern per fattn.sm90.* op. Each pattern's body is the
// KernelBuilder calls that the op stands for, built in place of the op, so
// that the kernel's instructions keep their order through L3: the PTX
// depends on it (scripts/ptx_corpus.py checks every kernel).
//
//===----------------------------------------------------------------------===//

#include "fattn/Conversion/FAttnToNVVM/SM90/TargetToNVVM.h"
#include "fattn/Conversion/FAttnToNVVM/SM90/Passes.h"
#include "fattn/Dialect/FAttn/IR/FAttnSM90Ops.h"

#include "KernelBuilder.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Transforms/DialectConversion.h"

#define DEBUG_TYPE "convert-fattn-sm90-target-to-nvvm"

namespace mlir::fattn {
#define GEN_PASS_DEF_CONVERTFATTNSM90TARGETTONVVM
#include "fattn/Conversion/FAttnToNVVM/SM90/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;
using namespace mlir::fattn::sm90;

namespace {

/// The suspend-time hint of a wait, in ns: the PTX loop around
/// mbarrier.try_wait.parity retries past it until the phase completes.
constexpr int64_t kWaitSuspendHintNs = 10000000;

/// stage = ordinal mod stages.
struct RingStageLowering : ConvertOpToLLVMPattern<SM90RingStageOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SM90RingStageOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder e(rewriter, op.getLoc());
    rewriter.replaceOp(op, e.urem(adaptor.getOrdinal(), e.i32(op.getStages())));
    return success();
  }
};

/// phase = (ordinal / stages) mod 2.
struct RingPhaseLowering : ConvertOpToLLVMPattern<SM90RingPhaseOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SM90RingPhaseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder e(rewriter, op.getLoc());
    Value round = e.udiv(adaptor.getOrdinal(), e.i32(op.getStages()));
    rewriter.replaceOp(op, e.andI(round, e.i32(1)));
    return success();
  }
};

/// base + offset + 8 * stage, a byte address in shared memory.
struct RingBarrierLowering : ConvertOpToLLVMPattern<SM90RingBarrierOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SM90RingBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder e(rewriter, op.getLoc());
    Value entry = e.mul(adaptor.getStage(), e.i32(8));
    Value offset = e.add(e.i32(op.getOffset()), entry);
    rewriter.replaceOp(op, e.byteOffset(adaptor.getBase(), offset));
    return success();
  }
};

struct MBarrierInitLowering : ConvertOpToLLVMPattern<SM90MBarrierInitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SM90MBarrierInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder e(rewriter, op.getLoc());
    e.mbarrierInit(adaptor.getBarrier(), e.i32(op.getCount()),
                   adaptor.getPredicate());
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierWaitLowering : ConvertOpToLLVMPattern<SM90MBarrierWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SM90MBarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder e(rewriter, op.getLoc());
    e.mbarrierTryWaitParity(adaptor.getBarrier(), adaptor.getParity(),
                            e.i32(kWaitSuspendHintNs));
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierArriveLowering : ConvertOpToLLVMPattern<SM90MBarrierArriveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SM90MBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder e(rewriter, op.getLoc());
    e.mbarrierArrive(adaptor.getBarrier());
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierArriveExpectTxLowering
    : ConvertOpToLLVMPattern<SM90MBarrierArriveExpectTxOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SM90MBarrierArriveExpectTxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder e(rewriter, op.getLoc());
    e.mbarrierArriveExpectTx(adaptor.getBarrier(), e.i32(op.getBytes()));
    rewriter.eraseOp(op);
    return success();
  }
};

/// The copy's destination is the shared::cluster address of base + offset
/// (the CTA's own, without a cluster).
struct TmaLoadLowering : ConvertOpToLLVMPattern<SM90TmaLoadOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SM90TmaLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder e(rewriter, op.getLoc());
    Value dst = e.byteOffset(adaptor.getBase(), adaptor.getOffset());
    Value clusterDst = e.addrspacecast(dst, e.ptr(7));
    e.tmaLoad(clusterDst, adaptor.getMap(), adaptor.getBarrier(),
              adaptor.getCoordinates());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::fattn::populateSM90TargetToNVVMPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns
      .add<RingStageLowering, RingPhaseLowering, RingBarrierLowering,
           MBarrierInitLowering, MBarrierWaitLowering, MBarrierArriveLowering,
           MBarrierArriveExpectTxLowering, TmaLoadLowering>(converter);
}

LogicalResult mlir::fattn::lowerSM90TargetOps(Operation *root) {
  MLIRContext *ctx = root->getContext();
  LLVMTypeConverter converter(ctx);
  RewritePatternSet patterns(ctx);
  populateSM90TargetToNVVMPatterns(converter, patterns);
  LLVMConversionTarget target(*ctx);
  target.addLegalDialect<NVVM::NVVMDialect>();
  target.addIllegalOp<SM90RingStageOp, SM90RingPhaseOp, SM90RingBarrierOp,
                      SM90MBarrierInitOp, SM90MBarrierWaitOp,
                      SM90MBarrierArriveOp, SM90MBarrierArriveExpectTxOp,
                      SM90TmaLoadOp>();
  return applyPartialConversion(root, target, std::move(patterns));
}

namespace {
struct ConvertFAttnSM90TargetToNVVMPass
    : public fattn::impl::ConvertFAttnSM90TargetToNVVMBase<
          ConvertFAttnSM90TargetToNVVMPass> {
  void runOnOperation() override {
    if (failed(lowerSM90TargetOps(getOperation())))
      signalPassFailure();
  }
};
} // namespace
