//===- SplitTail.cpp - sm_90a kernel: the split tail's combine ------------===//
//
// With SM90Options::splitTail the work items past the last whole round of a
// persistent grid are cut along their KV tiles (WorkOrder.h's tailPiece), so
// that no CTA idles while others finish a partial round. A piece ends in the
// epilogue with the online-softmax state of its tiles: O (unnormalized), the
// row maxes m and the row sums l, as each consumer thread holds them.
//
// A piece without the item's first tile writes that state into its CTA's
// workspace slot, thread by thread in the accumulator layout (so no shuffle
// is needed either way), and then every thread adds 1 to its warp's counter
// with release semantics: a counter at 32 means the warp's 32 threads have
// written. The piece with the first tile is its CTA's last piece, computed
// while the CTAs after it compute the item's other pieces as their first:
// it waits (acquire) for each of their counters, merges their states into
// its own as the online softmax merges two tiles,
//   m = max(m_a, m_b),  O = 2^(s (m_a - m)) O_a + 2^(s (m_b - m)) O_b
// (l likewise, s the softmax's log2 scale), sets the counters back to zero
// for the next launch, and stores O / l and the LSE as any item does.
//
// Waiting is safe: a CTA waits only on CTAs of higher index, whose first
// pieces never wait, and a persistent grid has one CTA per SM.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

using namespace mlir;
using namespace mlir::fattn;
using namespace mlir::fattn::sm90;

Value SM90KernelEmitter::tailSlotBase(Value cta) {
  Value ws = e.addrspacecast(e.arg("workspace"), e.ptr(1));
  return e.byteOffset(ws,
                      e.mul(e.zext64(cta), e.i64(cfg.workspaceBytesPerCta())));
}

Value SM90KernelEmitter::tailUnitPtr(Value slot, int64_t unit) {
  // Unit-major, consumer thread fastest: a warp's access is 512 contiguous
  // bytes.
  int64_t threads = 128 * cfg.consumerWarpgroups;
  Value byte = e.add(e.i32(kTailSlotHeaderBytes + unit * threads * 16),
                     e.mul(consumerTid, e.i32(16)));
  return e.byteOffset(slot, e.zext64(byte));
}

Value SM90KernelEmitter::tailCounterPtr(Value slot) {
  Value warp = e.udiv(consumerTid, e.i32(32));
  return e.byteOffset(slot, e.zext64(e.mul(warp, e.i32(4))));
}

void SM90KernelEmitter::emitTailCombine(Value maxes[2], Value sums[2],
                                        Value &acc, StringRef next) {
  const int64_t words = tailSlotWords(cfg);
  string join = fresh("tail_join"), split = fresh("tail_split"),
         write = fresh("tail_write"), start = fresh("tail_merge_start"),
         merge = fresh("tail_merge"), take = fresh("tail_take"),
         spin = fresh("tail_spin"), read = fresh("tail_read");
  SmallVector<Type> types = {e.f32(), e.f32(), e.f32(), e.f32(), oType};
  auto state = [&](Value m0, Value m1, Value l0, Value l1, Value o) {
    return SmallVector<Value>{m0, m1, l0, l1, o};
  };
  // The merge loop's arguments: the next CTA to merge, then a state.
  auto withCta = [&](Value c, ArrayRef<Value> s) {
    SmallVector<Value> all = {c};
    all.append(s.begin(), s.end());
    return all;
  };
  SmallVector<Value> mine = state(maxes[0], maxes[1], sums[0], sums[1], acc);
  e.condBr(tailSplit, split, {}, join, mine);
  e.place(split);
  e.condBr(tailOwner, start, write);

  // Not the first tile: the state into this CTA's slot, then the counter.
  e.place(write);
  {
    Value slot = tailSlotBase(e.specialRegister(SpecialRegister::BlockIdX));
    SmallVector<Value> values = unpack(acc, numAcc);
    values.append({maxes[0], maxes[1], sums[0], sums[1]});
    while (static_cast<int64_t>(values.size()) < words)
      values.push_back(zero);
    for (int64_t u = 0; u < words / 4; ++u) {
      Value vec = e.poison(e.vector(4, e.f32()));
      for (int j = 0; j < 4; ++j)
        vec = e.insertElement(vec, values[4 * u + j], e.i32(j));
      e.store(vec, tailUnitPtr(slot, u), 16);
    }
    // Release: this thread's stores happen before its arrival.
    e.inlineAsm(Type(), "red.release.gpu.global.add.u32 [$0], 1;",
                "l,~{memory}", {tailCounterPtr(slot)}, /*sideEffects=*/true);
    e.br(next);
  }

  // The first tile: merge the pieces of CTAs cta + 1 .. last.
  e.place(start);
  BuilderIntOps ops{e};
  Value grid = e.specialRegister(SpecialRegister::GridDimX),
        cta = e.specialRegister(SpecialRegister::BlockIdX);
  Value lastUnit = e.sub(e.mul(e.add(tailRank, e.i32(1)), tailTiles), e.i32(1));
  Value last = tailCtaOfUnit(ops, lastUnit, tailUnitCount, grid);
  e.br(merge, withCta(e.add(cta, e.i32(1)), mine));

  SmallVector<Type> mergeTypes = {e.i32()};
  mergeTypes.append(types.begin(), types.end());
  auto mergeArgs = e.place(merge, mergeTypes);
  Value tailC = mergeArgs[0];
  SmallVector<Value> merged = state(mergeArgs[1], mergeArgs[2], mergeArgs[3],
                                    mergeArgs[4], mergeArgs[5]);
  e.condBr(e.icmp(ICmp::ule, tailC, last), take, {}, join, merged);

  // A CTA with an empty share (fewer units than CTAs) wrote nothing.
  e.place(take);
  Value following = e.add(tailC, e.i32(1));
  Value begin = tailStart(ops, tailC, tailUnitCount, grid);
  Value end = tailStart(ops, following, tailUnitCount, grid);
  Value slot = tailSlotBase(tailC);
  Value counter = tailCounterPtr(slot);
  e.condBr(e.icmp(ICmp::ult, begin, end), spin, {}, merge,
           withCta(following, merged));

  // Acquire: the other warp's stores are visible once its 32 arrivals are.
  e.place(spin);
  Value arrived =
      e.inlineAsm(e.i32(), "ld.acquire.gpu.global.u32 $0, [$1];",
                  "=r,l,~{memory}", {counter}, /*sideEffects=*/true);
  e.condBr(e.icmp(ICmp::eq, arrived, e.i32(32)), read, spin);

  e.place(read);
  {
    // The other piece's words, one 16-byte unit loaded when first needed:
    // its maxes and sums first, then O unit by unit into the merge, so that
    // only a unit of it is live at a time (head dim 256 holds 128 of O's).
    SmallVector<Value> loaded(words / 4);
    auto word = [&](int64_t i) {
      Value &vec = loaded[i / 4];
      if (!vec)
        vec = e.load(e.vector(4, e.f32()), tailUnitPtr(slot, i / 4), 16);
      return e.extractElement(vec, e.i32(i % 4));
    };
    Value otherMax[2] = {word(numAcc), word(numAcc + 1)};
    Value otherSum[2] = {word(numAcc + 2), word(numAcc + 3)};
    // Every thread of the warp has seen the count: zero it for the next
    // launch.
    e.inlineAsm(Type(), "bar.warp.sync -1;", "~{memory}", {},
                /*sideEffects=*/true);
    e.inlineAsm(Type(), "st.relaxed.gpu.global.u32 [$0], 0;", "l,~{memory}",
                {counter}, /*sideEffects=*/true);
    const Value ownMax[2] = {merged[0], merged[1]};
    const Value ownSum[2] = {merged[2], merged[3]};
    Value scaleL2 = scaleLog2Value(), mine[2], theirs[2], newMax[2], newSum[2];
    for (int r = 0; r < 2; ++r) {
      newMax[r] = e.fmax(ownMax[r], otherMax[r]);
      // Rows without keys in both keep -inf and take factors 0, not NaN.
      Value negScaled = negScaledMax(newMax[r]);
      mine[r] = e.ex2(e.fma(ownMax[r], scaleL2, negScaled));
      theirs[r] = e.ex2(e.fma(otherMax[r], scaleL2, negScaled));
      newSum[r] = e.fma(otherSum[r], theirs[r], e.fmul(ownSum[r], mine[r]));
    }
    SmallVector<Value> o = unpack(merged[4], numAcc);
    for (int64_t i = 0; i < numAcc; ++i) {
      int r = accRow(i);
      o[i] = e.fma(word(i), theirs[r], e.fmul(o[i], mine[r]));
    }
    e.br(merge, withCta(following, state(newMax[0], newMax[1], newSum[0],
                                         newSum[1], pack(o, oType))));
  }

  auto joined = e.place(join, types);
  maxes[0] = joined[0];
  maxes[1] = joined[1];
  sums[0] = joined[2];
  sums[1] = joined[3];
  acc = joined[4];
}
