//===- FP8KernelText.cpp - what only the e4m3 sm_90a kernel emits ---------===//
//
// The parts of the sm_90a kernel that exist for FP8 (e4m3 Q, K, V; issue 6):
// the producer warpgroup that copies V into a staging slot and transposes it
// into the V^T ring with the keys permuted (wgmma_e4m3_k32), P converted to
// e4m3 in the A-operand layout of the P V wgmma, and the descale factors.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

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
  string issuer = beginProducer();
  string lane = e.bin("and", tid, e.i32(31));
  string warp = e.bin("lshr", tid, e.i32(5));
  // Lane-dependent byte selectors of the transpose (emitTransposeV): with
  // s = (lane / 2) % 4, sel[0] picks bytes s, s+1 and sel[1] bytes s+2, s+3
  // (mod 4) of two words, interleaved. Table: 16 bits per s.
  string rot = e.bin("and", e.bin("lshr", lane, e.i32(1)), e.i32(3));
  string sel[2];
  for (int h = 0; h < 2; ++h) {
    string shift = e.mul(e.bin("and", e.add(rot, e.i32(2 * h)), e.i32(3)),
                         e.i32(16));
    string word = e.bin("lshr", e.i64(0x4073736262515140LL), e.zext64(shift),
                        "i64");
    sel[h] = e.def(formatv("llvm.trunc {0} : i64 to i32", word).str());
    sel[h] = e.bin("and", sel[h], e.i32(0xFFFF));
  }
  // Persistent kernels: the whole warpgroup walks the work items (every
  // thread transposes), the issuer also copies.
  if (cfg.persistent)
    beginWorkLoop("produce_work");
  e.op(formatv("llvm.cond_br {0}, ^load_q, ^produce({1} : i32)", issuer, lo).str());

  e.label("load_q");
  waitQEmpty();
  emitQLoad();
  e.op(formatv("llvm.cond_br {0}, ^load_first, ^produce({1} : i32)",
               e.icmp("slt", lo, hi), lo).str());
  e.label("load_first");
  emitTileLoad(lo);
  e.op(formatv("llvm.br ^produce({0} : i32)", lo).str());

  const char *itemDone = cfg.persistent ? "produce_next" : "exit";
  e.label("produce", "(%pj: i32)");
  e.op(formatv("llvm.cond_br {0}, ^produce_tile, ^{1}",
               e.icmp("slt", "%pj", hi), itemDone).str());

  e.label("produce_tile");
  string next = e.add("%pj", e.i32(1));
  e.op(formatv("llvm.cond_br {0}, ^load_next, ^transpose",
               e.bin("and", issuer, e.icmp("slt", next, hi), "i1")).str());
  e.label("load_next");
  emitTileLoad(next);
  e.op("llvm.br ^transpose");

  e.label("transpose");
  string t = tileOrdinal("%pj");
  string stage = stageOf(t), phase = phaseOf(t);
  waitBarrier(barrier(layout.fullVBar(), stage), phase);
  waitBarrier(barrier(layout.emptyVtBar(), stage), e.bin("xor", phase, e.i32(1)));
  emitTransposeV(stage, lane, warp, sel);
  // Generic-proxy stores that wgmma (async proxy) reads next.
  e.op("nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = "
       "#nvvm.shared_space<cta>}");
  e.op(formatv("nvvm.mbarrier.arrive {0} : !llvm.ptr<3>",
               barrier(layout.fullVtBar(), stage)).str());
  e.op(formatv("nvvm.barrier id = {0} number_of_threads = {1}",
               e.i32(kFP8ProducerBarrier), e.i32(128)).str());
  e.op(formatv("llvm.br ^produce({0} : i32)", next).str());

  if (cfg.persistent) {
    e.label(itemDone);
    endWorkLoop("produce_work");
  }
}

/// V^T[n][kappa] = V[pi(kappa)][n] for the tile in `stage`, pi =
/// wgmma_e4m3_k32 (slots 4q .. 4q+3 of every 16 keys <- keys 2q, 2q+1, 2q+8,
/// 2q+9). A warp takes 16 keys x 128 head-dim columns at a time (units u =
/// warp, warp + 4, ...); lane l holds columns 4l .. 4l+3. Per q it reads the
/// four keys' 32-bit words (one 128-byte row per instruction: no bank
/// conflict), transposes the 4 x 4 bytes with prmt, and after the four q
/// stores 16 bytes per column: the keys 16G .. 16G+15 of V^T row n. The
/// lanes start at different columns of their four (s = (l / 2) % 4) so that
/// the eight lanes of a 16-byte store phase hit eight different swizzled
/// 16-byte units.
void SM90KernelEmitter::emitTransposeV(const string &stage, const string &lane,
                                       const string &warp,
                                       const string sel[2]) {
  int64_t groups = bn / 16, units = groups * chunks;
  // The lane's offsets are cheap to recompute but, hoisted out of the tile
  // loop, would hold some 30 registers for the whole loop: an opaque copy of
  // the lane id keeps them inside (the producer has 56 registers).
  string laneCopy = e.def(formatv("llvm.inline_asm has_side_effects asm_dialect "
                                  "= att \"mov.b32 $0, $1;\", \"=r,r\" {0} "
                                  ": (i32) -> i32", lane).str());
  string staging = e.add(e.i32(layout.vOffset),
                         e.mul(stage, e.i32(layout.kvStageBytes)));
  string target = e.add(e.i32(layout.vtOffset),
                        e.mul(stage, e.i32(layout.vtStageBytes)));
  // Byte offset of the lane's word within a row, before the swizzle.
  string laneUnit = e.bin("shl", e.bin("lshr", laneCopy, e.i32(2)), e.i32(4));
  string laneByte = e.mul(e.bin("and", laneCopy, e.i32(3)), e.i32(4));
  string rot = e.bin("and", e.bin("lshr", laneCopy, e.i32(1)), e.i32(3));
  string laneOdd = e.bin("shl", e.bin("and", laneCopy, e.i32(1)), e.i32(2));
  auto prmt = [&](const string &a, const string &b, const string &selector) {
    return e.def(formatv("llvm.inline_asm asm_dialect = att \"prmt.b32 $0, $1, "
                         "$2, $3;\", \"=r,r,r,r\" {0}, {1}, {2} : (i32, i32, "
                         "i32) -> i32", a, b, selector).str());
  };
  string lowHalves = e.i32(0x5410), highHalves = e.i32(0x7632);
  for (int64_t first = 0; first < units; first += 4) {
    // Unit u = (head-dim chunk c, key group G), u = c * groups + G.
    string u = e.add(warp, e.i32(first));
    string c = e.bin("udiv", u, e.i32(groups));
    string g = e.bin("urem", u, e.i32(groups));
    string rowBase = e.add(staging, e.add(e.mul(c, e.i32(bn * 128)),
                                          e.mul(g, e.i32(16 * 128))));
    string words[4][4]; // [column i][q]
    for (int64_t q = 0; q < 4; ++q) {
      string w[4];
      int64_t keys[4] = {2 * q, 2 * q + 1, 2 * q + 8, 2 * q + 9};
      for (int k = 0; k < 4; ++k) {
        string swz = e.bin("xor", laneUnit, e.i32((keys[k] % 8) << 4));
        string off = e.add(e.add(rowBase, e.i32(keys[k] * 128)),
                           e.add(swz, laneByte));
        w[k] = e.def(formatv("llvm.load {0} {{alignment = 4 : i64} : "
                             "!llvm.ptr<3> -> i32", e.smemPtr(base, off)).str());
      }
      string x01 = prmt(w[0], w[1], sel[0]), y01 = prmt(w[0], w[1], sel[1]);
      string x23 = prmt(w[2], w[3], sel[0]), y23 = prmt(w[2], w[3], sel[1]);
      words[0][q] = prmt(x01, x23, lowHalves);
      words[1][q] = prmt(x01, x23, highHalves);
      words[2][q] = prmt(y01, y23, lowHalves);
      words[3][q] = prmt(y01, y23, highHalves);
    }
    // words[i] is column n = 128 c + 4 l + (i + s) % 4, keys 16G .. 16G+15:
    // V^T atom G / 8, 16-byte unit G % 8 of row n (swizzled by n % 8).
    string atom = e.add(target, e.add(e.mul(e.bin("lshr", g, e.i32(3)),
                                            e.i32(cfg.headDim * 128)),
                                      e.mul(c, e.i32(128 * 128))));
    string unitInRow = e.bin("and", g, e.i32(7));
    for (int64_t i = 0; i < 4; ++i) {
      string col = e.bin("and", e.add(rot, e.i32(i)), e.i32(3));
      string n = e.add(e.mul(laneCopy, e.i32(4)), col);
      string swz = e.bin("shl", e.bin("xor", unitInRow,
                                      e.bin("or", laneOdd, col)), e.i32(4));
      string off = e.add(atom, e.add(e.mul(n, e.i32(128)), swz));
      string vec = e.def("llvm.mlir.poison : vector<4xi32>");
      for (int64_t q = 0; q < 4; ++q)
        vec = e.def(formatv("llvm.insertelement {0}, {1}[{2} : i32] : "
                            "vector<4xi32>", words[i][q], vec, e.i32(q)).str());
      e.op(formatv("llvm.store {0}, {1} {{alignment = 16 : i64} : "
                   "vector<4xi32>, !llvm.ptr<3>", vec, e.smemPtr(base, off)).str());
    }
  }
}

/// The descale of `tensor` for this CTA's batch, head `headIdx` (ranks 2
/// and 3) and block `blockIdx` (rank 3).
string SM90KernelEmitter::loadDescale(const char *tensor,
                                      const SM90Descale &spec,
                                      const string &headIdx,
                                      const string &blockIdx) {
  string ptr = e.def(formatv("llvm.addrspacecast %{0}_descale : !llvm.ptr to "
                             "!llvm.ptr<1>", tensor).str());
  if (spec.rank >= 2) {
    string off = e.bin(
        "add", e.bin("mul", e.zext64(batch), formatv("%{0}_descale_stride_b", tensor).str(), "i64"),
        e.bin("mul", e.zext64(headIdx), formatv("%{0}_descale_stride_h", tensor).str(), "i64"),
        "i64");
    if (spec.rank == 3)
      off = e.bin("add", off,
                  e.bin("mul", e.zext64(blockIdx),
                        formatv("%{0}_descale_stride_blk", tensor).str(), "i64"),
                  "i64");
    ptr = e.def(formatv("llvm.getelementptr {0}[{1}] : (!llvm.ptr<1>, i64) -> "
                        "!llvm.ptr<1>, f32", ptr, off).str());
  }
  return e.def(formatv("llvm.load {0} {{alignment = 4 : i64} : !llvm.ptr<1> -> "
                       "f32", ptr).str());
}

/// Q's descale per accumulator row (rows past seq_q read the last row's
/// block, as fattn.load_descale), and K's and V's when every tile has the
/// same one.
void SM90KernelEmitter::emitDescaleSetup() {
  const SM90Descale &dq = cfg.qDescale;
  if (dq.rank == 3) {
    string last = e.sub("%seq_q", e.i32(1));
    for (int r = 0; r < 2; ++r)
      qScale[r] = loadDescale("q", dq, head,
                              e.bin("udiv", e.smin(row[r], last),
                                    e.i32(dq.block)));
  } else {
    qScale[0] = qScale[1] = loadDescale("q", dq, kvHead, "");
  }
  if (cfg.kDescale.rank != 3)
    keyScale = loadDescale("k", cfg.kDescale, kvHead, "");
  if (cfg.vDescale.rank != 3)
    valueScale = loadDescale("v", cfg.vDescale, kvHead, "");
}

/// K's and V's descale of KV tile `j` (descale_block_kv is a multiple of
/// block_n: one factor per tile). A per-block V descale is floored at 2^-64
/// (an all-zero block has 2^-126): O is kept in units of it, and 2^-126
/// would overflow the accumulator; with the floor, values below about 1e-17
/// in a block whose factor is floored are read too large.
TileDescales SM90KernelEmitter::tileDescales(const string &j) {
  TileDescales d;
  if (!cfg.hasDescales())
    return d;
  string firstRow = e.mul(j, e.i32(bn));
  d.key = keyScale.empty()
              ? loadDescale("k", cfg.kDescale, kvHead,
                            e.bin("udiv", firstRow, e.i32(cfg.kDescale.block)))
              : keyScale;
  if (!carryValueDescale) {
    d.value = valueScale;
    return d;
  }
  string v = loadDescale("v", cfg.vDescale, kvHead,
                         e.bin("udiv", firstRow, e.i32(cfg.vDescale.block)));
  d.value = e.fmax(v, e.f32(std::ldexp(1.0f, -64)));
  return d;
}

/// The factors (per accumulator row) by which O is rescaled before the P V
/// of a tile: alpha, and with per-block V descales the move from the
/// previous tile's descale units to this tile's (dv_prev / dv), so that the
/// P V product adds in the stored units. `unit` becomes the descale O is in
/// afterwards (empty without).
std::array<string, 2> SM90KernelEmitter::rescaleFactors(
    const TileSoftmax &sm, const string &prevDescale, const string &descale,
    string &unit) {
  std::array<string, 2> factor = {sm.alpha[0], sm.alpha[1]};
  unit = carryValueDescale ? descale : string();
  if (carryValueDescale) {
    string ratio = e.bin("fdiv", prevDescale, descale, "f32");
    for (int r = 0; r < 2; ++r)
      factor[r] = e.bin("fmul", factor[r], ratio, "f32");
  }
  return factor;
}

void SM90KernelEmitter::rescaleO(SmallVector<string> &o,
                                 const std::array<string, 2> &factor) {
  for (int64_t i = 0; i < numO; ++i)
    o[i] = e.bin("fmul", o[i], factor[(i % 4) / 2], "f32");
}

/// P (f32, in [0, 256]: see kFP8ProbabilityLog2) as the A operand of
/// `wgmma ... k32 .e4m3` from registers, with the keys in the order
/// wgmma_e4m3_k32: per 32-key step kk, accumulator registers 16kk + {0, 1, 4, 5} are row r's columns 2q, 2q+1,
/// 2q+8, 2q+9, which become A's k slots 4q .. 4q+3 (register a0); +{2, 3, 6,
/// 7} row r + 8 (a1); +8 the same for the next 16 keys (a2, a3). So each
/// register is two cvt.rn.satfinite.e4m3x2 and one prmt of this thread's own
/// values; V^T's keys are permuted to match (emitTransposeV).
SmallVector<string>
SM90KernelEmitter::packProbabilitiesE4M3(ArrayRef<string> p) {
  // Register = e4m3 of (p[i], p[i + 1], p[i + 4], p[i + 5]), low byte first:
  // two cvt.e4m3x2 (the first source goes to the upper byte) as the halves
  // of one register, a vector of two i16 (mov.b32 {lo, hi}), which ptxas
  // writes in place (F2FP ... MERGE_C). Zero-extending the i16 results and
  // merging them with a prmt cost three more instructions per register on
  // the path from the P V wait to the next GEMMs (measured 3-15% slower,
  // docs/PERF.md).
  auto cvt = [&](const string &lo, const string &hi) {
    return e.def(formatv("llvm.call_intrinsic \"llvm.nvvm.ff.to.e4m3x2.rn\"("
                         "{0}, {1}) : (f32, f32) -> i16", hi, lo).str());
  };
  // The exception: head dims above 128 with per-block V descales, whose
  // carried factor leaves no register for the merged halves (ptxas spilled
  // 4 bytes in the causal kernels) keep the zero-extension and the prmt.
  bool mergeInPlace = !(carryValueDescale && dPad > 128);
  SmallVector<string> packed;
  string undef = mergeInPlace ? e.def("llvm.mlir.poison : vector<2xi16>") : "";
  // bytes 0-1 of `lo`, then bytes 0-1 of `hi`
  string halves = mergeInPlace ? "" : e.i32(0x5410);
  for (int64_t kk = 0; kk < bn / 32; ++kk)
    for (int64_t base : {0, 2, 8, 10}) {
      int64_t i = 16 * kk + base;
      string lo = cvt(p[i], p[i + 1]), hi = cvt(p[i + 4], p[i + 5]);
      if (!mergeInPlace) {
        auto wide = [&](const string &h) {
          return e.def(formatv("llvm.zext {0} : i16 to i32", h).str());
        };
        packed.push_back(e.def(
            formatv("llvm.call_intrinsic \"llvm.nvvm.prmt\"({0}, {1}, {2}) : "
                    "(i32, i32, i32) -> i32", wide(lo), wide(hi), halves).str()));
        continue;
      }
      string v = undef;
      v = e.def(formatv("llvm.insertelement {0}, {1}[{2} : i32] : vector<2xi16>",
                        lo, v, e.i32(0)).str());
      v = e.def(formatv("llvm.insertelement {0}, {1}[{2} : i32] : vector<2xi16>",
                        hi, v, e.i32(1)).str());
      packed.push_back(
          e.def(formatv("llvm.bitcast {0} : vector<2xi16> to i32", v).str()));
    }
  return packed;
}
