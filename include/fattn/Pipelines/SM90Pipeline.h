//===- SM90Pipeline.h - fattn-sm90-pipeline ---------------------*- C++ -*-===//

#ifndef FATTN_PIPELINES_SM90PIPELINE_H
#define FATTN_PIPELINES_SM90PIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::fattn {

struct SM90PipelineOptions : public PassPipelineOptions<SM90PipelineOptions> {
  PassOptions::Option<int64_t> blockM{
      *this, "block-m", llvm::cl::desc("Rows of Q per CTA (64 per consumer "
                                       "warpgroup: 128, or 192 with consumers=3)"),
      llvm::cl::init(128)};
  PassOptions::Option<int64_t> blockN{
      *this, "block-n", llvm::cl::desc("Rows of K and V per KV iteration"),
      llvm::cl::init(128)};
  PassOptions::Option<int64_t> stages{
      *this, "stages", llvm::cl::desc("Buffers in the TMA K/V ring"),
      llvm::cl::init(2)};
  PassOptions::Option<std::string> kernelName{
      *this, "kernel-name", llvm::cl::desc("Kernel name (default: derived)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> wideValueMma{
      *this, "wide-value-mma",
      llvm::cl::desc("O += P V as one wgmma over the whole head dim"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> rowSumMma{
      *this, "row-sum-mma",
      llvm::cl::desc("The softmax's row sums on the tensor cores (P times ones)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> linearExp2{
      *this, "linear-exp2",
      llvm::cl::desc("FP8: P's e4m3 bytes from a linear 2^x within each power "
                     "of two, without MUFU.EX2 (needs row-sum-mma)"),
      llvm::cl::init(false)};
  PassOptions::Option<float> rescaleThreshold{
      *this, "rescale-threshold",
      llvm::cl::desc("Conditional rescaling: a row's max moves only past "
                     "this many powers of two of P (0: off)"),
      llvm::cl::init(0.0f)};
  PassOptions::Option<int> qBuffers{
      *this, "q-buffers",
      llvm::cl::desc("Shared-memory buffers of Q: 1, or 2 with persistent "
                     "tiles (the next work item's Q copied early)"),
      llvm::cl::init(1)};
  PassOptions::Option<bool> tmaStore{
      *this, "tma-store",
      llvm::cl::desc("O leaves by TMA stores, through the work item's Q "
                     "buffer (16-bit types; needs q-buffers=2) or, for e4m3, "
                     "a shared buffer of its own"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> splitTail{
      *this, "split-tail",
      llvm::cl::desc("Persistent unmasked kernels: split the last partial "
                     "round's work items along their KV tiles (needs a "
                     "workspace)"),
      llvm::cl::init(false)};
  PassOptions::Option<int> narrowTail{
      *this, "narrow-tail",
      llvm::cl::desc("Unmasked kernels: a last, partial KV tile of at most "
                     "this many keys computed that narrow (0: off)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> workOrderTail{
      *this, "work-order-tail",
      llvm::cl::desc("Persistent masked kernels: the last (batch, head) "
                     "pairs' items Q tile slowest, longest first (a "
                     "tail_pairs kernel parameter)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> warpgroupKVRanges{
      *this, "warpgroup-kv-ranges",
      llvm::cl::desc("Each consumer warpgroup computes only the KV tiles "
                     "its own rows see (causal), none past the sequence "
                     "(without pingpong or the split tail)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> reverseQTiles{
      *this, "reverse-q-tiles",
      llvm::cl::desc("Schedule the longest (causal) Q tiles first"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> setmaxnreg{
      *this, "setmaxnreg",
      llvm::cl::desc("Move registers from the producer to the consumers"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> producerRegisters{
      *this, "producer-registers",
      llvm::cl::desc("With setmaxnreg: the producer warpgroup's registers "
                     "per thread (0: 24, or 32 with three consumers)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> consumerRegisters{
      *this, "consumer-registers",
      llvm::cl::desc("With setmaxnreg: each consumer warpgroup's registers "
                     "per thread (0: 240, or 160 with three consumers)"),
      llvm::cl::init(0)};
  // The schedule: which of --fattn-warp-specialize, --fattn-intra-wg-overlap,
  // --fattn-pingpong and --fattn-persistent-tiles run (the last three need
  // the first).
  PassOptions::Option<bool> warpSpecialize{
      *this, "warp-specialize",
      llvm::cl::desc("A producer warpgroup issues the TMA copies"),
      llvm::cl::init(true)};
  PassOptions::Option<int> consumers{
      *this, "consumers",
      llvm::cl::desc("Consumer warpgroups of 64 rows (block-m must be 64 * "
                     "consumers)"),
      llvm::cl::init(2)};
  PassOptions::Option<bool> pingpong{
      *this, "pingpong",
      llvm::cl::desc("Named barriers alternate the consumers' GEMMs"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> intraWgOverlap{
      *this, "intra-wg-overlap",
      llvm::cl::desc("Overlap the softmax of tile j with Q K^T of j+1 and "
                     "P V of j-1"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> persistent{
      *this, "persistent",
      llvm::cl::desc("One CTA per SM loops over the (Q tile, head, batch) "
                     "work items (--fattn-persistent-tiles; needs "
                     "warp-specialize)"),
      llvm::cl::init(false)};
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
      llvm::cl::desc("Stop at the sm_90a target ops (L3): the kernels keep "
                     "their fattn.sm90.* ops, which "
                     "--convert-fattn-sm90-target-to-nvvm lowers to NVVM"),
      llvm::cl::init(false)};
};

/// fattn.attention through --fattn-tile, --fattn-sm90-tma, the scheduling
/// passes and --convert-fattn-to-nvvm-sm90 to a gpu.module of sm_90a kernels.
void buildSM90Pipeline(OpPassManager &pm, const SM90PipelineOptions &options);

/// Registers fattn-sm90-pipeline with the global registry (fattn-opt).
void registerSM90Pipeline();

} // namespace mlir::fattn

#endif // FATTN_PIPELINES_SM90PIPELINE_H
