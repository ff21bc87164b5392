//===- GradToNVVM.cpp - --convert-fattn-grad-to-nvvm-sm80 -----------------===//
//
// The pass: builds the backward's kernels (GradKernels.cpp) and, unless
// asked to keep the target ops, lowers them with upstream conversions, after
// the two rewrites that upstream does not do: fattn.q_tile_range to arith
// (the CPU lowering's pattern), nvgpu.mma.sync on bf16 to nvvm.mma.sync,
// math.exp2 and math.tanh to ex2.approx.ftz and tanh.approx.
//
//===----------------------------------------------------------------------===//

#include "fattn/Conversion/FAttnGradToNVVM/FAttnGradToNVVM.h"
#include "fattn/Conversion/FAttnGradToNVVM/Passes.h"
#include "fattn/Conversion/UnloweredOps.h"
#include "fattn/Dialect/FAttn/IR/FAttnGradOps.h"
#include "fattn/Dialect/FAttn/IR/FAttnOps.h"
#include "fattn/Dialect/FAttn/IR/FAttnTiledGradOps.h"
#include "fattn/Dialect/FAttn/Transforms/Transforms.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

#define DEBUG_TYPE "convert-fattn-grad-to-nvvm-sm80"

namespace mlir::fattn {
#define GEN_PASS_DEF_CONVERTFATTNGRADTONVVMSM80
#include "fattn/Conversion/FAttnGradToNVVM/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

namespace {
/// nvgpu.mma.sync m16n8k16 with bf16 operands and f32 accumulators as
/// nvvm.mma.sync: each operand row of two bf16 is one 32-bit register.
struct BF16MmaSyncLowering : OpRewritePattern<nvgpu::MmaSyncOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(nvgpu::MmaSyncOp op,
                                PatternRewriter &rewriter) const override {
    auto aType = cast<VectorType>(op.getMatrixA().getType());
    auto cType = cast<VectorType>(op.getMatrixC().getType());
    if (!aType.getElementType().isBF16())
      return rewriter.notifyMatchFailure(op, "not bf16");
    if (op.getMmaShapeAsArray() != std::array<int64_t, 3>{16, 8, 16} ||
        !cType.getElementType().isF32() ||
        cType.getShape() != ArrayRef<int64_t>{2, 2})
      return rewriter.notifyMatchFailure(op, "not m16n8k16 into f32");
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();
    auto registers = [&](Value fragment) {
      auto type = cast<VectorType>(fragment.getType());
      SmallVector<Value> regs;
      for (int64_t i = 0; i < type.getShape()[0]; ++i) {
        Value row = vector::ExtractOp::create(rewriter, loc, fragment,
                                              ArrayRef<int64_t>{i});
        Value word = vector::BitCastOp::create(rewriter, loc,
                                               VectorType::get({1}, i32), row);
        regs.push_back(vector::ExtractOp::create(rewriter, loc, word,
                                                 ArrayRef<int64_t>{0}));
      }
      return regs;
    };
    SmallVector<Value> acc;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        acc.push_back(vector::ExtractOp::create(rewriter, loc, op.getMatrixC(),
                                                ArrayRef<int64_t>{i, j}));
    auto resultType =
        LLVM::LLVMStructType::getLiteral(getContext(), {f32, f32, f32, f32});
    Value mma = NVVM::MmaOp::create(
        rewriter, loc, resultType, registers(op.getMatrixA()),
        registers(op.getMatrixB()), acc, ArrayRef<int64_t>{16, 8, 16},
        std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                      NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> elements;
    for (int64_t i = 0; i < 4; ++i)
      elements.push_back(LLVM::ExtractValueOp::create(rewriter, loc, mma, i));
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, cType, elements);
    return success();
  }
};

/// ex2.approx.ftz.f32 of `x`.
Value approxExp2(PatternRewriter &rewriter, Location loc, Value x) {
  return LLVM::CallIntrinsicOp::create(
             rewriter, loc, rewriter.getF32Type(),
             rewriter.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"),
             ValueRange{x})
      .getResult(0);
}

/// tanh.approx.f32 of `x` (sm_75+), which no NVVM op or LLVM intrinsic
/// exposes: inline PTX, as the forward kernels' softcap.
Value approxTanh(PatternRewriter &rewriter, Location loc, Value x) {
  return LLVM::InlineAsmOp::create(
             rewriter, loc, rewriter.getF32Type(), ValueRange{x},
             "tanh.approx.f32 $0, $1;", "=f,f", /*has_side_effects=*/false,
             /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
             /*asm_dialect=*/LLVM::AsmDialectAttr(),
             /*operand_attrs=*/ArrayAttr())
      .getResult(0);
}

/// A math op on f32 (scalars or vectors) as an approximate PTX instruction
/// per element: math.exp2 as ex2.approx.ftz and math.tanh as tanh.approx, as
/// the forward kernels compute them (upstream's GPU conversion would call
/// libdevice for scalars and rejects vectors).
template <typename MathOp>
struct ToApproxInstruction : OpRewritePattern<MathOp> {
  using Build = Value (*)(PatternRewriter &, Location, Value);
  ToApproxInstruction(MLIRContext *ctx, Build build)
      : OpRewritePattern<MathOp>(ctx), build(build) {}

  LogicalResult matchAndRewrite(MathOp op,
                                PatternRewriter &rewriter) const override {
    auto vectorType = dyn_cast<VectorType>(op.getType());
    if (!getElementTypeOrSelf(op.getType()).isF32())
      return rewriter.notifyMatchFailure(op, "not f32");
    Location loc = op.getLoc();
    if (!vectorType) {
      rewriter.replaceOp(op, build(rewriter, loc, op.getOperand()));
      return success();
    }
    SmallVector<Value> elements;
    SmallVector<int64_t> position(vectorType.getRank(), 0);
    for (int64_t i = 0; i < vectorType.getNumElements(); ++i) {
      int64_t rest = i;
      for (int64_t dim = vectorType.getRank() - 1; dim >= 0; --dim) {
        position[dim] = rest % vectorType.getDimSize(dim);
        rest /= vectorType.getDimSize(dim);
      }
      elements.push_back(build(
          rewriter, loc,
          vector::ExtractOp::create(rewriter, loc, op.getOperand(), position)));
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, vectorType,
                                                        elements);
    return success();
  }

  Build build;
};

struct ConvertFAttnGradToNVVMSM80Pass
    : public fattn::impl::ConvertFAttnGradToNVVMSM80Base<
          ConvertFAttnGradToNVVMSM80Pass> {
  using ConvertFAttnGradToNVVMSM80Base::ConvertFAttnGradToNVVMSM80Base;

  /// The lowering's passes, and the conversion interfaces through which
  /// the GPU-to-NVVM conversion lowers the other dialects' ops, whatever
  /// the tool registered.
  void getDependentDialects(DialectRegistry &registry) const override {
    ConvertFAttnGradToNVVMSM80Base::getDependentDialects(registry);
    registry.insert<ub::UBDialect>();
    OpPassManager pm(gpu::GPUModuleOp::getOperationName());
    buildSM80GradKernelLowering(pm);
    pm.getDependentDialects(registry);
    arith::registerConvertArithToLLVMInterface(registry);
    cf::registerConvertControlFlowToLLVMInterface(registry);
    index::registerConvertIndexToLLVMInterface(registry);
    registerConvertMathToLLVMInterface(registry);
    registerConvertMemRefToLLVMInterface(registry);
    registerConvertNVVMToLLVMInterface(registry);
    NVVM::registerConvertGpuToNVVMInterface(registry);
    ub::registerConvertUBToLLVMInterface(registry);
    vector::registerConvertVectorToLLVMInterface(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(refuseOpsNotLowered<AttentionGradOp>(
            module, getArgument(),
            "run --fattn-tile-grad=\"block-m=64 block-n=128\" first "
            "(--fattn-sm80-grad-pipeline runs both)")) ||
        failed(refuseOpsNotLowered<TiledAttentionOp>(
            module, getArgument(), "--convert-fattn-to-nvvm lowers it")) ||
        failed(refuseSharedFunctions<TiledAttentionGradOp>(module,
                                                           getArgument())))
      return signalPassFailure();
    if (failed(buildSM80GradKernels(module)))
      return signalPassFailure();
    if (keepTargetOps)
      return;
    auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>("fattn_kernels");
    if (!gpuModule)
      return;
    RewritePatternSet patterns(&getContext());
    populateLowerTiledGradToLinalgPatterns(patterns);
    populateSM80BF16MmaSyncPatterns(patterns);
    populateSM80MathApproxPatterns(patterns);
    if (failed(applyPatternsGreedily(gpuModule, std::move(patterns))))
      return signalPassFailure();
    OpPassManager pm(gpu::GPUModuleOp::getOperationName());
    buildSM80GradKernelLowering(pm);
    if (failed(runPipeline(pm, gpuModule)))
      return signalPassFailure();
  }
};
} // namespace

void mlir::fattn::populateSM80BF16MmaSyncPatterns(RewritePatternSet &patterns) {
  patterns.add<BF16MmaSyncLowering>(patterns.getContext());
}

void mlir::fattn::populateSM80MathApproxPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ToApproxInstruction<math::Exp2Op>>(ctx, approxExp2);
  patterns.add<ToApproxInstruction<math::TanhOp>>(ctx, approxTanh);
}

void mlir::fattn::buildSM80GradKernelLowering(OpPassManager &pm) {
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertGpuOpsToNVVMOps());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}
