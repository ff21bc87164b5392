//===- Tuning.h - tile shapes and lowering choices per configuration -*- C++
//-*-===//
//
// The tuning policy of fattn's kernels: for the facts of one fattn.attention
// (element type, head dim, mask, softcap, LSE, V's layout, descales) and what
// is asked of it (--short-seqs, tile overrides), the options of
// fattn-sm80-pipeline or fattn-sm90-pipeline that measured fastest
// (docs/PERF.md, docs/SCHEDULING.md). fattn-compile builds every kernel with
// these options; `fattn-compile --print-tuning` exports the rules that the
// Python package needs to pick a kernel (tuningRulesJSON), which
// python/fattn/tuning.json holds.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_PIPELINES_TUNING_H
#define FATTN_PIPELINES_TUNING_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>

namespace mlir::fattn {

class AttentionOp;
struct SM80PipelineOptions;
struct SM90PipelineOptions;

/// The mask of a configuration: none, causal (window_right 0 without a left
/// window), or any other window.
enum class MaskKind { None, Causal, Window };

/// The facts of one fattn.attention that its tuning depends on.
struct AttentionFacts {
  /// e4m3 Q, K and V (else 16-bit: bf16 or f16).
  bool fp8 = false;
  /// Of Q and K (and of V, unless headDimV says otherwise).
  int64_t headDim = 128;
  /// Of V and O, where it differs from Q's and K's (MLA's 192 and 128).
  std::optional<int64_t> headDimV;
  MaskKind mask = MaskKind::None;
  bool softcap = false;
  bool lse = false;
  /// FP8: V stored as V^T (value_layout).
  bool valueTransposed = false;
  /// Of the Q, K and V descales: -1 none (a factor of 1), 0 per tensor,
  /// 2 per (batch, head), 3 per block of rows.
  std::array<int64_t, 3> descaleRanks = {-1, -1, -1};

  /// The facts of `op`.
  static AttentionFacts of(AttentionOp op);

  bool isMasked() const { return mask != MaskKind::None; }
  /// The head dim whose tiles a kernel takes: the wider of Q's and V's, so
  /// that it fits where the kernel of two equal head dims that wide fits
  /// (shared memory and registers grow with each).
  int64_t tileHeadDim() const {
    return std::max(headDim, headDimV.value_or(headDim));
  }
  bool isCausal() const { return mask == MaskKind::Causal; }
  /// K or V descaled per block of rows.
  bool kvPerBlock() const {
    return descaleRanks[1] == 3 || descaleRanks[2] == 3;
  }
  /// Q, K and V read with a single factor (per tensor, or none).
  int perTensorDescales() const;
};

/// What is asked of a kernel besides its configuration (fattn-compile's
/// options).
struct TuningRequest {
  /// --short-seqs: the kernel that measured fastest for short sequences,
  /// where one differs (shortSeqsRule).
  bool shortSeqs = false;
  /// FP8: P's e4m3 bytes from a linear 2^x where the kernel allows it.
  bool linearExp2 = true;
  /// The command line's tiles (0: the tuned ones). Choices that depend on
  /// shared memory (q-buffers) and on the rows (consumers) follow them.
  int64_t blockM = 0, blockN = 0, stages = 0;
};

/// A set of configurations, as a table row states it: every field that is
/// set must match (a field left unset matches anything). A row speaks of one
/// head dim for Q, K and V: configurations whose V head dim differs match
/// none.
struct TuningCondition {
  std::optional<bool> fp8;
  /// The head dims from minHeadDim to maxHeadDim.
  int64_t minHeadDim = 1, maxHeadDim = 1024;
  std::optional<MaskKind> mask;
  std::optional<bool> softcap, lse, valueTransposed;
  /// K or V descaled per block (AttentionFacts::kvPerBlock).
  std::optional<bool> kvPerBlock;
  /// At most this many of Q, K and V with a single factor.
  std::optional<int> maxPerTensorDescales;
  /// Exactly these descale ranks (AttentionFacts::descaleRanks).
  std::optional<std::array<int64_t, 3>> descaleRanks;

  bool matches(const AttentionFacts &facts) const;
};

/// The kernels that --short-seqs builds differently from the default ones.
enum class ShortSeqsKernel { Causal128, Causal64, Unmasked128, FP8 };

/// One row of the short-sequence table: which configurations have a
/// short-sequence kernel, and up to what length (queries and keys)
/// flash_attn_func runs it.
struct ShortSeqsRule {
  ShortSeqsKernel kernel;
  llvm::StringLiteral name;
  TuningCondition when;
  int64_t maxSeq;
};

/// The short-sequence table (sm_90a; the rows exclude each other).
llvm::ArrayRef<ShortSeqsRule> shortSeqsRules();

/// The row of `facts` under `request` (FP8's needs the linear 2^x), or null
/// where --short-seqs builds the default kernel.
const ShortSeqsRule *shortSeqsRule(const AttentionFacts &facts,
                                   const TuningRequest &request = {});

/// A configuration that flash_attn_func runs on the kernel of other descales
/// (passing each factor as a stride-0 view), which computes the same output
/// faster.
struct DescaleRoute {
  TuningCondition when;
  std::array<int64_t, 3> descaleRanks;
};

/// The descale routes (sm_90a).
llvm::ArrayRef<DescaleRoute> descaleRoutes();

/// The tuned options of an sm_80 kernel.
struct SM80Tuning {
  int64_t blockM = 128, blockN = 64, stages = 2;

  void applyTo(SM80PipelineOptions &options) const;
};

SM80Tuning tuneSM80(const AttentionFacts &facts,
                    const TuningRequest &request = {});

/// The tuned options of an sm_90a kernel: the fields of SM90PipelineOptions
/// that the tuning chooses (the others keep the pipeline's defaults).
struct SM90Tuning {
  int64_t blockM = 128, blockN = 128, stages = 2;
  int consumers = 2;
  bool persistent = false;
  bool pingpong = false;
  bool intraWgOverlap = true;
  bool rowSumMma = false;
  bool linearExp2 = false;
  float rescaleThreshold = 0.0f;
  int qBuffers = 1;
  bool tmaStore = false;
  int narrowTail = 0;
  bool splitTail = false;
  bool workOrderTail = false;
  bool warpgroupKVRanges = false;
  /// 0: the pipeline's counts for the consumers.
  int64_t producerRegisters = 0, consumerRegisters = 0;

  void applyTo(SM90PipelineOptions &options) const;
};

SM90Tuning tuneSM90(const AttentionFacts &facts,
                    const TuningRequest &request = {});

/// The tables that pick a kernel (short-sequence rows and descale routes)
/// and the head dims each target compiles (HeadDims.h), as `fattn-compile
/// --print-tuning` prints them (docs/SCHEDULING.md).
llvm::json::Object tuningRulesJSON();

} // namespace mlir::fattn

#endif // FATTN_PIPELINES_TUNING_H
