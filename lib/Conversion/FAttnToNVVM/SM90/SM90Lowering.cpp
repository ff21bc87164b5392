//===- SM90Lowering.cpp - fattn.tiled_attention -> sm_90a kernel ----------===//
//
// Reads the configuration of a tiled attention op (and the TMA plan that
// --fattn-sm90-tma attached to it), emits the kernel (KernelEmitter.h) and
// places it in a gpu.module targeting sm_90a.
//
//===----------------------------------------------------------------------===//

#include "fattn/Conversion/FAttnToNVVM/SM90/SM90Lowering.h"
#include "fattn/Conversion/FAttnToNVVM/FAttnToNVVM.h"
#include "fattn/Conversion/FAttnToNVVM/KernelDescription.h"
#include "fattn/Conversion/FAttnToNVVM/KernelSymbol.h"
#include "fattn/Conversion/FAttnToNVVM/SM90/FP8LayoutFromIR.h"
#include "fattn/Conversion/FAttnToNVVM/SM90/Passes.h"
#include "fattn/Conversion/FAttnToNVVM/SM90/ScheduleFromIR.h"
#include "fattn/Conversion/FAttnToNVVM/SM90/TargetToNVVM.h"
#include "fattn/Conversion/UnloweredOps.h"
#include "fattn/Dialect/FAttn/IR/FAttnFP8Ops.h"
#include "fattn/Dialect/FAttn/IR/FAttnScheduleOps.h"
#include "fattn/Dialect/FAttn/IR/FAttnTiledGradOps.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/LoweringChoices.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Schedule.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/TMAPlan.h"
#include "fattn/Dialect/FAttn/Utils/HeadDims.h"
#include "fattn/Dialect/FAttn/Utils/LinearExp2.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdio>

#define DEBUG_TYPE "convert-fattn-to-nvvm-sm90"

namespace mlir::fattn {
#define GEN_PASS_DEF_CONVERTFATTNTONVVMSM90
#include "fattn/Conversion/FAttnToNVVM/SM90/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;
using llvm::formatv;

void mlir::fattn::setDefaultRegisters(SM90Options &options, bool setmaxnreg) {
  // The producer keeps what TMA issue needs; the consumers share the rest
  // (FA3's split: 24/240 for two consumers, 32/160 for three).
  bool three = options.consumerWarpgroups == 3;
  options.producerRegisters = setmaxnreg ? (three ? 32 : 24) : 0;
  options.consumerRegisters = setmaxnreg ? (three ? 160 : 240) : 0;
}

namespace {
/// Every op kind of the form --fattn-tile builds must be there, and nothing
/// else of the fattn dialect: the kernel implements exactly that form.
LogicalResult checkCanonicalTiledForm(TiledAttentionOp op) {
  bool hasLoad = false, hasMma = false, hasUpdate = false, hasFinalize = false;
  WalkResult result = op.getBody().walk([&](Operation *inner) {
    if (isa<LoadTileOp>(inner))
      hasLoad = true;
    else if (isa<MmaOp>(inner))
      hasMma = true;
    else if (isa<SoftmaxUpdateOp>(inner))
      hasUpdate = true;
    else if (isa<FinalizeOp>(inner))
      hasFinalize = true;
    else if (isa<FAttnDialect>(inner->getDialect()) &&
             !isa<StoreTileOp, KVTileRangeOp, MaskOp, SoftcapOp, SoftmaxInitOp,
                  RescaleOp, WarpSpecializeOp, WorkLoopOp, RingCreateOp,
                  RingAcquireOp, RingCommitOp, RingWaitOp, RingReleaseOp,
                  NamedBarrierSyncOp, NamedBarrierArriveOp, LoadDescaleOp,
                  PermuteKeysOp, TransposeTileOp>(inner)) {
      inner->emitOpError("is not supported by the sm_90a lowering");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  if (!hasLoad || !hasMma || !hasUpdate || !hasFinalize)
    return op.emitOpError("is not in the form --fattn-tile builds (load_tile, "
                          "mma, softmax_update and finalize expected)");
  return success();
}

/// The descale part of an FP8 kernel's name: `_ds` and per tensor its rank,
/// with `b<block>` for per-block factors, e.g. `_dsq2k3b128v3b128`.
std::string descaleSuffix(const SM90KernelConfig &c) {
  if (!c.hasDescales())
    return "";
  std::string suffix = "_ds";
  for (auto [t, d] : {std::pair{"q", c.qDescale}, std::pair{"k", c.kDescale},
                      std::pair{"v", c.vDescale}}) {
    suffix += formatv("{0}{1}", t, d.rank).str();
    if (d.rank == 3)
      suffix += formatv("b{0}", d.block).str();
  }
  return suffix;
}

std::string defaultKernelName(const SM90KernelConfig &c) {
  // V's head dim where it differs from Q's and K's: `d192v128`.
  std::string dims = formatv("d{0}", c.headDim).str();
  if (c.headDimV != c.headDim)
    dims += formatv("v{0}", c.headDimV).str();
  std::string name = formatv("fattn_fwd_sm90_{0}_{1}_m{2}n{3}s{4}", dims,
                             c.elementType, c.blockM, c.blockN, c.stages).str();
  name += descaleSuffix(c);
  if (c.valueTransposed)
    name += "_vt";
  if (c.windowRight == 0 && c.windowLeft < 0)
    name += "_causal";
  else if (c.windowLeft >= 0 || c.windowRight >= 0)
    name += formatv("_win{0}_{1}", c.windowLeft, c.windowRight).str();
  if (c.hasSoftcap())
    name += "_softcap";
  if (c.hasLse)
    name += "_lse";
  if (c.persistent)
    name += "_persistent";
  for (char &ch : name)
    if (ch == '-')
      ch = 'm';
  return name;
}
} // namespace

/// An async wgmma keeps its whole accumulator (N / 2 f32 registers per
/// thread for m64nN) in registers until it is waited on, and ptxas compiles
/// every thread to the registers a CTA of threads() can have: 128 with three
/// consumer warpgroups and the producer. ptxas needs about 30 more around
/// the widest wgmma (measured: S on 208 keys needs 130, O on head dim 256
/// 158); without them it stops with "insufficient registers".
static LogicalResult checkRegisterBudget(TiledAttentionOp op,
                                         const SM90Options &options,
                                         const SM90KernelConfig &c) {
  constexpr int64_t kOtherRegisters = 32;
  int64_t perThread = std::min<int64_t>(255, 65536 / c.threads()) / 8 * 8;
  int64_t maxColumns = 2 * (perThread - kOtherRegisters);
  // O += P V spans V's whole (padded) head dim with wide-value-mma, else
  // one 64-column atom.
  int64_t valueColumns = options.wideValueMma ? c.paddedValueHeadDim() : 64;
  auto reject = [&](int64_t columns, StringRef what) {
    return op.emitOpError()
           << "the sm_90a kernel needs " << columns / 2 + kOtherRegisters
           << " registers per consumer thread for " << what << " ("
           << columns / 2 << " accumulators and " << kOtherRegisters
           << " others), more than the " << perThread << " each of its "
           << c.threads() << " threads can have (block_m = " << c.blockM
           << "): ";
  };
  if (c.blockN > maxColumns)
    return reject(c.blockN, formatv("S = Q K^T on block_n = {0} keys",
                                    c.blockN).str())
           << "lower block_n to at most " << maxColumns << " or block_m";
  if (valueColumns > maxColumns)
    return reject(valueColumns, formatv("O += P V on head dim {0}",
                                        c.paddedValueHeadDim()).str())
           << "lower block_m or set wide-value-mma=false";
  return success();
}

/// The FP8 part of the configuration: what the e4m3 kernel supports (its
/// producer warpgroup transposes V, so warp specialization is required), the
/// layout --fattn-fp8-layout recorded, and the descales.
static LogicalResult getFP8Config(TiledAttentionOp op,
                                  const SM90Options &options,
                                  SM90KernelConfig &c) {
  if (!options.warpSpecialize)
    return op.emitOpError()
           << "the sm_90a FP8 kernel needs warp specialization: its producer "
              "warpgroup "
           << (op.hasTransposedValue() ? "issues the copies" : "transposes V")
           << " (run --fattn-warp-specialize)";
  FailureOr<SM90FP8Layout> layout = readSM90FP8Layout(op);
  if (failed(layout))
    return failure();
  if (!layout->producerTransposes && !layout->valueStoredTransposed)
    return op.emitOpError("the sm_90a FP8 kernel transposes V in the "
                          "producer warpgroup: expected the fattn.transpose_"
                          "tile of --fattn-fp8-layout in the producer region");
  c.valueTransposed = layout->valueStoredTransposed;
  if (options.pingpong &&
      options.pingpongBarrierBase + 1 >= kFP8ProducerBarrier)
    return op.emitOpError() << "pingpong barriers "
                            << options.pingpongBarrierBase << " and "
                            << options.pingpongBarrierBase + 1
                            << " collide with the FP8 producer's barrier "
                            << kFP8ProducerBarrier;

  if (!op.getQDescale())
    return success();
  auto spec = [&](Value descale, std::optional<uint64_t> block,
                  SM90Descale &out) {
    out.rank = cast<MemRefType>(descale.getType()).getRank();
    out.block = out.rank == 3 ? static_cast<int64_t>(block.value_or(0)) : 0;
  };
  spec(op.getQDescale(), op.getDescaleBlockQ(), c.qDescale);
  spec(op.getKDescale(), op.getDescaleBlockKv(), c.kDescale);
  spec(op.getVDescale(), op.getDescaleBlockKv(), c.vDescale);
  for (const SM90Descale *d : {&c.qDescale, &c.kDescale, &c.vDescale})
    if ((d->rank != 0 && d->rank != 2 && d->rank != 3) ||
        (d->rank == 3 && d->block <= 0))
      return op.emitOpError() << "has a descale of rank " << d->rank
                              << " (block " << d->block
                              << "): the sm_90a FP8 kernel reads ranks 0, "
                                 "2 and 3 with a positive block";
  // The kernel divides 32-bit row and key indices by the blocks.
  for (auto [name, d] : {std::pair{"descale_block_q", c.qDescale},
                         std::pair{"descale_block_kv", c.kDescale}})
    if (d.block > INT32_MAX)
      return op.emitOpError() << "the sm_90a FP8 kernel needs " << name
                              << " at most " << INT32_MAX
                              << " (2^31 - 1, its row indices are 32-bit), "
                                 "found "
                              << d.block;
  // One V factor per KV tile: it moves into O's rescale. K's blocks either
  // hold whole tiles (a factor per tile, folded into the softmax's row
  // factor) or split them evenly (a factor per score column).
  if (c.vDescale.block % c.blockN != 0)
    return op.emitOpError() << "the sm_90a FP8 kernel needs per-block V "
                               "descales of whole KV tiles: descale_block_kv "
                               "a multiple of block_n = "
                            << c.blockN << ", found " << c.vDescale.block;
  if (c.kDescale.block % c.blockN != 0 && c.blockN % c.kDescale.block != 0)
    return op.emitOpError() << "the sm_90a FP8 kernel needs per-block K "
                               "descales that hold whole KV tiles or divide "
                               "them: descale_block_kv a multiple or a "
                               "divisor of block_n = "
                            << c.blockN << ", found " << c.kDescale.block;
  return success();
}

FailureOr<SM90KernelConfig>
mlir::fattn::getSM90KernelConfig(TiledAttentionOp op,
                                 const SM90Options &options) {
  auto plan = getTMAPlan(op);
  if (failed(plan))
    return op.emitOpError("has no TMA plan: run --fattn-sm90-tma first");
  auto qType = cast<MemRefType>(op.getQuery().getType());
  auto kType = cast<MemRefType>(op.getKey().getType());
  auto vType = cast<MemRefType>(op.getValue().getType());
  auto oType = cast<MemRefType>(op.getOutput().getType());
  Type elem = qType.getElementType();
  bool fp8 = isa<Float8E4M3FNType>(elem);
  if (!elem.isBF16() && !elem.isF16() && !fp8)
    return op.emitOpError() << "the sm_90a lowering needs bf16, f16 or "
                               "f8E4M3FN elements, found "
                            << elem;
  if (kType.getElementType() != elem || vType.getElementType() != elem)
    return op.emitOpError("the sm_90a lowering needs equal element types for "
                          "query, key and value");
  if (fp8 ? !oType.getElementType().isBF16() : oType.getElementType() != elem)
    return op.emitOpError() << "the sm_90a lowering needs a "
                            << (fp8 ? "bf16 output for f8E4M3FN inputs"
                                    : "output of the inputs' element type")
                            << ", found " << oType.getElementType();
  int64_t d = qType.getDimSize(3), dv = op.getValueHeadDim();
  // Which head dims the kernels take (HeadDims.cpp gives the reasons; a
  // dynamic one is none of them).
  if (std::optional<std::string> error = sm90HeadDimsError(elem, d, dv))
    return op.emitOpError() << *error;
  if (int64_t dk = kType.getDimSize(3); dk != d)
    return op.emitOpError() << "the sm_90a lowering needs K's head dim equal "
                               "to Q's, found "
                            << (ShapedType::isDynamic(dk) ? "?"
                                                          : std::to_string(dk))
                            << " and " << d;
  int64_t consumers = options.consumerWarpgroups;
  if (consumers < 2 || consumers > 3)
    return op.emitOpError() << "the sm_90a lowering needs 2 or 3 consumer "
                               "warpgroups, found "
                            << consumers;
  if (static_cast<int64_t>(op.getBlockM()) != 64 * consumers)
    return op.emitOpError() << "the sm_90a lowering needs block_m = 64 * "
                               "consumer warpgroups = "
                            << 64 * consumers << ", found " << op.getBlockM();
  int64_t bn = op.getBlockN();
  if (bn % 16 != 0 || bn < 16 || bn > 256)
    return op.emitOpError() << "the sm_90a lowering needs block_n a multiple "
                               "of 16 in [16, 256], found "
                            << bn;

  SM90KernelConfig c;
  c.elementType = fp8 ? "e4m3" : elem.isBF16() ? "bf16" : "f16";
  c.outputType = fp8 ? "bf16" : c.elementType;
  c.headDim = d;
  c.headDimV = dv;
  c.blockM = op.getBlockM();
  c.blockN = bn;
  c.stages = plan->stages;
  c.dynamicScale = static_cast<bool>(op.getDynamicScale());
  c.dynamicSoftcap = static_cast<bool>(op.getDynamicSoftcap());
  c.scale = c.dynamicScale ? 0.0f : op.getScale()->convertToFloat();
  c.softcap = op.getStaticSoftcap();
  c.windowLeft = op.getWindowLeft();
  c.windowRight = op.getWindowRight();
  if (failed(checkKernelWindows(op, "the sm_90a lowering")))
    return failure();
  c.hasLse = op.getLse() != nullptr;
  c.consumerWarpgroups = consumers;
  c.warpSpecialize = options.warpSpecialize;
  c.persistent = options.persistent;
  c.reverseQTiles = options.reverseQTiles;
  if (c.persistent && !c.warpSpecialize)
    return op.emitOpError("persistent tiles need the producer warpgroup of "
                          "--fattn-warp-specialize");
  // Non-persistent 16-bit kernels and tmaStore write O through shared
  // memory, each consumer warpgroup meeting on named barrier
  // kEpilogueBarrier + w.
  if (((!fp8 && !c.persistent) || options.tmaStore) && options.pingpong &&
      options.pingpongBarrierBase + consumers > kEpilogueBarrier)
    return op.emitOpError() << "pingpong barriers "
                            << options.pingpongBarrierBase << " to "
                            << options.pingpongBarrierBase + consumers - 1
                            << " collide with the epilogue's barriers from "
                            << kEpilogueBarrier;
  if (fp8 && failed(getFP8Config(op, options, c)))
    return failure();
  // The lowering choices that the passes recorded (LoweringChoices.h),
  // checked again: hand-written IR may carry any.
  if (failed(verifySM90LoweringChoices(op)))
    return failure();
  // The sm_80 kernel's plans (--fattn-sm80-async-copy, --fattn-sm80-mma)
  // are not this kernel's: an op that carries one was planned for sm_80.
  for (NamedAttribute attr : op->getAttrs())
    if (attr.getName().strref().starts_with("fattn.sm80."))
      return op.emitOpError()
             << attr.getName().getValue()
             << " is a plan of the sm_80 kernel, which the sm_90a kernel "
                "does not follow; drop its pass or lower for sm_80";
  std::optional<StringRef> rowSumsNeedThreads = sm90RowSumsNeedThreads(op);
  c.rowSumMma = options.rowSumMma && !rowSumsNeedThreads;
  // A choice, not semantics: the kernel keeps the adds, and says why.
  if (options.rowSumMma && rowSumsNeedThreads)
    op.emitWarning() << "row-sum-mma is ignored: " << *rowSumsNeedThreads;
  c.linearExp2 = options.linearExp2;
  c.rescaleThreshold = options.rescaleThreshold;
  c.qBuffers = options.qBuffers;
  c.tmaStore = options.tmaStore;
  c.splitTail = options.splitTail;
  c.narrowTail = options.narrowTail;
  c.workOrderTail = options.workOrderTail;
  if (c.dynamicSharedBytes() > kMaxDynamicSharedBytes)
    return op.emitOpError() << "the sm_90a kernel needs "
                            << c.dynamicSharedBytes()
                            << " bytes of shared memory, more than the "
                            << kMaxDynamicSharedBytes
                            << " an sm_90a CTA can have: lower block_n or stages";
  if (failed(checkRegisterBudget(op, options, c)))
    return failure();
  if (failed(checkCanonicalTiledForm(op)))
    return failure();
  c.name = options.kernelName.empty() ? defaultKernelName(c) : options.kernelName;
  if (failed(checkKernelSymbol(op, "kernel name", c.name)))
    return failure();
  return c;
}

/// The double that `v`'s 9 significant digits read as (enough to read back
/// the same f32): the form in which the description states f32 values.
static double nineDigits(float v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", double(v));
  return std::strtod(buf, nullptr);
}

std::string mlir::fattn::describeSM90Kernel(const SM90KernelConfig &c) {
  KernelDescription d;
  d.arch = "sm_90a";
  d.entry = c.name;
  d.cubin = c.name + ".cubin";
  d.dtype = c.elementType;
  if (c.outputType != c.elementType)
    d.outDtype = c.outputType;
  d.headDimQK = c.headDim;
  d.headDimV = c.headDimV;
  // With a runtime scale, the description's is the default, 1/sqrt(d).
  d.scale = nineDigits(c.dynamicScale
                           ? 1.0f / std::sqrt(static_cast<float>(c.headDim))
                           : c.scale);
  d.softcap = nineDigits(c.softcap);
  d.causal = c.windowRight == 0 && c.windowLeft < 0;
  d.windowLeft = c.windowLeft;
  d.windowRight = c.windowRight;
  d.hasLse = c.hasLse;
  d.blockM = c.blockM;
  d.blockN = c.blockN;
  d.threads = c.threads();
  d.dynamicSmemBytes = c.dynamicSharedBytes();
  // One CTA per (Q tile, head, batch), or per SM for persistent kernels,
  // which loop over those work items.
  if (c.persistent)
    d.grid = {{"num_sms", 1}};
  else
    d.grid = {{"seq_q", c.blockM}, {"heads_q", 1}, {"batch", 1}};

  for (const char *t : {"q", "k", "v", "o"})
    d.addParam(t, "ptr");
  if (c.hasLse)
    d.addParam("lse", "ptr");
  // The split tail's workspace: allocated and zeroed once by the runtime
  // (each kernel leaves its counters zero again).
  if (c.splitTail)
    d.addParam("workspace", "ptr");
  for (const char *n : {"batch", "heads_q", "heads_kv", "seq_q", "seq_k"})
    d.addParam(n, "u32");
  if (c.hasTailPairs())
    d.addParam("tail_pairs", "u32");
  for (const char *t : {"q", "k", "v", "o"})
    for (const char *s : {"b", "h", "s"})
      d.addParam(formatv("{0}_stride_{1}", t, s).str(), "u64");
  if (c.hasLse) {
    d.addParam("lse_stride_b", "u64");
    d.addParam("lse_stride_h", "u64");
  }
  // FP8 descales: pointers, then [batch, head, block] strides in elements
  // (0 for the dims a descale does not have).
  if (c.hasDescales()) {
    for (const char *t : {"q", "k", "v"})
      d.addParam(formatv("{0}_descale", t).str(), "ptr");
    for (const char *t : {"q", "k", "v"})
      for (const char *s : {"b", "h", "blk"})
        d.addParam(formatv("{0}_descale_stride_{1}", t, s).str(), "u64");
    auto form = [](const SM90Descale &s) {
      return DescaleDescription{s.rank, s.block};
    };
    d.descales = {form(c.qDescale), form(c.kDescale), form(c.vDescale)};
  }
  for (StringRef t : {"q", "k", "v"}) {
    // A box is rows of one 128-byte atom: block rows of Q, K and V, or, for
    // a V stored as V^T, its head-dim rows of 128 keys.
    int64_t rows = c.valueTransposed && t == "v" ? c.headDimV
                   : t == "q"                    ? c.blockM
                                                 : c.blockN;
    TensorMapDescription map;
    map.tensor = t.str();
    map.elementType = c.elementType;
    map.box = {1, 1, rows, c.atomColumns()};
    map.l2Promotion = "256B";
    map.oobFill = "zero";
    d.addTensorMap(map);
  }
  // TMA stores of O: each consumer warpgroup's 64 rows of one atom.
  if (c.tmaStore) {
    TensorMapDescription map;
    map.tensor = "o";
    map.elementType = c.outputType;
    map.box = {1, 1, 64, SM90KernelConfig::kOutputAtomColumns};
    d.addTensorMap(map);
  }
  d.addRuntimeScalars(c.dynamicScale, c.dynamicSoftcap, c.takesScaleLog2(),
                      c.takesRescaleMargin());
  if (c.valueTransposed)
    d.valueLayout = kTransposedValueLayout;
  // What the launcher needs to choose `tail_pairs` (WorkOrder.h's
  // chooseTailPairs simulates the kernel's order).
  if (c.hasTailPairs()) {
    WorkOrderParams order = c.workOrder();
    d.workOrder = KernelDescription::WorkOrder{order.ctasPerPair,
                                               order.reverseQTiles};
  }
  // The split tail's workspace: this many bytes per CTA of the grid.
  if (c.splitTail)
    d.workspaceBytesPerCta = c.workspaceBytesPerCta();
  // For whoever models the kernel's numerics: l sums P as the P V wgmma
  // reads it, rounded; a row's max moves only past the rescale threshold
  // (log2 units); P's e4m3 bytes come from a linear 2^x
  // (SM90KernelConfig::linearExp2).
  d.meta.rowSumsMma = c.rowSumMma;
  if (c.linearExp2)
    d.meta.linearExp2Offset = nineDigits(kLinearExp2Offset);
  if (c.rescaleThreshold > 0.0f)
    d.meta.rescaleThreshold = nineDigits(c.rescaleThreshold);
  if (c.narrowTail > 0)
    d.meta.narrowTail = c.narrowTail;
  return formatv("{0}", llvm::json::Value(toJSON(d))).str();
}

/// Builds the kernel of `config` at `builder`'s insertion point in a
/// gpu.module's body, preceded by the module's shared-memory global unless
/// the module already has it; its target ops lowered to NVVM unless
/// `options.keepTargetOps`.
static FailureOr<LLVM::LLVMFuncOp> buildKernel(OpBuilder &builder,
                                               Location loc,
                                               const SM90KernelConfig &config,
                                               const SM90Options &options) {
  Operation *container = builder.getInsertionBlock()->getParentOp();
  if (!SymbolTable::lookupSymbolIn(container, kSharedMemorySymbol)) {
    auto bytes = LLVM::LLVMArrayType::get(builder.getI8Type(), 0);
    LLVM::GlobalOp::create(builder, loc, bytes, /*isConstant=*/false,
                           LLVM::Linkage::External, kSharedMemorySymbol,
                           Attribute(), /*alignment=*/1024,
                           /*addrSpace=*/3);
  }
  LLVM::LLVMFuncOp kernel =
      buildSM90KernelFunction(builder, loc, config, options);
  if (!options.keepTargetOps && failed(lowerSM90TargetOps(kernel)))
    return failure();
  return kernel;
}

FailureOr<LLVM::LLVMFuncOp>
mlir::fattn::buildSM90AttentionKernel(OpBuilder &builder, TiledAttentionOp op,
                                      StringRef name) {
  SM90Options options;
  options.kernelName = name.str();
  if (failed(readSM90Schedule(op, options)))
    return failure();
  FailureOr<SM90KernelConfig> config = getSM90KernelConfig(op, options);
  if (failed(config))
    return failure();
  FailureOr<LLVM::LLVMFuncOp> built =
      buildKernel(builder, op.getLoc(), *config, options);
  if (failed(built))
    return failure();
  LLVM::LLVMFuncOp kernel = *built;
  Builder attrs(op.getContext());
  kernel->setAttr("fattn.kernel_description",
                  attrs.getStringAttr(describeSM90Kernel(*config)));
  return kernel;
}

void mlir::fattn::registerSM90AttentionKernelBuilder() {
  registerAttentionKernelBuilder("sm_90a", buildSM90AttentionKernel);
}

LogicalResult mlir::fattn::lowerTiledAttentionToSM90(RewriterBase &rewriter,
                                                     TiledAttentionOp op,
                                                     const SM90Options &unscheduled) {
  SM90Options options = unscheduled;
  if (failed(readSM90Schedule(op, options)))
    return failure();
  FailureOr<SM90KernelConfig> config = getSM90KernelConfig(op, options);
  if (failed(config) ||
      failed(checkKernelSymbol(op, "module name", options.moduleName)))
    return failure();
  auto top = op->getParentOfType<ModuleOp>();
  if (!top)
    return op.emitOpError("must be inside a builtin.module");
  while (auto parent = top->getParentOfType<ModuleOp>())
    top = parent;

  top->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
               rewriter.getUnitAttr());
  auto module = top.lookupSymbol<gpu::GPUModuleOp>(options.moduleName);
  auto func = op->getParentOfType<func::FuncOp>();
  bool called = func && !SymbolTable::symbolKnownUseEmpty(func, top);
  if (module && module.lookupSymbol(config->name)) {
    // A called function (host-launch pipelines) whose kernel is already
    // there, described alike, launches that one.
    auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(config->name);
    auto described =
        existing ? existing->getAttrOfType<StringAttr>("fattn.kernel_description")
                 : StringAttr();
    if (!called || !described ||
        described.getValue() != describeSM90Kernel(*config))
      return op.emitOpError() << "kernel @" << config->name
                              << " already exists in @" << options.moduleName;
    markConvertedFunction(func, module, existing);
    rewriter.eraseOp(op);
    return success();
  }
  OpBuilder::InsertionGuard guard(rewriter);
  if (!module) {
    rewriter.setInsertionPointToEnd(top.getBody());
    auto target = NVVM::NVVMTargetAttr::get(rewriter.getContext(),
                                            /*optLevel=*/2,
                                            "nvptx64-nvidia-cuda", "sm_90a",
                                            "+ptx80");
    module = gpu::GPUModuleOp::create(rewriter, op.getLoc(),
                                      options.moduleName,
                                      rewriter.getArrayAttr({target}));
  }
  rewriter.setInsertionPointToEnd(module.getBody());
  FailureOr<LLVM::LLVMFuncOp> kernel =
      buildKernel(rewriter, op.getLoc(), *config, options);
  if (failed(kernel))
    return failure();
  (*kernel)->setAttr("fattn.kernel_description",
                     rewriter.getStringAttr(describeSM90Kernel(*config)));
  // A called function (host-launch pipelines) keeps its symbol for
  // --fattn-gpu-launch, marked with its kernel.
  if (called)
    markConvertedFunction(func, module, *kernel);
  rewriter.eraseOp(op);
  return success();
}

namespace {
struct ConvertFAttnToNVVMSM90Pass
    : public fattn::impl::ConvertFAttnToNVVMSM90Base<ConvertFAttnToNVVMSM90Pass> {
  using ConvertFAttnToNVVMSM90Base::ConvertFAttnToNVVMSM90Base;

  void runOnOperation() override {
    SM90Options options;
    options.moduleName = moduleName;
    options.kernelName = kernelName;
    options.keepTargetOps = keepTargetOps;
    if (failed(refuseOpsNotLowered<AttentionOp>(
            getOperation(), getArgument(),
            "run --fattn-tile and the sm_90a passes first "
            "(--fattn-sm90-pipeline runs them all)")) ||
        failed(refuseOpsNotLowered<TiledAttentionGradOp>(
            getOperation(), getArgument(),
            "--convert-fattn-grad-to-nvvm-sm90 lowers it")))
      return signalPassFailure();
    SmallVector<TiledAttentionOp> ops;
    getOperation()->walk([&](TiledAttentionOp op) { ops.push_back(op); });
    if (ops.size() > 1 && !options.kernelName.empty()) {
      ops[1].emitOpError("kernel-name names one kernel, but there are several");
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    for (TiledAttentionOp op : ops)
      if (failed(lowerTiledAttentionToSM90(rewriter, op, options)))
        return signalPassFailure();
  }
};
} // namespace
