//===- SM80Pipeline.cpp - fattn-sm80-pipeline -----------------------------===//

#include "fattn/Pipelines/SM80Pipeline.h"
#include "fattn/Conversion/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/SM80/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::fattn;

void mlir::fattn::buildSM80Pipeline(OpPassManager &pm,
                                    const SM80PipelineOptions &options) {
  if (options.hostLaunch)
    pm.addPass(createFAttnOutlineAttention());
  pm.addPass(createFAttnTile(FAttnTileOptions{options.blockM, options.blockN}));
  pm.addPass(createFAttnSM80AsyncCopy(FAttnSM80AsyncCopyOptions{options.stages}));
  pm.addPass(createFAttnSM80Mma());
  pm.addPass(createConvertFAttnToNVVM(
      ConvertFAttnToNVVMOptions{"sm_80", options.keepTargetOps}));
  if (options.keepTargetOps)
    return;
  OpPassManager &gpu = pm.nest<gpu::GPUModuleOp>();
  gpu.addPass(createSCFToControlFlowPass());
  gpu.addPass(createConvertNVVMToLLVMPass());
  gpu.addPass(createArithToLLVMConversionPass());
  gpu.addPass(createConvertIndexToLLVMPass());
  // Module-anchored: they only find work inside the gpu.module.
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  if (options.hostLaunch) {
    pm.addPass(createFAttnGPULaunch());
    pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
    pm.addNestedPass<func::FuncOp>(createCSEPass());
  }
}

void mlir::fattn::registerFAttnSM80Pipeline() {
  PassPipelineRegistration<SM80PipelineOptions>(
      "fattn-sm80-pipeline",
      "Lower fattn.attention functions to sm_80 kernels (cp.async ring, "
      "ldmatrix, mma.sync) in a gpu.module of LLVM/NVVM ops",
      buildSM80Pipeline);
}
