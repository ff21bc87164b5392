//===- Epilogue.cpp - sm_90a kernel: O and LSE out, the whole kernel
//-------===//
//
// The consumers' epilogue (O / l to global memory: directly, through shared
// memory, or by TMA stores; the LSE) and the assembly of the whole kernel.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

using namespace mlir;
using namespace mlir::fattn;
using namespace mlir::fattn::sm90;

Value SM90KernelEmitter::headOffset(StringRef tensor, Value headIdx) {
  return e.add(e.mul(e.zext64(batch), e.arg((tensor + "_stride_b").str())),
               e.mul(e.zext64(headIdx), e.arg((tensor + "_stride_h").str())));
}

std::pair<Value, Value> SM90KernelEmitter::outputBase() {
  Value oGlobal = e.addrspacecast(e.arg("o"), e.ptr(1));
  return {oGlobal, headOffset("o", head)};
}

Value SM90KernelEmitter::outputWord(ArrayRef<Value> acc, Value inv, int r,
                                    int64_t i) {
  // Sequenced: as arguments of one call the two products would be emitted
  // in the host compiler's order.
  Value lo = e.fmul(acc[4 * i + 2 * r], inv);
  Value hi = e.fmul(acc[4 * i + 2 * r + 1], inv);
  return packPair(lo, hi, halfType(cfg.outputType));
}

Value SM90KernelEmitter::outputElement(Value oGlobal, Value offset) {
  return e.elementAddress(oGlobal, e.builder().getI16Type(), offset);
}

SmallVector<Value> SM90KernelEmitter::rowValues(ArrayRef<Value> acc, int r,
                                                int64_t pairs) {
  SmallVector<Value> values;
  for (int64_t i = 0; i < pairs; ++i) {
    values.push_back(acc[4 * i + 2 * r]);
    values.push_back(acc[4 * i + 2 * r + 1]);
  }
  return values;
}

/// Each thread stores its own 4-byte pairs of columns (those inside the
/// head dim): a warp's store instruction writes 16 bytes into each of 8
/// rows.
void SM90KernelEmitter::storeODirect(ArrayRef<Value> acc, const Value inv[2]) {
  auto [oGlobal, oHeadBase] = outputBase();
  Value quadCol = e.zext64(e.mul(quad, e.i32(2)));
  int64_t pairs = std::min(numO / 4, (cfg.headDimV + 7) / 8);
  for (int r = 0; r < 2; ++r) {
    string next = "store_done" + str(r);
    string body = "store_row" + str(r);
    e.condBr(e.icmp(ICmp::slt, row[r], e.arg("seq_q")), body, next);
    e.place(body);
    Value rowOff =
        e.add(oHeadBase, e.mul(e.zext64(row[r]), e.arg("o_stride_s")));
    rowOff = e.add(rowOff, quadCol);
    target<SM90StoreFragmentOp>(rowValues(acc, r, pairs), inv[r], oGlobal,
                                rowOff, halfType(cfg.outputType));
    e.br(next);
    e.place(next);
  }
}

/// The quad's four threads hold a row's 8-column groups 4 bytes each: a
/// 4 x 4 transpose of 32-bit words across the quad (two butterfly stages of
/// shuffles) gives thread q the whole of group 4m + q, which it stores as
/// one 16-byte unit: a quad writes 64 contiguous bytes of a row per store.
void SM90KernelEmitter::storeOQuadTransposed(ArrayRef<Value> acc,
                                             const Value inv[2]) {
  auto [oGlobal, oHeadBase] = outputBase();
  Value quadCol = e.mul(quad, e.i32(8));
  // Bits 0 and 1 of the thread's place in its quad.
  Value upper[3];
  for (int mask : {1, 2})
    upper[mask] = e.icmp(ICmp::ne, e.andI(quad, e.i32(mask)), e.i32(0));
  int64_t groups = std::min(numO / 16, (cfg.headDimV + 31) / 32);
  for (int r = 0; r < 2; ++r) {
    // The shuffles need the whole warp: every row transposes, only rows
    // inside the sequence store.
    SmallVector<Value> vecs;
    for (int64_t m = 0; m < groups; ++m) {
      SmallVector<Value, 4> w;
      for (int j = 0; j < 4; ++j)
        w.push_back(outputWord(acc, inv[r], r, 4 * m + j));
      vecs.push_back(target<SM90QuadTransposeOp>(w, upper[1], upper[2]));
    }
    string next = "store_done" + str(r);
    string body = "store_row" + str(r);
    e.condBr(e.icmp(ICmp::slt, row[r], e.arg("seq_q")), body, next);
    e.place(body);
    Value rowOff = e.mul(e.zext64(row[r]), e.arg("o_stride_s"));
    rowOff = e.add(e.add(oHeadBase, rowOff), e.zext64(quadCol));
    for (int64_t m = 0; m < groups; ++m) {
      Value ptr = outputElement(oGlobal, e.add(rowOff, e.i64(32 * m)));
      if (32 * (m + 1) <= cfg.headDimV) {
        e.store(vecs[m], ptr, 16);
        continue;
      }
      // The last group straddles the head dim: thread q stores group 4m + q
      // only if it lies inside.
      string in = fresh("unit_in"), done = fresh("unit_out");
      e.condBr(
          e.icmp(ICmp::slt, e.add(quadCol, e.i32(32 * m)), e.i32(cfg.headDimV)),
          in, done);
      e.place(in);
      e.store(vecs[m], ptr, 16);
      e.br(done);
      e.place(done);
    }
    e.br(next);
    e.place(next);
  }
}

/// Q's layout: atoms of 64 columns, 128-byte rows, 16-byte units swizzled by
/// row % 8, so that each store instruction hits 8 distinct units (no bank
/// conflict); it is also the layout of a 128B-swizzled TMA box.
void SM90KernelEmitter::writeOToShared(ArrayRef<Value> acc, const Value inv[2],
                                       Value bufferOffset) {
  int64_t atomBytes = cfg.blockM * 128;
  // Rows r and r + 8 of the thread share row % 8, hence the swizzle.
  Value swizzle = e.shl(e.andI(rowInTile, e.i32(7)), e.i32(4));
  Value quadByte = e.mul(quad, e.i32(4));
  for (int r = 0; r < 2; ++r) {
    Value rowByte =
        e.add(e.mul(e.add(rowInTile, e.i32(8 * r)), e.i32(128)), quadByte);
    target<SM90StageFragmentOp>(rowValues(acc, r, numO / 4), inv[r], base,
                                bufferOffset, rowByte, swizzle, atomBytes,
                                halfType(cfg.outputType));
  }
  // A TMA store reads the tile through the async proxy.
  if (cfg.tmaStore)
    fenceProxyAsync();
  warpgroupBarrier();
}

void SM90KernelEmitter::storeOByTma(ArrayRef<Value> acc, const Value inv[2]) {
  bool ownBuffer = cfg.hasOwnOutputBuffer();
  Value buffer =
      ownBuffer ? smemRegion(SM90SharedRegion::Output) : qBufferOffset();
  Value issuer = isStoreIssuer();
  if (ownBuffer) {
    // The warpgroup's rows of the buffer hold the previous item's O until
    // its TMA stores have read them: the issuer waits for that (long done,
    // an item later) and the warpgroup's barrier tells the others.
    string wait = fresh("o_reads_wait"), free = fresh("o_reads_done");
    e.condBr(issuer, wait, free);
    e.place(wait);
    bulkWaitGroupRead(0);
    e.br(free);
    e.place(free);
    warpgroupBarrier();
  }
  writeOToShared(acc, inv, buffer);
  // Only Q's buffer goes back: the other threads are done with it, and the
  // issuer hands it back in the next item (handBackStoredQ).
  string issue = fresh("o_tma"), done = fresh("o_stored");
  string others = ownBuffer ? done : fresh("o_hand_back");
  e.condBr(issuer, issue, others);
  e.place(issue);
  Value rows = e.mul(wg, e.i32(64));
  for (int64_t c = 0; c < cfg.outputChunks(); ++c) {
    Value src = e.add(
        buffer, e.add(e.i32(c * cfg.blockM * 128), e.mul(rows, e.i32(128))));
    target<SM90TmaStoreOp>(
        e.arg("o_map"),
        ValueRange{e.i32(c * SM90KernelConfig::kOutputAtomColumns),
                   e.add(qTileRow, rows), head, batch},
        base, src);
  }
  target<SM90BulkCommitGroupOp>();
  e.br(done);
  if (!ownBuffer) {
    e.place(others);
    arriveQEmpty();
    e.br(done);
  }
  e.place(done);
}

void SM90KernelEmitter::handBackStoredQ() {
  if (!cfg.storesOThroughQBuffer())
    return;
  string back = fresh("stored_q_back"), done = fresh("stored_q_done");
  Value previous =
      e.andI(e.icmp(ICmp::ugt, workOrdinal, e.i32(0)), isStoreIssuer());
  e.condBr(previous, back, done);
  e.place(back);
  bulkWaitGroupRead(0);
  // The previous item's buffer: the other one of the two.
  arrive(qBarrier(layout.qEmptyBar1(), layout.qEmptyBar()));
  e.br(done);
  e.place(done);
}

/// The warpgroup writes its 64 rows of O / l into its own rows of Q's
/// buffer (writeOToShared), then copies whole 16-byte units out,
/// consecutive threads along a row: a warp's store writes 512 contiguous
/// bytes (d 256) or two rows of 256, instead of 16 bytes into each of 8
/// rows. The kernel ABI's 16-byte alignment of o and of its strides
/// (align_bytes) makes the 16-byte stores legal.
void SM90KernelEmitter::storeOStaged(ArrayRef<Value> acc, const Value inv[2]) {
  int64_t atomBytes = cfg.blockM * 128;
  writeOToShared(acc, inv, e.i32(0));

  auto [oGlobal, oHeadBase] = outputBase();
  Value thread = e.andI(tid, e.i32(127));
  int64_t unitsPerRow = dPadV / 8;
  for (int64_t k = 0; k < 64 * unitsPerRow / 128; ++k) {
    Value index = e.add(e.i32(k * 128), thread);
    Value rowInWg = e.udiv(index, e.i32(unitsPerRow));
    Value unitInRow = e.urem(index, e.i32(unitsPerRow));
    Value tileRow = e.add(e.mul(wg, e.i32(64)), rowInWg);
    Value vec =
        target<SM90LoadSwizzledUnitOp>(base, tileRow, unitInRow, atomBytes);
    Value seqRow = e.add(qTileRow, tileRow), col = e.mul(unitInRow, e.i32(8));
    Value inside = e.icmp(ICmp::slt, seqRow, e.arg("seq_q"));
    if (cfg.headDimV < dPadV)
      inside = e.andI(inside, e.icmp(ICmp::slt, col, e.i32(cfg.headDimV)));
    string body = fresh("store_unit"), next = fresh("unit_done");
    e.condBr(inside, body, next);
    e.place(body);
    Value elem =
        e.add(oHeadBase, e.add(e.mul(e.zext64(seqRow), e.arg("o_stride_s")),
                               e.zext64(col)));
    Value ptr = outputElement(oGlobal, elem);
    e.store(vec, ptr, 16);
    e.br(next);
    e.place(next);
  }
}

// ---- epilogue: O / l, LSE, stores of the rows inside the sequence ----
void SM90KernelEmitter::emitEpilogue() {
  auto args = e.place(
      "epilogue", carriedTypes({e.f32(), e.f32(), e.f32(), e.f32(), oType}));
  // The turns close with the kernel (persistent: after the last item).
  if (!cfg.persistent)
    closePingpong();
  // The plain loop hands Q back here (the overlapped one after its last S).
  if (!opts.intraWarpgroupOverlap)
    releaseQ();
  Value finalMax[2] = {args[0], args[1]}, finalSum[2] = {args[2], args[3]};
  Value finalAcc = args[4];
  if (cfg.splitTail)
    emitTailCombine(finalMax, finalSum, finalAcc, "consume_next");
  Value inv[2], lse[2];
  SmallVector<Value> accVals = unpack(finalAcc, numAcc);
  for (int r = 0; r < 2; ++r) {
    // l: the whole row's sum in every thread of the quad (rowSumMma), or
    // each thread's share of the columns, added up across the quad.
    Value l = cfg.rowSumMma ? accVals[numO + r] : finalSum[r];
    if (!cfg.rowSumMma)
      l = target<SM90QuadReduceOp>(SM90QuadReduceKind::Add, l);
    Value hasKeys = e.fcmp(FCmp::ogt, l, zero);
    // FP8: O is in units of V's descale (of the last tile, when per block).
    Value unit = carryValueDescale ? Value(args[5])
                 : valueScale      ? valueScale
                                   : e.f32(1.0f);
    Value recip = e.fdiv(unit, l);
    inv[r] = e.select(hasKeys, recip, zero);
    if (cfg.hasLse) {
      Value lg2 = e.inlineAsm(e.f32(), "lg2.approx.f32 $0, $1;", "=f,f", {l},
                              /*sideEffects=*/false);
      if (cfg.isFP8()) // l is 2^kFP8ProbabilityLog2 times the true sum
        lg2 = e.fsub(lg2, e.f32(static_cast<float>(kFP8ProbabilityLog2)));
      // scale·max + ln l; with a runtime scale·log2(e), (that·max + log2 l)
      // ln 2, which derives nothing from it.
      Value value =
          scaleLog2Param
              ? e.fmul(e.fma(finalMax[r], scaleLog2Param, lg2), e.f32(kLn2))
              : e.fma(finalMax[r], e.f32(softmaxScale),
                      e.fmul(lg2, e.f32(kLn2)));
      lse[r] = e.select(hasKeys, value, negInf);
    }
  }
  if (cfg.tmaStore)
    storeOByTma(accVals, inv);
  else if (stagesOutput())
    storeOStaged(accVals, inv);
  else if (transposesOutputInQuads())
    storeOQuadTransposed(accVals, inv);
  else
    storeODirect(accVals, inv);
  if (cfg.hasLse) {
    Value lseGlobal = e.addrspacecast(e.arg("lse"), e.ptr(1));
    Value lseHeadBase = headOffset("lse", head);
    for (int r = 0; r < 2; ++r) {
      // The quad's first thread stores the row's LSE.
      string next = "lse_done" + str(r), body = "store_lse" + str(r);
      Value store = e.andI(e.icmp(ICmp::slt, row[r], e.arg("seq_q")),
                           e.icmp(ICmp::eq, quad, e.i32(0)));
      e.condBr(store, body, next);
      e.place(body);
      Value off = e.add(lseHeadBase, e.zext64(row[r]));
      Value ptr = e.elementAddress(lseGlobal, e.f32(), off);
      e.store(lse[r], ptr, 4);
      e.br(next);
      e.place(next);
    }
  }
  // After O is out: the tiles this warpgroup skips are the other
  // warpgroups' last ones, which they are still computing.
  releaseSkippedTiles();
  if (!cfg.persistent) {
    e.br("exit");
    return;
  }
  // The split tail's pieces without an item's first tile come here from
  // emitTailCombine.
  if (cfg.splitTail) {
    e.br("consume_next");
    e.place("consume_next");
  }
  endWorkLoop("consume_work");
  if (pingpong()) {
    e.place("consume_exit");
    closePingpong();
    e.br("exit");
  }
}

LLVM::LLVMFuncOp SM90KernelEmitter::emit() {
  LLVM::LLVMFuncOp func = signature();
  loadRuntimeScalars();
  emitEntry();
  if (cfg.warpSpecialize && cfg.transposesValue())
    emitFP8Producer();
  else if (cfg.warpSpecialize)
    emitProducer();
  emitConsumerSetup();
  if (opts.intraWarpgroupOverlap)
    emitOverlappedLoop();
  else
    emitSequentialLoop();
  emitEpilogue();
  e.place("exit");
  // Shared memory must outlive the last TMA stores' reads.
  if (cfg.tmaStore)
    bulkWaitGroupRead(0);
  e.ret();
  return func;
}

int64_t SM90KernelConfig::dynamicSharedBytes() const {
  return SharedLayout(*this).total + 1024;
}

int64_t SM90KernelConfig::workspaceBytesPerCta() const {
  if (!splitTail)
    return 0;
  return kTailSlotHeaderBytes +
         tailSlotWords(*this) * 4 * 128 * consumerWarpgroups;
}

LLVM::LLVMFuncOp
mlir::fattn::buildSM90KernelFunction(OpBuilder &builder, Location loc,
                                     const SM90KernelConfig &config,
                                     const SM90Options &options) {
  return SM90KernelEmitter(config, options, builder, loc).emit();
}
