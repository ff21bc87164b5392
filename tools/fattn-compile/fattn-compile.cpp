//===- fattn-compile.cpp - fattn.attention functions -> PTX / cubin / JSON ===//
//
//   fattn-compile FILE.mlir --arch sm_80|sm_90a --emit ptx|cubin|json -o OUT
//
// Compiles every func.func of FILE whose body is one fattn.attention into a
// kernel named after the function: the target pipeline (fattn-sm80-pipeline
// or fattn-sm90-pipeline), then
// gpu-module-to-binary{format=isa} for the PTX, then ptxas (--ptxas, else
// $CUDA_HOME/bin/ptxas, else /usr/local/cuda/bin/ptxas, else PATH) for the
// cubin. With one kernel, OUT is the .ptx/.cubin file; with several (and
// always for json) OUT is a directory receiving <entry>.ptx / <entry>.cubin
// and, for json, <entry>.json (docs/KERNEL-ABI.md).
//
//===----------------------------------------------------------------------===//

#include "fattn/Conversion/FAttnToNVVM/FAttnToNVVM.h"
#include "fattn/Conversion/FAttnToNVVM/SM90/SM90Lowering.h"
#include "fattn/Dialect/FAttn/IR/FAttnDialect.h"
#include "fattn/Dialect/FAttn/IR/FAttnOps.h"
#include "fattn/Pipelines/SM80Pipeline.h"
#include "fattn/Pipelines/SM90Pipeline.h"

#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

// fattn-compile's own options: --help lists only these, not the ones that
// LLVM's libraries register (still accepted).
static cl::OptionCategory compileCategory("fattn-compile options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .mlir>"),
                                      cl::Required, cl::cat(compileCategory));
static cl::opt<std::string> arch("arch", cl::desc("Target: sm_80 or sm_90a"),
                                 cl::init("sm_80"), cl::cat(compileCategory));
static cl::opt<std::string> emit("emit", cl::desc("ptx, cubin or json"),
                                 cl::init("json"), cl::cat(compileCategory));
static cl::opt<std::string> output("o", cl::desc("Output file or directory"),
                                   cl::Required, cl::cat(compileCategory));
static cl::opt<std::string> ptxasPath("ptxas", cl::desc("Path to ptxas"),
                                      cl::init(""), cl::cat(compileCategory));
static cl::opt<int64_t> blockM("block-m", cl::desc("Override block_m"),
                               cl::init(0), cl::cat(compileCategory));
static cl::opt<int64_t> blockN("block-n", cl::desc("Override block_n"),
                               cl::init(0), cl::cat(compileCategory));
static cl::opt<int64_t> stages("stages", cl::desc("Override the K/V stages"),
                               cl::init(0), cl::cat(compileCategory));
static cl::opt<std::string> pipelineOptions(
    "pipeline-options",
    cl::desc("Options of the target's pipeline (fattn-sm90-pipeline or "
             "fattn-sm80-pipeline, as fattn-opt --help lists them), applied "
             "over the tuned defaults and the tile options above, e.g. "
             "\"tma-store=true stages=2\""),
    cl::init(""), cl::cat(compileCategory));
static cl::opt<bool> verbose("v", cl::desc("Print ptxas's -v report"),
                             cl::init(false), cl::cat(compileCategory));
static cl::opt<bool> shortSeqs(
    "short-seqs",
    cl::desc("Tune the kernel for short sequences (flash_attn_func runs it "
             "up to 4096 queries and keys, or 1024 where only the 16-bit tile "
             "shape changes; the description's meta says \"tuned_for\": "
             "\"short_seqs\"); it stays correct for any length"),
    cl::init(false), cl::cat(compileCategory));

static cl::opt<bool> linearExp2(
    "linear-exp2",
    cl::desc("FP8 head-dim-128 kernels without an LSE take P's e4m3 bytes "
             "from a linear 2^x, without MUFU.EX2, and the row sums on the "
             "tensor cores (docs/FP8.md); =false keeps the exp2s"),
    cl::init(true), cl::cat(compileCategory));

/// The value of a description's "tuned_for" (meta) under --short-seqs.
constexpr llvm::StringLiteral kShortSeqsTuning = "short_seqs";

namespace {
struct Kernel {
  std::string entry;
  std::string ptx;
  DictionaryAttr info;     // sm_80: the facts the description is made of
  std::string description; // sm_90a: the whole description, from the lowering
};

/// The attribute in which the sm_90a lowering leaves the kernel's complete
/// description (docs/KERNEL-ABI.md, tensor maps included).
constexpr llvm::StringLiteral kSM90DescriptionAttrName =
    "fattn.kernel_description";

int fail(const Twine &message) {
  llvm::errs() << "fattn-compile: error: " << message << "\n";
  return 1;
}

/// The fattn.attention that is the body of `func`, or null.
fattn::AttentionOp attentionBody(func::FuncOp func) {
  fattn::AttentionOp found;
  int ops = 0;
  func.walk([&](Operation *op) {
    if (auto attention = dyn_cast<fattn::AttentionOp>(op))
      found = attention;
    if (!isa<func::FuncOp, func::ReturnOp>(op))
      ++ops;
  });
  return ops == 1 ? found : fattn::AttentionOp();
}

/// Runs the pipeline on a module holding just `func` and extracts the PTX.
FailureOr<Kernel> compileFunction(func::FuncOp func, fattn::AttentionOp op) {
  MLIRContext *ctx = func.getContext();
  OpBuilder b(ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(func.getLoc());
  module->getBody()->push_back(func.clone());
  std::string entry = func.getSymName().str();

  int64_t headDim = cast<MemRefType>(op.getQuery().getType()).getDimSize(3);
  // The command line's tile options override either pipeline's defaults.
  auto applyOverrides = [](auto &options) {
    if (blockM > 0)
      options.blockM = blockM;
    if (blockN > 0)
      options.blockN = blockN;
    if (stages > 0)
      options.stages = stages;
  };
  // --pipeline-options goes last, over every default chosen from the tiles.
  auto applyPipelineOptions = [&](auto &options) -> LogicalResult {
    std::string error;
    llvm::raw_string_ostream os(error);
    if (pipelineOptions.empty() ||
        succeeded(options.parseFromString(pipelineOptions, os)))
      return success();
    // A bad value is reported by llvm::cl itself, with an empty `error`.
    InFlightDiagnostic diag = emitError(op.getLoc())
                              << "--pipeline-options '" << pipelineOptions
                              << "' is not valid";
    if (StringRef reason = StringRef(error).trim(); !reason.empty())
      diag << ": " << reason;
    return diag;
  };
  PassManager pm(ctx);
  if (arch == "sm_80") {
    fattn::SM80PipelineOptions options;
    fattn::setDefaultSM80Options(options, headDim);
    applyOverrides(options);
    if (failed(applyPipelineOptions(options)))
      return failure();
    fattn::buildSM80Pipeline(pm, options);
  } else {
    fattn::SM90PipelineOptions options;
    options.kernelName = entry;
    // Tile shapes measured fastest (docs/PERF.md, issue 5): head dim 256
    // takes two stages of 80-row K and V tiles (the most that fit); head
    // dim 128 192-row tiles causal (160 without a mask, with pingpong and
    // the threshold, below; sliding windows, whose edge tiles waste more of
    // them, 128); head dim 64 three consumer
    // warpgroups (block_m 192), with 96-row tiles when causal.
    bool masked = op.getEffectiveWindowLeft() >= 0 ||
                  op.getEffectiveWindowRight() >= 0;
    bool causal = op.getEffectiveWindowRight() == 0 &&
                  op.getEffectiveWindowLeft() < 0;
    // Softcap's tanh holds more registers: its causal (persistent) kernels
    // spill with the larger tiles (ptxas: 100 bytes at head dim 128 with
    // 192-key tiles and an LSE, 64 bytes at head dim 256 with 80-key ones).
    FloatAttr softcap = op.getSoftcapAttr();
    bool hasSoftcap = softcap && softcap.getValue().convertToFloat() > 0.0f;
    bool causalSoftcap = causal && hasSoftcap;
    bool fp8 = isa<Float8E4M3FNType>(
        cast<MemRefType>(op.getQuery().getType()).getElementType());
    // FP8 head dim 128 without a mask and causal: 224-key tiles (FA3's),
    // unless per-block K/V descales need whole tiles per block (of 128 rows
    // by default). Their persistent producer needs 32 registers (24 spill
    // the work loop's counter), and the consumers fit in the 232 left. With
    // V stored as V^T (value_layout) the producer transposes nothing and
    // keeps 24: the consumers' 240 hold the tiles' row sums on the tensor
    // cores (row-sum-mma), measured 5-6% faster without a mask and up to 4%
    // causal (docs/PERF.md, 2026-11-30, seventh session); they spill at 232,
    // except with P's bytes from a linear 2^x (below), which V by rows takes.
    // Not with an LSE (it needs the exact sums: the lowering keeps the adds).
    // Causal, with pingpong (below; without it per-(batch, head) descales
    // spill 4 bytes at 240). Without a mask three stages add 1-2% more
    // there (causal: 0 to -2%).
    // Per-block V factors (one per KV tile) need tiles that divide their
    // blocks as much as K's do; with K per head and V per block of 128 the
    // wide tiles were refused ("descale_block_kv (128) must be a multiple
    // of block_n").
    // A descale's form by its rank: 0 per tensor (or none: a factor of 1),
    // 2 per (batch, head), 3 per block of rows.
    auto descaleRank = [](Value descale) -> int64_t {
      return descale ? cast<MemRefType>(descale.getType()).getRank() : 0;
    };
    bool perBlockKV = descaleRank(op.getKDescale()) == 3 ||
                      descaleRank(op.getVDescale()) == 3;
    bool fp8WideTiles =
        fp8 && headDim <= 128 && (!masked || causal) && !perBlockKV;
    // P's e4m3 bytes from a linear 2^x (no MUFU.EX2; needs the row sums on
    // the tensor cores, so no LSE): with V^T +11-13% at head dim 128 without
    // a mask and +13-25% causal; with V by rows, whose kernel fits the row
    // sums only this way (the producer's 32 registers leave 232), +18-22%
    // with 192-key tiles (docs/PERF.md, 2026-12-01, fourteenth session).
    // P's error grows from 2.7% to 3.2% RMS (docs/FP8.md).
    bool valueT = op.hasTransposedValue();
    bool rowSumsFit = fp8WideTiles && !op.getLse();
    bool linearP = rowSumsFit && linearExp2;
    bool rowSums = rowSumsFit && (valueT || linearP);
    options.rowSumMma = rowSums;
    options.linearExp2 = linearP;
    if (rowSums && valueT && !causal)
      options.stages = 3;
    // Head dim 256: conditional rescaling (a row's max moves only past 2^8
    // in P, 2^0.8 for e4m3, whose 256 P must stay below 448), which skips
    // most of O's 128 multiplies per thread and tile: measured 5-6% faster
    // for bf16 and 5% for FP8 (docs/PERF.md, 2026-11-30, eighth session).
    // Head dim 64 causal (96-key tiles): 0-3%. Slower at head dim 128 and
    // at 64 without a mask, whose rescale ptxas hides in the softmax. Not
    // with per-block V descales, whose rescale is never skipped, nor with
    // sliding windows (not measured).
    // 16-bit head dim 128 without a mask (and without softcap): 160-key
    // tiles with conditional rescaling and pingpong, +1-4% over the 192-key
    // tiles without either, in three rounds of two calls (docs/PERF.md,
    // 2026-11-30, ninth session); each alone gained 0-3%. (Pingpong has
    // since given way to the split tail, below.)
    bool wide16Bit128 = !fp8 && headDim > 96 && headDim <= 128 && !hasSoftcap;
    bool wideUnmasked128 = wide16Bit128 && !masked;
    if ((headDim > 128 && !perBlockKV && (!masked || causal)) ||
        (!fp8 && headDim <= 64 && causal) || wideUnmasked128 ||
        (linearP && valueT && !causal))
      options.rescaleThreshold = fp8 ? 0.8f : 8.0f;
    if (fp8)
      options.blockN = !fp8WideTiles ? 128 : linearP && !valueT ? 192 : 224;
    else if (headDim > 128)
      options.blockN = causalSoftcap ? 64 : 80;
    else if (headDim > 64 && (!masked || causal) && !causalSoftcap)
      options.blockN = wideUnmasked128 ? 160 : 192;
    else if (headDim <= 64 && causal)
      options.blockN = 96;
    if (headDim <= 64 && !fp8)
      options.blockM = 192;
    // FP8 head dim 256: the overlapped loop (faster since the producer's V
    // transpose left the consumers 240 registers, docs/PERF.md), except
    // with per-block K/V descales, whose carried factors make it spill.
    if (fp8 && headDim > 128 && perBlockKV)
      options.intraWgOverlap = false;
    // Pingpong (named barriers order the two consumers' GEMM issues) where
    // it measured faster once its turns ran across a persistent CTA's work
    // items: 16-bit head dim 256 +0.4-2% without a mask and up to +4%
    // causal; FP8 head dim 128 causal with V^T and the row sums +4-5% with
    // per-tensor descales, +5-8% with per-(batch, head) ones (against the
    // kernel without row sums, which spilled with them before pingpong)
    // (docs/PERF.md, 2026-11-30, ninth session). Not 16-bit head dim 128
    // without a mask any more: beside the split tail (below) it costs 1-4%
    // at 2k-16k, and that kernel without pingpong runs as fast at 2k and
    // 1% faster at 4k as the one with pingpong and without the split tail
    // that --short-seqs built, in three rounds of two calls (docs/PERF.md,
    // 2026-12-01, sixteenth session). Equal at 16-bit head dim 128 causal,
    // slower for FP8 otherwise; not measured with windows or softcap.
    options.pingpong =
        (!fp8 && headDim > 128 && (!masked || causal) && !hasSoftcap) ||
        (fp8 && rowSums && causal) || (linearP && valueT);
    // Persistent CTAs (--fattn-persistent-tiles) measured faster causal and
    // without a mask (docs/PERF.md; at 16-bit head dim 256 without a mask
    // since O leaves through the quad transpose). Sliding windows were not
    // measured: one CTA per tile.
    options.persistent = !masked || causal;
    // The next work item's Q copied into a second buffer while the current
    // one is read, where shared memory has room for it: 16-bit head dim 128
    // without a mask (160-key tiles), +0.7-2.8% in two rounds of one call,
    // most at 2k (docs/PERF.md, 2026-11-30, tenth session). Slower at head
    // dim 64 (three consumers), mixed causal with 160-key tiles. Not where
    // the command line's tiles leave no room (two 32 KiB Q buffers of 128
    // rows and the ring of 2 stages of 160 keys fill the 227 KiB).
    // --short-seqs, 16-bit head dim 128 causal: 128-key tiles (192 waste
    // more of the diagonal tiles of short items), two Q buffers and the
    // threshold: +7-12% at 2k and 4k, +1% at 8k and -2% at 16k against the
    // 192-key tiles, in two rounds of one call (docs/PERF.md, 2026-11-30,
    // eleventh session). Since the eighteenth session without pingpong and
    // O's TMA stores but with per-warpgroup KV ranges (below) and O's
    // 16-byte stores from registers: +1.5-2.3% at 2k and -0.3 to +3.2% at
    // 4k in two calls. Python's flash_attn_func asks for it up to 4096
    // queries and keys (config.py, short_seqs_tuning).
    bool shortCausal128 = shortSeqs && wide16Bit128 && causal;
    if (shortCausal128) {
      options.blockN = 128;
      options.rescaleThreshold = 8.0f;
    }
    // --short-seqs, 16-bit head dim up to 64 causal without softcap: two
    // consumer warpgroups and 128-key tiles instead of three and 96-key
    // ones: +13% at 1k (16 x 1024, 32 heads), but -4% at 2k and -9% at 4k,
    // in two rounds of one call (docs/PERF.md, 2026-12-02, twenty-sixth
    // session). Python's flash_attn_func asks for it only up to 1024
    // queries and keys (config.py, short_seqs_max).
    bool shortCausal64 = shortSeqs && !fp8 && headDim <= 64 && causal &&
                         !hasSoftcap;
    if (shortCausal64) {
      options.blockM = 128;
      options.blockN = 128;
    }
    // --short-seqs, 16-bit head dim 97-128 without a mask (or softcap):
    // 128-key tiles instead of 160, so that 1024 keys are eight whole tiles
    // rather than six and a 64-key remainder: +4.4% at 1k (16 x 1024, 16
    // heads), -3% at 2k, in two rounds of one call (the narrow tail of 64
    // keys: +3.3%) (docs/PERF.md, 2026-12-02, twenty-sixth session).
    // flash_attn_func asks for it only up to 1024 queries and keys
    // (config.py, short_seqs_max).
    bool shortUnmasked128 = shortSeqs && wideUnmasked128;
    if (shortUnmasked128)
      options.blockN = 128;
    // --short-seqs, FP8 head dim 97-128 with V^T and linear P without a
    // mask: O by TMA stores from a shared buffer of its own, in the room of
    // the ring's third stage. An item's O then leaves while the next item
    // starts: +5.8% at 2k, +1.9% at 4k, -0.5% at 8k and -1.6% at 16k in
    // three rounds of one call, two stages alone +0.3%. With the narrow
    // tail of 64 keys on top (the sequence's last partial tile computed on
    // 64 columns: 4096 keys are 18 tiles and 64) another +5-7% at 2k and 4k
    // and +1.7% at 1k, whose last tile (128 keys) it does not narrow: part
    // of the gain is ptxas's schedule of the loop. 96 and 128 keys read
    // 0.2-1.3% lower at 2k and 4k; without two stages and TMA stores the
    // narrow tail is within +-0.4% (docs/PERF.md, 2026-12-01, twenty-third
    // and twenty-fourth sessions). Python's flash_attn_func asks for it up
    // to 4096 queries and keys (config.py, has_short_seqs_kernel, which
    // python/tests/test_cpu_short_seqs_rule.py holds to this rule).
    // Only where at most one of Q, K and V has a single factor: with two or
    // three per-tensor descales (or none) ptxas spills 4 bytes.
    // flash_attn_func runs all-per-tensor descales on the per-(batch, head)
    // kernel (config.py, per_head_routing).
    int perTensor = 0;
    for (Value descale : {op.getQDescale(), op.getKDescale(), op.getVDescale()})
      perTensor += descaleRank(descale) == 0;
    bool shortFP8 = shortSeqs && linearP && valueT && !masked &&
                    headDim > 96 && perTensor <= 1;
    if (shortFP8) {
      options.stages = 2;
      options.tmaStore = true;
      options.narrowTail = 64;
    }
    // Each consumer warpgroup stops at the last KV tile its own rows see,
    // and one whose rows all lie past the sequence computes nothing
    // (warpgroup-kv-ranges): 16-bit head dim 128 causal +2-3% at 2k-16k,
    // the warpgroup that skips the item's last tile also starting the next
    // item's first one early; head dim 64 causal 0 / +2.5% / 0 at 2k / 4k /
    // 8k (docs/PERF.md, 2026-12-01, seventeenth and eighteenth sessions,
    // the second with the warpgroups past the sequence). Not with softcap
    // or at head dims 65-96 (not measured), nor pingpong (each warpgroup
    // must take as many turns as the other) or the split tail (the lowering
    // refuses both).
    options.warpgroupKVRanges = !fp8 && (headDim <= 64 || wide16Bit128) &&
                                causal && !hasSoftcap && !options.pingpong;
    applyOverrides(options);
    // The kernel's shared memory with a second Q buffer, as the lowering
    // lays it out (the tiles may come from the command line).
    fattn::SM90KernelConfig twoQBuffers;
    twoQBuffers.elementType = fp8 ? "e4m3" : "bf16";
    twoQBuffers.valueTransposed = valueT;
    twoQBuffers.rowSumMma = rowSums;
    twoQBuffers.headDim = headDim;
    twoQBuffers.blockM = options.blockM;
    twoQBuffers.blockN = options.blockN;
    twoQBuffers.stages = options.stages;
    twoQBuffers.qBuffers = 2;
    bool qBuffersFit = twoQBuffers.dynamicSharedBytes() <=
                       fattn::kMaxDynamicSharedBytes;
    // FP8 with linear P without a mask: with V^T (above), and with V by
    // rows, +5%; V by rows causal too, +2-4% (docs/PERF.md, 2026-12-01,
    // fourteenth session).
    if ((wideUnmasked128 || shortCausal128 ||
         (linearP && (!causal || !valueT))) &&
        qBuffersFit)
      options.qBuffers = 2;
    // The split tail (the work items past the last whole round of the grid
    // cut along their KV tiles, so that no SM idles through a partial
    // round): 16-bit head dim 64 without a mask, +4-5% at 2k-16k in two
    // rounds of one call; 16-bit head dim 128 without a mask +0.6-1.3% at
    // 8k and 16k in two calls, 0 to -1.6% at 2k and 4k beside pingpong, and
    // without pingpong -1 to +1% at 2k and 4k against the kernel with
    // pingpong and without the split tail (sixteenth session). About +1.6%
    // at head dim 256 from 8k but -1 to -3% below (and it spills there), -2
    // to -8% for FP8 with exp2s (docs/PERF.md, 2026-12-01, thirteenth
    // session): not used there. FP8 with linear P (above), the threshold
    // 0.8, pingpong and two Q buffers: 1,087-1,124 TFLOP/s at 4k-16k against
    // 1,066-1,112 without the split tail (2026-12-01, fourteenth session);
    // the three alone measured 0 to +4% over linear P.
    options.splitTail = (!fp8 && headDim <= 64 && !masked) ||
                        wideUnmasked128 || (linearP && !masked);
    // The work order's tail (the last pairs' items Q tile slowest, the
    // count chosen per launch by the runtime): 16-bit head dim 64 causal
    // +2.7-3.0% at 2k and unchanged at 4k, where few pairs already take
    // that order, in three rounds of one call (docs/PERF.md, 2026-12-01,
    // twenty-first session). At 16-bit head dim 128 causal the kernels
    // spill (4 bytes) with it; FP8 was not measured.
    options.workOrderTail =
        !fp8 && headDim <= 64 && causal && options.persistent;
    // One consumer warpgroup per 64 query rows.
    options.consumers = static_cast<int>(options.blockM / 64);
    if (fp8WideTiles && options.consumers == 2 && (!rowSums || !valueT)) {
      options.producerRegisters = 32;
      options.consumerRegisters = 232;
    }
    if (failed(applyPipelineOptions(options)))
      return failure();
    fattn::buildSM90Pipeline(pm, options);
    pm.addPass(createConvertNVVMToLLVMPass());
    pm.addPass(createReconcileUnrealizedCastsPass());
  }
  if (failed(pm.run(*module)))
    return failure();

  // Read and strip the description before serialization.
  Kernel kernel;
  kernel.entry = entry;
  module->walk([&](LLVM::LLVMFuncOp kernelFunc) {
    if (auto info = kernelFunc->getAttrOfType<DictionaryAttr>(
            fattn::kKernelInfoAttrName)) {
      kernel.info = info;
      kernelFunc->removeAttr(fattn::kKernelInfoAttrName);
    }
    if (auto text =
            kernelFunc->getAttrOfType<StringAttr>(kSM90DescriptionAttrName)) {
      kernel.description = text.str();
      kernelFunc->removeAttr(kSM90DescriptionAttrName);
    }
  });
  if (!kernel.info && kernel.description.empty())
    return func.emitError("the pipeline produced no kernel"), failure();

  PassManager serialize(ctx);
  GpuModuleToBinaryPassOptions binaryOptions;
  binaryOptions.compilationTarget = "isa";
  serialize.addPass(createGpuModuleToBinaryPass(binaryOptions));
  if (failed(serialize.run(*module)))
    return failure();
  module->walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects())
      if (auto obj = dyn_cast<gpu::ObjectAttr>(object))
        kernel.ptx = obj.getObject().getValue().str();
  });
  if (kernel.ptx.empty())
    return func.emitError("gpu-module-to-binary produced no PTX"), failure();
  return kernel;
}

std::string findPtxas() {
  if (!ptxasPath.empty())
    return ptxasPath;
  SmallVector<std::string> candidates;
  if (const char *home = std::getenv("CUDA_HOME"))
    candidates.push_back(std::string(home) + "/bin/ptxas");
  candidates.push_back("/usr/local/cuda/bin/ptxas");
  for (const std::string &c : candidates)
    if (llvm::sys::fs::can_execute(c))
      return c;
  if (auto onPath = llvm::sys::findProgramByName("ptxas"))
    return *onPath;
  return "";
}

LogicalResult writeFile(StringRef path, StringRef data) {
  std::string error;
  auto file = openOutputFile(path, &error);
  if (!file) {
    llvm::errs() << "fattn-compile: error: " << error << "\n";
    return failure();
  }
  file->os() << data;
  file->keep();
  return success();
}

/// The bytes of spill stores in ptxas -v's report (0 when none).
int64_t spillStoreBytes(StringRef report) {
  int64_t total = 0;
  for (StringRef line : llvm::split(report, '\n')) {
    size_t at = line.find(" bytes spill stores");
    if (at == StringRef::npos)
      continue;
    StringRef number = line.take_front(at).rsplit(' ').second;
    int64_t bytes = 0;
    if (!number.getAsInteger(10, bytes))
      total += bytes;
  }
  return total;
}

/// ptx -> cubin with ptxas. ptxas always runs with -v: a kernel that spills
/// registers gets a warning (it runs, slower), and --v prints the report.
LogicalResult assemble(StringRef ptxFile, StringRef cubinFile) {
  std::string ptxas = findPtxas();
  if (ptxas.empty()) {
    llvm::errs() << "fattn-compile: error: ptxas not found (use --ptxas, "
                    "$CUDA_HOME or /usr/local/cuda/bin)\n";
    return failure();
  }
  SmallString<128> reportFile;
  if (llvm::sys::fs::createTemporaryFile("fattn-ptxas", "txt", reportFile)) {
    llvm::errs() << "fattn-compile: error: cannot create a temporary file\n";
    return failure();
  }
  llvm::FileRemover removeReport(reportFile);
  SmallVector<StringRef> args = {ptxas, "-arch", arch, "-O3", "-v",
                                 ptxFile, "-o", cubinFile};
  // ptxas writes its report (and any error) to stderr.
  std::optional<StringRef> redirects[] = {std::nullopt, std::nullopt,
                                          StringRef(reportFile)};
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0,
                                     0, &error);
  auto report = llvm::MemoryBuffer::getFile(reportFile);
  StringRef text = report ? (*report)->getBuffer() : StringRef();
  if (verbose || rc != 0)
    llvm::errs() << text;
  if (rc != 0) {
    llvm::errs() << "fattn-compile: error: ptxas failed on " << ptxFile
                 << " (exit " << rc << ") " << error << "\n";
    return failure();
  }
  if (int64_t spilled = spillStoreBytes(text))
    llvm::errs() << "fattn-compile: warning: " << ptxFile << ": ptxas spills "
                 << spilled << " bytes of registers (the kernel runs slower; "
                    "smaller tiles avoid it)\n";
  return success();
}

llvm::json::Value sm80Description(const Kernel &k) {
  DictionaryAttr info = k.info;
  auto i64 = [&](StringRef name) {
    return info.getAs<IntegerAttr>(name).getInt();
  };
  auto f64 = [&](StringRef name) {
    return info.getAs<FloatAttr>(name).getValueAsDouble();
  };
  bool hasLse = info.getAs<BoolAttr>("has_lse").getValue();
  llvm::json::Array params;
  // json::Value keeps a StringRef without copying: names are owned strings.
  auto param = [&](std::string name, StringRef type) {
    params.push_back(
        llvm::json::Object{{"name", std::move(name)}, {"type", type.str()}});
  };
  for (const char *p : {"q", "k", "v", "o"})
    param(p, "ptr");
  if (hasLse)
    param("lse", "ptr");
  for (const char *p : {"batch", "heads_q", "heads_kv", "seq_q", "seq_k"})
    param(p, "u32");
  for (StringRef t : {"q", "k", "v", "o"})
    for (StringRef s : {"b", "h", "s"})
      param((t + "_stride_" + s).str(), "u64");
  if (hasLse) {
    param("lse_stride_b", "u64");
    param("lse_stride_h", "u64");
  }
  int64_t headDim = i64("head_dim");
  return llvm::json::Object{
      {"version", 1},
      {"arch", arch},
      {"entry", k.entry},
      {"cubin", k.entry + ".cubin"},
      {"ptx", k.entry + ".ptx"},
      {"dtype", info.getAs<StringAttr>("dtype").getValue()},
      {"head_dim_qk", headDim},
      {"head_dim_v", headDim},
      {"scale", f64("scale")},
      {"causal", i64("window_right") == 0},
      {"window_left", i64("window_left")},
      {"window_right", i64("window_right")},
      {"softcap", f64("softcap")},
      {"has_lse", hasLse},
      {"block_m", i64("block_m")},
      {"block_n", i64("block_n")},
      {"threads", i64("threads")},
      {"dynamic_smem_bytes", i64("dynamic_smem_bytes")},
      {"align_bytes", 16},
      {"grid", llvm::json::Array{llvm::json::Array{"seq_q", i64("block_m")},
                                 llvm::json::Array{"heads_q", 1},
                                 llvm::json::Array{"batch", 1}}},
      {"params", std::move(params)},
      {"meta", llvm::json::Object{{"stages", i64("stages")},
                                  {"compiler", "fattn-compile"}}},
  };
}
/// The kernel's description, with the PTX named beside the cubin (the
/// runtime falls back to it where the cubin does not load).
FailureOr<llvm::json::Value> sourceDescription(const Kernel &k) {
  if (k.description.empty())
    return sm80Description(k);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(k.description);
  if (!parsed) {
    llvm::errs() << "fattn-compile: error: the sm_90a description of "
                 << k.entry << " is not JSON: "
                 << llvm::toString(parsed.takeError()) << "\n";
    return failure();
  }
  if (llvm::json::Object *object = parsed->getAsObject())
    (*object)["ptx"] = k.entry + ".ptx";
  return std::move(*parsed);
}

/// The description, with what the kernel is tuned for: a library keeps a
/// --short-seqs kernel apart from the default one of its configuration.
FailureOr<llvm::json::Value> description(const Kernel &k) {
  FailureOr<llvm::json::Value> desc = sourceDescription(k);
  if (failed(desc) || !shortSeqs)
    return desc;
  if (llvm::json::Object *object = desc->getAsObject()) {
    llvm::json::Value &meta = (*object)["meta"];
    if (!meta.getAsObject())
      meta = llvm::json::Object{};
    (*meta.getAsObject())["tuned_for"] = kShortSeqsTuning;
  }
  return desc;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  cl::HideUnrelatedOptions(compileCategory);
  cl::ParseCommandLineOptions(argc, argv, "fattn kernel compiler\n");
  if (arch != "sm_80" && arch != "sm_90a")
    return fail("--arch " + arch + " is not supported (sm_80, sm_90a)");
  if (emit != "ptx" && emit != "cubin" && emit != "json")
    return fail("--emit must be ptx, cubin or json, found '" + emit + "'");

  DialectRegistry registry;
  registry.insert<fattn::FAttnDialect, func::FuncDialect, memref::MemRefDialect,
                  arith::ArithDialect, math::MathDialect, scf::SCFDialect,
                  gpu::GPUDialect, LLVM::LLVMDialect, NVVM::NVVMDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(inputFile, sourceMgr, &context);
  if (!module)
    return 1;

  SmallVector<Kernel> kernels;
  for (auto func : module->getOps<func::FuncOp>()) {
    fattn::AttentionOp op = attentionBody(func);
    if (!op)
      continue;
    FailureOr<Kernel> kernel = compileFunction(func, op);
    if (failed(kernel))
      return 1;
    kernels.push_back(std::move(*kernel));
  }
  if (kernels.empty())
    return fail("no func.func in " + inputFile +
                " has a single fattn.attention as its body");

  bool toDirectory = emit == "json" || kernels.size() > 1;
  if (toDirectory)
    if (std::error_code ec = llvm::sys::fs::create_directories(output))
      return fail("cannot create directory " + output + ": " + ec.message());
  for (const Kernel &k : kernels) {
    auto pathFor = [&](StringRef ext) {
      if (!toDirectory)
        return std::string(output);
      SmallString<256> p(output);
      llvm::sys::path::append(p, k.entry + ext);
      return std::string(p);
    };
    if (emit == "ptx") {
      if (failed(writeFile(pathFor(".ptx"), k.ptx)))
        return 1;
      continue;
    }
    // ptxas reads the PTX from a file: beside the cubin in a directory,
    // else a temporary.
    std::string ptxFile;
    if (toDirectory) {
      ptxFile = pathFor(".ptx");
    } else {
      SmallString<128> tmp;
      if (llvm::sys::fs::createTemporaryFile("fattn", "ptx", tmp))
        return fail("cannot create a temporary file");
      ptxFile = std::string(tmp);
    }
    if (failed(writeFile(ptxFile, k.ptx)) ||
        failed(assemble(ptxFile, pathFor(".cubin"))))
      return 1;
    if (!toDirectory)
      llvm::sys::fs::remove(ptxFile);
    if (emit == "json") {
      std::string text;
      llvm::raw_string_ostream os(text);
      FailureOr<llvm::json::Value> json = description(k);
      if (failed(json))
        return 1;
      os << llvm::formatv("{0:2}", *json) << "\n";
      if (failed(writeFile(pathFor(".json"), text)))
        return 1;
    }
  }
  return 0;
}
