//===- KernelEmitter.h - the sm_90a kernel emitter (private) ----*- C++ -*-===//
//
// The emitter of the sm_90a kernel, which builds it op by op through
// KernelBuilder (LLVM and NVVM operations) and the sm_90a target ops (L3,
// FAttnSM90Ops.td: a persistent kernel's work items, the K/V ring's stages
// and phases, mbarriers, named barriers, TMA loads and stores, the wgmma of
// S = Q K^T and of P V with their descriptors, fences, commits and waits,
// O's stores, the FP8 V transpose), which TargetToNVVM.cpp lowers:
// Entry.cpp (entry, work items, copies, producer), ConsumerMath.cpp (one KV
// tile's math), ConsumerLoops.cpp (the consumers' loops), Epilogue.cpp (O
// and LSE out), SplitTail.cpp (the split tail's merge) and FP8Kernel.cpp
// (what only e4m3 kernels build: the producer's V transpose, the descales,
// P as e4m3). Private to this folder.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_LIB_CONVERSION_FATTNTONVVM_SM90_KERNELEMITTER_H
#define FATTN_LIB_CONVERSION_FATTNTONVVM_SM90_KERNELEMITTER_H

#include "fattn/Conversion/FAttnToNVVM/SM90/SM90Lowering.h"
#include "fattn/Dialect/FAttn/IR/FAttnSM90Ops.h"
#include "fattn/Dialect/FAttn/Utils/KVTileRange.h"
#include "fattn/Dialect/FAttn/Utils/WorkOrder.h"

#include "KernelBuilder.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

namespace mlir::fattn::sm90 {
using std::string;

constexpr float kLog2E = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

inline string str(int64_t v) { return std::to_string(v); }

/// The split tail's workspace slot of a CTA (SplitTail.cpp): a header of one
/// 4-byte arrival counter per consumer warp, then 4-byte words, tailSlotWords
/// per consumer thread: the accumulator registers, the two row maxes and the
/// two row sums, padded to whole 16-byte units.
constexpr int64_t kTailSlotHeaderBytes = 256;
inline int64_t tailSlotWords(const SM90KernelConfig &c) {
  int64_t acc = c.paddedValueHeadDim() / 2 + (c.rowSumMma ? 2 : 0);
  return (acc + 4 + 3) / 4 * 4;
}

/// A launch-time divisor's FastDivision.h multiplier and shift (i32 values
/// that dominate the work loop that divides by it).
struct FastDivisor {
  Value multiplier, shift;
};

/// The `Ops` of computeKVTileRange (KVTileRange.h) and of the work order
/// (WorkOrder.h) on i32 values, so the kernel visits exactly the tiles that
/// the CPU lowering visits and the work items the unit tests check.
/// Divisions by a value of `fastDivisors` take its multiplier and shift;
/// those of the work order have dividends below 2^31 (an item index: 2^31
/// items would take more Q rows than a GPU's memory holds).
struct BuilderIntOps {
  using Int = Value;
  using Bool = Value;
  KernelBuilder &e;
  const llvm::DenseMap<Value, FastDivisor> *fastDivisors = nullptr;
  Int cst(int64_t v) { return e.i32(v); }
  Int add(Int a, Int b) { return e.add(a, b); }
  Int sub(Int a, Int b) { return e.sub(a, b); }
  Int mul(Int a, Int b) { return e.mul(a, b); }
  Int min(Int a, Int b) { return e.smin(a, b); }
  Int max(Int a, Int b) { return e.smax(a, b); }
  Int floorDiv(Int a, int64_t d) {
    Int q = e.sdiv(a, e.i32(d));
    Int r = e.srem(a, e.i32(d));
    return e.select(e.icmp(ICmp::slt, r, e.i32(0)), e.sub(q, e.i32(1)), q);
  }
  Int ceilDiv(Int a, int64_t d) {
    return e.sub(e.i32(0), floorDiv(e.sub(e.i32(0), a), d));
  }
  Bool lt(Int a, Int b) { return e.icmp(ICmp::slt, a, b); }
  Int select(Bool c, Int a, Int b) { return e.select(c, a, b); }
  // WorkOrder.h's, on non-negative values.
  Int div(Int a, Int b) {
    if (const FastDivisor *fast = fastDivisor(b))
      return quotient(a, *fast);
    return e.udiv(a, b);
  }
  Int rem(Int a, Int b) {
    if (fastDivisor(b))
      return e.sub(a, e.mul(div(a, b), b));
    return e.urem(a, b);
  }
  Bool le(Int a, Int b) { return e.icmp(ICmp::ule, a, b); }
  Bool isOdd(Int a) { return e.icmp(ICmp::ne, e.andI(a, e.i32(1)), e.i32(0)); }
  /// `a` through a mov that LLVM does not move: what is computed from it
  /// stays in the loop that computes it.
  Int opaque(Int a) {
    return e.inlineAsm(e.i32(), "mov.b32 $0, $1;", "=r,r", {a},
                       /*sideEffects=*/true);
  }

private:
  const FastDivisor *fastDivisor(Value d) const {
    if (!fastDivisors)
      return nullptr;
    auto it = fastDivisors->find(d);
    return it == fastDivisors->end() ? nullptr : &it->second;
  }
  /// mulhi(2 n, m) >> l (divideByMagic).
  Int quotient(Value n, const FastDivisor &d) {
    Value high = e.mulhiU(e.add(n, n), d.multiplier);
    return e.lshr(high, d.shift);
  }
};

/// Shared-memory layout, in bytes from the 1024-aligned base. The K and V
/// halves of a stage have separate empty barriers: K is handed back as soon
/// as S = Q K^T has completed and V only after O += P V, so that the copy of
/// a later K tile starts while the consumers still work on the current one.
/// K's tiles span Q's head dim and V's tiles V's, so the two rings' stages
/// differ in size where the head dims do. A Q buffer that O passes through
/// (writesOIntoQBuffer) holds the wider of Q's and O's tiles; TMA fills Q's
/// atoms of it.
///
/// FP8 adds a ring of V^T tiles (head-dim rows of 128-key, 128B-swizzled
/// atoms) with full and empty barriers of its own: TMA fills the V half of a
/// stage, the producer warpgroup transposes it into the V^T stage, and the
/// consumers read only V^T (so V's empty barriers go unused). A V stored as
/// V^T (valueTransposed) has no V half: TMA fills the V^T stages, which are
/// the V ring, with V's barriers.
///
/// With rowSumMma, one 1024-byte swizzle atom of ones (in the element type)
/// is the B operand of the m64n8 wgmma that sums P's rows: every byte of it
/// is the same, so one atom serves every step of every tile.
///
/// With K's factors per score column (hasKeyFactorsPerColumn), each consumer
/// warpgroup stages its tile's K factors in a slot of its own (one f32 per
/// key, keyChunks() * 128 of them): each thread loads one key's factor from
/// global memory, and reads its columns' from the slot.
struct SharedLayout {
  int64_t stages, qTileBytes, qBytes, oOffset, oBytes, kStageBytes,
      vStageBytes, vtStageBytes, kOffset, vOffset, vtOffset, onesOffset,
      keyFactorOffset, keyFactorSlotBytes, barOffset, ringBarriers, total;
  explicit SharedLayout(const SM90KernelConfig &c) : stages(c.stages) {
    qTileBytes = c.headDimChunks() * c.blockM * 128;
    qBytes = c.writesOIntoQBuffer()
                 ? std::max(c.headDimChunks(), c.outputChunks()) * c.blockM *
                       128
                 : qTileBytes;
    kStageBytes = c.headDimChunks() * c.blockN * 128;
    vStageBytes = c.valueHeadDimChunks() * c.blockN * 128;
    vtStageBytes = c.isFP8() ? c.keyChunks() * c.headDimV * 128 : 0;
    // O's own staging buffer (FP8 with tmaStore), after the Q buffers.
    oOffset = qBytes * c.qBuffers;
    oBytes = c.hasOwnOutputBuffer() ? c.outputChunks() * c.blockM * 128 : 0;
    kOffset = oOffset + oBytes;
    vOffset = kOffset + c.stages * kStageBytes;
    vtOffset = c.valueTransposed ? vOffset : vOffset + c.stages * vStageBytes;
    onesOffset = vtOffset + c.stages * vtStageBytes;
    if (c.rowSumMma)
      onesOffset = (onesOffset + kOnesBytes - 1) / kOnesBytes * kOnesBytes;
    keyFactorOffset = onesOffset + (c.rowSumMma ? kOnesBytes : 0);
    keyFactorSlotBytes =
        c.hasKeyFactorsPerColumn() ? c.keyChunks() * 128 * 4 : 0;
    barOffset = keyFactorOffset + c.consumerWarpgroups * keyFactorSlotBytes;
    ringBarriers = (c.transposesValue() ? 6 : 4) * c.stages;
    // Two Q buffers: the second one's full and empty barriers last.
    total = barOffset + 8 * (2 + ringBarriers + (c.qBuffers == 2 ? 2 : 0));
  }
  static constexpr int64_t kOnesBytes = 1024;
  /// The offset and the bytes of `region`: 0 bytes for one the kernel
  /// does not have.
  std::pair<int64_t, int64_t> region(SM90SharedRegion region) const {
    switch (region) {
    case SM90SharedRegion::QBuffers:
      return {0, oOffset};
    case SM90SharedRegion::Output:
      return {oOffset, oBytes};
    case SM90SharedRegion::KeyRing:
      return {kOffset, vOffset - kOffset};
    case SM90SharedRegion::ValueRing:
      // A V stored as V^T has only the V^T stages.
      return {vOffset, vtOffset == vOffset ? stages * vtStageBytes
                                           : vtOffset - vOffset};
    case SM90SharedRegion::TransposedValueRing:
      return {vtOffset, vtOffset == vOffset ? 0 : stages * vtStageBytes};
    case SM90SharedRegion::Ones:
      return {onesOffset, keyFactorOffset - onesOffset};
    case SM90SharedRegion::KeyFactors:
      return {keyFactorOffset, barOffset - keyFactorOffset};
    case SM90SharedRegion::Barriers:
      return {barOffset, total - barOffset};
    }
    llvm_unreachable("unknown shared-memory region");
  }
  // Each ring barrier is an array with one 8-byte entry per stage.
  int64_t qBar() const { return barOffset; }
  int64_t fullKBar() const { return barOffset + 8; }
  int64_t fullVBar() const { return fullKBar() + 8 * stages; }
  int64_t emptyKBar() const { return fullVBar() + 8 * stages; }
  int64_t emptyVBar() const { return emptyKBar() + 8 * stages; }
  int64_t fullVtBar() const { return emptyVBar() + 8 * stages; }
  int64_t emptyVtBar() const { return fullVtBar() + 8 * stages; }
  /// Persistent kernels: the consumers hand Q's buffer back once their last
  /// S = Q K^T of a work item has completed.
  int64_t qEmptyBar() const { return barOffset + 8 * (1 + ringBarriers); }
  /// With two Q buffers: the second one's (qBytes on) barriers.
  int64_t qBar1() const { return qEmptyBar() + 8; }
  int64_t qEmptyBar1() const { return qEmptyBar() + 16; }
};

/// The descale factors of one KV tile (FP8 with descales). With K's blocks
/// smaller than the tile, `key` is empty and `keyRows` holds the factors of
/// the keys this thread stages for its warpgroup (SM90KernelEmitter::
/// keyColumnFactors).
struct TileDescales {
  Value key, value;
  SmallVector<Value> keyRows;
};

/// The online-softmax state a KV tile leaves behind, per accumulator row.
struct TileSoftmax {
  Value max[2], sum[2], alpha[2];
  /// With conditional rescaling (SM90KernelConfig::rescaleThreshold): an i1,
  /// the same in the whole warp, true when a row of the warp moved its max
  /// (alpha != 1). Empty: O is rescaled after every tile.
  Value rescale;
  /// P in the A-fragment layout of wgmma k16, or of e4m3 k32 with the keys
  /// permuted (wgmma_e4m3_k32): registers 4kk..4kk+3 per k step. Empty
  /// until packProbabilities, which the loops call where the schedule
  /// allows (see emitOverlappedLoop).
  SmallVector<Value> packedP;
  /// P as f32 on the accumulator layout.
  SmallVector<Value> probabilities;
};

/// Emits the whole kernel.
///
/// The consumer loop is built from the L2 consumer loop's ops, in their
/// order (SM90Options::consumerLoop, ConsumerSteps.cpp), in one of two
/// shapes. Without intra-warpgroup overlap,
/// every tile runs S = Q K^T, waits, the softmax, then O += P V and waits.
/// With it (FA3's intra-warpgroup pipelining), iteration j issues
/// S_j = Q K_j^T and then O += P_{j-1} V_{j-1}, waits only for S_j
/// (wgmma.wait_group 1), runs the softmax of tile j while the P V wgmma is
/// still on the tensor cores, and waits for it only to rescale O; a prologue
/// computes P of the first tile, an epilogue adds the last P V.
///
/// Pingpong orders the consumer warpgroups' GEMM issue slots through a ring
/// of named barriers (ids 1..consumers, 256 threads each: the warpgroup
/// waiting and the one before it arriving), so that one warpgroup's softmax
/// runs while the next one's GEMMs occupy the tensor cores.
class SM90KernelEmitter {
public:
  SM90KernelEmitter(const SM90KernelConfig &c, const SM90Options &o,
                    OpBuilder &builder, Location loc)
      : cfg(c), opts(o), layout(c), e(builder, loc) {
    bn = cfg.blockN;
    dPad = cfg.paddedHeadDim();
    chunks = cfg.headDimChunks();
    dPadV = cfg.paddedValueHeadDim();
    chunksV = cfg.valueHeadDimChunks();
    numO = dPadV / 2; // O accumulator registers per thread
    // With rowSumMma, l (rows r and r + 8, whole rows) rides after O's
    // registers, rescaled with O; see issuePV and foldRowSums.
    numAcc = numO + (cfg.rowSumMma ? 2 : 0);
    oType = e.structOf(numAcc, e.f32());
    tile = scoreColumns(bn);
    softcap = cfg.hasSoftcap();
    softmaxScale = softcap ? 1.0f : cfg.scale;
    scaleLog2 = softmaxScale * kLog2E;
    operandType = cfg.isFP8()
                      ? Type(Float8E4M3FNType::get(builder.getContext()))
                      : halfType(cfg.elementType);
    kStep = 32 / cfg.elementBytes();
    carryValueDescale = cfg.vDescale.rank == 3;
  }

  /// The kernel, at the builder's insertion point (a gpu.module's body).
  LLVM::LLVMFuncOp emit();

private:
  const SM90KernelConfig &cfg;
  const SM90Options &opts;
  SharedLayout layout;
  KernelBuilder e;
  /// Q's and K's head dim in whole swizzle atoms and their count; V's.
  int64_t bn, dPad, chunks, dPadV, chunksV, numO, numAcc;
  Type oType;
  /// The score columns that one S = Q K^T, its softmax and its P V compute,
  /// and their registers per thread: a whole tile's (`tile`), or the narrow
  /// tail's (cfg.narrowTail). The tile in shared memory keeps bn rows
  /// either way.
  struct ScoreColumns {
    int64_t columns;
    int64_t numS; // S accumulator registers
    int64_t numP; // P: two 16-bit or four e4m3 probabilities per register
    Type sType, pType;
  };
  ScoreColumns scoreColumns(int64_t n) {
    int64_t numS = n / 2;
    int64_t numP = cfg.isFP8() ? numS / 4 : numS / 2;
    return {n, numS, numP, e.structOf(numS, e.f32()),
            e.structOf(numP, e.i32())};
  }
  /// bn columns.
  ScoreColumns tile;
  bool softcap;
  float softmaxScale, scaleLog2;
  /// Runtime scalars (kernel parameters; null when constant,
  /// loadRuntimeScalars): without a softcap scale·log2(e) and, with
  /// conditional rescaling, the threshold over it; with one, the softcap
  /// and scale / softcap.
  Value scaleLog2Param, rescaleMarginParam;
  Value softcapParam, softcapInnerParam;
  /// The constant scale·log2(e), or its runtime value.
  Value scaleLog2Value() {
    return scaleLog2Param ? scaleLog2Param : e.f32(scaleLog2);
  }
  /// The element type of the wgmma operands Q, K, V and P.
  Type operandType;
  /// Keys (K dim) of one wgmma: 16 for 16-bit elements, 32 for e4m3.
  int64_t kStep;
  /// FP8 with per-block V descales: O is kept in units of the current tile's
  /// V descale, which the KV loop carries (see rescaleFactors).
  bool carryValueDescale;
  int labelCounter = 0;

  // Values of the entry block, visible everywhere.
  Value tid, base, baseAddr;
  /// The shared-memory regions' offsets (smemRegion), by SM90SharedRegion.
  std::array<Value, getMaxEnumValForSM90SharedRegion() + 1> sharedRegions;
  // The work item (Q tile, head, batch) and its KV tile range [lo, hi):
  // entry-block values, or, in a persistent kernel, values of the work
  // loop's body in each role.
  Value qTileRow, head, batch, kvHead;
  Value lo, fullLo, fullHi, hi;
  // The consumer warpgroup's end of the range (warpgroupKVRanges; else hi):
  // it hands tiles [consumerHi, hi) back unread (releaseSkippedTiles).
  Value consumerHi;
  // Persistent kernels: Q tiles per (batch, head), the number of work items,
  // and, in a work loop, the K/V tiles the ring has carried before the item
  // (the ring's stages and phases run on across items), and the items this
  // CTA did before it (its round, and the phase of Q's barriers).
  Value numQTiles, totalWork, tileBase, workOrdinal;
  // Persistent kernels: the (batch, head) pairs, the tail's pairs
  // (tailPairCount; masked attention only) and the query heads per KV head
  // (entry-block values), and the divisors that the consumers' work loop
  // divides by through a multiplier and a shift (addFastDivisor).
  Value workPairs, workTailPairs, queryGroup;
  llvm::DenseMap<Value, FastDivisor> fastDivisors;
  // The split tail (entry-block values): the KV tiles of every item, the
  // whole rounds before the split items and the split items' tile units.
  Value tailTiles, tailRounds, tailUnitCount;
  // The split tail, in a work loop's body: whether the item is a piece of
  // a split one (i1), whether the piece holds its first tile (i1), and its
  // rank among the split items.
  Value tailSplit, tailOwner, tailRank;
  // Values of the consumer's first block, visible in the whole consumer
  // (rows and limits: of the work item).
  Value wg, quad, rowInTile, row[2], hiLimit[2], loLimit[2], qDesc, kDesc0,
      vDesc0;
  // The thread's index among the consumer threads, and within its
  // warpgroup (with K's factors per column only).
  Value consumerTid, threadInWarpgroup;
  // Q's descriptor in the work item's buffer (two Q buffers); else empty,
  // and qDesc serves.
  Value qDescItem;
  Value negInf, zero, isIssuer;
  // FP8 descales: Q's per accumulator row, and K's and V's when they are the
  // same for every tile (ranks 0 and 2); empty without descales.
  Value qScale[2], keyScale, valueScale;

  /// A fresh block name.
  string fresh(const char *prefix) { return prefix + str(labelCounter++); }
  /// The accumulator row (0: the thread's row r, 1: r + 8) of accumulator
  /// register i: O's registers 4k + {0, 1} and 4k + {2, 3}, then with
  /// rowSumMma l of rows r and r + 8.
  int accRow(int64_t i) const {
    return static_cast<int>(i < numO ? (i % 4) / 2 : i - numO);
  }
  /// -scaleLog2 * max, with a max of -inf (a row that has seen no key) taken
  /// as 0, so that exp2(s * x + this) is 0 for x = -inf rather than NaN.
  Value negScaledMax(Value max) {
    Value safe = e.select(e.fcmp(FCmp::oeq, max, negInf), zero, max);
    return e.fmul(safe, scaleLog2Param ? e.fneg(scaleLog2Param)
                                       : e.f32(-scaleLog2));
  }
  /// Conditional rescaling lets a warp skip O's rescale, except with
  /// per-block V descales, whose rescale moves O into each tile's units.
  bool skipsRescale() const {
    return cfg.rescaleThreshold > 0.0f && !carryValueDescale;
  }

  LLVM::LLVMFuncOp signature();
  /// Reads the runtime scalars and derives the loops' factors from them,
  /// at the kernel's entry.
  void loadRuntimeScalars();
  void emitEntry();
  /// Sets the work item's values (qTileRow, head, batch, kvHead, the KV tile
  /// range) for Q tile `qTile`.
  void setWorkItem(Value qTile, Value headIdx, Value batchIdx);
  /// Persistent kernels: branches into the loop `name` over this CTA's work
  /// items (one per round of the grid, snake order; Q tile fastest, so that
  /// neighbouring CTAs read the same K and V) and opens its body with the
  /// item decoded; endWorkLoop branches back with the next round. Past the
  /// last item the loop leaves for `exitLabel`.
  void beginWorkLoop(StringRef name, StringRef exitLabel = "exit");
  void endWorkLoop(StringRef name);
  /// Persistent kernels: emits the multiplier and shift of launch-time
  /// divisor `d` (FastDivision.h) where the work loop's decode can use them
  /// (intOps); a d of 0 (no work items) is taken as 1.
  void addFastDivisor(Value d);
  /// The tail's pairs of the work order (tailPairCount of the launch's
  /// `tail_pairs`); null without that parameter (SM90Options::workOrderTail).
  Value emitTailPairs();
  BuilderIntOps intOps() { return BuilderIntOps{e, &fastDivisors}; }
  /// The ordinal of KV tile `j` in the ring: its stage and phase.
  Value tileOrdinal(Value j) {
    Value t = e.sub(j, lo);
    return cfg.persistent ? e.add(tileBase, t) : t;
  }
  /// The Q buffer of this work item: with two, the CTA's items take them in
  /// turn (an i32, 0 or 1); with one, empty.
  Value qBuffer() {
    return cfg.qBuffers == 2 ? e.andI(workOrdinal, e.i32(1)) : Value();
  }
  /// Parity of Q's full barrier for this work item: each buffer's barrier
  /// completes once per item that uses it.
  Value qPhase() {
    if (!cfg.persistent)
      return e.i32(0);
    Value uses =
        cfg.qBuffers == 2 ? e.lshr(workOrdinal, e.i32(1)) : workOrdinal;
    return e.andI(uses, e.i32(1));
  }
  /// The barrier at `first` (of Q's only buffer, or of buffer 0), or at
  /// `second` (buffer 1), for this work item's buffer.
  Value qBarrier(int64_t first, int64_t second) {
    Value buffer = qBuffer();
    if (!buffer)
      return barrier(first);
    Value isSecond = e.icmp(ICmp::ne, buffer, e.i32(0));
    return e.byteOffset(base, e.select(isSecond, e.i32(second), e.i32(first)));
  }
  Value qFullBar() { return qBarrier(layout.qBar(), layout.qBar1()); }
  /// With two Q buffers, the byte offset of this work item's (an i32); with
  /// one, empty.
  Value qBufferOffset() {
    Value buffer = qBuffer();
    return buffer ? e.mul(buffer, e.i32(layout.qBytes)) : Value();
  }
  /// This thread's arrival on the empty barrier of the work item's Q buffer.
  void arriveQEmpty() {
    arrive(qBarrier(layout.qEmptyBar(), layout.qEmptyBar1()));
  }
  /// Persistent kernels: every consumer thread hands Q's buffer back once
  /// the work item's last S = Q K^T has completed. When the buffer still
  /// takes O (16-bit tmaStore), the epilogue hands it back (storeOByTma).
  void releaseQ() {
    if (cfg.persistent && !cfg.storesOThroughQBuffer())
      arriveQEmpty();
  }
  /// The consumer warpgroup's own named barrier (kEpilogueBarrier + its
  /// index, its 128 threads): orders a warpgroup's shared-memory slots (O's
  /// staging, K's per-column factors). `id`: warpgroupBarrierId(), for
  /// callers that meet on it more than once; empty, computed here.
  Value warpgroupBarrierId() { return e.add(e.i32(kEpilogueBarrier), wg); }
  void warpgroupBarrier(Value id = {}) {
    if (!id)
      id = warpgroupBarrierId();
    target<SM90NamedBarrierOp>(id, 128);
  }
  /// tmaStore: the thread of each consumer warpgroup that issues its TMA
  /// stores of O (the warpgroup's first).
  Value isStoreIssuer() {
    return e.icmp(ICmp::eq, e.andI(tid, e.i32(127)), e.i32(0));
  }
  /// tmaStore: the store issuers hand the previous work item's Q buffer
  /// back once its TMA stores have read O out of it; called early in each
  /// item but the first, well after those stores were issued.
  void handBackStoredQ();
  /// Persistent kernels: the issuing thread waits until the consumers have
  /// handed back the previous work item's Q in the buffer.
  void waitQEmpty() {
    if (cfg.persistent)
      waitBarrier(qBarrier(layout.qEmptyBar(), layout.qEmptyBar1()),
                  e.xorI(qPhase(), e.i32(1)));
  }
  /// The consumer's rows of the work item and their visible key columns.
  void emitConsumerRows();
  /// warpgroupKVRanges: waits for the work item's tiles past consumerHi and
  /// hands them back unread.
  void releaseSkippedTiles();
  /// Opens the producer warpgroup's code: gives its registers away and
  /// returns the i1 of the one elected thread of warp 0 that issues TMA.
  Value beginProducer();
  void emitProducer();
  void emitConsumerSetup();
  void emitSequentialLoop();
  void emitOverlappedLoop();
  void emitEpilogue();
  /// The split tail, at the epilogue: a piece without the item's first tile
  /// leaves its O, maxes and sums in this CTA's workspace slot and branches
  /// to `next` (the next work item); the piece with it merges the others'
  /// into its own (`maxes`, `sums` and `acc` become the merged values).
  /// Other items pass through.
  void emitTailCombine(Value maxes[2], Value sums[2], Value &acc,
                       StringRef next);
  /// The workspace slot of CTA `cta`; in a slot, this thread's 16-byte unit
  /// `unit` and this warp's arrival counter.
  Value tailSlotBase(Value cta);
  Value tailUnitPtr(Value slot, int64_t unit);
  Value tailCounterPtr(Value slot);

  /// rowSumMma: every thread writes part of the tile of ones.
  void emitOnesTile();

  // TMA copies (by the producer, or by one consumer thread without it).
  void emitQLoad();
  void emitTileLoad(Value j);
  void emitTransposedValueLoad(Value stage, Value bar, Value firstKey);
  void emitLoadAhead(Value released);

  // FP8: the producer warpgroup copies and transposes V.
  /// Per-thread parts of the V transpose's addresses and byte selectors
  /// (SM90FP8Transpose.h), recomputed for each tile.
  struct TransposeLanes {
    Value load, store, selector[2];
  };
  void emitFP8Producer();
  TransposeLanes transposeLanes();
  void emitTransposeV(Value stage, const TransposeLanes &lanes);

  // FP8 descales.
  Value loadDescale(const char *tensor, const SM90Descale &spec, Value headIdx,
                    Value blockIdx);
  void emitDescaleSetup();
  TileDescales tileDescales(Value j);
  SmallVector<Value> keyColumnFactors(const TileDescales &descales);
  /// The S accumulator element `i` of a thread lies in score column
  /// 2 * quad + keyColumnOffset(keyColumnIndex(i)) of its tile, for
  /// keyColumnIndex(i) < tile.numS / 2 (rows r and r + 8 share the column).
  static int64_t keyColumnIndex(int64_t i) { return 2 * (i / 4) + i % 2; }
  static int64_t keyColumnOffset(int64_t c) { return 8 * (c / 2) + c % 2; }
  std::array<Value, 2> rescaleFactors(const TileSoftmax &sm, Value prevDescale,
                                      Value descale, Value &unit);
  /// O *= factor (per accumulator row), and l with it (rowSumMma).
  void rescaleO(SmallVector<Value> &o, const std::array<Value, 2> &factor);
  /// rescaleO behind a branch on `when` (TileSoftmax::rescale), or
  /// unconditional when `when` is empty.
  void rescaleOWhen(SmallVector<Value> &o, const std::array<Value, 2> &factor,
                    Value when);

  // The KV loop's L2 steps (ConsumerSteps.cpp).
  /// One block of the KV loop (a body, prologue or epilogue) while its steps
  /// are built: the tiles it reads, what it carries in, and its wgmma groups
  /// in flight.
  struct KVBlock {
    /// The tile of S and its softmax; the limits of the mask.
    Value j;
    /// K's and V's stage, their ring ordinals, and the phase of their full
    /// barriers (empty: phaseOf(ordinal) at the wait). V is the previous
    /// tile's in the overlapped loop.
    Value keyStage, keyOrdinal, keyPhase;
    Value valueStage, valueOrdinal, valuePhase;
    /// The columns of S and its softmax, and of P V.
    const ScoreColumns *scores = nullptr, *product = nullptr;
    TileDescales descales;
    const Value *oldMax = nullptr, *oldSum = nullptr;
    /// O and P carried in (aggregates, unpacked at their first use); O's
    /// registers, P's for P V.
    Value carriedAcc, carriedP;
    SmallVector<Value> o, p;
    /// The previous tile's factors (a deferred rescale), and the descale of
    /// the tile whose units O is in (carryValueDescale).
    std::array<Value, 2> carriedFactors;
    Value carriedWhen, dvp;
    /// The overlapped body: this tile's factors cross the back edge.
    bool carriesFactors = false;
    /// The plain loop: O's rescale takes this tile's factors (otherwise the
    /// previous tile's, carried in).
    bool rescalesThisTile = false;
    // Built by the steps.
    Value s;
    TileSoftmax sm;
    bool packAfterProduct = false;
    std::array<Value, 2> factor;
    Value valueDescale;
    /// IssueScores / IssueProduct groups in flight, oldest first, and the
    /// releases that wait for them.
    SmallVector<SM90ConsumerStep, 2> inFlight, pendingReleases;
    /// No accumulator register written since the last wgmma.fence.
    bool fenced = false;
  };
  /// Builds `steps` in order, then waits for the GEMMs still in flight.
  void emitKVSteps(ArrayRef<SM90ConsumerStep> steps, KVBlock &b);
  SmallVector<Value> &accumulator(KVBlock &b);
  void releaseSlot(KVBlock &b, SM90ConsumerStep release);
  bool waitForGroup(KVBlock &b, SM90ConsumerStep gemm);
  void flushReleases(KVBlock &b, SM90ConsumerStep release);
  void completeScores(KVBlock &b);
  void completeProduct(KVBlock &b);
  /// The overlapped loop rescales O by a tile's factors in the next
  /// iteration, after S = Q K^T is issued, for FP8 and with conditional
  /// rescaling (whose decision rides along): measured faster there, and
  /// slower for 16-bit types that rescale after every tile (docs/PERF.md),
  /// which rescale at the end of the iteration that computed them.
  bool defersRescale() const { return cfg.isFP8() || skipsRescale(); }

  // Consumer pieces.
  Value issueQK(Value stage, const ScoreColumns &sc);
  SmallVector<Value> issuePV(ArrayRef<Value> o, ArrayRef<Value> p, Value stage,
                             bool fence, const ScoreColumns &sc);
  /// rowSumMma: the tile's row sums of the last issuePV (an m64n8 wgmma's
  /// accumulator, columns 2 * quad + {0, 1} of rows r and r + 8, all equal),
  /// to be added to l once that wgmma has completed (foldRowSums).
  SmallVector<Value> tileRowSums;
  /// After the wait for the last issuePV: l += the tile's row sums.
  void foldRowSums(SmallVector<Value> &acc);
  /// O / l of this warpgroup's rows to global memory: staged through shared
  /// memory (stagesOutput()), transposed across each quad
  /// (transposesOutputInQuads()), or straight from the accumulator layout.
  void storeODirect(ArrayRef<Value> acc, const Value inv[2]);
  /// The element offset of (the work item's batch, headIdx) in `tensor`
  /// (o, lse or a descale: its %<tensor>_stride_b and _h).
  Value headOffset(StringRef tensor, Value headIdx);
  /// %o as a global pointer, and headOffset("o", head).
  std::pair<Value, Value> outputBase();
  /// O / l of accumulator row r (0: the thread's row, 1: row + 8), columns
  /// 8i + 2 * quad + {0, 1}, as one word of two output elements.
  Value outputWord(ArrayRef<Value> acc, Value inv, int r, int64_t i);
  /// The address of O's element `offset` (i64, in elements).
  Value outputElement(Value oGlobal, Value offset);
  /// Accumulator row r's values of its first `pairs` column pairs
  /// (registers 4i + 2r and 4i + 2r + 1), as the O stores take them.
  static SmallVector<Value> rowValues(ArrayRef<Value> acc, int r,
                                      int64_t pairs);
  void storeOStaged(ArrayRef<Value> acc, const Value inv[2]);
  /// The warpgroup's rows of O / l into Q's layout at byte `bufferOffset`
  /// (i32) of shared memory, fenced for the async proxy, then the
  /// warpgroup's named barrier.
  void writeOToShared(ArrayRef<Value> acc, const Value inv[2],
                      Value bufferOffset);
  /// tmaStore: O through the work item's Q buffer (FP8: O's own buffer)
  /// and one TMA store per 64-column atom of the warpgroup's rows (rows past
  /// seq_q and columns past the head dim are clipped by the tensor map).
  void storeOByTma(ArrayRef<Value> acc, const Value inv[2]);
  void storeOQuadTransposed(ArrayRef<Value> acc, const Value inv[2]);
  /// Non-persistent 16-bit kernels stage O in Q's buffer, which nothing
  /// reloads once the warpgroup's last S = Q K^T has completed.
  bool stagesOutput() const { return !cfg.persistent && !cfg.isFP8(); }
  /// Otherwise, kernels with more than 64 head-dim columns transpose O
  /// across each quad and store 16 bytes at a time (a quarter of the store
  /// instructions): measured +6..+11% at 16-bit head dim 256 causal, 2k-8k,
  /// and +0..+7% for FP8 head dim 256 in the overlapped loop; at 16-bit
  /// head dim 128 +2..+4% at 2k and 4k without a mask, where every SM
  /// stores its O at once, and +0.5..+1% causal (docs/PERF.md,
  /// 2026-12-01). FP8 keeps the 4-byte stores up to 128 columns (-2..-4% at 8k
  /// and 16k) and in the plain loop (-1..-3%), and so does head dim 64 (+1%
  /// to -4%).
  bool transposesOutputInQuads() const {
    if (cfg.isFP8())
      return dPadV > 128 && opts.intraWarpgroupOverlap;
    return dPadV > 64;
  }
  TileSoftmax emitSoftmax(Value scores, Value j, const Value oldMax[2],
                          const Value oldSum[2], const TileDescales &descales,
                          const ScoreColumns &sc);
  SmallVector<Value> packProbabilitiesE4M3(ArrayRef<Value> p);
  /// SM90KernelConfig::linearExp2: a row's coefficients (x = log2(256 P)
  /// = score * coef + bias) turned into those of the fma.sat that gives u,
  /// 256 P's e4m3 byte / 256 (f32); then P's registers from the u.
  std::pair<Value, Value> linearExp2Affine(Value coef, Value bias);
  SmallVector<Value> gatherLinearBytes(ArrayRef<Value> u);
  /// P on the A-fragment layout of the P V wgmma, from f32 probabilities.
  SmallVector<Value> packProbabilities(ArrayRef<Value> p);
  /// V's ring as the consumers read it: V^T for FP8.
  int64_t fullValueBar() const {
    return cfg.transposesValue() ? layout.fullVtBar() : layout.fullVBar();
  }
  int64_t emptyValueBar() const {
    return cfg.transposesValue() ? layout.emptyVtBar() : layout.emptyVBar();
  }
  SmallVector<Value> fenceValues(ArrayRef<Value> values);
  SmallVector<Value> unpack(Value aggregate, int64_t n);
  Value pack(ArrayRef<Value> values, Type type);
  void release(int64_t emptyBar, Value stage) {
    arrive(barrier(emptyBar, stage));
  }
  void wgmmaFence() { target<SM90WgmmaFenceOp>(); }
  void wgmmaCommit() { target<SM90WgmmaCommitGroupOp>(); }
  void waitGroup(int n) { target<SM90WgmmaWaitGroupOp>(n); }

  // Pingpong: warpgroup wg waits on barrier base + wg before its GEMMs and
  // arrives on the next warpgroup's barrier after issuing them.
  bool pingpong() const { return opts.pingpong; }
  Value pingpongBarrier(Value wgIndex) {
    return e.add(e.i32(opts.pingpongBarrierBase), wgIndex);
  }
  void pingpongSync() {
    if (pingpong())
      target<SM90NamedBarrierOp>(pingpongBarrier(wg), 256);
  }
  /// Opens the turns: the last consumer warpgroup lets the first one issue
  /// first. Once per CTA: in a persistent kernel the turns alternate across
  /// work items, so that a warpgroup never arrives twice on a barrier that
  /// the other has not taken (which would let its two arrivals complete the
  /// barrier between themselves; a hang, measured at 8k causal).
  void openPingpong() {
    if (pingpong())
      inWarpgroup(cfg.consumerWarpgroups - 1, [&] {
        target<SM90NamedBarrierArriveOp>(e.i32(opts.pingpongBarrierBase), 256);
      });
  }
  /// Closes them: the last warpgroup's final arrive on the first one's
  /// barrier is still pending; the first takes it, so that every named
  /// barrier ends the kernel complete.
  void closePingpong() {
    if (pingpong())
      inWarpgroup(0, [&] {
        target<SM90NamedBarrierOp>(e.i32(opts.pingpongBarrierBase), 256);
      });
  }
  void pingpongArrive() {
    if (!pingpong())
      return;
    Value next = e.urem(e.add(wg, e.i32(1)), e.i32(cfg.consumerWarpgroups));
    target<SM90NamedBarrierArriveOp>(pingpongBarrier(next), 256);
  }
  /// Runs `body` only in warpgroup `index` (a warpgroup-uniform branch).
  template <typename Fn> void inWarpgroup(int64_t index, Fn body) {
    string yes = fresh("wg_only"), done = fresh("wg_done");
    e.condBr(e.icmp(ICmp::eq, wg, e.i32(index)), yes, done);
    e.place(yes);
    body();
    e.br(done);
    e.place(done);
  }

  // With per-block V descales the KV loops carry the descale of the tile
  // whose units O is in, as one more f32 block argument.
  /// `values`, with `descale` appended when the loops carry it.
  SmallVector<Value> carried(ArrayRef<Value> values, Value descale) const {
    SmallVector<Value> all(values);
    if (carryValueDescale)
      all.push_back(descale);
    return all;
  }
  /// `types`, with the carried descale's f32 appended.
  SmallVector<Type> carriedTypes(ArrayRef<Type> types) {
    SmallVector<Type> all(types);
    if (carryValueDescale)
      all.push_back(e.f32());
    return all;
  }

  /// Creates the target op `OpTy` (L3) at the builder's insertion point.
  template <typename OpTy, typename... Args> OpTy target(Args &&...args) {
    return OpTy::create(e.builder(), e.location(), std::forward<Args>(args)...);
  }
  /// The stage and the barriers' phase parity of the tile with ring ordinal
  /// `t`.
  Value stageOf(Value t) { return target<SM90RingStageOp>(t, cfg.stages); }
  Value phaseOf(Value t) { return target<SM90RingPhaseOp>(t, cfg.stages); }
  /// Address of barrier `first + 8 * stage`: a ring stage's.
  Value barrier(int64_t first, Value stage) {
    return target<SM90RingBarrierOp>(base, stage, first);
  }
  /// Address of the barrier at byte `offset` (from the base).
  Value barrier(int64_t offset) {
    return e.byteOffset(base, e.add(smemRegion(SM90SharedRegion::Barriers),
                                    e.i32(offset - layout.barOffset)));
  }
  /// The offset of shared-memory region `region` (an i32 of the entry
  /// block, the target op that names it).
  Value smemRegion(SM90SharedRegion region) {
    Value offset = sharedRegions[static_cast<size_t>(region)];
    assert(offset && "a shared-memory region the kernel does not have");
    return offset;
  }
  /// At the entry: one fattn.sm90.smem_region per region the kernel has
  /// (SharedLayout), in the order of their offsets.
  void declareSharedRegions() {
    for (uint32_t r = 0; r <= getMaxEnumValForSM90SharedRegion(); ++r) {
      auto region = static_cast<SM90SharedRegion>(r);
      auto [offset, bytes] = layout.region(region);
      if (bytes > 0)
        sharedRegions[r] =
            target<SM90SmemRegionOp>(region, offset, bytes).getResult();
    }
  }
  void waitBarrier(Value bar, Value phase) {
    target<SM90MBarrierWaitOp>(bar, phase);
  }
  void arrive(Value bar) { target<SM90MBarrierArriveOp>(bar); }
  /// The issuing thread's arrival, expecting `bytes` of TMA copies.
  void expectBytes(Value bar, int64_t bytes) {
    target<SM90MBarrierArriveExpectTxOp>(bar, bytes);
  }
  /// A wgmma shared-memory matrix descriptor of the 128B-swizzled tile at
  /// byte offset `offset` (i32) from the aligned base.
  Value descriptor(Value offset, int64_t leadingBytes) {
    return target<SM90WgmmaDescriptorOp>(e.i64(), baseAddr, offset,
                                         leadingBytes);
  }
  /// fence.proxy.async: this thread's shared-memory writes before the async
  /// proxy's reads (TMA stores, wgmma).
  void fenceProxyAsync() { target<SM90FenceProxyAsyncOp>(); }
  void bulkWaitGroupRead(int64_t pending) {
    target<SM90BulkWaitGroupReadOp>(pending);
  }
  /// Descriptor `desc` moved to slot `index` (an i32) of `slotBytes` each:
  /// a stage of the K/V ring, or a Q buffer.
  Value descriptorInSlot(Value desc, Value index, int64_t slotBytes) {
    Value units = e.zext64(e.mul(index, e.i32(slotBytes >> 4)));
    return e.add(desc, units);
  }
  void tmaLoad(Value map, int64_t chunk, Value dstOffset, Value bar, Value row,
               Value headIdx) {
    tmaCopy(map, e.i32(cfg.atomColumns() * chunk), row, dstOffset, bar,
            headIdx);
  }
  /// One box of `map` at (inner, row, head, batch), innermost first: `inner`
  /// is a column of a row-major tile, or a key of a V stored as V^T.
  void tmaCopy(Value map, Value inner, Value row, Value dstOffset, Value bar,
               Value headIdx) {
    target<SM90TmaLoadOp>(map, ValueRange{inner, row, headIdx, batch}, base,
                          dstOffset, bar);
  }
  /// Two f32 as a pair of 16-bit floats of `half` type in one i32.
  Value packPair(Value a, Value b, Type half);
  /// The 16-bit element type of Q, K and V, or of O (`name`: "bf16" or
  /// "f16").
  Type halfType(StringRef name) {
    return name == "bf16" ? Type(e.builder().getBF16Type())
                          : Type(e.builder().getF16Type());
  }
};

} // namespace mlir::fattn::sm90

#endif // FATTN_LIB_CONVERSION_FATTNTONVVM_SM90_KERNELEMITTER_H
