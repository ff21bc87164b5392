//===- SM80GradPipeline.h - fattn-sm80-grad-pipeline ------------*- C++ -*-===//

#ifndef FATTN_PIPELINES_SM80GRADPIPELINE_H
#define FATTN_PIPELINES_SM80GRADPIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::fattn {

struct SM80GradPipelineOptions
    : public PassPipelineOptions<SM80GradPipelineOptions> {
  PassOptions::Option<bool> keepTargetOps{
      *this, "keep-target-ops",
      llvm::cl::desc("Stop at the kernels of nvgpu/gpu/memref/vector/scf "
                     "ops (L3)"),
      llvm::cl::init(false)};
};

/// fattn.attention_grad functions (memref form) -> the three sm_80 backward
/// kernels of each in gpu.module @fattn_kernels, as LLVM/NVVM ready for
/// gpu-module-to-binary: --fattn-tile-grad="block-m=64 block-n=128", then
/// --convert-fattn-grad-to-nvvm-sm80.
void buildSM80GradPipeline(OpPassManager &pm,
                           const SM80GradPipelineOptions &options);

void registerFAttnSM80GradPipeline();

} // namespace mlir::fattn

#endif // FATTN_PIPELINES_SM80GRADPIPELINE_H
