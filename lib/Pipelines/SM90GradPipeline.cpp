//===- SM90GradPipeline.cpp - fattn-sm90-grad-pipeline --------------------===//

#include "fattn/Pipelines/SM90GradPipeline.h"
#include "fattn/Conversion/FAttnGradToNVVM/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::fattn;

void mlir::fattn::buildSM90GradPipeline(
    OpPassManager &pm, const SM90GradPipelineOptions &options) {
  // KV tiles of one or two warpgroups' 64 keys (wgmma's M) and the sm_80
  // kernels' Q tiles of 64 rows, so that the preprocess and postprocess
  // kernels and the workspaces are the same.
  pm.addPass(createFAttnTileGrad(FAttnTileGradOptions{64, options.blockN}));
  pm.addPass(createConvertFAttnGradToNVVMSM90(
      ConvertFAttnGradToNVVMSM90Options{options.keepTargetOps}));
}

void mlir::fattn::registerFAttnSM90GradPipeline() {
  PassPipelineRegistration<SM90GradPipelineOptions>(
      "fattn-sm90-grad-pipeline",
      "Lower fattn.attention_grad functions to three sm_90a backward kernels "
      "(the main one on wgmma, cp.async, bulk reductions) in a gpu.module of "
      "LLVM/NVVM ops",
      buildSM90GradPipeline);
}
