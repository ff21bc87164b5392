//===- KernelText.cpp - the sm_90a attention kernel in LLVM/NVVM IR -------===//
//
// Emits the body of the sm_90a kernel as LLVM-dialect text (the form that
// `mlir-opt` prints), which SM90Lowering.cpp parses into the gpu.module.
// Text keeps this long, fully unrolled instruction stream readable next to
// the PTX it becomes; every value is named after its role.
//
// Warpgroup 0 is the producer (one elected thread issues TMA), warpgroups 1
// and 2 are consumers of 64 rows each. Per KV tile t (stage s = t % stages,
// phase (t / stages) & 1):
//   producer: wait empty[s]; expect_tx + TMA K into full_k[s]; same for V.
//   consumer: wait full_k[s]; S = Q K^T (SS wgmma); mask (edge tiles only);
//             online softmax on the accumulator layout; O *= alpha;
//             wait full_v[s]; O += P V (RS wgmma); arrive empty[s].
// With two or more stages the copy of tile t+1 runs during the math of t.
//
//===----------------------------------------------------------------------===//

#include "fattn/Conversion/FAttnToNVVM/SM90/SM90Lowering.h"
#include "fattn/Dialect/FAttn/Utils/KVTileRange.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::fattn;

namespace {
using llvm::formatv;
using std::string;

constexpr float kLog2E = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

string str(int64_t v) { return std::to_string(v); }

/// Writes LLVM-dialect text with fresh SSA names.
class TextEmitter {
public:
  string text;

  /// `%name = rhs`, returning %name.
  string def(const string &rhs, const char *hint = "v") {
    string name = formatv("%{0}{1}", hint, counter++).str();
    text += "    " + name + " = " + rhs + "\n";
    return name;
  }
  void op(const string &s) { text += "    " + s + "\n"; }
  void label(const string &name, const string &args = "") {
    text += "  ^" + name + args + ":\n";
  }

  string i32(int64_t v) {
    return def(formatv("llvm.mlir.constant({0} : i32) : i32", v).str(), "c");
  }
  string i64(int64_t v) {
    return def(formatv("llvm.mlir.constant({0} : i64) : i64", v).str(), "c");
  }
  string f32(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return def(formatv("llvm.mlir.constant({0:x8} : f32) : f32", bits).str(),
               "c");
  }
  string bin(const char *opName, const string &a, const string &b,
             const char *ty = "i32") {
    return def(formatv("llvm.{0} {1}, {2} : {3}", opName, a, b, ty).str());
  }
  string add(const string &a, const string &b) { return bin("add", a, b); }
  string sub(const string &a, const string &b) { return bin("sub", a, b); }
  string mul(const string &a, const string &b) { return bin("mul", a, b); }
  string icmp(const char *pred, const string &a, const string &b,
              const char *ty = "i32") {
    return def(formatv("llvm.icmp \"{0}\" {1}, {2} : {3}", pred, a, b, ty).str());
  }
  string fcmp(const char *pred, const string &a, const string &b) {
    return def(formatv("llvm.fcmp \"{0}\" {1}, {2} : f32", pred, a, b).str());
  }
  string select(const string &c, const string &a, const string &b,
                const char *ty = "i32") {
    return def(formatv("llvm.select {0}, {1}, {2} : i1, {3}", c, a, b, ty).str());
  }
  string smin(const string &a, const string &b) {
    return select(icmp("slt", a, b), a, b);
  }
  string smax(const string &a, const string &b) {
    return select(icmp("sgt", a, b), a, b);
  }
  string fmax(const string &a, const string &b) {
    return def(formatv("llvm.intr.maxnum({0}, {1}) : (f32, f32) -> f32", a, b).str());
  }
  string fma(const string &a, const string &b, const string &c) {
    return def(formatv("llvm.intr.fma({0}, {1}, {2}) : (f32, f32, f32) -> f32",
                       a, b, c).str());
  }
  string ex2(const string &x) {
    return def(formatv("llvm.call_intrinsic \"llvm.nvvm.ex2.approx.ftz.f32\"({0}) "
                       ": (f32) -> f32", x).str());
  }
  string zext64(const string &x) {
    return def(formatv("llvm.zext {0} : i32 to i64", x).str());
  }
  string sreg(const char *name) {
    return def(formatv("nvvm.read.ptx.sreg.{0} : i32", name).str());
  }
  /// A shared-memory pointer `base + offset` (offset: i32 value).
  string smemPtr(const string &base, const string &offset) {
    return def(formatv("llvm.getelementptr {0}[{1}] : (!llvm.ptr<3>, i32) -> "
                       "!llvm.ptr<3>, i8", base, offset).str());
  }

private:
  int counter = 0;
};

/// The `Ops` of computeKVTileRange (KVTileRange.h) on i32 SSA values, so the
/// kernel visits exactly the tiles that the CPU lowering visits.
struct TextIntOps {
  using Int = string;
  using Bool = string;
  TextEmitter &e;
  Int cst(int64_t v) { return e.i32(v); }
  Int add(Int a, Int b) { return e.add(a, b); }
  Int sub(Int a, Int b) { return e.sub(a, b); }
  Int mul(Int a, Int b) { return e.mul(a, b); }
  Int min(Int a, Int b) { return e.smin(a, b); }
  Int max(Int a, Int b) { return e.smax(a, b); }
  Int floorDiv(Int a, int64_t d) {
    Int q = e.bin("sdiv", a, e.i32(d));
    Int r = e.bin("srem", a, e.i32(d));
    return e.select(e.icmp("slt", r, e.i32(0)), e.sub(q, e.i32(1)), q);
  }
  Int ceilDiv(Int a, int64_t d) {
    return e.sub(e.i32(0), floorDiv(e.sub(e.i32(0), a), d));
  }
  Bool lt(Int a, Int b) { return e.icmp("slt", a, b); }
  Int select(Bool c, Int a, Int b) { return e.select(c, a, b); }
};

string structType(int64_t n) {
  string s = "!llvm.struct<(";
  for (int64_t i = 0; i < n; ++i)
    s += i ? ", f32" : "f32";
  return s + ")>";
}

/// Shared-memory layout, in bytes from the 1024-aligned base.
struct SharedLayout {
  int64_t qBytes, kvStageBytes, kOffset, vOffset, barOffset, total;
  explicit SharedLayout(const SM90KernelConfig &c) {
    qBytes = c.headDimChunks() * c.blockM * 128;
    kvStageBytes = c.headDimChunks() * c.blockN * 128;
    kOffset = qBytes;
    vOffset = kOffset + c.stages * kvStageBytes;
    barOffset = vOffset + c.stages * kvStageBytes;
    total = barOffset + 8 * (1 + 3 * c.stages);
  }
  int64_t qBar() const { return barOffset; }
  int64_t fullKBar(int64_t s) const { return barOffset + 8 + 8 * s; }
  int64_t fullVBar(int64_t s, int64_t stages) const {
    return barOffset + 8 + 8 * stages + 8 * s;
  }
  int64_t emptyBar(int64_t s, int64_t stages) const {
    return barOffset + 8 + 16 * stages + 8 * s;
  }
};

/// Emits the whole kernel.
class SM90KernelEmitter {
public:
  SM90KernelEmitter(const SM90KernelConfig &c, const SM90Options &o)
      : cfg(c), opts(o), layout(c) {}

  string emit();

private:
  const SM90KernelConfig &cfg;
  const SM90Options &opts;
  SharedLayout layout;
  TextEmitter e;

  // Values of the entry block, visible everywhere.
  string tid, base, baseAddr, qTileRow, head, batch, kvHead;
  string lo, fullLo, fullHi, hi;

  string signature();
  void emitEntry();
  void emitProducer();
  void emitConsumer();

  string stageOf(const string &t) {
    return e.bin("urem", t, e.i32(cfg.stages));
  }
  string phaseOf(const string &t) {
    return e.bin("and", e.bin("udiv", t, e.i32(cfg.stages)), e.i32(1));
  }
  /// Address of barrier `first + 8 * stage`.
  string barrier(int64_t first, const string &stage) {
    return e.smemPtr(base, e.add(e.i32(first), e.mul(stage, e.i32(8))));
  }
  string barrier(int64_t offset) { return e.smemPtr(base, e.i32(offset)); }
  void waitBarrier(const string &bar, const string &phase) {
    e.op(formatv("nvvm.mbarrier.try_wait.parity {0}, {1}, {2} : !llvm.ptr<3>, "
                 "i32, i32", bar, phase, e.i32(10000000)).str());
  }
  /// A wgmma shared-memory matrix descriptor of the 128B-swizzled tile at
  /// byte offset `offset` (i32) from the aligned base.
  string descriptor(const string &offset, int64_t leadingBytes) {
    string addr = e.add(baseAddr, offset);
    string field = e.bin("and", e.bin("lshr", addr, e.i32(4)), e.i32(0x3FFF));
    uint64_t bits = (uint64_t(1) << 62) | (uint64_t(1024 >> 4) << 32) |
                    (uint64_t((leadingBytes >> 4) & 0x3FFF) << 16);
    return e.bin("or", e.zext64(field), e.i64(int64_t(bits)), "i64");
  }
  void tmaLoad(const string &map, int64_t chunk, const string &dstOffset,
               const string &bar, const string &row, const string &headIdx) {
    string dst = e.smemPtr(base, dstOffset);
    string dst7 = e.def(formatv("llvm.addrspacecast {0} : !llvm.ptr<3> to "
                                "!llvm.ptr<7>", dst).str());
    e.op(formatv("nvvm.cp.async.bulk.tensor.shared.cluster.global {0}, {1}, "
                 "{2}, box[{3}, {4}, {5}, {6}] : !llvm.ptr<7>, !llvm.ptr",
                 dst7, map, bar, e.i32(64 * chunk), row, headIdx, batch).str());
  }
  string packPair(const string &a, const string &b);
};

string SM90KernelEmitter::signature() {
  string s = formatv("  llvm.func @{0}(", cfg.name).str();
  SmallVector<string> params = {"%q: !llvm.ptr", "%k: !llvm.ptr",
                                "%v: !llvm.ptr", "%o: !llvm.ptr"};
  if (cfg.hasLse)
    params.push_back("%lse: !llvm.ptr");
  for (const char *n : {"batch", "heads_q", "heads_kv", "seq_q", "seq_k"})
    params.push_back(formatv("%{0}: i32", n).str());
  for (const char *t : {"q", "k", "v", "o"})
    for (const char *d : {"b", "h", "s"})
      params.push_back(formatv("%{0}_stride_{1}: i64", t, d).str());
  if (cfg.hasLse) {
    params.push_back("%lse_stride_b: i64");
    params.push_back("%lse_stride_h: i64");
  }
  for (const char *t : {"q", "k", "v"})
    params.push_back(formatv("%{0}_map: !llvm.ptr {{llvm.align = 64 : i64, "
                             "llvm.byval = !llvm.array<128 x i8>, "
                             "nvvm.grid_constant}",
                             t).str());
  for (size_t i = 0; i < params.size(); ++i)
    s += (i ? ",\n      " : "") + params[i];
  s += formatv(")\n      attributes {{gpu.kernel, nvvm.kernel, nvvm.maxntid = "
               "array<i32: {0}, 1, 1>, nvvm.minctasm = 1 : i32} {{\n",
               cfg.threads()).str();
  return s;
}

void SM90KernelEmitter::emitEntry() {
  tid = e.sreg("tid.x");
  string ctaX = e.sreg("ctaid.x");
  if (opts.reverseQTiles) {
    string n = e.sreg("nctaid.x");
    qTileRow = e.sub(e.sub(n, e.i32(1)), ctaX);
  } else {
    qTileRow = ctaX;
  }
  string qTile = qTileRow;
  qTileRow = e.mul(qTile, e.i32(cfg.blockM));
  head = e.sreg("ctaid.y");
  batch = e.sreg("ctaid.z");
  // GQA/MQA: query head h reads KV head h / (Hq / Hkv).
  kvHead = e.bin("udiv", head, e.bin("udiv", "%heads_q", "%heads_kv"));

  // Align the dynamic shared memory to 1024 bytes (the 128B swizzle atom).
  string raw = e.def("llvm.mlir.addressof @fattn_smem : !llvm.ptr<3>");
  string rawAddr = e.def(formatv("llvm.ptrtoint {0} : !llvm.ptr<3> to i32", raw).str());
  baseAddr = e.bin("and", e.add(rawAddr, e.i32(1023)), e.i32(-1024));
  base = e.smemPtr(raw, e.sub(baseAddr, rawAddr));

  TextIntOps ops{e};
  KVTileRangeParams params{cfg.blockM, cfg.blockN, cfg.windowLeft,
                           cfg.windowRight};
  KVTileRange<string> range =
      computeKVTileRange(ops, qTile, string("%seq_q"), string("%seq_k"), params);
  lo = range.lo;
  fullLo = range.fullLo;
  fullHi = range.fullHi;
  hi = range.hi;

  string isThread0 = e.icmp("eq", tid, e.i32(0));
  auto init = [&](int64_t offset, int64_t count) {
    e.op(formatv("nvvm.mbarrier.init {0}, {1}, predicate = {2} : !llvm.ptr<3>, "
                 "i32, i1", barrier(offset), e.i32(count), isThread0).str());
  };
  init(layout.qBar(), 1);
  for (int64_t s = 0; s < cfg.stages; ++s) {
    init(layout.fullKBar(s), 1);
    init(layout.fullVBar(s, cfg.stages), 1);
    init(layout.emptyBar(s, cfg.stages), 256);
  }
  e.op("nvvm.fence.mbarrier.init");
  e.op("nvvm.barrier0");
  string isProducer = e.icmp("ult", tid, e.i32(128));
  e.op(formatv("llvm.cond_br {0}, ^producer, ^consumer", isProducer).str());
}

void SM90KernelEmitter::emitProducer() {
  int64_t chunks = cfg.headDimChunks();
  e.label("producer");
  if (opts.producerRegisters > 0)
    e.op(formatv("nvvm.setmaxregister decrease {0}", opts.producerRegisters).str());
  string warp0 = e.icmp("ult", tid, e.i32(32));
  string elected = e.def("nvvm.elect.sync -> i1");
  string issuer = e.bin("and", warp0, elected, "i1");
  e.op(formatv("llvm.cond_br {0}, ^load_q, ^exit", issuer).str());

  e.label("load_q");
  string qBar = barrier(layout.qBar());
  e.op(formatv("nvvm.mbarrier.arrive.expect_tx {0}, {1} : !llvm.ptr<3>, i32",
               qBar, e.i32(layout.qBytes)).str());
  for (int64_t c = 0; c < chunks; ++c)
    tmaLoad("%q_map", c, e.i32(c * cfg.blockM * 128), qBar, qTileRow, head);
  e.op(formatv("llvm.br ^produce({0} : i32)", lo).str());

  e.label("produce", "(%pj: i32)");
  string more = e.icmp("slt", "%pj", hi);
  e.op(formatv("llvm.cond_br {0}, ^produce_tile, ^exit", more).str());

  e.label("produce_tile");
  string t = e.sub("%pj", lo);
  string stage = stageOf(t);
  string phase = phaseOf(t);
  // The first round passes at once: a fresh barrier's "previous" phase (1)
  // counts as complete.
  waitBarrier(barrier(layout.emptyBar(0, cfg.stages), stage),
              e.bin("xor", phase, e.i32(1)));
  string kvRow = e.mul("%pj", e.i32(cfg.blockN));
  string stageOffset = e.mul(stage, e.i32(layout.kvStageBytes));
  for (bool isV : {false, true}) {
    string bar = barrier(isV ? layout.fullVBar(0, cfg.stages) : layout.fullKBar(0),
                         stage);
    e.op(formatv("nvvm.mbarrier.arrive.expect_tx {0}, {1} : !llvm.ptr<3>, i32",
                 bar, e.i32(layout.kvStageBytes)).str());
    int64_t region = isV ? layout.vOffset : layout.kOffset;
    for (int64_t c = 0; c < chunks; ++c)
      tmaLoad(isV ? "%v_map" : "%k_map", c,
              e.add(stageOffset, e.i32(region + c * cfg.blockN * 128)), bar,
              kvRow, kvHead);
  }
  e.op(formatv("llvm.br ^produce({0} : i32)", e.add("%pj", e.i32(1))).str());
}

string SM90KernelEmitter::packPair(const string &a, const string &b) {
  const char *half = cfg.elementType == "bf16" ? "bf16" : "f16";
  string v = e.def("llvm.mlir.poison : vector<2xf32>");
  v = e.def(formatv("llvm.insertelement {0}, {1}[{2} : i32] : vector<2xf32>", a,
                    v, e.i32(0)).str());
  v = e.def(formatv("llvm.insertelement {0}, {1}[{2} : i32] : vector<2xf32>", b,
                    v, e.i32(1)).str());
  string h = e.def(formatv("llvm.fptrunc {0} : vector<2xf32> to vector<2x{1}>",
                           v, half).str());
  return e.def(formatv("llvm.bitcast {0} : vector<2x{1}> to i32", h, half).str());
}

void SM90KernelEmitter::emitConsumer() {
  const int64_t bn = cfg.blockN, dPad = cfg.paddedHeadDim();
  const int64_t chunks = cfg.headDimChunks();
  const int64_t numS = bn / 2, numO = dPad / 2; // accumulator registers
  const string sType = structType(numS), oType = structType(numO);
  const bool softcap = cfg.softcap > 0;
  const float softmaxScale = softcap ? 1.0f : cfg.scale;
  const float scaleLog2 = softmaxScale * kLog2E;
  const char *wgmmaType = cfg.elementType == "bf16" ? "bf16" : "f16";

  e.label("consumer");
  if (opts.producerRegisters > 0)
    e.op(formatv("nvvm.setmaxregister increase {0}", opts.consumerRegisters).str());
  string ctid = e.sub(tid, e.i32(128));
  string wg = e.bin("udiv", ctid, e.i32(128)); // consumer warpgroup 0 or 1
  string lane = e.bin("and", tid, e.i32(31));
  string warpInWg = e.bin("and", e.bin("udiv", ctid, e.i32(32)), e.i32(3));
  string quad = e.bin("and", lane, e.i32(3));
  // Accumulator layout of wgmma m64nN: thread holds rows r and r + 8, columns
  // 8i + 2*quad + {0, 1}; register 4i + {0,1} is row r, 4i + {2,3} row r + 8.
  string rowInTile = e.add(e.add(e.mul(wg, e.i32(64)), e.mul(warpInWg, e.i32(16))),
                           e.bin("udiv", lane, e.i32(4)));
  string row[2];
  row[0] = e.add(qTileRow, rowInTile);
  row[1] = e.add(row[0], e.i32(8));

  // Visible key columns of each row, for the masked tiles:
  // loLimit <= col <= hiLimit.
  string offset = e.sub("%seq_k", "%seq_q");
  string hiLimit[2], loLimit[2];
  for (int r = 0; r < 2; ++r) {
    string diag = e.add(row[r], offset);
    hiLimit[r] = e.sub("%seq_k", e.i32(1));
    if (cfg.windowRight >= 0)
      hiLimit[r] = e.smin(hiLimit[r], e.add(diag, e.i32(cfg.windowRight)));
    loLimit[r] = cfg.windowLeft >= 0 ? e.sub(diag, e.i32(cfg.windowLeft))
                                     : e.i32(-(int64_t(1) << 30));
  }

  string qDesc = descriptor(e.mul(wg, e.i32(64 * 128)), 16);
  string kDesc0 = descriptor(e.i32(layout.kOffset), 16);
  string vDesc0 = descriptor(e.i32(layout.vOffset),
                             opts.wideValueMma ? bn * 128 : 16);
  waitBarrier(barrier(layout.qBar()), e.i32(0));

  string negInf = e.f32(-std::numeric_limits<float>::infinity());
  string zero = e.f32(0.0f);
  string allLanes = e.i32(-1), clamp = e.i32(31);
  string oInit = e.def(formatv("llvm.mlir.zero : {0}", oType).str());
  e.op(formatv("llvm.br ^kv_loop({0}, {1}, {1}, {2}, {2}, {3} : i32, f32, f32, "
               "f32, f32, {4})", lo, negInf, zero, oInit, oType).str());

  // ---- KV loop header ----
  e.label("kv_loop", formatv("(%j: i32, %m0: f32, %m1: f32, %l0: f32, %l1: f32, "
                             "%acc: {0})", oType).str());
  e.op(formatv("llvm.cond_br {0}, ^kv_tile, ^epilogue",
               e.icmp("slt", "%j", hi)).str());

  // ---- S = Q K^T ----
  e.label("kv_tile");
  string t = e.sub("%j", lo);
  string stage = stageOf(t);
  string phase = phaseOf(t);
  string stageUnits = e.zext64(e.mul(stage, e.i32(layout.kvStageBytes >> 4)));
  string kDesc = e.bin("add", kDesc0, stageUnits, "i64");
  string vDesc = e.bin("add", vDesc0, stageUnits, "i64");
  waitBarrier(barrier(layout.fullKBar(0), stage), phase);
  e.op("nvvm.wgmma.fence.aligned");
  string s = e.def(formatv("llvm.mlir.zero : {0}", sType).str());
  for (int64_t kk = 0; kk < dPad / 16; ++kk) {
    int64_t c = kk / 4, within = kk % 4; // 64-column atom, 32-byte step
    string da = e.bin("add", qDesc, e.i64(c * cfg.blockM * 8 + within * 2), "i64");
    string db = e.bin("add", kDesc, e.i64(c * bn * 8 + within * 2), "i64");
    s = e.def(formatv("nvvm.wgmma.mma_async {0}, {1}, {2}, #nvvm.shape<m = 64, "
                      "n = {3}, k = 16>, D[<f32>, {4}], A[<{5}>, <one>, <row>], "
                      "B[<{5}>, <one>, <col>] : {6} -> {6}",
                      da, db, s, bn, kk == 0 ? "<zero>" : "<one>", wgmmaType,
                      sType).str());
  }
  e.op("nvvm.wgmma.commit.group.sync.aligned");
  e.op("nvvm.wgmma.wait.group.sync.aligned 0");

  if (softcap) {
    // s = softcap * tanh(scale * s / softcap); the softmax then uses scale 1.
    string inner = e.f32(cfg.scale / cfg.softcap), cap = e.f32(cfg.softcap);
    for (int64_t i = 0; i < numS; ++i) {
      string x = e.def(formatv("llvm.extractvalue {0}[{1}] : {2}", s, i, sType).str());
      x = e.bin("fmul", x, inner, "f32");
      x = e.def(formatv("llvm.inline_asm asm_dialect = att \"tanh.approx.f32 $0, "
                        "$1;\", \"=f,f\" {0} : (f32) -> f32", x).str());
      x = e.bin("fmul", x, cap, "f32");
      s = e.def(formatv("llvm.insertvalue {0}, {1}[{2}] : {3}", x, s, i, sType).str());
    }
  }

  // Edge tiles (window edges, diagonal, sequence tail) are masked.
  string needMask = e.bin("or", e.icmp("slt", "%j", fullLo),
                          e.icmp("sge", "%j", fullHi), "i1");
  e.op(formatv("llvm.cond_br {0}, ^mask, ^softmax({1} : {2})", needMask, s,
               sType).str());

  e.label("mask");
  {
    string colBase = e.add(e.mul("%j", e.i32(bn)), e.mul(quad, e.i32(2)));
    string hiRel[2], loRel[2];
    for (int r = 0; r < 2; ++r) {
      hiRel[r] = e.sub(hiLimit[r], colBase);
      loRel[r] = e.sub(loLimit[r], colBase);
    }
    string masked = s;
    for (int64_t i = 0; i < numS; ++i) {
      int64_t r = (i % 4) / 2, col = 8 * (i / 4) + (i % 2);
      string c = e.i32(col);
      string ok = e.bin("and", e.icmp("sle", c, hiRel[r]),
                        e.icmp("sge", c, loRel[r]), "i1");
      string x = e.def(formatv("llvm.extractvalue {0}[{1}] : {2}", masked, i,
                               sType).str());
      x = e.select(ok, x, negInf, "f32");
      masked = e.def(formatv("llvm.insertvalue {0}, {1}[{2}] : {3}", x, masked,
                             i, sType).str());
    }
    e.op(formatv("llvm.br ^softmax({0} : {1})", masked, sType).str());
  }

  // ---- online softmax on the accumulator layout ----
  e.label("softmax", formatv("(%scores: {0})", sType).str());
  SmallVector<string> sv;
  for (int64_t i = 0; i < numS; ++i)
    sv.push_back(e.def(formatv("llvm.extractvalue %scores[{0}] : {1}", i, sType).str()));
  string scaleL2 = e.f32(scaleLog2);
  string newMax[2], alpha[2], newSum[2];
  SmallVector<string> p(numS);
  const char *oldMax[2] = {"%m0", "%m1"}, *oldSum[2] = {"%l0", "%l1"};
  for (int r = 0; r < 2; ++r) {
    string mx = oldMax[r];
    for (int64_t i = 0; i < numS; ++i)
      if ((i % 4) / 2 == r)
        mx = e.fmax(mx, sv[i]);
    // The four threads of a quad hold the same rows.
    for (int sh : {1, 2}) {
      string other = e.def(formatv("nvvm.shfl.sync bfly {0}, {1}, {2}, {3} : f32 "
                                   "-> f32", allLanes, mx, e.i32(sh), clamp).str());
      mx = e.fmax(mx, other);
    }
    newMax[r] = mx;
    // Rows that have seen no key keep max -inf; take probabilities against 0
    // so that exp2(-inf) = 0 rather than NaN.
    string safe = e.select(e.fcmp("oeq", mx, negInf), zero, mx, "f32");
    string negScaled = e.bin("fmul", safe, e.f32(-scaleLog2), "f32");
    alpha[r] = e.ex2(e.fma(oldMax[r], scaleL2, negScaled));
    string rowSum = zero;
    for (int64_t i = 0; i < numS; ++i) {
      if ((i % 4) / 2 != r)
        continue;
      p[i] = e.ex2(e.fma(sv[i], scaleL2, negScaled));
      rowSum = e.bin("fadd", rowSum, p[i], "f32");
    }
    // l stays a per-thread partial sum; the quad reduces it at the end.
    newSum[r] = e.fma(oldSum[r], alpha[r], rowSum);
  }
  // O *= alpha.
  SmallVector<string> o;
  for (int64_t i = 0; i < numO; ++i) {
    string x = e.def(formatv("llvm.extractvalue %acc[{0}] : {1}", i, oType).str());
    o.push_back(e.bin("fmul", x, alpha[(i % 4) / 2], "f32"));
  }
  // P in the A-fragment layout of wgmma k16: registers 4kk..4kk+3.
  SmallVector<string> pPacked;
  for (int64_t i = 0; i < numS / 2; ++i)
    pPacked.push_back(packPair(p[2 * i], p[2 * i + 1]));

  // ---- O += P V (RS wgmma, P from registers) ----
  waitBarrier(barrier(layout.fullVBar(0, cfg.stages), stage), phase);
  e.op("nvvm.wgmma.fence.aligned");
  auto rsWgmma = [&](int64_t n, ArrayRef<string> acc, ArrayRef<string> a,
                     const string &desc) {
    int64_t numAcc = n / 2;
    string outs, cons, args, types;
    for (int64_t i = 0; i < numAcc; ++i) {
      outs += (i ? "," : "") + formatv("${0}", i).str();
      cons += (i ? "," : "") + string("=f");
    }
    cons += ",r,r,r,r,l";
    for (int64_t i = 0; i < numAcc; ++i)
      cons += "," + str(i);
    string asmText = formatv("wgmma.mma_async.sync.aligned.m64n{0}k16.f32.{1}.{1} "
                             "{{{2}}, {{${3},${4},${5},${6}}, ${7}, 1, 1, 1, 1;",
                             n, wgmmaType, outs, numAcc, numAcc + 1, numAcc + 2,
                             numAcc + 3, numAcc + 4).str();
    for (const string &x : a)
      args += x + ", ";
    args += desc;
    types = "i32, i32, i32, i32, i64";
    for (const string &x : acc) {
      args += ", " + x;
      types += ", f32";
    }
    string result = e.def(formatv("llvm.inline_asm has_side_effects asm_dialect = "
                                  "att \"{0}\", \"{1}\" {2} : ({3}) -> {4}",
                                  asmText, cons, args, types,
                                  structType(numAcc)).str());
    SmallVector<string> outVals;
    for (int64_t i = 0; i < numAcc; ++i)
      outVals.push_back(e.def(formatv("llvm.extractvalue {0}[{1}] : {2}", result,
                                      i, structType(numAcc)).str()));
    return outVals;
  };
  for (int64_t kk = 0; kk < bn / 16; ++kk) {
    ArrayRef<string> a(pPacked.data() + 4 * kk, 4);
    if (opts.wideValueMma) {
      string desc = e.bin("add", vDesc, e.i64(kk * 128), "i64");
      o = rsWgmma(dPad, o, a, desc);
      continue;
    }
    for (int64_t c = 0; c < chunks; ++c) {
      string desc = e.bin("add", vDesc, e.i64(c * bn * 8 + kk * 128), "i64");
      SmallVector<string> part(o.begin() + 32 * c, o.begin() + 32 * (c + 1));
      part = rsWgmma(64, part, a, desc);
      std::copy(part.begin(), part.end(), o.begin() + 32 * c);
    }
  }
  e.op("nvvm.wgmma.commit.group.sync.aligned");
  e.op("nvvm.wgmma.wait.group.sync.aligned 0");
  e.op(formatv("nvvm.mbarrier.arrive {0} : !llvm.ptr<3>",
               barrier(layout.emptyBar(0, cfg.stages), stage)).str());
  string acc = e.def(formatv("llvm.mlir.poison : {0}", oType).str());
  for (int64_t i = 0; i < numO; ++i)
    acc = e.def(formatv("llvm.insertvalue {0}, {1}[{2}] : {3}", o[i], acc, i,
                        oType).str());
  e.op(formatv("llvm.br ^kv_loop({0}, {1}, {2}, {3}, {4}, {5} : i32, f32, f32, "
               "f32, f32, {6})", e.add("%j", e.i32(1)), newMax[0], newMax[1],
               newSum[0], newSum[1], acc, oType).str());

  // ---- epilogue: O / l, LSE, stores of the rows inside the sequence ----
  e.label("epilogue");
  const char *finalMax[2] = {"%m0", "%m1"}, *finalSum[2] = {"%l0", "%l1"};
  string inv[2], lse[2];
  for (int r = 0; r < 2; ++r) {
    string l = finalSum[r];
    for (int sh : {1, 2}) {
      string other = e.def(formatv("nvvm.shfl.sync bfly {0}, {1}, {2}, {3} : f32 "
                                   "-> f32", allLanes, l, e.i32(sh), clamp).str());
      l = e.bin("fadd", l, other, "f32");
    }
    string hasKeys = e.fcmp("ogt", l, zero);
    string recip = e.bin("fdiv", e.f32(1.0f), l, "f32");
    inv[r] = e.select(hasKeys, recip, zero, "f32");
    if (cfg.hasLse) {
      string lg2 = e.def(formatv("llvm.inline_asm asm_dialect = att \"lg2.approx.f32 "
                                 "$0, $1;\", \"=f,f\" {0} : (f32) -> f32", l).str());
      string value = e.fma(finalMax[r], e.f32(softmaxScale),
                           e.bin("fmul", lg2, e.f32(kLn2), "f32"));
      lse[r] = e.select(hasKeys, value, negInf, "f32");
    }
  }
  SmallVector<string> packed;
  SmallVector<string> accVals;
  for (int64_t i = 0; i < numO; ++i)
    accVals.push_back(e.def(formatv("llvm.extractvalue %acc[{0}] : {1}", i, oType).str()));
  string oGlobal = e.def("llvm.addrspacecast %o : !llvm.ptr to !llvm.ptr<1>");
  string oHeadBase = e.bin("add", e.bin("mul", e.zext64(batch), "%o_stride_b", "i64"),
                           e.bin("mul", e.zext64(head), "%o_stride_h", "i64"), "i64");
  string quadCol = e.zext64(e.mul(quad, e.i32(2)));
  string lseGlobal, lseHeadBase;
  if (cfg.hasLse) {
    lseGlobal = e.def("llvm.addrspacecast %lse : !llvm.ptr to !llvm.ptr<1>");
    lseHeadBase = e.bin("add", e.bin("mul", e.zext64(batch), "%lse_stride_b", "i64"),
                        e.bin("mul", e.zext64(head), "%lse_stride_h", "i64"), "i64");
  }
  for (int r = 0; r < 2; ++r) {
    string next = "store_done" + str(r);
    string body = "store_row" + str(r);
    e.op(formatv("llvm.cond_br {0}, ^{1}, ^{2}", e.icmp("slt", row[r], "%seq_q"),
                 body, next).str());
    e.label(body);
    string rowOff = e.bin("add", oHeadBase,
                          e.bin("mul", e.zext64(row[r]), "%o_stride_s", "i64"), "i64");
    rowOff = e.bin("add", rowOff, quadCol, "i64");
    for (int64_t i = 0; i < numO / 4; ++i) {
      if (8 * i >= cfg.headDim)
        break;
      string a = e.bin("fmul", accVals[4 * i + 2 * r], inv[r], "f32");
      string b = e.bin("fmul", accVals[4 * i + 2 * r + 1], inv[r], "f32");
      string word = packPair(a, b);
      string off = e.bin("add", rowOff, e.i64(8 * i), "i64");
      string ptr = e.def(formatv("llvm.getelementptr {0}[{1}] : (!llvm.ptr<1>, "
                                 "i64) -> !llvm.ptr<1>, i16", oGlobal, off).str());
      e.op(formatv("llvm.store {0}, {1} {{alignment = 4 : i64} : i32, !llvm.ptr<1>",
                   word, ptr).str());
    }
    if (cfg.hasLse) {
      string lseBody = "store_lse" + str(r);
      e.op(formatv("llvm.cond_br {0}, ^{1}, ^{2}", e.icmp("eq", quad, e.i32(0)),
                   lseBody, next).str());
      e.label(lseBody);
      string off = e.bin("add", lseHeadBase, e.zext64(row[r]), "i64");
      string ptr = e.def(formatv("llvm.getelementptr {0}[{1}] : (!llvm.ptr<1>, "
                                 "i64) -> !llvm.ptr<1>, f32", lseGlobal, off).str());
      e.op(formatv("llvm.store {0}, {1} {{alignment = 4 : i64} : f32, !llvm.ptr<1>",
                   lse[r], ptr).str());
    }
    e.op(formatv("llvm.br ^{0}", next).str());
    e.label(next);
  }
  e.op("llvm.br ^exit");
}

string SM90KernelEmitter::emit() {
  string text = signature();
  emitEntry();
  emitProducer();
  emitConsumer();
  e.label("exit");
  e.op("llvm.return");
  text += e.text;
  text += "  }\n";
  return text;
}
} // namespace

int64_t SM90KernelConfig::dynamicSharedBytes() const {
  return SharedLayout(*this).total + 1024;
}

std::string mlir::fattn::emitSM90KernelText(const SM90KernelConfig &config,
                                            const SM90Options &options) {
  return SM90KernelEmitter(config, options).emit();
}
