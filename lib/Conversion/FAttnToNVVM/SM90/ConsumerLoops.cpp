//===- ConsumerLoops.cpp - sm_90a kernel: the consumer warpgroups' loops
//---===//
//
// The consumer warpgroups' setup (their rows, descriptors and limits) and
// their loop over the KV tiles: sequential, or intra-warpgroup overlapped
// (SM90KernelEmitter, KernelEmitter.h), each block of it the steps of the
// L2 loop (ConsumerSteps.cpp). The math of one tile is in ConsumerMath.cpp,
// the epilogue in Epilogue.cpp.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

using namespace mlir;
using namespace mlir::fattn;
using namespace mlir::fattn::sm90;

void SM90KernelEmitter::emitConsumerSetup() {
  e.place("consumer");
  if (cfg.warpSpecialize && opts.producerRegisters > 0)
    target<SM90SetMaxNRegOp>(SM90RegisterAction::Increase,
                             opts.consumerRegisters);
  consumerTid = cfg.warpSpecialize ? e.sub(tid, e.i32(128)) : tid;
  Value ctid = consumerTid;
  wg = e.udiv(ctid, e.i32(128)); // consumer warpgroup
  // K's factors per column: each thread stages its key's (tileDescales).
  if (cfg.hasKeyFactorsPerColumn())
    threadInWarpgroup = e.urem(ctid, e.i32(128));
  // Broadcast from lane 0, the warpgroup index is one that ptxas knows to be
  // warp-uniform: Q's wgmma descriptors (which step by the warpgroup's 64
  // rows) then stay in uniform registers instead of taking two R2UR moves
  // before each wgmma of S = Q K^T; measured +1..2% at 16-bit head dims 64
  // and 128 and neutral for FP8. Not above 128 columns, where ptxas then
  // spills (docs/PERF.md, 2026-12-01).
  if (std::max(dPad, dPadV) <= 128)
    wg = target<SM90WarpUniformOp>(wg);
  Value lane = e.andI(tid, e.i32(31));
  Value warpInWg = e.andI(e.udiv(ctid, e.i32(32)), e.i32(3));
  quad = e.andI(lane, e.i32(3));
  // Accumulator layout of wgmma m64nN: thread holds rows r and r + 8, columns
  // 8i + 2*quad + {0, 1}; register 4i + {0,1} is row r, 4i + {2,3} row r + 8.
  rowInTile = e.add(e.add(e.mul(wg, e.i32(64)), e.mul(warpInWg, e.i32(16))),
                    e.udiv(lane, e.i32(4)));
  if (!cfg.persistent)
    emitConsumerRows();

  qDesc = descriptor(e.mul(wg, e.i32(64 * 128)), 16);
  kDesc0 = descriptor(smemRegion(SM90SharedRegion::KeyRing), 16);
  // V^T (FP8) is K-major like K; V (16-bit) is N-major, its leading byte
  // offset steps from one 64-column atom to the next.
  // V^T is in a ring of its own where the producer transposes V, else
  // where TMA put it, in the value ring.
  Value vRing = smemRegion(cfg.transposesValue()
                               ? SM90SharedRegion::TransposedValueRing
                               : SM90SharedRegion::ValueRing);
  vDesc0 = descriptor(vRing, cfg.isFP8() ? 16
                             : opts.wideValueMma ? bn * 128
                                                 : 16);
  negInf = e.f32(-std::numeric_limits<float>::infinity());
  zero = e.f32(0.0f);
  if (cfg.persistent) {
    // Each item's decode divides by these, three quotients in a chain
    // between one item's O stores and the next one's first S = Q K^T; each
    // div.u32 leaves a multiply-high and two compare-and-correct steps in
    // the loop (ptxas hoists the reciprocal), a multiplier and a shift
    // leave a multiply-high and a shift.
    // Only the consumers: the producer decodes ahead of them, and its few
    // registers would not hold the multipliers. Not for FP8, whose kernels
    // measured 1-2% slower with them (docs/PERF.md, 2026-12-01).
    if (!cfg.isFP8()) {
      addFastDivisor(numQTiles);
      addFastDivisor(e.arg("heads_q"));
      addFastDivisor(queryGroup);
      // Not the work order's tail T: with div.u32 by T the kernel measured
      // 0.5% faster than with T's multiplier and shift live in the loop
      // (docs/PERF.md, 2026-12-01). Nor a masked window's pairs per rank,
      // which change from window to window.
    }
    openPingpong();
    beginWorkLoop("consume_work", pingpong() ? "consume_exit" : "exit");
    emitConsumerRows();
    if (Value buffer = qBuffer())
      qDescItem = descriptorInSlot(qDesc, buffer, layout.qBytes);
  }
  if (cfg.hasDescales())
    emitDescaleSetup();

  if (!cfg.warpSpecialize) {
    // No producer: thread 0 copies Q and fills the ring; later tiles are
    // copied as stages come back (emitLoadAhead).
    isIssuer = e.icmp(ICmp::eq, tid, e.i32(0));
    e.condBr(isIssuer, "prefill_q", "prefill_done");
    e.place("prefill_q");
    emitQLoad();
    Value end = e.smin(e.add(lo, e.i32(cfg.stages)), hi);
    e.br("prefill", {lo});
    Value fj = e.place("prefill", {e.i32()})[0];
    e.condBr(e.icmp(ICmp::slt, fj, end), "prefill_tile", "prefill_done");
    e.place("prefill_tile");
    emitTileLoad(fj);
    e.br("prefill", {e.add(fj, e.i32(1))});
    e.place("prefill_done");
  }
  waitBarrier(qFullBar(), qPhase());
  // The overlapped loop hands the stored Q back after its first softmax.
  if (!opts.intraWarpgroupOverlap)
    handBackStoredQ();
  if (!cfg.persistent)
    openPingpong();
}

void SM90KernelEmitter::emitConsumerRows() {
  row[0] = e.add(qTileRow, rowInTile);
  row[1] = e.add(row[0], e.i32(8));

  // Visible key columns of each row, for the masked tiles:
  // loLimit <= col <= hiLimit.
  Value offset = e.sub(e.arg("seq_k"), e.arg("seq_q"));
  for (int r = 0; r < 2; ++r) {
    Value diag = e.add(row[r], offset);
    hiLimit[r] = e.sub(e.arg("seq_k"), e.i32(1));
    if (cfg.windowRight >= 0)
      hiLimit[r] = e.smin(hiLimit[r], e.add(diag, e.i32(cfg.windowRight)));
    loLimit[r] = cfg.windowLeft >= 0 ? e.sub(diag, e.i32(cfg.windowLeft))
                                     : e.i32(-(int64_t(1) << 30));
  }

  consumerHi = hi;
  if (!opts.warpgroupKVRanges)
    return;
  Value firstRow = e.add(qTileRow, e.mul(wg, e.i32(64)));
  // Under a right window (causal), the last key the warpgroup's last row
  // inside the sequence sees: its tile ends the warpgroup's range.
  Value end = hi;
  if (cfg.windowRight >= 0) {
    Value lastRow =
        e.sub(e.smin(e.add(firstRow, e.i32(64)), e.arg("seq_q")), e.i32(1));
    Value lastKey = e.add(e.add(lastRow, offset), e.i32(cfg.windowRight));
    end = e.smin(hi, e.smax(e.sdiv(e.add(lastKey, e.i32(bn)), e.i32(bn)), lo));
  }
  // A warpgroup whose rows all lie past the sequence (in a last, partial Q
  // tile) computes nothing.
  consumerHi = e.select(e.icmp(ICmp::slt, firstRow, e.arg("seq_q")), end, lo);
}

void SM90KernelEmitter::releaseSkippedTiles() {
  if (!opts.warpgroupKVRanges)
    return;
  string top = fresh("skip"), body = fresh("skip_tile"),
         done = fresh("skipped");
  e.br(top, {consumerHi});
  Value j = e.place(top, {e.i32()})[0];
  e.condBr(e.icmp(ICmp::slt, j, hi), body, done);
  e.place(body);
  // Tile j's full barriers complete once the producer has copied it, after
  // the stage's previous tile went back: an arrival now counts for tile j.
  Value t = tileOrdinal(j), stage = stageOf(t), phase = phaseOf(t);
  waitBarrier(barrier(layout.fullKBar(), stage), phase);
  release(layout.emptyKBar(), stage);
  waitBarrier(barrier(fullValueBar(), stage), phase);
  release(emptyValueBar(), stage);
  e.br(top, {e.add(j, e.i32(1))});
  e.place(done);
}

void SM90KernelEmitter::emitSequentialLoop() {
  Value oInit = e.zero(oType);
  e.br("kv_loop",
       carried({lo, negInf, negInf, zero, zero, oInit}, e.f32(1.0f)));

  auto loopArgs = e.place("kv_loop", carriedTypes({e.i32(), e.f32(), e.f32(),
                                                   e.f32(), e.f32(), oType}));
  Value j = loopArgs[0], m0 = loopArgs[1], m1 = loopArgs[2], l0 = loopArgs[3],
        l1 = loopArgs[4], acc = loopArgs[5];
  // The descale of the tile whose units O is in (carryValueDescale).
  Value dvp = carryValueDescale ? Value(loopArgs[6]) : Value();
  e.condBr(e.icmp(ICmp::slt, j, consumerHi), "kv_tile", {}, "epilogue",
           carried({m0, m1, l0, l1, acc}, dvp));

  // Tile j: the steps of the L2 loop's body (S, its softmax, O's rescale,
  // P V with pingpong's turns where the IR has them).
  e.place("kv_tile");
  KVBlock b;
  b.j = j;
  b.keyOrdinal = b.valueOrdinal = tileOrdinal(j);
  b.keyStage = b.valueStage = stageOf(b.keyOrdinal);
  b.keyPhase = b.valuePhase = phaseOf(b.keyOrdinal);
  b.descales = tileDescales(j);
  b.scores = b.product = &tile;
  const Value oldMax[2] = {m0, m1}, oldSum[2] = {l0, l1};
  b.oldMax = oldMax;
  b.oldSum = oldSum;
  b.carriedAcc = acc;
  b.dvp = dvp;
  b.rescalesThisTile = true;
  emitKVSteps(opts.consumerLoop.body, b);
  // O's aggregate before j + 1: the order of the measured kernels (the PTX
  // corpus, scripts/ptx_corpus.py).
  Value accNext = pack(b.o, oType);
  Value jNext = e.add(j, e.i32(1));
  e.br("kv_loop", carried({jNext, b.sm.max[0], b.sm.max[1], b.sm.sum[0],
                           b.sm.sum[1], accNext},
                          b.valueDescale));
}

void SM90KernelEmitter::emitOverlappedLoop() {
  const SM90ConsumerLoop &loop = opts.consumerLoop;
  Value oInit = e.zero(oType);
  SmallVector<Value> empty =
      carried({negInf, negInf, zero, zero, oInit}, e.f32(1.0f));
  if (cfg.persistent) {
    e.condBr(e.icmp(ICmp::slt, lo, consumerHi), "ov_first", "ov_empty");
    // No KV tile: Q goes back at once.
    e.place("ov_empty");
    releaseQ();
    handBackStoredQ();
    e.br("epilogue", empty);
  } else {
    e.condBr(e.icmp(ICmp::slt, lo, consumerHi), "ov_first", {}, "epilogue",
             empty);
  }

  // O is rescaled by tile j - 1's factors either at the end of iteration
  // j - 1, or deferred (defersRescale): the factors ride along the loop
  // (rs0, rs1) and O is rescaled where the L2 loop has its fattn.rescale,
  // after S_j is issued, while that GEMM runs, so that only the wait
  // separates one iteration's P V from the next one's GEMMs. With
  // conditional rescaling the decision rides along too (rsw).
  const bool lazy = skipsRescale();
  const bool deferRescale = defersRescale();
  auto pending = [&](const std::array<Value, 2> &factor, Value when) {
    SmallVector<Value> values;
    if (!deferRescale)
      return values;
    values = {factor[0], factor[1]};
    if (lazy)
      values.push_back(when);
    return values;
  };
  // The loop arguments of that state: O's factors, and with conditional
  // rescaling the warp's decision.
  SmallVector<Type> pendingTypes;
  if (deferRescale)
    pendingTypes = {e.f32(), e.f32()};
  if (lazy)
    pendingTypes.push_back(e.i1());

  // The narrow tail (cfg.narrowTail): when the item's last tile is the
  // sequence's partial one with at most that many keys, and not its first
  // (the prologue's), the loop stops a tile early and a copy of its body on
  // that many columns computes the tile: a 64-key remainder of 224-key
  // tiles costs about a whole tile otherwise (docs/PERF.md, 2026-12-01).
  Value narrow, loopHi = consumerHi;
  const ScoreColumns narrowColumns =
      cfg.narrowTail > 0 ? scoreColumns(cfg.narrowTail) : tile;

  // Prologue: the L2 prologue's steps, S and P of the first tile (O is
  // still zero: no rescale).
  e.place("ov_first");
  {
    if (cfg.narrowTail > 0) {
      Value last = e.sub(consumerHi, e.i32(1));
      Value keys = e.sub(e.arg("seq_k"), e.mul(last, e.i32(bn)));
      narrow = e.andI(e.icmp(ICmp::sle, keys, e.i32(cfg.narrowTail)),
                      e.icmp(ICmp::sgt, last, lo));
      loopHi = e.select(narrow, last, consumerHi);
    }
    KVBlock b;
    b.j = lo;
    b.keyOrdinal = tileOrdinal(lo);
    b.keyStage = cfg.persistent ? stageOf(b.keyOrdinal) : e.i32(0);
    b.keyPhase = cfg.persistent ? phaseOf(b.keyOrdinal) : e.i32(0);
    b.descales = tileDescales(lo);
    b.scores = &tile;
    const Value oldMax[2] = {negInf, negInf}, oldSum[2] = {zero, zero};
    b.oldMax = oldMax;
    b.oldSum = oldSum;
    emitKVSteps(loop.prologue, b);
    // Long after the previous item's O stores were issued.
    handBackStoredQ();
    Value one = deferRescale ? e.f32(1.0f) : Value();
    Value none = lazy ? e.i1(false) : Value();
    // P's aggregate before lo + 1: the order of the measured kernels (the
    // PTX corpus, scripts/ptx_corpus.py).
    Value pNext = pack(b.sm.packedP, tile.pType);
    Value jNext = e.add(lo, e.i32(1));
    SmallVector<Value> next = {jNext,       b.sm.max[0], b.sm.max[1],
                               b.sm.sum[0], b.sm.sum[1], oInit,
                               pNext};
    next.append(pending({one, one}, none));
    e.br("ov_loop", carried(next, b.descales.value));
  }

  // The last tile's P V (the L2 epilogue's steps), then the kernel's
  // epilogue. `j` is the tile after it; `sc` its columns; O and P are
  // aggregates (`acc`, `pp`) or registers (`o`, `p`).
  auto lastProduct = [&](Value j, const Value max[2], const Value sum[2],
                         Value acc, SmallVector<Value> o, Value pp,
                         SmallVector<Value> p,
                         const std::array<Value, 2> &factors, Value when,
                         Value valueDescale, const ScoreColumns &sc) {
    // Every S = Q K^T of the work item has completed.
    releaseQ();
    KVBlock b;
    b.valueOrdinal = e.sub(tileOrdinal(j), e.i32(1));
    b.valueStage = stageOf(b.valueOrdinal);
    b.product = &sc;
    b.carriedAcc = acc;
    b.o = std::move(o);
    b.carriedP = pp;
    b.p = std::move(p);
    b.carriedFactors = factors;
    b.carriedWhen = when;
    emitKVSteps(loop.epilogue, b);
    e.br("epilogue",
         carried({max[0], max[1], sum[0], sum[1], pack(b.o, oType)},
                 valueDescale));
  };

  // Iteration j: the L2 body's steps, S_j and P_{j-1} V_{j-1} on the
  // tensor cores together, the softmax of tile j while P_{j-1} V_{j-1}
  // completes.
  SmallVector<Type> loopTypes = {e.i32(), e.f32(), e.f32(),   e.f32(),
                                 e.f32(), oType,   tile.pType};
  loopTypes.append(pendingTypes);
  auto loopArgs = e.place("ov_loop", carriedTypes(loopTypes));
  Value j = loopArgs[0], m0 = loopArgs[1], m1 = loopArgs[2], l0 = loopArgs[3],
        l1 = loopArgs[4], acc = loopArgs[5], pp = loopArgs[6];
  unsigned nextArg = 7;
  std::array<Value, 2> carriedFactors;
  if (deferRescale) {
    carriedFactors = {loopArgs[nextArg], loopArgs[nextArg + 1]};
    nextArg += 2;
  }
  const Value carriedWhen = lazy ? Value(loopArgs[nextArg++]) : Value();
  // The descale of the tile whose units O is in (carryValueDescale).
  const Value dvp = carryValueDescale ? Value(loopArgs[nextArg]) : Value();
  e.condBr(e.icmp(ICmp::slt, j, loopHi), "ov_tile",
           narrow ? "ov_end" : "ov_last");

  // Tile j, on all of its columns, or (narrowTile) on the narrow tail's,
  // going on into the last P V.
  auto iteration = [&](bool narrowTile) {
    KVBlock b;
    b.j = j;
    b.keyOrdinal = tileOrdinal(j);
    b.valueOrdinal = e.sub(b.keyOrdinal, e.i32(1));
    b.keyStage = stageOf(b.keyOrdinal);
    b.valueStage = stageOf(b.valueOrdinal);
    b.descales = tileDescales(j);
    // P_{j-1} is a whole tile's; tile j's S, P and P V are on `sc`.
    const ScoreColumns &sc = narrowTile ? narrowColumns : tile;
    b.scores = &sc;
    b.product = &tile;
    const Value oldMax[2] = {m0, m1}, oldSum[2] = {l0, l1};
    b.oldMax = oldMax;
    b.oldSum = oldSum;
    b.carriedAcc = acc;
    b.carriedP = pp;
    b.carriedFactors = carriedFactors;
    b.carriedWhen = carriedWhen;
    b.dvp = dvp;
    b.carriesFactors = true;
    emitKVSteps(loop.body, b);
    if (!deferRescale)
      rescaleOWhen(b.o, b.factor, b.sm.rescale);
    if (narrowTile) {
      lastProduct(e.add(j, e.i32(1)), b.sm.max, b.sm.sum, Value(), b.o,
                  Value(), b.sm.packedP, b.factor,
                  lazy ? b.sm.rescale : Value(), b.valueDescale, sc);
      return;
    }
    // P's aggregate, then O's, then j + 1: the order of the measured
    // kernels (the PTX corpus, scripts/ptx_corpus.py).
    Value pNext = pack(b.sm.packedP, tile.pType);
    Value accNext = pack(b.o, oType);
    Value jNext = e.add(j, e.i32(1));
    SmallVector<Value> next = {jNext,       b.sm.max[0], b.sm.max[1],
                               b.sm.sum[0], b.sm.sum[1], accNext,
                               pNext};
    next.append(pending(b.factor, b.sm.rescale));
    e.br("ov_loop", carried(next, b.valueDescale));
  };
  e.place("ov_tile");
  iteration(/*narrowTile=*/false);
  if (narrow) {
    e.place("ov_end");
    e.condBr(narrow, "ov_narrow", "ov_last");
    e.place("ov_narrow");
    iteration(/*narrowTile=*/true);
  }

  // Epilogue: the last tile's rescale and P V.
  e.place("ov_last");
  {
    const Value max[2] = {m0, m1}, sum[2] = {l0, l1};
    lastProduct(j, max, sum, acc, {}, pp, {}, carriedFactors, carriedWhen,
                dvp, tile);
  }
}
