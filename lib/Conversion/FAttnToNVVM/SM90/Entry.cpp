//===- Entry.cpp - sm_90a kernel: entry, work items, copies ---------------===//
//
// The parts of the sm_90a kernel around the math: the entry block (shared
// memory, barriers, the split into producer and consumer warpgroups), the
// work item a CTA computes (one per CTA, or the persistent loop over work
// items of WorkOrder.h), the TMA copies of Q and of the K/V ring, and the
// producer warpgroup that issues them (FP8's producer, which also transposes
// V, is in FP8Kernel.cpp). The consumers are in ConsumerMath.cpp and
// ConsumerLoops.cpp, their epilogue in Epilogue.cpp.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "fattn/Conversion/FAttnToNVVM/KernelSymbol.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::fattn;
using namespace mlir::fattn::sm90;

/// The KV tile range of Q tile `qTile` (computeKVTileRange, as the CPU
/// lowering visits it).
static KVTileRange<Value> kvRange(KernelBuilder &e, const SM90KernelConfig &cfg,
                                  Value qTile) {
  BuilderIntOps ops{e};
  KVTileRangeParams params{cfg.blockM, cfg.blockN, cfg.windowLeft,
                           cfg.windowRight};
  return computeKVTileRange(ops, qTile, e.arg("seq_q"), e.arg("seq_k"), params);
}

void SM90KernelEmitter::setWorkItem(Value qTile, Value headIdx,
                                    Value batchIdx) {
  qTileRow = e.mul(qTile, e.i32(cfg.blockM));
  head = headIdx;
  batch = batchIdx;
  // GQA/MQA: query head h reads KV head h / (Hq / Hkv).
  kvHead = cfg.persistent
               ? intOps().div(head, queryGroup)
               : e.udiv(head, e.udiv(e.arg("heads_q"), e.arg("heads_kv")));
  KVTileRange<Value> range = kvRange(e, cfg, qTile);
  lo = range.lo;
  fullLo = range.fullLo;
  fullHi = range.fullHi;
  hi = range.hi;
}

void SM90KernelEmitter::beginWorkLoop(StringRef name, StringRef exitLabel) {
  Value start = e.i32(0);
  e.br(name, {start, start});
  auto loopArgs = e.place(name, {e.i32(), e.i32()});
  Value tb = loopArgs[0], wi = loopArgs[1];
  // Round wi's item (WorkOrder.h: snake-ordered rounds of the grid).
  BuilderIntOps ops = intOps();
  Value grid = e.specialRegister(SpecialRegister::GridDimX);
  Value cta = e.specialRegister(SpecialRegister::BlockIdX);
  Value w = workIndex(ops, wi, grid, cta);
  // The split tail: past the whole rounds, the CTA's pieces 0 and 1.
  Value inTail;
  TailPiece<Value> piece;
  if (cfg.splitTail) {
    inTail = e.icmp(ICmp::uge, wi, tailRounds);
    piece =
        tailPiece(ops, e.sub(wi, tailRounds), cta, grid, totalWork, tailTiles);
    w = e.select(inTail, piece.item, w);
  }
  string body = (name + "_body").str();
  e.condBr(e.icmp(ICmp::ult, w, totalWork), body, exitLabel);
  e.place(body);
  tileBase = tb;
  workOrdinal = wi;
  // The item's Q tile, head and batch (WorkOrder.h: the Q tile fastest, for
  // L2; with a mask, from 22 Q tiles in windows of two rounds, longest
  // first, or the tail's pairs Q tile slowest), dividing by a multiplier and
  // a shift where this role has them (addFastDivisor).
  Value heads = e.arg("heads_q");
  SmallVector<bool, 2> fast;
  SmallVector<Value, 4> magic;
  for (Value divisor : {numQTiles, heads}) {
    auto it = fastDivisors.find(divisor);
    fast.push_back(it != fastDivisors.end());
    if (fast.back())
      magic.append({it->second.multiplier, it->second.shift});
  }
  WorkOrderParams order = cfg.workOrder();
  auto item = target<SM90WorkItemOp>(w, numQTiles, workPairs, heads, grid,
                                     workTailPairs, magic, order.masked,
                                     order.reverseQTiles, order.ctasPerPair,
                                     fast);
  setWorkItem(item.getQTile(), item.getHead(), item.getBatch());
  if (!cfg.splitTail)
    return;
  // A piece computes only its tiles of the item's [lo, hi).
  Value first = lo;
  lo = e.select(inTail, e.add(first, piece.firstTile), first);
  hi = e.select(inTail, e.add(first, piece.endTile), hi);
  tailOwner = e.icmp(ICmp::eq, piece.firstTile, e.i32(0));
  // Split unless the piece is the whole item.
  Value partial = e.orI(e.icmp(ICmp::ne, piece.firstTile, e.i32(0)),
                        e.icmp(ICmp::ne, piece.endTile, tailTiles));
  tailSplit = e.andI(inTail, partial);
  tailRank = piece.rank;
}

Value SM90KernelEmitter::emitTailPairs() {
  if (!cfg.hasTailPairs())
    return Value();
  BuilderIntOps ops{e};
  return tailPairCount(ops, workPairs,
                       e.specialRegister(SpecialRegister::GridDimX),
                       cfg.workOrder(), e.arg("tail_pairs"));
}

void SM90KernelEmitter::addFastDivisor(Value d) {
  // d = 0 only without work items, where no quotient is used; 1 keeps the
  // 64-bit division below defined.
  Value divisor = e.select(e.icmp(ICmp::eq, d, e.i32(0)), e.i32(1), d);
  // l = ceil(log2 d) = 32 - clz(d - 1); m = ceil(2^(31 + l) / d).
  Value clz = e.ctlz(e.sub(divisor, e.i32(1)));
  Value shift = e.sub(e.i32(32), clz);
  Value power = e.shl(e.i64(1), e.zext64(e.add(shift, e.i32(31))));
  Value wideDivisor = e.zext64(divisor);
  Value numerator = e.add(power, e.sub(wideDivisor, e.i64(1)));
  Value multiplier = e.trunc(e.udiv(numerator, wideDivisor), e.i32());
  fastDivisors[d] = FastDivisor{multiplier, shift};
}

void SM90KernelEmitter::endWorkLoop(StringRef name) {
  Value tiles = e.smax(e.sub(hi, lo), e.i32(0));
  // The next ordinal first: the order of the measured kernels (and of the
  // PTX corpus).
  Value nextOrdinal = e.add(workOrdinal, e.i32(1));
  Value nextBase = e.add(tileBase, tiles);
  e.br(name, {nextBase, nextOrdinal});
}

void SM90KernelEmitter::emitEntry() {
  tid = e.specialRegister(SpecialRegister::ThreadIdX);
  if (cfg.persistent) {
    numQTiles =
        e.udiv(e.add(e.arg("seq_q"), e.i32(cfg.blockM - 1)), e.i32(cfg.blockM));
    totalWork = e.mul(e.mul(numQTiles, e.arg("heads_q")), e.arg("batch"));
    workPairs = e.mul(e.arg("heads_q"), e.arg("batch"));
    workTailPairs = emitTailPairs();
    queryGroup = e.udiv(e.arg("heads_q"), e.arg("heads_kv"));
    if (cfg.splitTail) {
      // Unmasked: every Q tile has the KV tiles of Q tile 0.
      KVTileRange<Value> range = kvRange(e, cfg, e.i32(0));
      tailTiles = e.sub(range.hi, range.lo);
      BuilderIntOps ops{e};
      Value grid = e.specialRegister(SpecialRegister::GridDimX);
      tailRounds = splitRounds(ops, totalWork, grid, tailTiles);
      tailUnitCount = tailUnits(ops, totalWork, grid, tailTiles);
    }
  } else {
    Value ctaX = e.specialRegister(SpecialRegister::BlockIdX);
    Value qTile = ctaX;
    if (opts.reverseQTiles) {
      Value n = e.specialRegister(SpecialRegister::GridDimX);
      qTile = e.sub(e.sub(n, e.i32(1)), ctaX);
    }
    Value headIdx = e.specialRegister(SpecialRegister::BlockIdY);
    setWorkItem(qTile, headIdx, e.specialRegister(SpecialRegister::BlockIdZ));
  }

  // Align the dynamic shared memory to 1024 bytes (the 128B swizzle atom).
  Value raw = e.addressOf(kSharedMemorySymbol, e.ptr(3));
  Value rawAddr = e.ptrtoint(raw, e.i32());
  baseAddr = e.andI(e.add(rawAddr, e.i32(1023)), e.i32(-1024));
  base = e.byteOffset(raw, e.sub(baseAddr, rawAddr));
  declareSharedRegions();

  Value isThread0 = e.icmp(ICmp::eq, tid, e.i32(0));
  auto init = [&](int64_t offset, int64_t count) {
    target<SM90MBarrierInitOp>(barrier(offset), count, isThread0);
  };
  // Every consumer thread hands a stage back.
  int64_t consumerThreads = 128 * cfg.consumerWarpgroups;
  init(layout.qBar(), 1);
  if (cfg.persistent)
    init(layout.qEmptyBar(), consumerThreads);
  if (cfg.qBuffers == 2) {
    init(layout.qBar1(), 1);
    init(layout.qEmptyBar1(), consumerThreads);
  }
  for (int64_t s = 0; s < cfg.stages; ++s) {
    init(layout.fullKBar() + 8 * s, 1);
    init(layout.fullVBar() + 8 * s, 1);
    init(layout.emptyKBar() + 8 * s, consumerThreads);
    init(layout.emptyVBar() + 8 * s, consumerThreads);
    if (cfg.transposesValue()) {
      // Every producer thread writes a part of V^T.
      init(layout.fullVtBar() + 8 * s, 128);
      init(layout.emptyVtBar() + 8 * s, consumerThreads);
    }
  }
  if (cfg.rowSumMma)
    emitOnesTile();
  e.fenceMbarrierInit();
  e.barrier0();
  if (!cfg.warpSpecialize) {
    e.br("consumer");
    return;
  }
  Value isProducer = e.icmp(ICmp::ult, tid, e.i32(128));
  e.condBr(isProducer, "producer", "consumer");
}

void SM90KernelEmitter::emitOnesTile() {
  // 1.0 in the element type: two bf16 / f16 or four e4m3 per word.
  uint32_t word = cfg.isFP8()                 ? 0x38383838u
                  : cfg.elementType == "bf16" ? 0x3F803F80u
                                              : 0x3C003C00u;
  // One word per thread of the first 256 (threads beyond write the same
  // words again).
  Value offset =
      e.add(smemRegion(SM90SharedRegion::Ones),
            e.mul(e.andI(tid, e.i32(255)), e.i32(4)));
  e.store(e.i32(static_cast<int32_t>(word)), e.byteOffset(base, offset));
  // The wgmma reads the tile through the async proxy; the barrier that
  // follows (barrier0) orders every thread's writes before any read.
  fenceProxyAsync();
}

void SM90KernelEmitter::emitQLoad() {
  Value qBar = qFullBar();
  expectBytes(qBar, layout.qTileBytes);
  // Two buffers: the work item's one, bytes qBytes apart.
  Value bufferOffset = qBufferOffset();
  for (int64_t c = 0; c < chunks; ++c) {
    Value dst = e.add(smemRegion(SM90SharedRegion::QBuffers),
                      e.i32(c * cfg.blockM * 128));
    if (bufferOffset)
      dst = e.add(bufferOffset, dst);
    tmaLoad(e.arg("q_map"), c, dst, qBar, qTileRow, head);
  }
}

void SM90KernelEmitter::emitTileLoad(Value j) {
  Value t = tileOrdinal(j);
  Value stage = stageOf(t);
  // The first round passes at once: a fresh barrier's "previous" phase (1)
  // counts as complete.
  Value waitPhase = e.xorI(phaseOf(t), e.i32(1));
  Value kvRow = e.mul(j, e.i32(bn));
  // K's and V's stages differ in size where their head dims do.
  Value keyStageOffset = e.mul(stage, e.i32(layout.kStageBytes));
  Value valueStageOffset =
      layout.vStageBytes == layout.kStageBytes
          ? keyStageOffset
          : e.mul(stage, e.i32(layout.vStageBytes));
  for (bool isV : {false, true}) {
    // FP8: V's slot is free once the producer's own transpose has read it
    // (the producer barrier after each transpose), no consumer hands it back.
    if (!(isV && cfg.transposesValue()))
      waitBarrier(barrier(isV ? layout.emptyVBar() : layout.emptyKBar(), stage),
                  waitPhase);
    Value bar = barrier(isV ? layout.fullVBar() : layout.fullKBar(), stage);
    if (isV && cfg.valueTransposed) {
      emitTransposedValueLoad(stage, bar, kvRow);
      continue;
    }
    expectBytes(bar, isV ? layout.vStageBytes : layout.kStageBytes);
    Value stageOffset = isV ? valueStageOffset : keyStageOffset;
    SM90SharedRegion ring =
        isV ? SM90SharedRegion::ValueRing : SM90SharedRegion::KeyRing;
    for (int64_t c = 0; c < (isV ? chunksV : chunks); ++c)
      tmaLoad(e.arg(isV ? "v_map" : "k_map"), c,
              e.add(stageOffset,
                    e.add(smemRegion(ring), e.i32(c * bn * 128))),
              bar, kvRow, kvHead);
  }
}

/// A V stored as V^T: one box of 128 keys x head-dim rows per V^T atom of
/// the stage, which is the layout the transposing producer writes (the keys
/// are already in its order). A last atom wider than the tile's keys also
/// reads the next tile's first keys, which no wgmma uses; TMA counts and
/// zero-fills whole boxes.
void SM90KernelEmitter::emitTransposedValueLoad(Value stage, Value bar,
                                                Value firstKey) {
  int64_t atomBytes = cfg.headDimV * 128;
  expectBytes(bar, layout.vtStageBytes);
  Value stageOffset = e.mul(stage, e.i32(layout.vtStageBytes));
  for (int64_t a = 0; a < cfg.keyChunks(); ++a)
    tmaCopy(e.arg("v_map"), e.add(firstKey, e.i32(128 * a)), e.i32(0),
            e.add(stageOffset, e.add(smemRegion(SM90SharedRegion::ValueRing),
                                     e.i32(a * atomBytes))),
            bar,
            kvHead);
}

Value SM90KernelEmitter::beginProducer() {
  e.place("producer");
  if (opts.producerRegisters > 0)
    target<SM90SetMaxNRegOp>(SM90RegisterAction::Decrease,
                             opts.producerRegisters);
  Value warp0 = e.icmp(ICmp::ult, tid, e.i32(32));
  Value elected = target<SM90ElectOneOp>();
  return e.andI(warp0, elected);
}

void SM90KernelEmitter::emitProducer() {
  Value issuer = beginProducer();
  e.condBr(issuer, "load_q", "exit");

  e.place("load_q");
  if (cfg.persistent)
    beginWorkLoop("produce_work");
  waitQEmpty();
  emitQLoad();
  e.br("produce", {lo});

  const char *itemDone = cfg.persistent ? "produce_next" : "exit";
  Value pj = e.place("produce", {e.i32()})[0];
  Value more = e.icmp(ICmp::slt, pj, hi);
  e.condBr(more, "produce_tile", itemDone);

  e.place("produce_tile");
  emitTileLoad(pj);
  e.br("produce", {e.add(pj, e.i32(1))});

  if (cfg.persistent) {
    e.place(itemDone);
    endWorkLoop("produce_work");
  }
}

/// Without a producer warpgroup: once this warpgroup has handed back tile
/// lo + released, the issuing thread copies tile lo + released + stages into
/// that stage (waiting on its empty barriers for the other warpgroups).
void SM90KernelEmitter::emitLoadAhead(Value released) {
  if (cfg.warpSpecialize)
    return;
  Value next = e.add(e.add(lo, released), e.i32(cfg.stages));
  Value cond = e.andI(isIssuer, e.icmp(ICmp::slt, next, hi));
  string load = fresh("load_ahead"), done = fresh("loaded");
  e.condBr(cond, load, done);
  e.place(load);
  emitTileLoad(next);
  e.br(done);
  e.place(done);
}
