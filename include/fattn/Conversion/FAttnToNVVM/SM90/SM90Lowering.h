//===- SM90Lowering.h - tiled attention -> sm_90a NVVM kernel ---*- C++ -*-===//
//
// The Hopper lowering of `fattn.tiled_attention`: one CTA per Q tile of 128
// rows, a producer warpgroup issuing TMA bulk tensor copies into a ring of
// 128B-swizzled shared-memory stages guarded by full/empty mbarriers, and two
// consumer warpgroups (64 rows each) running S = Q K^T as SS wgmma and
// O += P V as RS wgmma (P from registers), with the online softmax on the
// wgmma accumulator layout. The kernel is emitted into a `gpu.module` as an
// `llvm.func` in the LLVM and NVVM dialects, ready for gpu-module-to-binary.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_CONVERSION_FATTNTONVVM_SM90_SM90LOWERING_H
#define FATTN_CONVERSION_FATTNTONVVM_SM90_SM90LOWERING_H

#include "fattn/Conversion/FAttnToNVVM/SM90/ConsumerLoop.h"
#include "fattn/Dialect/FAttn/IR/FAttnOps.h"
#include "fattn/Dialect/FAttn/Utils/WorkOrder.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir::fattn {

/// The named barrier on which the FP8 producer warpgroup's 128 threads meet
/// after each V transpose (pingpong's barriers must stay below it).
inline constexpr int64_t kFP8ProducerBarrier = 15;

/// The named barriers kEpilogueBarrier + w on which consumer warpgroup w's
/// 128 threads meet when they write O through shared memory (16-bit kernels
/// with one CTA per Q tile, and tma-store kernels; pingpong's barriers must
/// stay below them).
inline constexpr int64_t kEpilogueBarrier = 12;

/// The most dynamic shared memory an sm_90a CTA can have (227 KiB).
inline constexpr int64_t kMaxDynamicSharedBytes = 227 * 1024;

/// log2 of the factor by which the FP8 kernel scales P before rounding it to
/// e4m3: P * 256 <= 256 stays below e4m3's largest value (448) and puts
/// probabilities down to 2^-14 on e4m3's normal (relative) grid.
inline constexpr int kFP8ProbabilityLog2 = 8;

/// Choices of the sm_90a lowering that are not semantics. Apart from the
/// names and keepTargetOps (the conversion's options), readSM90Schedule sets
/// them from the IR: the lowering choices from the op's
/// #fattn.sm90_consumer_plan and #fattn.sm90_work_plan (LoweringChoices.h,
/// recorded by the --fattn-sm90-* passes), the schedule below from its
/// fattn.warp_specialize.
struct SM90Options {
  /// Name of the gpu.module the kernels go into (created when missing).
  std::string moduleName = "fattn_sm90";
  /// Name of the kernel; empty: derived from the configuration.
  std::string kernelName;
  /// O += P V as one wgmma spanning the whole head dim (N = head dim) rather
  /// than one wgmma per 64-column swizzle atom.
  bool wideValueMma = true;
  /// The softmax's row sums l on the tensor cores: each P V step also
  /// multiplies P by a shared-memory tile of ones (an m64n8 wgmma), so that
  /// the softmax adds no probabilities (see SM90KernelConfig::rowSumMma).
  bool rowSumMma = false;
  /// FP8 only: P's e4m3 bytes straight from the scaled scores, by a linear
  /// 2^x within each power of two (a saturating FMA per probability, an
  /// f16x2 conversion and FMA per two and a prmt per four, no MUFU.EX2; see
  /// SM90KernelConfig::linearExp2). Needs rowSumMma, since no f32
  /// probability is left for the row sums.
  bool linearExp2 = false;
  /// Conditional rescaling (FlashAttention-4's): a row's running max moves
  /// only when a tile's max exceeds it by more than 2^rescaleThreshold in P
  /// (log2 units of the scaled scores), and a warp whose rows all kept
  /// theirs skips O's rescale. P then stays below 2^rescaleThreshold. 0: the
  /// max moves with every tile and O is always rescaled.
  float rescaleThreshold = 0.0f;
  /// Reverse the Q tile order so that the longest causal tiles start first.
  bool reverseQTiles = true;
  /// Shared-memory buffers of Q. Persistent kernels may take 2: the
  /// producer then copies a work item's Q while the consumers still read
  /// the previous item's, instead of after they hand it back.
  int qBuffers = 1;
  /// O leaves by TMA stores that the consumers issue and move on from. In
  /// 16-bit kernels O is written into the work item's Q buffer (which, with
  /// two buffers, the producer refills only two items later; needs
  /// qBuffers == 2), and the buffer goes back to the producer once the
  /// stores have read it. FP8's e4m3 Q buffer holds half of O's bf16 tile,
  /// so FP8 kernels stage O in a buffer of its own.
  bool tmaStore = false;
  /// Persistent kernels of unmasked attention: the work items past the last
  /// whole round of the grid are split along their KV tiles among all CTAs
  /// (WorkOrder.h's split tail); the CTA that computes an item's first tiles
  /// combines the other pieces, which their CTAs leave in a global
  /// workspace (a `workspace` kernel parameter, KERNEL-ABI.md).
  bool splitTail = false;
  /// Unmasked attention with the overlapped KV loop: when a work item's
  /// last KV tile is the sequence's partial one and holds at most this many
  /// keys, its S = Q K^T, softmax and P V run on that many columns instead
  /// of block_n (a second, narrower copy of the loop's body after the
  /// loop). A multiple of the wgmma k step (16 keys, 32 for e4m3) below
  /// block_n; 0: off.
  int narrowTail = 0;
  /// Under a causal mask (or a right window), each consumer warpgroup stops
  /// at the last KV tile its own 64 rows see, instead of the work item's,
  /// and a warpgroup whose rows all lie past the sequence computes no tile:
  /// the tiles past its end it only waits for and hands back (their empty
  /// barriers count every consumer thread). Needs the producer warpgroup,
  /// no pingpong, whose turns each warpgroup must take equally often, and
  /// no split tail, whose combine waits on other CTAs before the hand-back.
  bool warpgroupKVRanges = false;
  /// Persistent kernels of masked attention: the last `tail_pairs` (batch,
  /// head) pairs' work items come Q tile slowest, longest first, so that
  /// the last rounds of the grid stay balanced; the launcher chooses the
  /// count for each launch (a `tail_pairs` kernel parameter and a
  /// `work_order` description key, KERNEL-ABI.md; WorkOrder.h).
  bool workOrderTail = false;
  /// Leave the kernel at the target ops (L3, fattn.sm90.*) instead of
  /// lowering them to NVVM (lowerSM90TargetOps, TargetToNVVM.h).
  bool keepTargetOps = false;
  /// Registers per thread the producer warpgroup keeps (setmaxnreg);
  /// 0 disables register reallocation.
  int producerRegisters = 24;
  int consumerRegisters = 240;

  // The schedule of the kernel. The passes --fattn-warp-specialize,
  // --fattn-pingpong and --fattn-intra-wg-overlap decide these in the IR;
  // the lowering reads them off the op (and implements them here).

  /// A producer warpgroup issues the TMA copies; without it the consumers
  /// issue them themselves (one elected thread, `stages - 1` tiles ahead).
  bool warpSpecialize = true;
  /// Consumer warpgroups of 64 query rows each (block_m = 64 * consumers).
  int consumerWarpgroups = 2;
  /// Named barriers order the consumer warpgroups so that one's softmax runs
  /// while another's GEMMs occupy the tensor cores.
  bool pingpong = false;
  /// Warpgroup w waits on named barrier pingpongBarrierBase + w.
  int64_t pingpongBarrierBase = 1;
  /// Inside a consumer, S = Q K^T of tile j + 1 is issued before the softmax
  /// of tile j, and O += P V of tile j completes asynchronously.
  bool intraWarpgroupOverlap = true;
  /// The consumers' KV loop, op by op as the IR orders it (its shape says
  /// intraWarpgroupOverlap; the named barriers in it are pingpong's turns).
  SM90ConsumerLoop consumerLoop = SM90ConsumerLoop::sequential();
  /// Grid = number of SMs; each CTA loops over (Q tile, head, batch) work
  /// items, longest causal tiles first.
  bool persistent = false;
};

/// Sets the setmaxnreg register counts of `options` for its number of
/// consumer warpgroups; `setmaxnreg` false disables the reallocation.
void setDefaultRegisters(SM90Options &options, bool setmaxnreg = true);

/// How an FP8 kernel reads one tensor's descale factors (the `descale(...)`
/// operands of fattn.attention).
struct SM90Descale {
  /// -1: no descale (factor 1); 0: per tensor; 2: [batch, KV heads];
  /// 3: [batch, heads, blocks] of `block` rows.
  int64_t rank = -1;
  int64_t block = 0;
};

/// The static configuration of one sm_90a kernel (read off the tiled op and
/// its `fattn.sm90.tma` plan).
struct SM90KernelConfig {
  bool hasSoftcap() const { return dynamicSoftcap || softcap > 0; }

  std::string name;
  std::string elementType; // of Q, K and V: "bf16", "f16" or "e4m3"
  std::string outputType;  // of O: the element type, "bf16" for e4m3
  int64_t headDim = 0;     // of Q and K: S = Q K^T runs over it
  int64_t headDimV = 0;    // of V and O: P V and O's stores run over it
  int64_t blockM = 128, blockN = 128, stages = 2;
  float scale = 1.0f, softcap = 0.0f;
  /// The scale or the softcap is a kernel parameter (after the others),
  /// not the constant above (then 0).
  bool dynamicScale = false, dynamicSoftcap = false;
  /// Whether the runtime scale comes as `scale_log2` (scale·log2(e), what
  /// the softmax multiplies by) rather than `scale`: without a softcap,
  /// whose scores take scale / softcap instead.
  bool takesScaleLog2() const { return dynamicScale && !hasSoftcap(); }
  /// Whether it also takes `rescale_margin`, rescaleThreshold / scale_log2.
  bool takesRescaleMargin() const {
    return takesScaleLog2() && rescaleThreshold > 0.0f;
  }
  int64_t windowLeft = -1, windowRight = -1;
  bool hasLse = false;
  /// The schedule's shape (from SM90Options): consumer warpgroups of 64 rows
  /// and whether a producer warpgroup issues the copies.
  int64_t consumerWarpgroups = 2;
  bool warpSpecialize = true;
  /// Persistent CTAs (SM90Options::persistent): the grid is the number of
  /// SMs and each CTA loops over work items.
  bool persistent = false;
  /// SM90Options::reverseQTiles and workOrderTail (the work order,
  /// WorkOrder.h).
  bool reverseQTiles = true;
  bool workOrderTail = false;

  /// FP8 only: the descales of Q, K and V (all three or none).
  SM90Descale qDescale, kDescale, vDescale;
  /// FP8 only: V is stored as V^T in the kernel's key order (value_layout),
  /// so TMA copies its tiles into the ring as they are and the producer
  /// warpgroup transposes nothing.
  bool valueTransposed = false;
  /// Each tile's row sums P 1 on the tensor cores (SM90Options::rowSumMma),
  /// from the P that O's wgmma reads (rounded to the element type). Off with
  /// an LSE (which needs the sum of the unrounded probabilities) and with
  /// per-block V descales (whose O rescale carries V's factor, which l must
  /// not take).
  bool rowSumMma = false;
  /// P's e4m3 byte is round(8 log2(256 P) + 56 + kLinearExp2Offset)
  /// (LinearExp2.h); l sums the same bytes on the tensor cores.
  bool linearExp2 = false;
  /// SM90Options::rescaleThreshold (0: off).
  float rescaleThreshold = 0.0f;
  /// SM90Options::qBuffers: 1, or 2 (persistent kernels).
  int qBuffers = 1;
  /// SM90Options::tmaStore: O leaves by TMA stores (an `o_map` parameter).
  bool tmaStore = false;
  /// SM90Options::splitTail.
  bool splitTail = false;
  /// SM90Options::narrowTail (0: off).
  int64_t narrowTail = 0;

  bool isFP8() const { return elementType == "e4m3"; }
  /// tmaStore in an FP8 kernel: O is staged in a shared buffer of its own
  /// (SM90Options::tmaStore), not in the work item's Q buffer.
  bool hasOwnOutputBuffer() const { return tmaStore && isFP8(); }
  /// tmaStore through the work item's Q buffer, which the epilogue then
  /// hands back (16-bit kernels).
  bool storesOThroughQBuffer() const { return tmaStore && !isFP8(); }
  /// A mask (causal or windowed): Q tiles differ in their KV tiles.
  bool isMasked() const { return windowLeft >= 0 || windowRight >= 0; }
  /// A `tail_pairs` parameter (SM90Options::workOrderTail; the lowering
  /// refuses it without persistent tiles or a mask).
  bool hasTailPairs() const { return workOrderTail; }
  /// The work order of persistent kernels (WorkOrder.h). ctasPerPair
  /// bounds the launcher's tail: where pairs * ctasPerPair <= grid, the
  /// masked order without it instead (WorkOrder.h). One CTA per pair for every 256 bytes of a key's
  /// K and V row (four at head dim 256 in 16 bits); three at 16-bit head dim
  /// 128, where, before the windows, 64 pairs at 4k causal ran 8% faster
  /// with the Q tile fastest than with the rank slowest over all pairs
  /// through flash_attn_func (docs/PERF.md, 2026-12-01).
  WorkOrderParams workOrder() const {
    bool wide16Bit128 = !isFP8() && paddedHeadDim() == 128 &&
                        paddedValueHeadDim() == 128;
    int64_t rowBytes = (paddedHeadDim() + paddedValueHeadDim()) * elementBytes();
    return {isMasked(), reverseQTiles,
            wide16Bit128 ? 3 : std::max<int64_t>(1, rowBytes / 256),
            workOrderTail};
  }
  /// FP8 with V stored by rows: the producer transposes each V tile.
  bool transposesValue() const { return isFP8() && !valueTransposed; }
  bool hasDescales() const { return qDescale.rank >= 0; }
  /// K's per-block factors come in blocks smaller than a KV tile (down to a
  /// factor per key), so they scale S column by column rather than once per
  /// tile.
  bool hasKeyFactorsPerColumn() const {
    return kDescale.rank == 3 && kDescale.block < blockN;
  }
  int64_t elementBytes() const { return isFP8() ? 1 : 2; }
  /// Columns of one 128-byte swizzle atom of a row.
  int64_t atomColumns() const { return 128 / elementBytes(); }
  /// Q's and K's head dim rounded up to whole swizzle atoms.
  int64_t paddedHeadDim() const {
    return (headDim + atomColumns() - 1) / atomColumns() * atomColumns();
  }
  int64_t headDimChunks() const { return paddedHeadDim() / atomColumns(); }
  /// V's head dim rounded up to whole swizzle atoms (O's accumulator
  /// columns).
  int64_t paddedValueHeadDim() const {
    return (headDimV + atomColumns() - 1) / atomColumns() * atomColumns();
  }
  int64_t valueHeadDimChunks() const {
    return paddedValueHeadDim() / atomColumns();
  }
  /// O is 16-bit (bf16 for e4m3): 64 columns per 128-byte atom.
  static constexpr int64_t kOutputAtomColumns = 64;
  /// O's 64-column atoms (TMA stores: one box each).
  int64_t outputChunks() const {
    return (headDimV + kOutputAtomColumns - 1) / kOutputAtomColumns;
  }
  /// O is written into the work item's Q buffer on its way out: staged for
  /// the copies of a 16-bit kernel with one CTA per Q tile, or for its TMA
  /// stores (storesOThroughQBuffer). The buffer then holds the wider of Q's
  /// and O's tiles.
  bool writesOIntoQBuffer() const {
    return !isFP8() && (!persistent || tmaStore);
  }
  /// FP8: V^T tiles hold the keys of a head-dim row in 128-byte atoms.
  int64_t keyChunks() const { return (blockN + 127) / 128; }
  int64_t threads() const {
    return 128 * (consumerWarpgroups + (warpSpecialize ? 1 : 0));
  }
  /// Dynamic shared memory in bytes, including 1 KiB of alignment slack.
  int64_t dynamicSharedBytes() const;
  /// splitTail: the bytes of one CTA's workspace slot (the first 256 hold
  /// one arrival counter per consumer warp, then one piece's O, row maxes
  /// and row sums as each consumer thread holds them); 0 without it.
  int64_t workspaceBytesPerCta() const;
};

/// Builds the kernel of `config` as an `llvm.func` at `builder`'s insertion
/// point (the body of a gpu.module that holds, or will hold, the
/// `fattn_smem` global its entry block addresses): LLVM and NVVM operations
/// and the sm_90a target ops (L3, FAttnSM90Ops.td), which
/// lowerSM90TargetOps (TargetToNVVM.h) lowers.
LLVM::LLVMFuncOp buildSM90KernelFunction(OpBuilder &builder, Location loc,
                                         const SM90KernelConfig &config,
                                         const SM90Options &options);

/// Reads the configuration of `op`; fails with a diagnostic on `op` when the
/// case is not supported (yet) or `--fattn-sm90-tma` has not planned it.
FailureOr<SM90KernelConfig> getSM90KernelConfig(TiledAttentionOp op,
                                                const SM90Options &options);

/// Replaces `op` with a call-free kernel whose schedule is the one recorded
/// in the IR (ScheduleFromIR.h; the schedule fields of `options` are
/// ignored): the kernel is added to the
/// gpu.module `options.moduleName` of the enclosing builtin.module (which
/// gets `gpu.container_module`), and `op` is erased. The kernel description
/// (KERNEL-ABI.md) is attached to the kernel as `fattn.kernel_description`.
LogicalResult lowerTiledAttentionToSM90(RewriterBase &rewriter,
                                        TiledAttentionOp op,
                                        const SM90Options &options);

/// The kernel description (KERNEL-ABI.md, JSON) of a kernel.
std::string describeSM90Kernel(const SM90KernelConfig &config);

/// The `AttentionKernelBuilder` (FAttnToNVVM.h) of chip sm_90a: builds kernel
/// `name` for `op` at the builder's insertion point (a gpu.module body),
/// adding the extern shared-memory global `fattn_smem` when it is missing.
FailureOr<LLVM::LLVMFuncOp> buildSM90AttentionKernel(OpBuilder &builder,
                                                     TiledAttentionOp op,
                                                     StringRef name);

/// Registers buildSM90AttentionKernel for `convert-fattn-to-nvvm{chip=sm_90a}`.
void registerSM90AttentionKernelBuilder();

} // namespace mlir::fattn

#endif // FATTN_CONVERSION_FATTNTONVVM_SM90_SM90LOWERING_H
