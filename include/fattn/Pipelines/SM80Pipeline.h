//===- SM80Pipeline.h - fattn-sm80-pipeline ---------------------*- C++ -*-===//

#ifndef FATTN_PIPELINES_SM80PIPELINE_H
#define FATTN_PIPELINES_SM80PIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::fattn {

struct SM80PipelineOptions : public PassPipelineOptions<SM80PipelineOptions> {
  PassOptions::Option<int64_t> blockM{
      *this, "block-m", llvm::cl::desc("Rows of Q per CTA (4 warps)"),
      llvm::cl::init(128)};
  PassOptions::Option<int64_t> blockN{
      *this, "block-n", llvm::cl::desc("Rows of K and V per KV iteration"),
      llvm::cl::init(64)};
  PassOptions::Option<int64_t> stages{
      *this, "stages", llvm::cl::desc("K/V slots of the cp.async ring"),
      llvm::cl::init(2)};
  PassOptions::Option<bool> hostLaunch{
      *this, "host-launch",
      llvm::cl::desc("Also emit the host code that launches each kernel "
                     "(gpu.launch_func with its grid, shared memory, "
                     "parameters and tensor maps) where its fattn.attention "
                     "was: --fattn-outline-attention first, --fattn-gpu-launch "
                     "last"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> keepTargetOps{
      *this, "keep-target-ops",
      llvm::cl::desc("Stop at the kernel's target ops (L3: fattn.sm80.*, "
                     "nvgpu.device_async_wait, gpu.shuffle), before any "
                     "lowering of the "
                     "gpu.module (--convert-fattn-sm80-target-to-nvvm "
                     "continues)"),
      llvm::cl::init(false)};
};

/// fattn.attention functions -> gpu.module @fattn_kernels of LLVM/NVVM
/// kernels for sm_80, ready for gpu-module-to-binary.
void buildSM80Pipeline(OpPassManager &pm, const SM80PipelineOptions &options);

void registerFAttnSM80Pipeline();

} // namespace mlir::fattn

#endif // FATTN_PIPELINES_SM80PIPELINE_H
