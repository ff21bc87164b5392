//===- GradToNVVMSM90.cpp - --convert-fattn-grad-to-nvvm-sm90 -------------===//
//
// The pass: builds the backward's kernels with the sm_90a main kernel
// (MainKernel.cpp) and, unless asked to keep the target ops, lowers them:
// the sm_80 pass's rewrites and upstream conversions for the upstream ops,
// then the fattn.sm90 target ops' patterns, whose operands (i32, i64, f32,
// LLVM structs) the upstream conversions leave as they are, then NVVM's
// inline-PTX ops (the SS wgmma) to LLVM.
//
//===----------------------------------------------------------------------===//

#include "fattn/Conversion/FAttnGradToNVVM/FAttnGradToNVVM.h"
#include "fattn/Conversion/FAttnGradToNVVM/Passes.h"
#include "fattn/Conversion/FAttnToNVVM/SM90/TargetToNVVM.h"
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
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

#define DEBUG_TYPE "convert-fattn-grad-to-nvvm-sm90"

namespace mlir::fattn {
#define GEN_PASS_DEF_CONVERTFATTNGRADTONVVMSM90
#include "fattn/Conversion/FAttnGradToNVVM/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

namespace {
struct ConvertFAttnGradToNVVMSM90Pass
    : public fattn::impl::ConvertFAttnGradToNVVMSM90Base<
          ConvertFAttnGradToNVVMSM90Pass> {
  using ConvertFAttnGradToNVVMSM90Base::ConvertFAttnGradToNVVMSM90Base;

  /// As the sm_80 pass: the lowering's passes and the conversion interfaces
  /// through which the GPU-to-NVVM conversion lowers the other dialects.
  void getDependentDialects(DialectRegistry &registry) const override {
    ConvertFAttnGradToNVVMSM90Base::getDependentDialects(registry);
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
    // What the pass would leave in place, named (as the sm_80 pass does).
    if (failed(refuseOpsNotLowered<AttentionGradOp>(
            module, getArgument(),
            "run --fattn-tile-grad=\"block-m=64 block-n=128\" first "
            "(--fattn-sm90-grad-pipeline runs both)")) ||
        failed(refuseOpsNotLowered<TiledAttentionOp>(
            module, getArgument(), "--convert-fattn-to-nvvm-sm90 lowers it")) ||
        failed(
            refuseSharedFunctions<TiledAttentionGradOp>(module, getArgument())))
      return signalPassFailure();
    if (failed(buildSM90GradKernels(module)))
      return signalPassFailure();
    if (keepTargetOps)
      return;
    auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>("fattn_kernels");
    if (!gpuModule)
      return;
    RewritePatternSet patterns(&getContext());
    populateLowerTiledGradToLinalgPatterns(patterns);
    populateSM80MathApproxPatterns(patterns);
    if (failed(applyPatternsGreedily(gpuModule, std::move(patterns))))
      return signalPassFailure();
    OpPassManager pm(gpu::GPUModuleOp::getOperationName());
    buildSM80GradKernelLowering(pm);
    if (failed(runPipeline(pm, gpuModule)))
      return signalPassFailure();
    if (failed(lowerSM90TargetOps(gpuModule)))
      return signalPassFailure();
    // The SS wgmma's NVVM op becomes its inline PTX.
    OpPassManager finish(gpu::GPUModuleOp::getOperationName());
    finish.addPass(createConvertNVVMToLLVMPass());
    finish.addPass(createCanonicalizerPass());
    finish.addPass(createCSEPass());
    if (failed(runPipeline(finish, gpuModule)))
      return signalPassFailure();
  }
};
} // namespace
