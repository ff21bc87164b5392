//===- Tuning.cpp - tile shapes and lowering choices per configuration ----===//
//
// The measurements behind each choice are in docs/PERF.md (by the dates
// the comments give) and docs/SCHEDULING.md; the comments give their gist.
//
//===----------------------------------------------------------------------===//

#include "fattn/Pipelines/Tuning.h"

#include "fattn/Conversion/FAttnToNVVM/SM90/SM90Lowering.h"
#include "fattn/Dialect/FAttn/IR/FAttnOps.h"
#include "fattn/Dialect/FAttn/Transforms/SM80/Passes.h"
#include "fattn/Dialect/FAttn/Utils/HeadDims.h"
#include "fattn/Dialect/FAttn/Utils/SM80Layout.h"
#include "fattn/Pipelines/SM80Pipeline.h"
#include "fattn/Pipelines/SM90Pipeline.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::fattn;

//===----------------------------------------------------------------------===//
// Facts and conditions
//===----------------------------------------------------------------------===//

AttentionFacts AttentionFacts::of(AttentionOp op) {
  AttentionFacts facts;
  ShapedType query = op.getQuery().getType();
  facts.fp8 = isa<Float8E4M3FNType>(query.getElementType());
  facts.headDim = query.getDimSize(3);
  if (int64_t value = op.getValueHeadDim(); value != facts.headDim)
    facts.headDimV = value;
  int64_t left = op.getEffectiveWindowLeft();
  int64_t right = op.getEffectiveWindowRight();
  facts.mask = left < 0 && right < 0    ? MaskKind::None
               : left < 0 && right == 0 ? MaskKind::Causal
                                        : MaskKind::Window;
  FloatAttr softcap = op.getSoftcapAttr();
  facts.softcap = op.getDynamicSoftcap() ||
                  (softcap && softcap.getValue().convertToFloat() > 0.0f);
  facts.lse = static_cast<bool>(op.getLse());
  facts.valueTransposed = op.hasTransposedValue();
  // A descale's form is its rank: 0 per tensor, 2 per (batch, head), 3 per
  // block of rows.
  Value descales[] = {op.getQDescale(), op.getKDescale(), op.getVDescale()};
  for (auto [rank, descale] : llvm::zip(facts.descaleRanks, descales))
    rank = descale ? cast<ShapedType>(descale.getType()).getRank() : -1;
  return facts;
}

int AttentionFacts::perTensorDescales() const {
  return llvm::count_if(descaleRanks, [](int64_t rank) { return rank <= 0; });
}

bool TuningCondition::matches(const AttentionFacts &facts) const {
  auto agrees = [](const auto &wanted, const auto &actual) {
    return !wanted || *wanted == actual;
  };
  return !facts.headDimV && agrees(fp8, facts.fp8) &&
         facts.headDim >= minHeadDim &&
         facts.headDim <= maxHeadDim && agrees(mask, facts.mask) &&
         agrees(softcap, facts.softcap) && agrees(lse, facts.lse) &&
         agrees(valueTransposed, facts.valueTransposed) &&
         agrees(kvPerBlock, facts.kvPerBlock()) &&
         (!maxPerTensorDescales ||
          facts.perTensorDescales() <= *maxPerTensorDescales) &&
         agrees(descaleRanks, facts.descaleRanks);
}

//===----------------------------------------------------------------------===//
// The tables
//===----------------------------------------------------------------------===//

/// e4m3 (`fp8`) or 16-bit Q, K and V of head dims `minHeadDim` to
/// `maxHeadDim` under `mask`.
static TuningCondition configurations(bool fp8, int64_t minHeadDim,
                                      int64_t maxHeadDim, MaskKind mask) {
  TuningCondition c;
  c.fp8 = fp8;
  c.minHeadDim = minHeadDim;
  c.maxHeadDim = maxHeadDim;
  c.mask = mask;
  return c;
}

/// configurations(...) without softcap.
static TuningCondition withoutSoftcap(bool fp8, int64_t minHeadDim,
                                      int64_t maxHeadDim, MaskKind mask) {
  TuningCondition c = configurations(fp8, minHeadDim, maxHeadDim, mask);
  c.softcap = false;
  return c;
}

static TuningCondition shortFP8Condition() {
  TuningCondition c = configurations(/*fp8=*/true, 97, 128, MaskKind::None);
  // Linear P needs the row sums on the tensor cores, which an LSE (exact
  // sums) and per-block K or V factors (whole tiles per block) exclude.
  c.lse = false;
  c.kvPerBlock = false;
  c.valueTransposed = true;
  // With two or three single factors (per tensor, or none) ptxas spills 4
  // bytes; flash_attn_func runs all-per-tensor descales on the per-(batch,
  // head) kernel (descaleRoutes).
  c.maxPerTensorDescales = 1;
  return c;
}

ArrayRef<ShortSeqsRule> mlir::fattn::shortSeqsRules() {
  static const ShortSeqsRule rules[] = {
      // 128-key tiles (192 waste more of the diagonal tiles of short items),
      // two Q buffers, the rescale threshold and per-warpgroup KV ranges:
      // +7-12% at 2k and 4k, about +1% at 8k and -2% at 16k against the
      // 192-key tiles (2026-11-30, retuned 2026-12-01).
      {ShortSeqsKernel::Causal128, "causal128",
       withoutSoftcap(/*fp8=*/false, 97, 128, MaskKind::Causal), 4096},
      // Two consumer warpgroups and 128-key tiles instead of three and
      // 96-key ones: +13% at 1k, but -4% at 2k and -9% at 4k (2026-12-02).
      {ShortSeqsKernel::Causal64, "causal64",
       withoutSoftcap(/*fp8=*/false, 1, 64, MaskKind::Causal), 1024},
      // 128-key tiles instead of 160, so that 1024 keys are eight whole
      // tiles: +4.4% at 1k, -3% at 2k (2026-12-02).
      {ShortSeqsKernel::Unmasked128, "unmasked128",
       withoutSoftcap(/*fp8=*/false, 97, 128, MaskKind::None), 1024},
      // Two stages and O by TMA stores from a buffer of its own, in the room
      // of the ring's third stage: +5.8% at 2k, +1.9% at 4k, -0.5% at 8k and
      // -1.6% at 16k; the narrow tail of 64 keys on top another +5-7% at 2k
      // and 4k (2026-12-01).
      {ShortSeqsKernel::FP8, "fp8", shortFP8Condition(), 4096},
  };
  return rules;
}

const ShortSeqsRule *mlir::fattn::shortSeqsRule(const AttentionFacts &facts,
                                                const TuningRequest &request) {
  for (const ShortSeqsRule &rule : shortSeqsRules())
    if (rule.when.matches(facts) &&
        (rule.kernel != ShortSeqsKernel::FP8 || request.linearExp2))
      return &rule;
  return nullptr;
}

ArrayRef<DescaleRoute> mlir::fattn::descaleRoutes() {
  // FP8 head dim 128 without a mask: the per-(batch, head) kernel writes
  // the same output bit for bit as the per-tensor one and measured 1-5%
  // faster (2026-12-01); elsewhere the two
  // read alike (causal -0.3 to +1.3%, head dim 256 +-0.4%).
  static const DescaleRoute routes[] = {
      {[] {
         TuningCondition c =
             withoutSoftcap(/*fp8=*/true, 128, 128, MaskKind::None);
         c.descaleRanks = {0, 0, 0};
         return c;
       }(),
       {2, 2, 2}},
  };
  return routes;
}

//===----------------------------------------------------------------------===//
// sm_80
//===----------------------------------------------------------------------===//

SM80Tuning mlir::fattn::tuneSM80(const AttentionFacts &facts,
                                 const TuningRequest &request) {
  SM80Tuning t;
  // 128 query rows where the accumulator and the scores fit the registers
  // (head dims 104 to 120 spill there: 112 always, 104 with a softcap); 64
  // above.
  const int64_t headDim = facts.tileHeadDim();
  t.blockM = headDim > 128 || (headDim > 96 && headDim < 128) ? 64 : 128;
  // Head dim 256: 64 + 2 x (32 + 32) padded rows fit the 163 KiB of sm_80.
  // Above 128, 32 keys at multiples of 32 (K's and V's), and where 64 keys
  // do not fit (248, whose rows take a spare chunk); 64 keys otherwise.
  const int64_t valueHeadDim = facts.headDimV.value_or(facts.headDim);
  t.stages = 2;
  bool wideKeysFit = sm80::planSmem(headDim, 2, t.blockM, 64, t.stages)
                         .totalBytes <= kSM80MaxSharedBytes;
  t.blockN = headDim > 128 && ((facts.headDim % 32 == 0 &&
                                valueHeadDim % 32 == 0) ||
                               !wideKeysFit)
                 ? 32
                 : 64;
  if (request.blockM > 0)
    t.blockM = request.blockM;
  if (request.blockN > 0)
    t.blockN = request.blockN;
  if (request.stages > 0)
    t.stages = request.stages;
  return t;
}

void SM80Tuning::applyTo(SM80PipelineOptions &options) const {
  options.blockM = blockM;
  options.blockN = blockN;
  options.stages = stages;
}

//===----------------------------------------------------------------------===//
// sm_90a
//===----------------------------------------------------------------------===//

SM90Tuning mlir::fattn::tuneSM90(const AttentionFacts &facts,
                                 const TuningRequest &request) {
  SM90Tuning t;
  const int64_t headDim = facts.tileHeadDim();
  const bool fp8 = facts.fp8, masked = facts.isMasked(),
             causal = facts.isCausal(), hasSoftcap = facts.softcap,
             valueT = facts.valueTransposed, perBlockKV = facts.kvPerBlock();
  // Softcap's tanh holds more registers: its causal (persistent) kernels
  // spill with the larger tiles (ptxas: 100 bytes at head dim 128 with
  // 192-key tiles and an LSE, 64 bytes at head dim 256 with 80-key ones).
  const bool causalSoftcap = causal && hasSoftcap;

  // FP8 head dim 128 without a mask and causal: 224-key tiles (FA3's),
  // unless per-block K/V descales need whole tiles per block (of 128 rows
  // by default; V's per-tile factors need tiles that divide their blocks as
  // K's do). Their persistent producer needs 32 registers (24 spill the
  // work loop's counter), and the consumers fit in the 232 left. With V^T
  // the producer transposes nothing and keeps 24: the consumers' 240 hold
  // the tiles' row sums on the tensor cores (row-sum-mma), 5-6% faster
  // without a mask and up to 4% causal (2026-11-30); they spill at
  // 232, except with P's bytes from a linear 2^x (below), which V by rows
  // takes. Not with an LSE (it needs the exact sums). Without a mask three
  // stages add 1-2% more there (causal: 0 to -2%).
  const bool fp8WideTiles =
      fp8 && headDim <= 128 && (!masked || causal) && !perBlockKV;
  // P's e4m3 bytes from a linear 2^x (no MUFU.EX2; needs the row sums on
  // the tensor cores, so no LSE): with V^T +11-13% at head dim 128 without
  // a mask and +13-25% causal; with V by rows, whose kernel fits the row
  // sums only this way, +18-22% with 192-key tiles (2026-12-01).
  // P's error grows from 2.7% to 3.2% RMS (docs/FP8.md).
  const bool rowSumsFit = fp8WideTiles && !facts.lse;
  const bool linearP = rowSumsFit && request.linearExp2;
  const bool rowSums = rowSumsFit && (valueT || linearP);
  t.rowSumMma = rowSums;
  t.linearExp2 = linearP;
  if (rowSums && valueT && !causal)
    t.stages = 3;

  // Conditional rescaling (a row's max moves only past 2^8 in P, 2^0.8 for
  // e4m3, whose 256 P must stay below 448) skips most of O's multiplies:
  // head dim 256 5-6% faster for bf16 and 5% for FP8 (2026-11-30), head
  // dim 64 causal 0-3%. Slower at head dim 128 and at 64 without a mask,
  // whose rescale ptxas hides in the softmax. Not with per-block V
  // descales, whose rescale is never skipped, nor with sliding windows (not
  // measured). 16-bit head dim 128 without a mask (or softcap): 160-key
  // tiles with the threshold, +1-4% over 192-key tiles without it (2026-11-30).
  const bool wide16Bit128 =
      !fp8 && headDim > 96 && headDim <= 128 && !hasSoftcap;
  const bool wideUnmasked128 = wide16Bit128 && !masked;
  if ((headDim > 128 && !perBlockKV && (!masked || causal)) ||
      (!fp8 && headDim <= 64 && causal) || wideUnmasked128 ||
      (linearP && valueT && !causal))
    t.rescaleThreshold = fp8 ? 0.8f : 8.0f;

  // Tile shapes measured fastest: head dim 256 two stages of 80-key tiles
  // (the most that fit); head dim 128 192-key tiles causal (160 without a
  // mask; sliding windows, whose edge tiles waste more of them, 128); head
  // dim 64 three consumer warpgroups (block_m 192), with 96-key tiles
  // causal.
  if (fp8)
    t.blockN = !fp8WideTiles ? 128 : linearP && !valueT ? 192 : 224;
  else if (headDim > 128)
    t.blockN = causalSoftcap ? 64 : 80;
  else if (headDim > 64 && (!masked || causal) && !causalSoftcap)
    t.blockN = wideUnmasked128 ? 160 : 192;
  else if (headDim <= 64 && causal)
    t.blockN = 96;
  if (headDim <= 64 && !fp8)
    t.blockM = 192;

  // FP8 head dim 256: the overlapped loop, except with per-block K/V
  // descales, whose carried factors make it spill.
  if (fp8 && headDim > 128 && perBlockKV)
    t.intraWgOverlap = false;

  // Pingpong, where it measured faster across a persistent CTA's work
  // items: 16-bit head dim 256 +0.4-2% without a mask and up to +4% causal;
  // FP8 head dim 128 causal with the row sums +4-8% (2026-11-30). Not
  // 16-bit head dim 128 without a mask any more: beside the split tail it
  // costs 1-4% (2026-12-01). Equal at 16-bit head dim 128 causal,
  // slower for FP8 otherwise; not measured with windows or softcap.
  t.pingpong = (!fp8 && headDim > 128 && (!masked || causal) && !hasSoftcap) ||
               (fp8 && rowSums && causal) || (linearP && valueT);

  // Persistent CTAs measured faster causal and without a mask. Sliding
  // windows were not measured: one CTA per tile.
  t.persistent = !masked || causal;

  // --short-seqs (shortSeqsRules gives each kernel's gains).
  const ShortSeqsRule *shortRule =
      request.shortSeqs ? shortSeqsRule(facts, request) : nullptr;
  const bool shortCausal128 =
      shortRule && shortRule->kernel == ShortSeqsKernel::Causal128;
  if (shortRule)
    switch (shortRule->kernel) {
    case ShortSeqsKernel::Causal128:
      t.blockN = 128;
      t.rescaleThreshold = 8.0f;
      break;
    case ShortSeqsKernel::Causal64:
      t.blockM = 128;
      t.blockN = 128;
      break;
    case ShortSeqsKernel::Unmasked128:
      t.blockN = 128;
      break;
    case ShortSeqsKernel::FP8:
      t.stages = 2;
      t.tmaStore = true;
      t.narrowTail = 64;
      break;
    }

  // Each consumer warpgroup stops at the last KV tile its own rows see, and
  // one whose rows all lie past the sequence computes nothing: 16-bit head
  // dim 128 causal +2-3% at 2k-16k, head dim 64 causal 0 / +2.5% / 0 at 2k /
  // 4k / 8k (2026-12-01). Not with softcap or at
  // head dims 65-96 (not measured), nor pingpong or the split tail (the
  // lowering refuses both).
  t.warpgroupKVRanges = !fp8 && (headDim <= 64 || wide16Bit128) && causal &&
                        !hasSoftcap && !t.pingpong;

  if (request.blockM > 0)
    t.blockM = request.blockM;
  if (request.blockN > 0)
    t.blockN = request.blockN;
  if (request.stages > 0)
    t.stages = request.stages;

  // The next work item's Q copied into a second buffer while the current
  // one is read, where shared memory has room for it (the tiles may come
  // from the request): 16-bit head dim 128 without a mask +0.7-2.8%
  // (2026-11-30); the short-sequence causal head dim 128 kernel; FP8 with
  // linear P without a mask +5%, V by rows causal +2-4% (2026-12-01). Slower at
  // head dim 64 (three consumers), mixed causal with 160-key tiles.
  SM90KernelConfig twoQBuffers;
  twoQBuffers.elementType = fp8 ? "e4m3" : "bf16";
  twoQBuffers.valueTransposed = valueT;
  twoQBuffers.rowSumMma = rowSums;
  twoQBuffers.headDim = facts.headDim;
  twoQBuffers.headDimV = facts.headDimV.value_or(facts.headDim);
  twoQBuffers.blockM = t.blockM;
  twoQBuffers.blockN = t.blockN;
  twoQBuffers.stages = t.stages;
  twoQBuffers.qBuffers = 2;
  const bool qBuffersFit =
      twoQBuffers.dynamicSharedBytes() <= kMaxDynamicSharedBytes;
  if ((wideUnmasked128 || shortCausal128 ||
       (linearP && (!causal || !valueT))) &&
      qBuffersFit)
    t.qBuffers = 2;

  // The split tail (the work items past the last whole round cut along
  // their KV tiles): 16-bit head dim 64 without a mask +4-5% at 2k-16k;
  // 16-bit head dim 128 without a mask -1 to +1.3% (2026-12-01); FP8
  // with linear P, with the threshold, pingpong and two Q buffers, +1-2%
  // (2026-12-01). Head dim 256 -1 to -3% below 8k (and it spills),
  // FP8 with exp2s -2 to -8% (2026-12-01).
  t.splitTail = (!fp8 && headDim <= 64 && !masked) || wideUnmasked128 ||
                (linearP && !masked);

  // The work order's tail (the last pairs' items Q tile slowest): 16-bit
  // head dim 64 causal +2.7-3.0% at 2k, unchanged at 4k (2026-12-01). At 16-bit
  // head dim 128 causal the kernels spill (4 bytes); FP8 was not measured.
  t.workOrderTail = !fp8 && headDim <= 64 && causal && t.persistent;

  // One consumer warpgroup per 64 query rows.
  t.consumers = static_cast<int>(t.blockM / 64);
  if (fp8WideTiles && t.consumers == 2 && (!rowSums || !valueT)) {
    t.producerRegisters = 32;
    t.consumerRegisters = 232;
  }
  return t;
}

void SM90Tuning::applyTo(SM90PipelineOptions &options) const {
  options.blockM = blockM;
  options.blockN = blockN;
  options.stages = stages;
  options.consumers = consumers;
  options.persistent = persistent;
  options.pingpong = pingpong;
  options.intraWgOverlap = intraWgOverlap;
  options.rowSumMma = rowSumMma;
  options.linearExp2 = linearExp2;
  options.rescaleThreshold = rescaleThreshold;
  options.qBuffers = qBuffers;
  options.tmaStore = tmaStore;
  options.narrowTail = narrowTail;
  options.splitTail = splitTail;
  options.workOrderTail = workOrderTail;
  options.warpgroupKVRanges = warpgroupKVRanges;
  options.producerRegisters = producerRegisters;
  options.consumerRegisters = consumerRegisters;
}

//===----------------------------------------------------------------------===//
// Export
//===----------------------------------------------------------------------===//

static llvm::StringRef maskName(MaskKind mask) {
  switch (mask) {
  case MaskKind::None:
    return "none";
  case MaskKind::Causal:
    return "causal";
  case MaskKind::Window:
    return "window";
  }
  llvm_unreachable("unknown mask kind");
}

static llvm::json::Array ranksJSON(const std::array<int64_t, 3> &ranks) {
  return llvm::json::Array{ranks[0], ranks[1], ranks[2]};
}

static llvm::json::Object conditionJSON(const TuningCondition &c) {
  llvm::json::Object o;
  if (c.fp8)
    o["dtypes"] =
        *c.fp8 ? llvm::json::Array{"e4m3"} : llvm::json::Array{"bf16", "f16"};
  o["head_dim"] = llvm::json::Array{c.minHeadDim, c.maxHeadDim};
  if (c.mask)
    o["mask"] = maskName(*c.mask);
  if (c.softcap)
    o["softcap"] = *c.softcap;
  if (c.lse)
    o["lse"] = *c.lse;
  if (c.valueTransposed)
    o["value_transposed"] = *c.valueTransposed;
  if (c.kvPerBlock)
    o["kv_per_block_descales"] = *c.kvPerBlock;
  if (c.maxPerTensorDescales)
    o["max_per_tensor_descales"] = *c.maxPerTensorDescales;
  if (c.descaleRanks)
    o["descale_ranks"] = ranksJSON(*c.descaleRanks);
  return o;
}

/// A rule of HeadDims.h: every multiple of "granule" from "min" up to
/// "max"; where V's head dim differs, one of at most "narrow"."head_dim"
/// only with one of at most "narrow"."other_max".
static llvm::json::Object headDimRuleJSON(const HeadDimRule &rule) {
  llvm::json::Object o{{"dtypes", llvm::json::Array(rule.dtypes)},
                       {"granule", rule.granule},
                       {"min", rule.min},
                       {"max", rule.max},
                       {"value_may_differ", rule.valueMayDiffer}};
  if (rule.narrow)
    o["narrow"] = llvm::json::Object{{"head_dim", rule.narrow},
                                     {"other_max", rule.narrowPartnerMax}};
  return o;
}

llvm::json::Object mlir::fattn::tuningRulesJSON() {
  llvm::json::Array shortSeqs;
  for (const ShortSeqsRule &rule : shortSeqsRules())
    shortSeqs.push_back(llvm::json::Object{{"kernel", rule.name},
                                           {"when", conditionJSON(rule.when)},
                                           {"max_seq", rule.maxSeq}});
  llvm::json::Array routes;
  for (const DescaleRoute &route : descaleRoutes())
    routes.push_back(
        llvm::json::Object{{"when", conditionJSON(route.when)},
                           {"descale_ranks", ranksJSON(route.descaleRanks)}});
  llvm::json::Object result{
      {"version", 1},
      {"sm_90a", llvm::json::Object{{"short_seqs", std::move(shortSeqs)},
                                    {"descale_routes", std::move(routes)}}},
  };
  // The head dims each target compiles (HeadDims.h), per element type.
  for (const HeadDimRule &rule : headDimRules()) {
    if (!result.getObject(rule.arch))
      result[rule.arch] = llvm::json::Object{};
    llvm::json::Object &arch = *result.getObject(rule.arch);
    if (!arch.getArray("head_dims"))
      arch["head_dims"] = llvm::json::Array{};
    arch.getArray("head_dims")->push_back(headDimRuleJSON(rule));
  }
  return result;
}
