//===- ConsumerLoops.cpp - sm_90a kernel: the consumer warpgroups' loops
//---===//
//
// The consumer warpgroups' setup (their rows, descriptors and limits) and
// their loop over the KV tiles: sequential, or intra-warpgroup overlapped
// (SM90KernelEmitter, KernelEmitter.h). The math of one tile is in
// ConsumerMath.cpp, the epilogue in Epilogue.cpp.
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
  if (dPad <= 128)
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
  kDesc0 = descriptor(e.i32(layout.kOffset), 16);
  // V^T (FP8) is K-major like K; V (16-bit) is N-major, its leading byte
  // offset steps from one 64-column atom to the next.
  vDesc0 = cfg.isFP8() ? descriptor(e.i32(layout.vtOffset), 16)
                       : descriptor(e.i32(layout.vOffset),
                                    opts.wideValueMma ? bn * 128 : 16);
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
      // The pairs of masked attention's fixed order. Not the work order's
      // tail T: with div.u32 by T the kernel measured 0.5% faster than with
      // T's multiplier and shift live in the loop (docs/PERF.md,
      // 2026-12-01).
      if (cfg.isMasked() && !cfg.hasTailPairs()) // decodeWorkItem's
        addFastDivisor(workPairs);
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

/// S = Q K^T of the tile in `stage` as a GEMM turn of its own, waited for at
/// once; K's half of the stage goes back to the producer.
Value SM90KernelEmitter::scoresAlone(Value stage, Value phase) {
  waitBarrier(barrier(layout.fullKBar(), stage), phase);
  pingpongSync();
  Value s = issueQK(stage, tile);
  pingpongArrive();
  waitGroup(0);
  s = pack(fenceValues(unpack(s, tile.numS)), tile.sType);
  release(layout.emptyKBar(), stage);
  return s;
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

  e.place("kv_tile");
  Value t = tileOrdinal(j);
  Value stage = stageOf(t);
  Value phase = phaseOf(t);
  TileDescales descales = tileDescales(j);
  Value s = scoresAlone(stage, phase);
  const Value oldMax[2] = {m0, m1}, oldSum[2] = {l0, l1};
  TileSoftmax sm = emitSoftmax(s, j, oldMax, oldSum, descales, tile);
  sm.packedP = packProbabilities(sm.probabilities);
  // O *= alpha (and, with per-block V descales, into this tile's units).
  SmallVector<Value> o = unpack(acc, numAcc);
  Value valueDescale;
  rescaleOWhen(o, rescaleFactors(sm, dvp, descales.value, valueDescale),
               sm.rescale);

  waitBarrier(barrier(fullValueBar(), stage), phase);
  pingpongSync();
  o = issuePV(o, sm.packedP, stage, /*fence=*/true, tile);
  pingpongArrive();
  waitGroup(0);
  o = fenceValues(o);
  foldRowSums(o);
  release(emptyValueBar(), stage);
  emitLoadAhead(t);
  // O's aggregate before j + 1: the order of the measured kernels (the PTX
  // corpus, scripts/ptx_corpus.py).
  Value accNext = pack(o, oType);
  Value jNext = e.add(j, e.i32(1));
  e.br("kv_loop",
       carried({jNext, sm.max[0], sm.max[1], sm.sum[0], sm.sum[1], accNext},
               valueDescale));
}

void SM90KernelEmitter::emitOverlappedLoop() {
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

  // O is rescaled for tile j - 1 either at the end of iteration j - 1, or
  // deferred: the factors ride along the loop (rs0, rs1) and O is
  // rescaled after S_j is issued, while that GEMM runs, so that only the
  // wait separates one iteration's P V from the next one's GEMMs. Deferred
  // for FP8 and with conditional rescaling, whose decision rides along too
  // (rsw): measured faster there, and slower for 16-bit types that
  // rescale after every tile (docs/PERF.md).
  const bool lazy = skipsRescale();
  const bool deferRescale = cfg.isFP8() || lazy;
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

  // Prologue: S and P of the first tile (O is still zero: no rescale).
  e.place("ov_first");
  {
    if (cfg.narrowTail > 0) {
      Value last = e.sub(consumerHi, e.i32(1));
      Value keys = e.sub(e.arg("seq_k"), e.mul(last, e.i32(bn)));
      narrow = e.andI(e.icmp(ICmp::sle, keys, e.i32(cfg.narrowTail)),
                      e.icmp(ICmp::sgt, last, lo));
      loopHi = e.select(narrow, last, consumerHi);
    }
    Value first = tileOrdinal(lo);
    Value stage = cfg.persistent ? stageOf(first) : e.i32(0);
    Value phase = cfg.persistent ? phaseOf(first) : e.i32(0);
    TileDescales descales = tileDescales(lo);
    Value s = scoresAlone(stage, phase);
    const Value oldMax[2] = {negInf, negInf}, oldSum[2] = {zero, zero};
    TileSoftmax sm = emitSoftmax(s, lo, oldMax, oldSum, descales, tile);
    sm.packedP = packProbabilities(sm.probabilities);
    // Long after the previous item's O stores were issued.
    handBackStoredQ();
    Value one = deferRescale ? e.f32(1.0f) : Value();
    Value none = lazy ? e.i1(false) : Value();
    // P's aggregate before lo + 1: the order of the measured kernels (the
    // PTX corpus, scripts/ptx_corpus.py).
    Value pNext = pack(sm.packedP, tile.pType);
    Value jNext = e.add(lo, e.i32(1));
    SmallVector<Value> next = {jNext,     sm.max[0], sm.max[1], sm.sum[0],
                               sm.sum[1], oInit,     pNext};
    next.append(pending({one, one}, none));
    e.br("ov_loop", carried(next, descales.value));
  }

  // The last tile's P V (its rescale first when deferred), then the
  // epilogue. `j` is the tile after it; `sc` its columns.
  auto lastProduct = [&](Value j, const Value max[2], const Value sum[2],
                         SmallVector<Value> o, ArrayRef<Value> p,
                         const std::array<Value, 2> &factors, Value when,
                         Value valueDescale, const ScoreColumns &sc) {
    // Every S = Q K^T of the work item has completed.
    releaseQ();
    Value prev = e.sub(tileOrdinal(j), e.i32(1));
    Value prevStage = stageOf(prev);
    waitBarrier(barrier(fullValueBar(), prevStage), phaseOf(prev));
    if (deferRescale)
      rescaleOWhen(o, factors, when);
    pingpongSync();
    o = issuePV(o, p, prevStage, /*fence=*/true, sc);
    pingpongArrive();
    waitGroup(0);
    o = fenceValues(o);
    foldRowSums(o);
    release(emptyValueBar(), prevStage);
    e.br("epilogue", carried({max[0], max[1], sum[0], sum[1], pack(o, oType)},
                             valueDescale));
  };

  // Iteration j: S_j and P_{j-1} V_{j-1} on the tensor cores together, the
  // softmax of tile j while P_{j-1} V_{j-1} completes.
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
    Value t = tileOrdinal(j), prev = e.sub(t, e.i32(1));
    Value stage = stageOf(t), prevStage = stageOf(prev);
    TileDescales descales = tileDescales(j);
    waitBarrier(barrier(layout.fullKBar(), stage), phaseOf(t));
    waitBarrier(barrier(fullValueBar(), prevStage), phaseOf(prev));
    SmallVector<Value> o = unpack(acc, numAcc);
    // P_{j-1} is a whole tile's; tile j's S, P and P V are on `sc`.
    SmallVector<Value> p = unpack(pp, tile.numP);
    const ScoreColumns &sc = narrowTile ? narrowColumns : tile;
    pingpongSync();
    Value s = issueQK(stage, sc);
    // A deferred rescale writes the accumulator registers: fence again.
    if (deferRescale)
      rescaleOWhen(o, carriedFactors, carriedWhen);
    o = issuePV(o, p, prevStage, /*fence=*/deferRescale, tile);
    pingpongArrive();
    waitGroup(1); // S_j is done; P_{j-1} V_{j-1} may still run
    s = pack(fenceValues(unpack(s, sc.numS)), sc.sType);
    release(layout.emptyKBar(), stage);
    const Value oldMax[2] = {m0, m1}, oldSum[2] = {l0, l1};
    TileSoftmax sm = emitSoftmax(s, j, oldMax, oldSum, descales, sc);
    // 16-bit P is packed right away (packed after the wait below, it
    // measured the same, docs/PERF.md); e4m3 P only after the wait.
    if (!cfg.isFP8())
      sm.packedP = packProbabilities(sm.probabilities);
    Value valueDescale;
    std::array<Value, 2> factor =
        rescaleFactors(sm, dvp, descales.value, valueDescale);
    waitGroup(0);
    o = fenceValues(o);
    foldRowSums(o);
    // e4m3 P is packed only now that P_{j-1} V_{j-1} is complete: packed
    // during it (cvt + prmt), ptxas places P_j in registers that the
    // in-flight wgmma still reads and serializes every wgmma (C7513). The
    // exp2s, the bulk of the softmax, still overlap the GEMM. P_j's
    // registers become the next P V's A operand.
    if (cfg.isFP8())
      sm.packedP = packProbabilities(sm.probabilities);
    release(emptyValueBar(), prevStage);
    emitLoadAhead(prev);
    if (!deferRescale)
      rescaleOWhen(o, factor, sm.rescale);
    if (narrowTile) {
      lastProduct(e.add(j, e.i32(1)), sm.max, sm.sum, o, sm.packedP, factor,
                  lazy ? sm.rescale : Value(), valueDescale, sc);
      return;
    }
    // P's aggregate, then O's, then j + 1: the order of the measured
    // kernels (the PTX corpus, scripts/ptx_corpus.py).
    Value pNext = pack(sm.packedP, tile.pType);
    Value accNext = pack(o, oType);
    Value jNext = e.add(j, e.i32(1));
    SmallVector<Value> next = {jNext,     sm.max[0], sm.max[1], sm.sum[0],
                               sm.sum[1], accNext,   pNext};
    next.append(pending(factor, sm.rescale));
    e.br("ov_loop", carried(next, valueDescale));
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
    // P's registers before O's: the order of the measured kernels (the PTX
    // corpus, scripts/ptx_corpus.py).
    SmallVector<Value> p = unpack(pp, tile.numP);
    SmallVector<Value> o = unpack(acc, numAcc);
    lastProduct(j, max, sum, o, p, carriedFactors, carriedWhen, dvp, tile);
  }
}
