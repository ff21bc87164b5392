//===- FP8Kernel.cpp - what only the e4m3 sm_90a kernel emits -------------===//
//
// The parts of the sm_90a kernel that exist for FP8 (e4m3 Q, K, V; issue 6):
// the producer warpgroup that copies V into a staging slot and transposes it
// into the V^T ring with the keys permuted (wgmma_e4m3_k32), P converted to
// e4m3 in the A-operand layout of the P V wgmma, and the descale factors.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "fattn/Dialect/FAttn/Utils/LinearExp2.h"
#include "fattn/Dialect/FAttn/Utils/SM90FP8Transpose.h"

using namespace mlir;
using namespace mlir::fattn;
using namespace mlir::fattn::sm90;

/// The FP8 producer warpgroup. One elected thread issues the TMA copies one
/// tile ahead; all 128 threads then transpose V of the current tile from its
/// staging slot into the V^T ring, signal "V^T full" (128 arrivals), and meet
/// on a named barrier before the staging slot can be refilled.
///
///   issuer: Q; K(lo), V(lo)
///   for j in [lo, hi): issuer: K(j+1) (waits K's empty barrier), V(j+1)
///                      all:    wait V(j) landed, wait V^T slot empty,
///                              transpose, fence.proxy.async, arrive V^T full,
///                              producer barrier
void SM90KernelEmitter::emitFP8Producer() {
  Value issuer = beginProducer();
  // Persistent kernels: the whole warpgroup walks the work items (every
  // thread transposes), the issuer also copies.
  if (cfg.persistent)
    beginWorkLoop("produce_work");
  e.condBr(issuer, "load_q", {}, "produce", {lo});

  e.place("load_q");
  waitQEmpty();
  emitQLoad();
  e.condBr(e.icmp(ICmp::slt, lo, hi), "load_first", {}, "produce", {lo});
  e.place("load_first");
  emitTileLoad(lo);
  e.br("produce", {lo});

  const char *itemDone = cfg.persistent ? "produce_next" : "exit";
  Value pj = e.place("produce", {e.i32()})[0];
  e.condBr(e.icmp(ICmp::slt, pj, hi), "produce_tile", itemDone);

  e.place("produce_tile");
  Value next = e.add(pj, e.i32(1));
  e.condBr(e.andI(issuer, e.icmp(ICmp::slt, next, hi)), "load_next",
           "transpose");
  e.place("load_next");
  emitTileLoad(next);
  e.br("transpose");

  e.place("transpose");
  Value t = tileOrdinal(pj);
  Value stage = stageOf(t), phase = phaseOf(t);
  waitBarrier(barrier(layout.fullVBar(), stage), phase);
  waitBarrier(barrier(layout.emptyVtBar(), stage), e.xorI(phase, e.i32(1)));
  emitTransposeV(stage, transposeLanes());
  // Generic-proxy stores that wgmma (async proxy) reads next.
  fenceProxyAsync();
  arrive(barrier(layout.fullVtBar(), stage));
  target<SM90NamedBarrierOp>(e.i32(kFP8ProducerBarrier), 128);
  e.br("produce", {next});

  if (cfg.persistent) {
    e.place(itemDone);
    endWorkLoop("produce_work");
  }
}

namespace {
/// An i64 whose bits [width * i, width * (i + 1)) hold value(i): a lookup
/// table of small per-lane values that a shift and a mask read.
template <typename Fn>
uint64_t packTable(int64_t entries, int64_t width, Fn value) {
  uint64_t table = 0;
  for (int64_t i = 0; i < entries; ++i)
    table |= static_cast<uint64_t>(value(i)) << (width * i);
  return table;
}
} // namespace

/// The lane maps of SM90FP8Transpose.h as tables indexed by lane bits (the
/// load row's key and the store row's low bits depend on lane % 16 only,
/// the selector on bits 1 and 2; the unit test checks both), and the
/// thread's address parts: warp w of the producer takes the head-dim
/// columns 32w .. 32w + 31 of every 128-column chunk.
///   load:  key * 128 + ((2w + unit) ^ key % 8) * 16      (in a V row group)
///   store: n * 128 + (n % 8) * 16, n = 32w + row          (in a V^T atom)
SM90KernelEmitter::TransposeLanes SM90KernelEmitter::transposeLanes() {
  auto lookup = [&](uint64_t table, Value index, int64_t width) {
    Value word = e.lshr(e.i64(static_cast<int64_t>(table)),
                        e.zext64(e.mul(index, e.i32(width))));
    Value entry = e.trunc(word, e.i32());
    return e.andI(entry, e.i32((int64_t(1) << width) - 1));
  };
  // The values are cheap to recompute but, hoisted out of the tile loop,
  // would hold 4 registers for the whole loop; an opaque copy of the thread
  // id keeps them inside (the producer has 24 registers).
  Value thread = e.inlineAsm(e.i32(), "mov.b32 $0, $1;", "=r,r", {tid},
                             /*sideEffects=*/true);
  Value lane = e.andI(thread, e.i32(31));
  Value warp = e.lshr(thread, e.i32(5));
  Value low = e.andI(lane, e.i32(15));
  TransposeLanes lanes;

  Value key = lookup(
      packTable(16, 4, [](int64_t l) { return fp8TransposeLoadRow(l).key; }),
      low, 4);
  Value unit = lookup(
      packTable(32, 1, [](int64_t l) { return fp8TransposeLoadRow(l).unit; }),
      lane, 1);
  Value swizzled =
      e.xorI(e.add(e.mul(warp, e.i32(2)), unit), e.andI(key, e.i32(7)));
  lanes.load = e.add(e.mul(key, e.i32(128)), e.mul(swizzled, e.i32(16)));

  Value rowLow = lookup(
      packTable(16, 4, [](int64_t l) { return fp8TransposeStoreRow(l) % 16; }),
      low, 4);
  Value rowHigh = lookup(
      packTable(32, 1, [](int64_t l) { return fp8TransposeStoreRow(l) / 16; }),
      lane, 1);
  Value n =
      e.add(e.mul(warp, e.i32(32)), e.add(e.mul(rowHigh, e.i32(16)), rowLow));
  lanes.store =
      e.add(e.mul(n, e.i32(128)), e.mul(e.andI(n, e.i32(7)), e.i32(16)));

  lanes.selector[0] = lookup(
      packTable(4, 16, [](int64_t i) { return fp8TransposeSelector(2 * i); }),
      e.andI(e.lshr(lane, e.i32(1)), e.i32(3)), 16);
  lanes.selector[1] = e.xorI(lanes.selector[0], e.i32(0x2222));
  return lanes;
}

/// V^T[n][kappa] = V[pi(kappa)][n] for the tile in `stage`, pi =
/// wgmma_e4m3_k32, by steps of 16 keys (group G) x 32 columns: ldmatrix.x4
/// from the V staging slot (row key of group G: (16 G + key) * 128 in the
/// chunk), four prmt, stmatrix.x4.trans into V^T (atom G / 8, 16-byte unit
/// G % 8 of row n, swizzled by n % 8). Each address is the thread's part
/// plus the block's offset plus a constant of the step.
void SM90KernelEmitter::emitTransposeV(Value stage,
                                       const TransposeLanes &lanes) {
  int64_t groups = bn / 16;
  Value load = e.add(
      e.add(smemRegion(SM90SharedRegion::ValueRing),
            e.mul(stage, e.i32(layout.vStageBytes))),
      lanes.load);
  Value vtStage =
      e.add(smemRegion(SM90SharedRegion::TransposedValueRing),
            e.mul(stage, e.i32(layout.vtStageBytes)));
  // A loop over blocks of `steps` groups (bn is a multiple of 32), unrolled
  // within a block: fully unrolled, ptxas keeps more steps in flight than
  // the producer's 24 registers hold, and spills.
  int64_t steps = groups % 4 == 0 ? 4 : 2;
  int64_t blocksPerChunk = groups / steps;
  // 32-bit shared addresses: an !llvm.ptr<3> is 64-bit in PTX and would
  // take two of the producer's 24 registers per address.
  Value from0 = e.add(baseAddr, load);
  Value to0 = e.add(e.add(baseAddr, vtStage), lanes.store);
  e.br("vt_block", {e.i32(0)});
  Value vtBlock = e.place("vt_block", {e.i32()})[0];
  Value c = e.udiv(vtBlock, e.i32(blocksPerChunk));
  Value g0 = e.mul(e.urem(vtBlock, e.i32(blocksPerChunk)), e.i32(steps));
  // Group g0 + k: V rows 16 (g0 + k) of chunk c; V^T atom g0 / 8, unit
  // g0 % 8 + k, g0 a multiple of `steps`, so xor-ing k << 4 adds k. The
  // xor acts on bits 4-6 of the V^T offset, which the lane's part fills
  // (n % 8) and the 1024-byte aligned base and atoms leave clear.
  Value from = e.add(from0, e.mul(vtBlock, e.i32(steps * 16 * 128)));
  Value to = e.add(e.xorI(to0, e.shl(e.andI(g0, e.i32(7)), e.i32(4))),
                   e.add(e.mul(e.lshr(g0, e.i32(3)), e.i32(cfg.headDimV * 128)),
                         e.mul(c, e.i32(128 * 128))));
  for (int64_t k = 0; k < steps; ++k) {
    auto words = target<SM90LdmatrixX4Op>(e.add(from, e.i32(k * 16 * 128)));
    auto permuted = target<SM90PermuteBytesOp>(
        words.getResults(), lanes.selector[0], lanes.selector[1]);
    Value at = e.xorI(to, e.i32(k * 16));
    target<SM90StmatrixX4TransOp>(at, permuted.getResult0(),
                                  permuted.getResult1(), permuted.getResult2(),
                                  permuted.getResult3());
  }
  Value next = e.add(vtBlock, e.i32(1));
  e.condBr(e.icmp(ICmp::ult, next, e.i32(chunksV * blocksPerChunk)), "vt_block",
           {next}, "vt_done", {});
  e.place("vt_done");
}

/// The descale of `tensor` for this CTA's batch, head `headIdx` (ranks 2
/// and 3) and block `blockIdx` (rank 3).
Value SM90KernelEmitter::loadDescale(const char *tensor,
                                     const SM90Descale &spec, Value headIdx,
                                     Value blockIdx) {
  string name = string(tensor) + "_descale";
  Value ptr = e.addrspacecast(e.arg(name), e.ptr(1));
  if (spec.rank >= 2) {
    Value off = headOffset(name, headIdx);
    if (spec.rank == 3)
      off = e.add(off, e.mul(e.zext64(blockIdx), e.arg(name + "_stride_blk")));
    ptr = e.elementAddress(ptr, e.f32(), off);
  }
  return e.load(e.f32(), ptr, 4);
}

/// Q's descale per accumulator row (rows past seq_q read the last row's
/// block, as fattn.load_descale), and K's and V's when every tile has the
/// same one.
void SM90KernelEmitter::emitDescaleSetup() {
  const SM90Descale &dq = cfg.qDescale;
  if (dq.rank == 3) {
    Value last = e.sub(e.arg("seq_q"), e.i32(1));
    for (int r = 0; r < 2; ++r)
      qScale[r] = loadDescale("q", dq, head,
                              e.udiv(e.smin(row[r], last), e.i32(dq.block)));
  } else {
    qScale[0] = qScale[1] = loadDescale("q", dq, kvHead, Value());
  }
  if (cfg.kDescale.rank != 3)
    keyScale = loadDescale("k", cfg.kDescale, kvHead, Value());
  if (cfg.vDescale.rank != 3)
    valueScale = loadDescale("v", cfg.vDescale, kvHead, Value());
}

/// K's and V's descale of KV tile `j`. V's descale_block_kv is a multiple
/// of block_n: one factor per tile. K's is that, or a divisor of block_n:
/// then each consumer thread loads the factor of key j * block_n + its
/// index in the warpgroup (+ 128 i for wider tiles; keys past seq_k read
/// the last key's block, as fattn.load_descale), here, at the iteration's
/// start, so that the load runs while S = Q K^T does (keyColumnFactors
/// stages them). A per-block V descale is floored at 2^-64 (an all-zero
/// block has 2^-126): O is kept in units of it, and 2^-126 would overflow
/// the accumulator; with the floor, values below about 1e-17 in a block
/// whose factor is floored are read too large.
TileDescales SM90KernelEmitter::tileDescales(Value j) {
  TileDescales d;
  if (!cfg.hasDescales())
    return d;
  Value firstRow = e.mul(j, e.i32(bn));
  if (cfg.hasKeyFactorsPerColumn()) {
    Value lastKey = e.sub(e.arg("seq_k"), e.i32(1));
    for (int64_t i = 0; i < cfg.keyChunks(); ++i) {
      Value key = e.smin(
          e.add(firstRow, e.add(threadInWarpgroup, e.i32(128 * i))), lastKey);
      d.keyRows.push_back(loadDescale("k", cfg.kDescale, kvHead,
                                      e.udiv(key, e.i32(cfg.kDescale.block))));
    }
  } else {
    d.key = !keyScale ? loadDescale("k", cfg.kDescale, kvHead,
                                    e.udiv(firstRow, e.i32(cfg.kDescale.block)))
                      : keyScale;
  }
  if (!carryValueDescale) {
    d.value = valueScale;
    return d;
  }
  Value v = loadDescale("v", cfg.vDescale, kvHead,
                        e.udiv(firstRow, e.i32(cfg.vDescale.block)));
  d.value = e.fmax(v, e.f32(std::ldexp(1.0f, -64)));
  return d;
}

/// K's factors of the score columns this thread holds (keyColumnIndex), for
/// K blocks smaller than the tile: the warpgroup writes the keys'
/// factors (TileDescales::keyRows) into its slot and reads each thread's
/// columns back, two adjacent ones at a time. Loading each column's factor
/// from global memory made ptxas spill (124-252 bytes at head dim 128: 32
/// 64-bit addresses). The warpgroup's epilogue barrier (128 threads) orders
/// the slot: before the writes, every read of the previous tile's factors.
SmallVector<Value>
SM90KernelEmitter::keyColumnFactors(const TileDescales &descales) {
  Value slotBarrier = warpgroupBarrierId();
  Value slot = e.add(smemRegion(SM90SharedRegion::KeyFactors),
                     e.mul(wg, e.i32(layout.keyFactorSlotBytes)));
  warpgroupBarrier(slotBarrier);
  for (size_t i = 0; i < descales.keyRows.size(); ++i) {
    Value at =
        e.add(slot, e.mul(e.add(threadInWarpgroup, e.i32(128 * i)), e.i32(4)));
    e.store(descales.keyRows[i], e.byteOffset(base, at));
  }
  warpgroupBarrier(slotBarrier);
  // Columns c and c + 1 (c even) are adjacent keys: one 8-byte load.
  SmallVector<Value> factors;
  Value own = e.add(slot, e.mul(quad, e.i32(8)));
  for (int64_t c = 0; c < tile.numS / 2; c += 2) {
    Value at = e.byteOffset(base, e.add(own, e.i32(4 * keyColumnOffset(c))));
    Value pair = e.load(e.vector(2, e.f32()), at, 8);
    for (int k = 0; k < 2; ++k)
      factors.push_back(e.extractElement(pair, e.i32(k)));
  }
  return factors;
}

/// The factors (per accumulator row) by which O is rescaled before the P V
/// of a tile: alpha, and with per-block V descales the move from the
/// previous tile's descale units to this tile's (dv_prev / dv), so that the
/// P V product adds in the stored units. `unit` becomes the descale O is in
/// afterwards (empty without).
std::array<Value, 2> SM90KernelEmitter::rescaleFactors(const TileSoftmax &sm,
                                                       Value prevDescale,
                                                       Value descale,
                                                       Value &unit) {
  std::array<Value, 2> factor = {sm.alpha[0], sm.alpha[1]};
  unit = carryValueDescale ? descale : Value();
  if (carryValueDescale) {
    Value ratio = e.fdiv(prevDescale, descale);
    for (int r = 0; r < 2; ++r)
      factor[r] = e.fmul(factor[r], ratio);
  }
  return factor;
}

// P's e4m3 bytes as LinearExp2.h computes them: u = byte / 256, saturated,
// from x = log2(256 P) = score * coef + bias. The threshold's limit (256 P
// <= 448) keeps the byte <= 126 (0x7f is e4m3's NaN).
std::pair<Value, Value> SM90KernelEmitter::linearExp2Affine(Value coef,
                                                            Value bias) {
  Value slope = e.f32(kLinearExp2Slope);
  return {e.fmul(coef, slope), e.fma(bias, slope, e.f32(kLinearExp2Intercept))};
}

SmallVector<Value> SM90KernelEmitter::gatherLinearBytes(ArrayRef<Value> u) {
  // Register = the bytes of (u[i], u[i + 1], u[i + 4], u[i + 5]), low byte
  // first, as packProbabilitiesE4M3's cvt path orders them.
  SmallVector<Value> packed;
  // A 32-key step holds 16 of the thread's scores.
  int64_t steps = static_cast<int64_t>(u.size()) / 16;
  for (int64_t kk = 0; kk < steps; ++kk)
    for (int64_t base : {0, 2, 8, 10}) {
      int64_t i = 16 * kk + base;
      packed.push_back(
          target<SM90PackBytesOp>(u[i], u[i + 1], u[i + 4], u[i + 5]));
    }
  return packed;
}

/// P (f32, in [0, 256]: see kFP8ProbabilityLog2) as the A operand of
/// `wgmma ... k32 .e4m3` from registers, with the keys in the order
/// wgmma_e4m3_k32: per 32-key step kk, accumulator registers 16kk + {0, 1, 4,
/// 5} are row r's columns 2q, 2q+1, 2q+8, 2q+9, which become A's k slots 4q ..
/// 4q+3 (register a0); +{2, 3, 6, 7} row r + 8 (a1); +8 the same for the next
/// 16 keys (a2, a3). So each register is two cvt.rn.satfinite.e4m3x2 and one
/// prmt of this thread's own values; V^T's keys are permuted to match
/// (emitTransposeV).
SmallVector<Value> SM90KernelEmitter::packProbabilitiesE4M3(ArrayRef<Value> p) {
  // Register = e4m3 of (p[i], p[i + 1], p[i + 4], p[i + 5]), low byte first:
  // two cvt.e4m3x2 (the first source goes to the upper byte) as the halves
  // of one register, a vector of two i16 (mov.b32 {lo, hi}), which ptxas
  // writes in place (F2FP ... MERGE_C). Zero-extending the i16 results and
  // merging them with a prmt cost three more instructions per register on
  // the path from the P V wait to the next GEMMs (measured 3-15% slower,
  // docs/PERF.md).
  if (cfg.linearExp2) // p holds each byte / 256 (emitSoftmax's fma.sat)
    return gatherLinearBytes(p);
  // The exception: head dims above 128 with per-block V descales, whose
  // carried factor leaves no register for the merged halves (ptxas spilled
  // 4 bytes in the causal kernels) keep the zero-extension and the prmt.
  bool byPermute = carryValueDescale && dPadV > 128;
  SmallVector<Value> packed;
  // A 32-key step holds 16 of the thread's scores.
  int64_t steps = static_cast<int64_t>(p.size()) / 16;
  for (int64_t kk = 0; kk < steps; ++kk)
    for (int64_t base : {0, 2, 8, 10}) {
      int64_t i = 16 * kk + base;
      packed.push_back(target<SM90PackE4M3Op>(p[i], p[i + 1], p[i + 4],
                                              p[i + 5], byPermute));
    }
  return packed;
}
