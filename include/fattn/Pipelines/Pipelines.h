//===- Pipelines.h - fattn named pipelines ----------------------*- C++ -*-===//

#ifndef FATTN_PIPELINES_PIPELINES_H
#define FATTN_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::fattn {

struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  PassOptions::Option<int64_t> blockM{*this, "block-m",
                                      llvm::cl::desc("Rows of Q per tile"),
                                      llvm::cl::init(64)};
  PassOptions::Option<int64_t> blockN{
      *this, "block-n", llvm::cl::desc("Rows of K and V per KV iteration"),
      llvm::cl::init(64)};
  PassOptions::Option<bool> fp8Layout{
      *this, "fp8-layout",
      llvm::cl::desc("Run --fattn-fp8-layout on the tiled form (the sm_90a "
                     "P and V^T key order), to check it on the CPU"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> gradTiled{
      *this, "grad-tiled",
      llvm::cl::desc("Run fattn.attention_grad through its tiled form "
                     "(--fattn-tile-grad, --fattn-lower-tiled-grad-to-linalg) "
                     "instead of --fattn-lower-attention-grad (which still "
                     "takes the ops with dynamic head dims)"),
      llvm::cl::init(false)};
};

/// fattn.attention (among ordinary func/scf/arith/math/memref/linalg code)
/// through the tiled form and bufferization to the LLVM dialect, ready for
/// mlir-runner.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// Registers the named pipelines with the global registry (fattn-opt).
void registerFAttnPipelines();

} // namespace mlir::fattn

#endif // FATTN_PIPELINES_PIPELINES_H
