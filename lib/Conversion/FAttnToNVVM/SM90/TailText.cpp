//===- TailText.cpp - sm_90a kernel: the split tail's combine -------------===//
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

string SM90KernelEmitter::tailSlotBase(const string &cta) {
  string ws = e.def("llvm.addrspacecast %workspace : !llvm.ptr to !llvm.ptr<1>");
  return e.globalPtr(ws, e.bin("mul", e.zext64(cta),
                               e.i64(cfg.workspaceBytesPerCta()), "i64"));
}

string SM90KernelEmitter::tailUnitPtr(const string &slot, int64_t unit) {
  // Unit-major, consumer thread fastest: a warp's access is 512 contiguous
  // bytes.
  int64_t threads = 128 * cfg.consumerWarpgroups;
  string byte = e.add(e.i32(kTailSlotHeaderBytes + unit * threads * 16),
                      e.mul(consumerTid, e.i32(16)));
  return e.globalPtr(slot, e.zext64(byte));
}

string SM90KernelEmitter::tailCounterPtr(const string &slot) {
  string warp = e.bin("udiv", consumerTid, e.i32(32));
  return e.globalPtr(slot, e.zext64(e.mul(warp, e.i32(4))));
}

void SM90KernelEmitter::emitTailCombine(string maxes[2], string sums[2],
                                        string &acc, const string &next) {
  const int64_t words = tailSlotWords(cfg);
  string join = fresh("tail_join"), split = fresh("tail_split"),
         write = fresh("tail_write"), start = fresh("tail_merge_start"),
         merge = fresh("tail_merge"), take = fresh("tail_take"),
         spin = fresh("tail_spin"), read = fresh("tail_read");
  string types = formatv("f32, f32, f32, f32, {0}", oType).str();
  auto state = [&](const string &m0, const string &m1, const string &l0,
                   const string &l1, const string &o) {
    return formatv("{0}, {1}, {2}, {3}, {4}", m0, m1, l0, l1, o).str();
  };
  string mine = state(maxes[0], maxes[1], sums[0], sums[1], acc);
  e.op(formatv("llvm.cond_br {0}, ^{1}, ^{2}({3} : {4})", tailSplit, split,
               join, mine, types).str());
  e.label(split);
  e.op(formatv("llvm.cond_br {0}, ^{1}, ^{2}", tailOwner, start, write).str());

  // Not the first tile: the state into this CTA's slot, then the counter.
  e.label(write);
  {
    string slot = tailSlotBase(e.sreg("ctaid.x"));
    SmallVector<string> values = unpack(acc, numAcc, oType);
    values.append({maxes[0], maxes[1], sums[0], sums[1]});
    while (static_cast<int64_t>(values.size()) < words)
      values.push_back(zero);
    for (int64_t u = 0; u < words / 4; ++u) {
      string vec = e.def("llvm.mlir.poison : vector<4xf32>");
      for (int j = 0; j < 4; ++j)
        vec = e.def(formatv("llvm.insertelement {0}, {1}[{2} : i32] : "
                            "vector<4xf32>", values[4 * u + j], vec,
                            e.i32(j)).str());
      e.op(formatv("llvm.store {0}, {1} {{alignment = 16 : i64} : "
                   "vector<4xf32>, !llvm.ptr<1>", vec,
                   tailUnitPtr(slot, u)).str());
    }
    // Release: this thread's stores happen before its arrival.
    e.op(formatv("llvm.inline_asm has_side_effects asm_dialect = att "
                 "\"red.release.gpu.global.add.u32 [$0], 1;\", \"l,~{{memory}\" "
                 "{0} : (!llvm.ptr<1>) -> ()", tailCounterPtr(slot)).str());
    e.op(formatv("llvm.br ^{0}", next).str());
  }

  // The first tile: merge the pieces of CTAs cta + 1 .. last.
  e.label(start);
  TextIntOps ops{e};
  string grid = e.sreg("nctaid.x"), cta = e.sreg("ctaid.x");
  string lastUnit =
      e.sub(e.mul(e.add(tailRank, e.i32(1)), tailTiles), e.i32(1));
  string last = tailCtaOfUnit(ops, lastUnit, tailUnitCount, grid);
  e.op(formatv("llvm.br ^{0}({1}, {2} : i32, {3})", merge,
               e.add(cta, e.i32(1)), mine, types).str());

  e.label(merge, formatv("(%tail_c: i32, %tail_m0: f32, %tail_m1: f32, "
                         "%tail_l0: f32, %tail_l1: f32, %tail_o: {0})",
                         oType).str());
  string merged = state("%tail_m0", "%tail_m1", "%tail_l0", "%tail_l1",
                        "%tail_o");
  e.op(formatv("llvm.cond_br {0}, ^{1}, ^{2}({3} : {4})",
               e.icmp("ule", "%tail_c", last), take, join, merged,
               types).str());

  // A CTA with an empty share (fewer units than CTAs) wrote nothing.
  e.label(take);
  string following = e.add("%tail_c", e.i32(1));
  string begin = tailStart(ops, string("%tail_c"), tailUnitCount, grid);
  string end = tailStart(ops, following, tailUnitCount, grid);
  string slot = tailSlotBase("%tail_c");
  string counter = tailCounterPtr(slot);
  e.op(formatv("llvm.cond_br {0}, ^{1}, ^{2}({3}, {4} : i32, {5})",
               e.icmp("ult", begin, end), spin, merge, following, merged,
               types).str());

  // Acquire: the other warp's stores are visible once its 32 arrivals are.
  e.label(spin);
  string arrived = e.def(formatv(
      "llvm.inline_asm has_side_effects asm_dialect = att "
      "\"ld.acquire.gpu.global.u32 $0, [$1];\", \"=r,l,~{{memory}\" {0} : "
      "(!llvm.ptr<1>) -> i32", counter).str());
  e.op(formatv("llvm.cond_br {0}, ^{1}, ^{2}",
               e.icmp("eq", arrived, e.i32(32)), read, spin).str());

  e.label(read);
  {
    // The other piece's words, one 16-byte unit loaded when first needed:
    // its maxes and sums first, then O unit by unit into the merge, so that
    // only a unit of it is live at a time (head dim 256 holds 128 of O's).
    SmallVector<string> loaded(words / 4);
    auto word = [&](int64_t i) {
      string &vec = loaded[i / 4];
      if (vec.empty())
        vec = e.def(formatv("llvm.load {0} {{alignment = 16 : i64} : "
                            "!llvm.ptr<1> -> vector<4xf32>",
                            tailUnitPtr(slot, i / 4)).str());
      return e.def(formatv("llvm.extractelement {0}[{1} : i32] : "
                           "vector<4xf32>", vec, e.i32(i % 4)).str());
    };
    string otherMax[2] = {word(numAcc), word(numAcc + 1)};
    string otherSum[2] = {word(numAcc + 2), word(numAcc + 3)};
    // Every thread of the warp has seen the count: zero it for the next
    // launch.
    e.op("llvm.inline_asm has_side_effects asm_dialect = att "
         "\"bar.warp.sync -1;\", \"~{memory}\"  : () -> ()");
    e.op(formatv("llvm.inline_asm has_side_effects asm_dialect = att "
                 "\"st.relaxed.gpu.global.u32 [$0], 0;\", \"l,~{{memory}\" "
                 "{0} : (!llvm.ptr<1>) -> ()", counter).str());
    const string ownMax[2] = {"%tail_m0", "%tail_m1"};
    const string ownSum[2] = {"%tail_l0", "%tail_l1"};
    string scaleL2 = e.f32(scaleLog2), mine[2], theirs[2], newMax[2],
           newSum[2];
    for (int r = 0; r < 2; ++r) {
      newMax[r] = e.fmax(ownMax[r], otherMax[r]);
      // Rows without keys in both keep -inf and take factors 0, not NaN.
      string negScaled = negScaledMax(newMax[r]);
      mine[r] = e.ex2(e.fma(ownMax[r], scaleL2, negScaled));
      theirs[r] = e.ex2(e.fma(otherMax[r], scaleL2, negScaled));
      newSum[r] = e.fma(otherSum[r], theirs[r],
                        e.bin("fmul", ownSum[r], mine[r], "f32"));
    }
    SmallVector<string> o = unpack("%tail_o", numAcc, oType);
    for (int64_t i = 0; i < numAcc; ++i) {
      int r = accRow(i);
      o[i] = e.fma(word(i), theirs[r], e.bin("fmul", o[i], mine[r], "f32"));
    }
    e.op(formatv("llvm.br ^{0}({1}, {2} : i32, {3})", merge, following,
                 state(newMax[0], newMax[1], newSum[0], newSum[1],
                       pack(o, oType)),
                 types).str());
  }

  e.label(join, formatv("(%tail_jm0: f32, %tail_jm1: f32, %tail_jl0: f32, "
                        "%tail_jl1: f32, %tail_jo: {0})", oType).str());
  maxes[0] = "%tail_jm0";
  maxes[1] = "%tail_jm1";
  sums[0] = "%tail_jl0";
  sums[1] = "%tail_jl1";
  acc = "%tail_jo";
}
