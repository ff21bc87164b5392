//===- CPUPipeline.cpp - fattn-cpu-pipeline -------------------------------===//

#include "fattn/Dialect/FAttn/Transforms/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h"
#include "fattn/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::fattn;

void mlir::fattn::buildCPUPipeline(OpPassManager &pm,
                                   const CPUPipelineOptions &options) {
  pm.addPass(createFAttnLowerQuantize());
  pm.addPass(createFAttnLowerHadamard());
  pm.addPass(createFAttnLowerAttentionGrad(FAttnLowerAttentionGradOptions{
      options.blockM, options.blockN,
      /*dynamicHeadDimsOnly=*/options.gradTiled}));
  if (options.gradTiled) {
    pm.addPass(createFAttnTileGrad(
        FAttnTileGradOptions{options.blockM, options.blockN}));
    pm.addPass(createFAttnLowerTiledGradToLinalg());
  }
  // The tiled form needs static head dims; the others run row by row.
  pm.addPass(createFAttnLowerRowwise(
      FAttnLowerRowwiseOptions{/*dynamicHeadDimsOnly=*/true}));
  pm.addPass(createFAttnTile(FAttnTileOptions{options.blockM, options.blockN}));
  if (options.fp8Layout)
    pm.addPass(createFAttnFP8Layout());
  pm.addPass(createFAttnLowerFP8Layout());
  pm.addPass(createFAttnLowerTiledToLinalg());
  pm.addPass(createCanonicalizerPass());

  bufferization::OneShotBufferizePassOptions bufferizeOptions;
  bufferizeOptions.bufferizeFunctionBoundaries = true;
  // The KV loops carry freshly computed tiles (m, l, acc) across iterations.
  bufferizeOptions.allowReturnAllocsFromLoops = true;
  bufferizeOptions.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferizeOptions));
  pm.addPass(createFAttnDeallocateCPUKernels());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());

  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // The user's code may print or compute with vectors.
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::fattn::registerFAttnPipelines() {
  PassPipelineRegistration<CPUPipelineOptions>(
      "fattn-cpu-pipeline",
      "Lower fattn.attention through the tiled form to the LLVM dialect for "
      "execution on the CPU (mlir-runner)",
      buildCPUPipeline);
}
