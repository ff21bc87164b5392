//===- SM80GradPipeline.cpp - fattn-sm80-grad-pipeline --------------------===//

#include "fattn/Pipelines/SM80GradPipeline.h"
#include "fattn/Conversion/FAttnGradToNVVM/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::fattn;

void mlir::fattn::buildSM80GradPipeline(
    OpPassManager &pm, const SM80GradPipelineOptions &options) {
  // The kernels' tiles (GradKernelBuilder.h): Q tiles of 64 rows, KV tiles
  // of 128 keys (8 warps of 16).
  pm.addPass(createFAttnTileGrad(FAttnTileGradOptions{64, 128}));
  pm.addPass(createConvertFAttnGradToNVVMSM80(
      ConvertFAttnGradToNVVMSM80Options{options.keepTargetOps}));
}

void mlir::fattn::registerFAttnSM80GradPipeline() {
  PassPipelineRegistration<SM80GradPipelineOptions>(
      "fattn-sm80-grad-pipeline",
      "Lower fattn.attention_grad functions to FlashAttention-2's three "
      "sm_80 backward kernels (cp.async, ldmatrix, mma.sync, f32 atomics) "
      "in a gpu.module of LLVM/NVVM ops",
      buildSM80GradPipeline);
}
