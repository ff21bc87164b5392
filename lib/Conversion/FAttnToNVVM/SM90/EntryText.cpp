//===- EntryText.cpp - sm_90a kernel: entry, work items, copies -----------===//
//
// The parts of the sm_90a kernel around the math: the entry block (shared
// memory, barriers, the split into producer and consumer warpgroups), the
// work item a CTA computes (one per CTA, or the persistent loop over work
// items of WorkOrder.h), the TMA copies of Q and of the K/V ring, and the
// producer warpgroup that issues them (FP8's producer, which also transposes
// V, is in FP8KernelText.cpp). The consumers are in KernelText.cpp.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::fattn;
using namespace mlir::fattn::sm90;

/// The KV tile range of Q tile `qTile` (computeKVTileRange, as the CPU
/// lowering visits it).
static KVTileRange<string> kvRange(TextEmitter &e, const SM90KernelConfig &cfg,
                                   const string &qTile) {
  TextIntOps ops{e};
  KVTileRangeParams params{cfg.blockM, cfg.blockN, cfg.windowLeft,
                           cfg.windowRight};
  return computeKVTileRange(ops, qTile, string("%seq_q"), string("%seq_k"),
                            params);
}

void SM90KernelEmitter::setWorkItem(const string &qTile,
                                     const string &headIdx,
                                     const string &batchIdx) {
  qTileRow = e.mul(qTile, e.i32(cfg.blockM));
  head = headIdx;
  batch = batchIdx;
  // GQA/MQA: query head h reads KV head h / (Hq / Hkv).
  kvHead = cfg.persistent
               ? intOps().div(head, queryGroup)
               : e.bin("udiv", head, e.bin("udiv", "%heads_q", "%heads_kv"));
  KVTileRange<string> range = kvRange(e, cfg, qTile);
  lo = range.lo;
  fullLo = range.fullLo;
  fullHi = range.fullHi;
  hi = range.hi;
}

void SM90KernelEmitter::beginWorkLoop(const string &name,
                                      const string &exitLabel) {
  string tb = "%" + name + "_tb", wi = "%" + name + "_wi";
  e.op(formatv("llvm.br ^{0}({1}, {1} : i32, i32)", name, e.i32(0)).str());
  e.label(name, formatv("({0}: i32, {1}: i32)", tb, wi).str());
  // Round wi's item (WorkOrder.h: snake-ordered rounds of the grid).
  TextIntOps ops = intOps();
  string grid = e.sreg("nctaid.x");
  string cta = e.sreg("ctaid.x");
  string w = workIndex(ops, wi, grid, cta);
  // The split tail: past the whole rounds, the CTA's pieces 0 and 1.
  string inTail;
  TailPiece<string> piece;
  if (cfg.splitTail) {
    inTail = e.icmp("uge", wi, tailRounds);
    piece = tailPiece(ops, e.sub(wi, tailRounds), cta, grid, totalWork,
                      tailTiles);
    w = e.select(inTail, piece.item, w);
  }
  e.op(formatv("llvm.cond_br {0}, ^{1}_body, ^{2}",
               e.icmp("ult", w, totalWork), name, exitLabel).str());
  e.label(name + "_body");
  tileBase = tb;
  workOrdinal = wi;
  // WorkOrder.h: the Q tile fastest, for L2; with a mask the tail's pairs
  // Q tile slowest.
  WorkItem<string> item = decodeWorkItem(ops, w, numQTiles, workPairs, grid,
                                         cfg.workOrder(), workTailPairs);
  setWorkItem(item.qTile, ops.rem(item.pair, "%heads_q"),
              ops.div(item.pair, "%heads_q"));
  if (!cfg.splitTail)
    return;
  // A piece computes only its tiles of the item's [lo, hi).
  string first = lo;
  lo = e.select(inTail, e.add(first, piece.firstTile), first);
  hi = e.select(inTail, e.add(first, piece.endTile), hi);
  tailOwner = e.icmp("eq", piece.firstTile, e.i32(0));
  // Split unless the piece is the whole item.
  string partial = e.bin("or", e.icmp("ne", piece.firstTile, e.i32(0)),
                         e.icmp("ne", piece.endTile, tailTiles), "i1");
  tailSplit = e.bin("and", inTail, partial, "i1");
  tailRank = piece.rank;
}

string SM90KernelEmitter::emitTailPairs() {
  if (!cfg.hasTailPairs())
    return "";
  TextIntOps ops{e};
  return tailPairCount(ops, workPairs, e.sreg("nctaid.x"), cfg.workOrder(),
                       "%tail_pairs");
}

void SM90KernelEmitter::addFastDivisor(const string &d) {
  // d = 0 only without work items, where no quotient is used; 1 keeps the
  // 64-bit division below defined.
  string divisor = e.select(e.icmp("eq", d, e.i32(0)), e.i32(1), d);
  // l = ceil(log2 d) = 32 - clz(d - 1); m = ceil(2^(31 + l) / d).
  string clz = e.def(formatv("\"llvm.intr.ctlz\"({0}) <{{is_zero_poison = "
                             "false}> : (i32) -> i32",
                             e.sub(divisor, e.i32(1))).str());
  string shift = e.sub(e.i32(32), clz);
  string power = e.bin("shl", e.i64(1), e.zext64(e.add(shift, e.i32(31))),
                       "i64");
  string wideDivisor = e.zext64(divisor);
  string numerator = e.bin(
      "add", power, e.bin("sub", wideDivisor, e.i64(1), "i64"), "i64");
  string multiplier =
      e.def(formatv("llvm.trunc {0} : i64 to i32",
                    e.bin("udiv", numerator, wideDivisor, "i64")).str());
  fastDivisors[d] = FastDivisor{multiplier, shift};
}

void SM90KernelEmitter::endWorkLoop(const string &name) {
  string tiles = e.smax(e.sub(hi, lo), e.i32(0));
  e.op(formatv("llvm.br ^{0}({1}, {2} : i32, i32)", name,
               e.add(tileBase, tiles), e.add(workOrdinal, e.i32(1))).str());
}

void SM90KernelEmitter::emitEntry() {
  tid = e.sreg("tid.x");
  if (cfg.persistent) {
    numQTiles = e.bin("udiv", e.add("%seq_q", e.i32(cfg.blockM - 1)),
                      e.i32(cfg.blockM));
    totalWork = e.mul(e.mul(numQTiles, "%heads_q"), "%batch");
    workPairs = e.mul("%heads_q", "%batch");
    workTailPairs = emitTailPairs();
    queryGroup = e.bin("udiv", "%heads_q", "%heads_kv");
    if (cfg.splitTail) {
      // Unmasked: every Q tile has the KV tiles of Q tile 0.
      KVTileRange<string> range = kvRange(e, cfg, e.i32(0));
      tailTiles = e.sub(range.hi, range.lo);
      TextIntOps ops{e};
      string grid = e.sreg("nctaid.x");
      tailRounds = splitRounds(ops, totalWork, grid, tailTiles);
      tailUnitCount = tailUnits(ops, totalWork, grid, tailTiles);
    }
  } else {
    string ctaX = e.sreg("ctaid.x");
    string qTile = ctaX;
    if (opts.reverseQTiles) {
      string n = e.sreg("nctaid.x");
      qTile = e.sub(e.sub(n, e.i32(1)), ctaX);
    }
    string headIdx = e.sreg("ctaid.y");
    setWorkItem(qTile, headIdx, e.sreg("ctaid.z"));
  }

  // Align the dynamic shared memory to 1024 bytes (the 128B swizzle atom).
  string raw = e.def("llvm.mlir.addressof @fattn_smem : !llvm.ptr<3>");
  string rawAddr = e.def(formatv("llvm.ptrtoint {0} : !llvm.ptr<3> to i32", raw).str());
  baseAddr = e.bin("and", e.add(rawAddr, e.i32(1023)), e.i32(-1024));
  base = e.smemPtr(raw, e.sub(baseAddr, rawAddr));

  string isThread0 = e.icmp("eq", tid, e.i32(0));
  auto init = [&](int64_t offset, int64_t count) {
    e.op(formatv("nvvm.mbarrier.init {0}, {1}, predicate = {2} : !llvm.ptr<3>, "
                 "i32, i1", barrier(offset), e.i32(count), isThread0).str());
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
  e.op("nvvm.fence.mbarrier.init");
  e.op("nvvm.barrier0");
  if (!cfg.warpSpecialize) {
    e.op("llvm.br ^consumer");
    return;
  }
  string isProducer = e.icmp("ult", tid, e.i32(128));
  e.op(formatv("llvm.cond_br {0}, ^producer, ^consumer", isProducer).str());
}

void SM90KernelEmitter::emitOnesTile() {
  // 1.0 in the element type: two bf16 / f16 or four e4m3 per word.
  uint32_t word = cfg.isFP8() ? 0x38383838u
                  : cfg.elementType == "bf16" ? 0x3F803F80u
                                              : 0x3C003C00u;
  // One word per thread of the first 256 (threads beyond write the same
  // words again).
  string offset = e.add(e.i32(layout.onesOffset),
                        e.mul(e.bin("and", tid, e.i32(255)), e.i32(4)));
  e.op(formatv("llvm.store {0}, {1} : i32, !llvm.ptr<3>",
               e.i32(static_cast<int32_t>(word)), e.smemPtr(base, offset)).str());
  // The wgmma reads the tile through the async proxy; the barrier that
  // follows (barrier0) orders every thread's writes before any read.
  e.op("nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = "
       "#nvvm.shared_space<cta>}");
}

void SM90KernelEmitter::emitQLoad() {
  string qBar = qFullBar();
  e.op(formatv("nvvm.mbarrier.arrive.expect_tx {0}, {1} : !llvm.ptr<3>, i32",
               qBar, e.i32(layout.qBytes)).str());
  // Two buffers: the work item's one, bytes qBytes apart.
  string bufferOffset = qBufferOffset();
  for (int64_t c = 0; c < chunks; ++c) {
    string dst = e.i32(c * cfg.blockM * 128);
    if (!bufferOffset.empty())
      dst = e.add(bufferOffset, dst);
    tmaLoad("%q_map", c, dst, qBar, qTileRow, head);
  }
}

void SM90KernelEmitter::emitTileLoad(const string &j) {
  string t = tileOrdinal(j);
  string stage = stageOf(t);
  // The first round passes at once: a fresh barrier's "previous" phase (1)
  // counts as complete.
  string waitPhase = e.bin("xor", phaseOf(t), e.i32(1));
  string kvRow = e.mul(j, e.i32(bn));
  string stageOffset = e.mul(stage, e.i32(layout.kvStageBytes));
  for (bool isV : {false, true}) {
    // FP8: V's slot is free once the producer's own transpose has read it
    // (the producer barrier after each transpose), no consumer hands it back.
    if (!(isV && cfg.transposesValue()))
      waitBarrier(barrier(isV ? layout.emptyVBar() : layout.emptyKBar(), stage),
                  waitPhase);
    string bar = barrier(isV ? layout.fullVBar() : layout.fullKBar(), stage);
    if (isV && cfg.valueTransposed) {
      emitTransposedValueLoad(stage, bar, kvRow);
      continue;
    }
    e.op(formatv("nvvm.mbarrier.arrive.expect_tx {0}, {1} : !llvm.ptr<3>, i32",
                 bar, e.i32(layout.kvStageBytes)).str());
    int64_t region = isV ? layout.vOffset : layout.kOffset;
    for (int64_t c = 0; c < chunks; ++c)
      tmaLoad(isV ? "%v_map" : "%k_map", c,
              e.add(stageOffset, e.i32(region + c * bn * 128)), bar, kvRow,
              kvHead);
  }
}

/// A V stored as V^T: one box of 128 keys x head-dim rows per V^T atom of
/// the stage, which is the layout the transposing producer writes (the keys
/// are already in its order). A last atom wider than the tile's keys also
/// reads the next tile's first keys, which no wgmma uses; TMA counts and
/// zero-fills whole boxes.
void SM90KernelEmitter::emitTransposedValueLoad(const string &stage,
                                                const string &bar,
                                                const string &firstKey) {
  int64_t atomBytes = cfg.headDim * 128;
  e.op(formatv("nvvm.mbarrier.arrive.expect_tx {0}, {1} : !llvm.ptr<3>, i32",
               bar, e.i32(layout.vtStageBytes)).str());
  string stageOffset = e.mul(stage, e.i32(layout.vtStageBytes));
  for (int64_t a = 0; a < cfg.keyChunks(); ++a)
    tmaCopy("%v_map", e.add(firstKey, e.i32(128 * a)), e.i32(0),
            e.add(stageOffset, e.i32(layout.vtOffset + a * atomBytes)), bar,
            kvHead);
}

string SM90KernelEmitter::beginProducer() {
  e.label("producer");
  if (opts.producerRegisters > 0)
    e.op(formatv("nvvm.setmaxregister decrease {0}", opts.producerRegisters).str());
  string warp0 = e.icmp("ult", tid, e.i32(32));
  string elected = e.def("nvvm.elect.sync -> i1");
  return e.bin("and", warp0, elected, "i1");
}

void SM90KernelEmitter::emitProducer() {
  string issuer = beginProducer();
  e.op(formatv("llvm.cond_br {0}, ^load_q, ^exit", issuer).str());

  e.label("load_q");
  if (cfg.persistent)
    beginWorkLoop("produce_work");
  waitQEmpty();
  emitQLoad();
  e.op(formatv("llvm.br ^produce({0} : i32)", lo).str());

  const char *itemDone = cfg.persistent ? "produce_next" : "exit";
  e.label("produce", "(%pj: i32)");
  string more = e.icmp("slt", "%pj", hi);
  e.op(formatv("llvm.cond_br {0}, ^produce_tile, ^{1}", more, itemDone).str());

  e.label("produce_tile");
  emitTileLoad("%pj");
  e.op(formatv("llvm.br ^produce({0} : i32)", e.add("%pj", e.i32(1))).str());

  if (cfg.persistent) {
    e.label(itemDone);
    endWorkLoop("produce_work");
  }
}

/// Without a producer warpgroup: once this warpgroup has handed back tile
/// lo + released, the issuing thread copies tile lo + released + stages into
/// that stage (waiting on its empty barriers for the other warpgroups).
void SM90KernelEmitter::emitLoadAhead(const string &released) {
  if (cfg.warpSpecialize)
    return;
  string next = e.add(e.add(lo, released), e.i32(cfg.stages));
  string cond = e.bin("and", isIssuer, e.icmp("slt", next, hi), "i1");
  string load = fresh("load_ahead"), done = fresh("loaded");
  e.op(formatv("llvm.cond_br {0}, ^{1}, ^{2}", cond, load, done).str());
  e.label(load);
  emitTileLoad(next);
  e.op(formatv("llvm.br ^{0}", done).str());
  e.label(done);
}
