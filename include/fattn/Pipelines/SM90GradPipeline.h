//===- SM90GradPipeline.h - fattn-sm90-grad-pipeline ------------*- C++ -*-===//

#ifndef FATTN_PIPELINES_SM90GRADPIPELINE_H
#define FATTN_PIPELINES_SM90GRADPIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::fattn {

struct SM90GradPipelineOptions
    : public PassPipelineOptions<SM90GradPipelineOptions> {
  PassOptions::Option<bool> keepTargetOps{
      *this, "keep-target-ops",
      llvm::cl::desc("Stop at the kernels of upstream and fattn.sm90 target "
                     "ops (L3)"),
      llvm::cl::init(false)};
  PassOptions::Option<int64_t> blockN{
      *this, "block-n",
      llvm::cl::desc("Keys per KV tile of the main kernel: 128 (two "
                     "warpgroups) or 64 (one); fattn-compile picks by head "
                     "dim (sm90GradBlockN)"),
      llvm::cl::init(128)};
};

/// fattn.attention_grad functions (memref form) -> the three sm_90a backward
/// kernels of each in gpu.module @fattn_kernels, as LLVM/NVVM ready for
/// gpu-module-to-binary: --fattn-tile-grad="block-m=64 block-n=<block-n>",
/// then --convert-fattn-grad-to-nvvm-sm90.
void buildSM90GradPipeline(OpPassManager &pm,
                           const SM90GradPipelineOptions &options);

void registerFAttnSM90GradPipeline();

} // namespace mlir::fattn

#endif // FATTN_PIPELINES_SM90GRADPIPELINE_H
