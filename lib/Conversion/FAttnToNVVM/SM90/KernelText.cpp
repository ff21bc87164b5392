//===- KernelText.cpp - the sm_90a attention kernel in LLVM/NVVM IR -------===//
//
// Emits the body of the sm_90a kernel as LLVM-dialect text (the form that
// `mlir-opt` prints), which SM90Lowering.cpp parses into the gpu.module.
// Text keeps this long, fully unrolled instruction stream readable next to
// the PTX it becomes; every value is named after its role.
//
// With warp specialization, warpgroup 0 is the producer (one elected thread
// issues TMA) and the others are consumers of 64 rows each; without it, every
// warpgroup is a consumer and thread 0 also issues the copies, `stages` tiles
// ahead, as stages come back. Per KV tile t (stage s = t % stages, phase
// (t / stages) & 1):
//   copies:   wait empty_k[s]; expect_tx + TMA K into full_k[s]; same for V.
//   consumer: wait full_k[s]; S = Q K^T (SS wgmma); arrive empty_k[s];
//             mask (edge tiles only); online softmax on the accumulator
//             layout; O *= alpha; wait full_v[s]; O += P V (RS wgmma);
//             arrive empty_v[s].
// With two or more stages the copy of tile t+1 runs during the math of t.
// The consumer loop's schedule (sequential or intra-warpgroup overlapped)
// and pingpong are described at SM90KernelEmitter (KernelEmitter.h). The
// entry block, the work items (and the persistent loop over them), the
// copies and the producer warpgroup are in EntryText.cpp. FP8 kernels differ
// in the producer (V staged and transposed into a V^T ring), the k32 e4m3
// wgmmas, P as e4m3 and the descales: FP8KernelText.cpp.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

using namespace mlir;
using namespace mlir::fattn;
using namespace mlir::fattn::sm90;

string SM90KernelEmitter::signature() {
  string s = formatv("  llvm.func @{0}(", cfg.name).str();
  SmallVector<string> params = {"%q: !llvm.ptr", "%k: !llvm.ptr",
                                "%v: !llvm.ptr", "%o: !llvm.ptr"};
  if (cfg.hasLse)
    params.push_back("%lse: !llvm.ptr");
  if (cfg.splitTail)
    params.push_back("%workspace: !llvm.ptr");
  for (const char *n : {"batch", "heads_q", "heads_kv", "seq_q", "seq_k"})
    params.push_back(formatv("%{0}: i32", n).str());
  if (cfg.hasTailPairs())
    params.push_back("%tail_pairs: i32");
  for (const char *t : {"q", "k", "v", "o"})
    for (const char *d : {"b", "h", "s"})
      params.push_back(formatv("%{0}_stride_{1}: i64", t, d).str());
  if (cfg.hasLse) {
    params.push_back("%lse_stride_b: i64");
    params.push_back("%lse_stride_h: i64");
  }
  if (cfg.hasDescales()) {
    for (const char *t : {"q", "k", "v"})
      params.push_back(formatv("%{0}_descale: !llvm.ptr", t).str());
    for (const char *t : {"q", "k", "v"})
      for (const char *d : {"b", "h", "blk"})
        params.push_back(formatv("%{0}_descale_stride_{1}: i64", t, d).str());
  }
  SmallVector<const char *> maps = {"q", "k", "v"};
  if (cfg.tmaStore)
    maps.push_back("o");
  for (const char *t : maps)
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

SmallVector<string>
SM90KernelEmitter::packProbabilities(ArrayRef<string> p) {
  if (cfg.isFP8())
    return packProbabilitiesE4M3(p);
  SmallVector<string> packed;
  for (size_t i = 0; i + 1 < p.size(); i += 2)
    packed.push_back(packPair(p[i], p[i + 1], cfg.elementType));
  return packed;
}

string SM90KernelEmitter::packPair(const string &a, const string &b,
                                   const string &half) {
  string v = e.def("llvm.mlir.poison : vector<2xf32>");
  v = e.def(formatv("llvm.insertelement {0}, {1}[{2} : i32] : vector<2xf32>", a,
                    v, e.i32(0)).str());
  v = e.def(formatv("llvm.insertelement {0}, {1}[{2} : i32] : vector<2xf32>", b,
                    v, e.i32(1)).str());
  string h = e.def(formatv("llvm.fptrunc {0} : vector<2xf32> to vector<2x{1}>",
                           v, half).str());
  return e.def(formatv("llvm.bitcast {0} : vector<2x{1}> to i32", h, half).str());
}

SmallVector<string> SM90KernelEmitter::unpack(const string &agg, int64_t n,
                                              const string &type) {
  SmallVector<string> values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back(
        e.def(formatv("llvm.extractvalue {0}[{1}] : {2}", agg, i, type).str()));
  return values;
}

string SM90KernelEmitter::pack(ArrayRef<string> values, const string &type) {
  string agg = e.def(formatv("llvm.mlir.poison : {0}", type).str());
  for (size_t i = 0; i < values.size(); ++i)
    agg = e.def(formatv("llvm.insertvalue {0}, {1}[{2}] : {3}", values[i], agg,
                        i, type).str());
  return agg;
}

/// Passes `values` through an empty asm statement that claims to rewrite
/// them. Placed right after a wgmma.wait_group, it keeps LLVM from moving
/// any use of a wgmma result above the wait (the results are plain SSA
/// values to LLVM, but the registers are written asynchronously).
SmallVector<string> SM90KernelEmitter::fenceValues(ArrayRef<string> values,
                                                   const char *elem) {
  int64_t n = values.size();
  string cons, args, types;
  for (int64_t i = 0; i < n; ++i)
    cons += (i ? "," : "") + string(elem[0] == 'f' ? "=f" : "=r");
  for (int64_t i = 0; i < n; ++i) {
    cons += "," + str(i);
    args += (i ? ", " : "") + values[i];
    types += (i ? ", " : "") + string(elem);
  }
  string type = structType(n, elem);
  string result = e.def(formatv("llvm.inline_asm has_side_effects asm_dialect = "
                                "att \"\", \"{0}\" {1} : ({2}) -> {3}",
                                cons, args, types, type).str());
  return unpack(result, n, type);
}

string SM90KernelEmitter::issueQK(const string &stage,
                                  const ScoreColumns &sc) {
  string kDesc = descriptorInSlot(kDesc0, stage, layout.kvStageBytes);
  e.op("nvvm.wgmma.fence.aligned");
  string s = e.def(formatv("llvm.mlir.zero : {0}", sc.sType).str());
  // Every k step is 32 bytes of a row: 16 16-bit or 32 e4m3 elements.
  for (int64_t kk = 0; kk < dPad / kStep; ++kk) {
    int64_t c = kk / 4, within = kk % 4; // 128-byte atom, 32-byte step
    string da = e.bin("add", qDescItem.empty() ? qDesc : qDescItem,
                      e.i64(c * cfg.blockM * 8 + within * 2), "i64");
    string db = e.bin("add", kDesc, e.i64(c * bn * 8 + within * 2), "i64");
    s = e.def(formatv("nvvm.wgmma.mma_async {0}, {1}, {2}, #nvvm.shape<m = 64, "
                      "n = {3}, k = {7}>, D[<f32>, {4}], A[<{5}>, <one>, <row>], "
                      "B[<{5}>, <one>, <col>] : {6} -> {6}",
                      da, db, s, sc.columns, kk == 0 ? "<zero>" : "<one>",
                      wgmmaType, sc.sType, kStep).str());
  }
  e.op("nvvm.wgmma.commit.group.sync.aligned");
  return s;
}

SmallVector<string> SM90KernelEmitter::issuePV(ArrayRef<string> oIn,
                                               ArrayRef<string> pPacked,
                                               const string &stage, bool fence,
                                               const ScoreColumns &sc) {
  int64_t stageBytes = cfg.isFP8() ? layout.vtStageBytes : layout.kvStageBytes;
  string vDesc = descriptorInSlot(vDesc0, stage, stageBytes);
  if (fence)
    e.op("nvvm.wgmma.fence.aligned");
  // 16-bit: B = V as stored (N-major, "trans-b" 1); e4m3: B = V^T, K-major
  // (fp8 wgmma has no transpose).
  const char *vImmediates = cfg.isFP8() ? "1, 1, 1" : "1, 1, 1, 1";
  auto rsWgmma = [&](int64_t n, ArrayRef<string> acc, ArrayRef<string> a,
                     const string &desc, const char *immediates) {
    int64_t numAcc = n / 2;
    string outs, cons, args, types;
    for (int64_t i = 0; i < numAcc; ++i) {
      outs += (i ? "," : "") + formatv("${0}", i).str();
      cons += (i ? "," : "") + string("=f");
    }
    cons += ",r,r,r,r,l";
    for (int64_t i = 0; i < numAcc; ++i)
      cons += "," + str(i);
    string asmText = formatv("wgmma.mma_async.sync.aligned.m64n{0}k{9}.f32.{1}.{1} "
                             "{{{2}}, {{${3},${4},${5},${6}}, ${7}, {8};",
                             n, wgmmaType, outs, numAcc, numAcc + 1, numAcc + 2,
                             numAcc + 3, numAcc + 4, immediates, kStep).str();
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
                                  structType(numAcc, "f32")).str());
    return unpack(result, numAcc, structType(numAcc, "f32"));
  };
  SmallVector<string> o(oIn.begin(), oIn.begin() + numO);
  // rowSumMma: each k step's P also against the ones tile (K-major: no
  // transpose, which e4m3 lacks anyway; 8 rows of 32 bytes in its atom),
  // into an accumulator of this tile only: the first step does not add
  // (scale-d 0). A fresh sum per tile matters for e4m3, whose wgmma adds
  // to its accumulator with fewer bits than f32: with l accumulated over
  // whole rows, O's error at 16k keys grew sixfold (docs/PERF.md).
  string onesDesc;
  tileRowSums.clear();
  if (cfg.rowSumMma) {
    // V's first descriptor moved to the tile (the same swizzle; the leading
    // byte offset is unused): no register held across the loop.
    int64_t vFirst = cfg.isFP8() ? layout.vtOffset : layout.vOffset;
    onesDesc = e.bin("add", vDesc0, e.i64((layout.onesOffset - vFirst) >> 4),
                     "i64");
    tileRowSums.assign(4, zero);
  }
  auto addRowSums = [&](ArrayRef<string> a, bool first) {
    if (!cfg.rowSumMma)
      return;
    const char *imm = cfg.isFP8() ? (first ? "0, 1, 1" : "1, 1, 1")
                                  : (first ? "0, 1, 1, 0" : "1, 1, 1, 0");
    tileRowSums = rsWgmma(8, tileRowSums, a, onesDesc, imm);
  };
  auto result = [&] {
    e.op("nvvm.wgmma.commit.group.sync.aligned");
    o.append(oIn.begin() + numO, oIn.end());
    return o;
  };
  if (cfg.isFP8()) {
    // V^T: head-dim rows of 128-key atoms; a 32-key step is 32 bytes of a
    // row, a 64-column part of O starts 64 rows further.
    for (int64_t kk = 0; kk < sc.columns / kStep; ++kk) {
      ArrayRef<string> a(pPacked.data() + 4 * kk, 4);
      int64_t step = (kk / 4) * cfg.headDim * 8 + (kk % 4) * 2;
      if (opts.wideValueMma) {
        o = rsWgmma(dPad, o, a, e.bin("add", vDesc, e.i64(step), "i64"),
                    vImmediates);
      } else {
        for (int64_t c = 0; c < dPad / 64; ++c) {
          string desc = e.bin("add", vDesc, e.i64(step + c * 64 * 8), "i64");
          SmallVector<string> part(o.begin() + 32 * c,
                                   o.begin() + 32 * (c + 1));
          part = rsWgmma(64, part, a, desc, vImmediates);
          std::copy(part.begin(), part.end(), o.begin() + 32 * c);
        }
      }
      addRowSums(a, kk == 0);
    }
    return result();
  }
  for (int64_t kk = 0; kk < sc.columns / 16; ++kk) {
    ArrayRef<string> a(pPacked.data() + 4 * kk, 4);
    if (opts.wideValueMma) {
      string desc = e.bin("add", vDesc, e.i64(kk * 128), "i64");
      o = rsWgmma(dPad, o, a, desc, vImmediates);
    } else {
      for (int64_t c = 0; c < chunks; ++c) {
        string desc = e.bin("add", vDesc, e.i64(c * bn * 8 + kk * 128), "i64");
        SmallVector<string> part(o.begin() + 32 * c, o.begin() + 32 * (c + 1));
        part = rsWgmma(64, part, a, desc, vImmediates);
        std::copy(part.begin(), part.end(), o.begin() + 32 * c);
      }
    }
    addRowSums(a, kk == 0);
  }
  return result();
}

void SM90KernelEmitter::foldRowSums(SmallVector<string> &acc) {
  if (!cfg.rowSumMma)
    return;
  // Registers 0 and 2: rows r and r + 8 (the other two are the same sums).
  SmallVector<string> sums =
      fenceValues({tileRowSums[0], tileRowSums[2]}, "f32");
  for (int r = 0; r < 2; ++r)
    acc[numO + r] = e.bin("fadd", acc[numO + r], sums[r], "f32");
}

/// Softcap, the mask of edge tiles and the online softmax of tile `j`'s
/// scores. Ends in a fresh block (the mask is a branch), in which the
/// returned values are defined.
TileSoftmax SM90KernelEmitter::emitSoftmax(const string &scores,
                                           const string &j,
                                           const string oldMax[2],
                                           const string oldSum[2],
                                           const TileDescales &descales,
                                           const ScoreColumns &sc) {
  string s = scores;
  // FP8 descales: the true score of row r is dq(r) * dk(tile) * s. The
  // factor goes into the multiplications that are there anyway (softcap's,
  // or the exp2 FMA and the row max), never into a pass over the tile;
  // except K's factors per column (blocks smaller than the tile), which
  // take one multiplication per score, before the softcap and the mask.
  string rowScale[2];
  bool scaled = cfg.hasDescales();
  bool keyColumns = scaled && cfg.hasKeyFactorsPerColumn();
  if (scaled)
    for (int r = 0; r < 2; ++r)
      rowScale[r] = keyColumns
                        ? qScale[r]
                        : e.bin("fmul", qScale[r], descales.key, "f32");
  if (keyColumns) {
    SmallVector<string> factors = keyColumnFactors(descales);
    for (int64_t i = 0; i < sc.numS; ++i) {
      string x = e.def(formatv("llvm.extractvalue {0}[{1}] : {2}", s, i,
                               sc.sType).str());
      x = e.bin("fmul", x, factors[keyColumnIndex(i)], "f32");
      s = e.def(formatv("llvm.insertvalue {0}, {1}[{2}] : {3}", x, s, i,
                        sc.sType).str());
    }
  }
  if (softcap) {
    // s = softcap * tanh(scale * s / softcap); the softmax then uses scale 1.
    string inner[2], cap = e.f32(cfg.softcap);
    inner[0] = inner[1] = e.f32(cfg.scale / cfg.softcap);
    if (scaled)
      for (int r = 0; r < 2; ++r)
        inner[r] = e.bin("fmul", rowScale[r], inner[r], "f32");
    scaled = false; // the capped scores are true scores
    for (int64_t i = 0; i < sc.numS; ++i) {
      string x = e.def(formatv("llvm.extractvalue {0}[{1}] : {2}", s, i,
                               sc.sType).str());
      x = e.bin("fmul", x, inner[(i % 4) / 2], "f32");
      x = e.def(formatv("llvm.inline_asm asm_dialect = att \"tanh.approx.f32 $0, "
                        "$1;\", \"=f,f\" {0} : (f32) -> f32", x).str());
      x = e.bin("fmul", x, cap, "f32");
      s = e.def(formatv("llvm.insertvalue {0}, {1}[{2}] : {3}", x, s, i,
                        sc.sType).str());
    }
  }

  // Edge tiles (window edges, diagonal, sequence tail) are masked.
  string maskLabel = fresh("mask"), softmaxLabel = fresh("softmax");
  string needMask = e.bin("or", e.icmp("slt", j, fullLo),
                          e.icmp("sge", j, fullHi), "i1");
  e.op(formatv("llvm.cond_br {0}, ^{1}, ^{2}({3} : {4})", needMask, maskLabel,
               softmaxLabel, s, sc.sType).str());

  e.label(maskLabel);
  {
    string colBase = e.add(e.mul(j, e.i32(bn)), e.mul(quad, e.i32(2)));
    string hiRel[2], loRel[2];
    for (int r = 0; r < 2; ++r) {
      hiRel[r] = e.sub(hiLimit[r], colBase);
      loRel[r] = e.sub(loLimit[r], colBase);
    }
    string masked = s;
    for (int64_t i = 0; i < sc.numS; ++i) {
      int64_t r = (i % 4) / 2, col = keyColumnOffset(keyColumnIndex(i));
      string c = e.i32(col);
      string ok = e.bin("and", e.icmp("sle", c, hiRel[r]),
                        e.icmp("sge", c, loRel[r]), "i1");
      string x = e.def(formatv("llvm.extractvalue {0}[{1}] : {2}", masked, i,
                               sc.sType).str());
      x = e.select(ok, x, negInf, "f32");
      masked = e.def(formatv("llvm.insertvalue {0}, {1}[{2}] : {3}", x, masked,
                             i, sc.sType).str());
    }
    e.op(formatv("llvm.br ^{0}({1} : {2})", softmaxLabel, masked, sc.sType)
             .str());
  }

  // ---- online softmax on the accumulator layout ----
  string arg = "%scores_" + softmaxLabel;
  e.label(softmaxLabel, formatv("({0}: {1})", arg, sc.sType).str());
  SmallVector<string> sv = unpack(arg, sc.numS, sc.sType);
  string scaleL2 = e.f32(scaleLog2);
  string allLanes = e.i32(-1), clamp = e.i32(31);
  TileSoftmax out;
  SmallVector<string> p(sc.numS);
  const bool lazyRescale = cfg.rescaleThreshold > 0.0f;
  string grew[2];
  for (int r = 0; r < 2; ++r) {
    // With descales the max is taken over the stored scores and scaled once
    // (the factor is positive), then merged with the running max.
    string mx = scaled ? negInf : oldMax[r];
    for (int64_t i = 0; i < sc.numS; ++i)
      if ((i % 4) / 2 == r)
        mx = e.fmax(mx, sv[i]);
    // The four threads of a quad hold the same rows.
    for (int sh : {1, 2}) {
      string other = e.def(formatv("nvvm.shfl.sync bfly {0}, {1}, {2}, {3} : f32 "
                                   "-> f32", allLanes, mx, e.i32(sh), clamp).str());
      mx = e.fmax(mx, other);
    }
    string coef = scaleL2;
    if (scaled) {
      mx = e.fmax(oldMax[r], e.bin("fmul", mx, rowScale[r], "f32"));
      coef = e.bin("fmul", rowScale[r], scaleL2, "f32");
    }
    // Conditional rescaling: the row keeps its running max unless the
    // tile's exceeds it by more than 2^threshold in P (a row that has seen
    // no key, max -inf, always takes the tile's). P then stays below
    // 2^threshold, and O and l, both in units of the kept max, need no
    // rescale.
    if (lazyRescale) {
      string limit = e.bin("fadd", oldMax[r],
                           e.f32(cfg.rescaleThreshold / scaleLog2), "f32");
      grew[r] = e.fcmp("ogt", mx, limit);
      mx = e.select(grew[r], mx, oldMax[r], "f32");
    }
    out.max[r] = mx;
    // Rows that have seen no key keep max -inf; take probabilities against 0
    // so that exp2(-inf) = 0 rather than NaN.
    string negScaled = negScaledMax(mx);
    out.alpha[r] = e.ex2(e.fma(oldMax[r], scaleL2, negScaled));
    // A kept max rescales by exactly 1 (the FMA above leaves the rounding
    // error of oldMax * scale).
    if (lazyRescale)
      out.alpha[r] = e.select(grew[r], out.alpha[r], e.f32(1.0f), "f32");
    // FP8: P is taken 2^kFP8ProbabilityLog2 times larger, so that its small
    // values are e4m3 normals rather than subnormals (P <= 1 would put every
    // value below 2^-6 on the subnormal grid of step 2^-9). l grows with it,
    // so O / l is unchanged; the LSE takes the factor back out.
    string bias = cfg.isFP8()
                      ? e.bin("fadd", negScaled,
                              e.f32(static_cast<float>(kFP8ProbabilityLog2)),
                              "f32")
                      : negScaled;
    // The row sum as independent chains of adds: a warpgroup is one warp
    // per SM sub-partition, which cannot hide a dependent chain of 56 adds
    // (FP8, 224-key tiles). Two chains measured up to 3% faster with rows
    // of 48 and 56 scores, and nothing or slower with 40 or fewer
    // (docs/PERF.md, 2026-11-30; at 40, 16-bit 160-key tiles, 0.7-1%
    // slower, twenty-fifth session).
    SmallVector<string> sums(sc.numS / 2 > 40 ? 2 : 1);
    int64_t inRow = 0;
    std::pair<string, string> affine;
    if (cfg.linearExp2)
      affine = linearExp2Affine(coef, bias);
    for (int64_t i = 0; i < sc.numS; ++i) {
      if ((i % 4) / 2 != r)
        continue;
      if (cfg.linearExp2) { // l comes from the tensor cores (rowSumMma)
        p[i] = e.fmaSat(sv[i], affine.first, affine.second);
        continue;
      }
      p[i] = e.ex2(e.fma(sv[i], coef, bias));
      if (cfg.rowSumMma)
        continue;
      string &chain = sums[inRow++ % sums.size()];
      chain = chain.empty() ? p[i] : e.bin("fadd", chain, p[i], "f32");
    }
    // With rowSumMma the P V step sums the rows; the carried l stays unused.
    if (cfg.rowSumMma) {
      out.sum[r] = oldSum[r];
      continue;
    }
    string rowSum = sums[0];
    for (size_t c = 1; c < sums.size(); ++c)
      rowSum = e.bin("fadd", rowSum, sums[c], "f32");
    // l stays a per-thread partial sum; the quad reduces it at the end.
    out.sum[r] = e.fma(oldSum[r], out.alpha[r], rowSum);
  }
  // The warp skips O's rescale only when none of its rows moved its max: a
  // branch that is the same for the warp's 32 threads.
  if (skipsRescale())
    out.rescale = e.def(formatv("nvvm.vote.sync any {0}, {1} -> i1", allLanes,
                                e.bin("or", grew[0], grew[1], "i1")).str());
  out.probabilities = std::move(p);
  return out;
}

void SM90KernelEmitter::rescaleO(SmallVector<string> &o,
                                 const std::array<string, 2> &factor) {
  // With rowSumMma l of rows r and r + 8 too, in O's units.
  for (int64_t i = 0; i < numAcc; ++i)
    o[i] = e.bin("fmul", o[i], factor[accRow(i)], "f32");
}

void SM90KernelEmitter::rescaleOWhen(SmallVector<string> &o,
                                     const std::array<string, 2> &factor,
                                     const string &when) {
  if (when.empty()) {
    rescaleO(o, factor);
    return;
  }
  string yes = fresh("rescale"), done = fresh("rescaled");
  string kept = pack(o, oType);
  e.op(formatv("llvm.cond_br {0}, ^{1}, ^{2}({3} : {4})", when, yes, done,
               kept, oType).str());
  e.label(yes);
  SmallVector<string> scaled = unpack(kept, numAcc, oType);
  rescaleO(scaled, factor);
  e.op(formatv("llvm.br ^{0}({1} : {2})", done, pack(scaled, oType), oType)
           .str());
  string joined = "%" + done;
  e.label(done, formatv("({0}: {1})", joined, oType).str());
  o = unpack(joined, numAcc, oType);
}

void SM90KernelEmitter::emitConsumerSetup() {
  e.label("consumer");
  if (cfg.warpSpecialize && opts.producerRegisters > 0)
    e.op(formatv("nvvm.setmaxregister increase {0}", opts.consumerRegisters).str());
  consumerTid = cfg.warpSpecialize ? e.sub(tid, e.i32(128)) : tid;
  string ctid = consumerTid;
  wg = e.bin("udiv", ctid, e.i32(128)); // consumer warpgroup
  // K's factors per column: each thread stages its key's (tileDescales).
  if (cfg.hasKeyFactorsPerColumn())
    threadInWarpgroup = e.bin("urem", ctid, e.i32(128));
  // Broadcast from lane 0, the warpgroup index is one that ptxas knows to be
  // warp-uniform: Q's wgmma descriptors (which step by the warpgroup's 64
  // rows) then stay in uniform registers instead of taking two R2UR moves
  // before each wgmma of S = Q K^T; measured +1..2% at 16-bit head dims 64
  // and 128 and neutral for FP8. Not above 128 columns, where ptxas then
  // spills (docs/PERF.md, 2026-12-01, seventeenth session).
  if (dPad <= 128)
    wg = e.def(formatv("nvvm.shfl.sync idx {0}, {1}, {2}, {3} : i32 -> i32",
                       e.i32(-1), wg, e.i32(0), e.i32(31)).str());
  string lane = e.bin("and", tid, e.i32(31));
  string warpInWg = e.bin("and", e.bin("udiv", ctid, e.i32(32)), e.i32(3));
  quad = e.bin("and", lane, e.i32(3));
  // Accumulator layout of wgmma m64nN: thread holds rows r and r + 8, columns
  // 8i + 2*quad + {0, 1}; register 4i + {0,1} is row r, 4i + {2,3} row r + 8.
  rowInTile = e.add(e.add(e.mul(wg, e.i32(64)), e.mul(warpInWg, e.i32(16))),
                    e.bin("udiv", lane, e.i32(4)));
  if (!cfg.persistent)
    emitConsumerRows();

  qDesc = descriptor(e.mul(wg, e.i32(64 * 128)), 16);
  kDesc0 = descriptor(e.i32(layout.kOffset), 16);
  // V^T (FP8) is K-major like K; V (16-bit) is N-major, its leading byte
  // offset steps from one 64-column atom to the next.
  vDesc0 = cfg.isFP8()
               ? descriptor(e.i32(layout.vtOffset), 16)
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
    // measured 1-2% slower with them (docs/PERF.md, twentieth session).
    if (!cfg.isFP8()) {
      addFastDivisor(numQTiles);
      addFastDivisor("%heads_q");
      addFastDivisor(queryGroup);
      // The pairs of masked attention's fixed order. Not the work order's
      // tail T: with div.u32 by T the kernel measured 0.5% faster than with
      // T's multiplier and shift live in the loop (docs/PERF.md,
      // twenty-first session).
      if (cfg.isMasked() && !cfg.hasTailPairs()) // decodeWorkItem's
        addFastDivisor(workPairs);
    }
    openPingpong();
    beginWorkLoop("consume_work", pingpong() ? "consume_exit" : "exit");
    emitConsumerRows();
    if (string buffer = qBuffer(); !buffer.empty())
      qDescItem = descriptorInSlot(qDesc, buffer, layout.qBytes);
  }
  if (cfg.hasDescales())
    emitDescaleSetup();

  if (!cfg.warpSpecialize) {
    // No producer: thread 0 copies Q and fills the ring; later tiles are
    // copied as stages come back (emitLoadAhead).
    isIssuer = e.icmp("eq", tid, e.i32(0));
    e.op(formatv("llvm.cond_br {0}, ^prefill_q, ^prefill_done", isIssuer).str());
    e.label("prefill_q");
    emitQLoad();
    string end = e.smin(e.add(lo, e.i32(cfg.stages)), hi);
    e.op(formatv("llvm.br ^prefill({0} : i32)", lo).str());
    e.label("prefill", "(%fj: i32)");
    e.op(formatv("llvm.cond_br {0}, ^prefill_tile, ^prefill_done",
                 e.icmp("slt", "%fj", end)).str());
    e.label("prefill_tile");
    emitTileLoad("%fj");
    e.op(formatv("llvm.br ^prefill({0} : i32)", e.add("%fj", e.i32(1))).str());
    e.label("prefill_done");
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
  string offset = e.sub("%seq_k", "%seq_q");
  for (int r = 0; r < 2; ++r) {
    string diag = e.add(row[r], offset);
    hiLimit[r] = e.sub("%seq_k", e.i32(1));
    if (cfg.windowRight >= 0)
      hiLimit[r] = e.smin(hiLimit[r], e.add(diag, e.i32(cfg.windowRight)));
    loLimit[r] = cfg.windowLeft >= 0 ? e.sub(diag, e.i32(cfg.windowLeft))
                                     : e.i32(-(int64_t(1) << 30));
  }

  consumerHi = hi;
  if (!opts.warpgroupKVRanges)
    return;
  string firstRow = e.add(qTileRow, e.mul(wg, e.i32(64)));
  // Under a right window (causal), the last key the warpgroup's last row
  // inside the sequence sees: its tile ends the warpgroup's range.
  string end = hi;
  if (cfg.windowRight >= 0) {
    string lastRow =
        e.sub(e.smin(e.add(firstRow, e.i32(64)), "%seq_q"), e.i32(1));
    string lastKey = e.add(e.add(lastRow, offset), e.i32(cfg.windowRight));
    end = e.smin(hi, e.smax(e.bin("sdiv", e.add(lastKey, e.i32(bn)),
                                  e.i32(bn)),
                            lo));
  }
  // A warpgroup whose rows all lie past the sequence (in a last, partial Q
  // tile) computes nothing.
  consumerHi = e.select(e.icmp("slt", firstRow, "%seq_q"), end, lo);
}

void SM90KernelEmitter::releaseSkippedTiles() {
  if (!opts.warpgroupKVRanges)
    return;
  string top = fresh("skip"), body = fresh("skip_tile"), done = fresh("skipped");
  string j = "%" + top + "_j";
  e.op(formatv("llvm.br ^{0}({1} : i32)", top, consumerHi).str());
  e.label(top, formatv("({0}: i32)", j).str());
  e.op(formatv("llvm.cond_br {0}, ^{1}, ^{2}", e.icmp("slt", j, hi), body,
               done).str());
  e.label(body);
  // Tile j's full barriers complete once the producer has copied it, after
  // the stage's previous tile went back: an arrival now counts for tile j.
  string t = tileOrdinal(j), stage = stageOf(t), phase = phaseOf(t);
  waitBarrier(barrier(layout.fullKBar(), stage), phase);
  release(layout.emptyKBar(), stage);
  waitBarrier(barrier(fullValueBar(), stage), phase);
  release(emptyValueBar(), stage);
  e.op(formatv("llvm.br ^{0}({1} : i32)", top, e.add(j, e.i32(1))).str());
  e.label(done);
}

/// S = Q K^T of the tile in `stage` as a GEMM turn of its own, waited for at
/// once; K's half of the stage goes back to the producer.
string SM90KernelEmitter::scoresAlone(const string &stage, const string &phase) {
  waitBarrier(barrier(layout.fullKBar(), stage), phase);
  pingpongSync();
  string s = issueQK(stage, tile);
  pingpongArrive();
  waitGroup(0);
  s = pack(fenceValues(unpack(s, tile.numS, tile.sType), "f32"), tile.sType);
  release(layout.emptyKBar(), stage);
  return s;
}

void SM90KernelEmitter::emitSequentialLoop() {
  string oInit = e.def(formatv("llvm.mlir.zero : {0}", oType).str());
  e.op(formatv("llvm.br ^kv_loop({0}, {1}, {1}, {2}, {2}, {3}{5} : i32, f32, "
               "f32, f32, f32, {4}{6})", lo, negInf, zero, oInit, oType,
               carried(e.f32(1.0f)), carriedTypes()).str());

  e.label("kv_loop", formatv("(%j: i32, %m0: f32, %m1: f32, %l0: f32, %l1: f32, "
                             "%acc: {0}{1})", oType, carriedArgs("%dvp")).str());
  e.op(formatv("llvm.cond_br {0}, ^kv_tile, ^epilogue(%m0, %m1, %l0, %l1, %acc"
               "{2} : f32, f32, f32, f32, {1}{3})",
               e.icmp("slt", "%j", consumerHi), oType, carried("%dvp"),
               carriedTypes()).str());

  e.label("kv_tile");
  string t = tileOrdinal("%j");
  string stage = stageOf(t);
  string phase = phaseOf(t);
  TileDescales descales = tileDescales("%j");
  string s = scoresAlone(stage, phase);
  const string oldMax[2] = {"%m0", "%m1"}, oldSum[2] = {"%l0", "%l1"};
  TileSoftmax sm = emitSoftmax(s, "%j", oldMax, oldSum, descales, tile);
  sm.packedP = packProbabilities(sm.probabilities);
  // O *= alpha (and, with per-block V descales, into this tile's units).
  SmallVector<string> o = unpack("%acc", numAcc, oType);
  string valueDescale;
  rescaleOWhen(o, rescaleFactors(sm, "%dvp", descales.value, valueDescale),
               sm.rescale);

  waitBarrier(barrier(fullValueBar(), stage), phase);
  pingpongSync();
  o = issuePV(o, sm.packedP, stage, /*fence=*/true, tile);
  pingpongArrive();
  waitGroup(0);
  o = fenceValues(o, "f32");
  foldRowSums(o);
  release(emptyValueBar(), stage);
  emitLoadAhead(t);
  e.op(formatv("llvm.br ^kv_loop({0}, {1}, {2}, {3}, {4}, {5}{7} : i32, f32, "
               "f32, f32, f32, {6}{8})", e.add("%j", e.i32(1)), sm.max[0],
               sm.max[1], sm.sum[0], sm.sum[1], pack(o, oType), oType,
               carried(valueDescale), carriedTypes()).str());
}

void SM90KernelEmitter::emitOverlappedLoop() {
  string oInit = e.def(formatv("llvm.mlir.zero : {0}", oType).str());
  string empty = formatv("{0}, {0}, {1}, {1}, {2}{4} : f32, f32, f32, f32, "
                         "{3}{5}", negInf, zero, oInit, oType,
                         carried(e.f32(1.0f)), carriedTypes()).str();
  if (cfg.persistent) {
    e.op(formatv("llvm.cond_br {0}, ^ov_first, ^ov_empty",
                 e.icmp("slt", lo, consumerHi)).str());
    // No KV tile: Q goes back at once.
    e.label("ov_empty");
    releaseQ();
    handBackStoredQ();
    e.op(formatv("llvm.br ^epilogue({0})", empty).str());
  } else {
    e.op(formatv("llvm.cond_br {0}, ^ov_first, ^epilogue({1})",
                 e.icmp("slt", lo, consumerHi), empty).str());
  }

  // O is rescaled for tile j - 1 either at the end of iteration j - 1, or
  // deferred: the factors ride along the loop (%rs0, %rs1) and O is
  // rescaled after S_j is issued, while that GEMM runs, so that only the
  // wait separates one iteration's P V from the next one's GEMMs. Deferred
  // for FP8 and with conditional rescaling, whose decision rides along too
  // (%rsw): measured faster there, and slower for 16-bit types that
  // rescale after every tile (docs/PERF.md).
  const bool lazy = skipsRescale();
  const bool deferRescale = cfg.isFP8() || lazy;
  auto pending = [&](const std::array<string, 2> &factor, const string &when) {
    if (!deferRescale)
      return string();
    return ", " + factor[0] + ", " + factor[1] + (lazy ? ", " + when : "");
  };
  // The loop arguments of that state: O's factors, and with conditional
  // rescaling the warp's decision.
  SmallVector<std::pair<string, string>> pendingState;
  if (deferRescale)
    pendingState = {{"%rs0", "f32"}, {"%rs1", "f32"}};
  if (lazy)
    pendingState.push_back({"%rsw", "i1"});
  string pendingTypes, pendingArgs;
  for (const auto &[name, type] : pendingState) {
    pendingTypes += ", " + type;
    pendingArgs += ", " + name + ": " + type;
  }

  // The narrow tail (cfg.narrowTail): when the item's last tile is the
  // sequence's partial one with at most that many keys, and not its first
  // (the prologue's), the loop stops a tile early and a copy of its body on
  // that many columns computes the tile: a 64-key remainder of 224-key
  // tiles costs about a whole tile otherwise (docs/PERF.md, twenty-third
  // session).
  string narrow, loopHi = consumerHi;
  const ScoreColumns narrowColumns =
      cfg.narrowTail > 0 ? scoreColumns(cfg.narrowTail) : tile;

  // Prologue: S and P of the first tile (O is still zero: no rescale).
  e.label("ov_first");
  {
    if (cfg.narrowTail > 0) {
      string last = e.sub(consumerHi, e.i32(1));
      string keys = e.sub("%seq_k", e.mul(last, e.i32(bn)));
      narrow = e.bin("and", e.icmp("sle", keys, e.i32(cfg.narrowTail)),
                     e.icmp("sgt", last, lo), "i1");
      loopHi = e.select(narrow, last, consumerHi, "i32");
    }
    string first = tileOrdinal(lo);
    string stage = cfg.persistent ? stageOf(first) : e.i32(0);
    string phase = cfg.persistent ? phaseOf(first) : e.i32(0);
    TileDescales descales = tileDescales(lo);
    string s = scoresAlone(stage, phase);
    const string oldMax[2] = {negInf, negInf}, oldSum[2] = {zero, zero};
    TileSoftmax sm = emitSoftmax(s, lo, oldMax, oldSum, descales, tile);
    sm.packedP = packProbabilities(sm.probabilities);
    // Long after the previous item's O stores were issued.
    handBackStoredQ();
    string one = deferRescale ? e.f32(1.0f) : string();
    string none = lazy ? e.def("llvm.mlir.constant(false) : i1") : string();
    e.op(formatv("llvm.br ^ov_loop({0}, {1}, {2}, {3}, {4}, {5}, {6}{7}{8} : "
                 "i32, f32, f32, f32, f32, {9}, {10}{11}{12})",
                 e.add(lo, e.i32(1)), sm.max[0], sm.max[1], sm.sum[0],
                 sm.sum[1], oInit, pack(sm.packedP, tile.pType),
                 pending({one, one}, none),
                 carried(descales.value), oType, tile.pType, pendingTypes,
                 carriedTypes()).str());
  }

  // The last tile's P V (its rescale first when deferred), then the
  // epilogue. `j` is the tile after it; `sc` its columns.
  auto lastProduct = [&](const string &j, const string max[2],
                         const string sum[2], SmallVector<string> o,
                         ArrayRef<string> p,
                         const std::array<string, 2> &factors,
                         const string &when, const string &valueDescale,
                         const ScoreColumns &sc) {
    // Every S = Q K^T of the work item has completed.
    releaseQ();
    string prev = e.sub(tileOrdinal(j), e.i32(1));
    string prevStage = stageOf(prev);
    waitBarrier(barrier(fullValueBar(), prevStage), phaseOf(prev));
    if (deferRescale)
      rescaleOWhen(o, factors, when);
    pingpongSync();
    o = issuePV(o, p, prevStage, /*fence=*/true, sc);
    pingpongArrive();
    waitGroup(0);
    o = fenceValues(o, "f32");
    foldRowSums(o);
    release(emptyValueBar(), prevStage);
    e.op(formatv("llvm.br ^epilogue({0}, {1}, {2}, {3}, {4}{6} : f32, f32, "
                 "f32, f32, {5}{7})", max[0], max[1], sum[0], sum[1],
                 pack(o, oType), oType, carried(valueDescale),
                 carriedTypes()).str());
  };

  // Iteration j: S_j and P_{j-1} V_{j-1} on the tensor cores together, the
  // softmax of tile j while P_{j-1} V_{j-1} completes.
  e.label("ov_loop", formatv("(%j: i32, %m0: f32, %m1: f32, %l0: f32, %l1: f32, "
                             "%acc: {0}, %pp: {1}{2}{3})", oType, tile.pType,
                             pendingArgs, carriedArgs("%dvp")).str());
  e.op(formatv("llvm.cond_br {0}, ^ov_tile, ^{1}",
               e.icmp("slt", "%j", loopHi),
               narrow.empty() ? "ov_last" : "ov_end").str());
  const std::array<string, 2> carriedFactors = {"%rs0", "%rs1"};
  const string carriedWhen = lazy ? "%rsw" : "";

  // Tile j, on all of its columns, or (narrowTile) on the narrow tail's,
  // going on into the last P V.
  auto iteration = [&](bool narrowTile) {
    string t = tileOrdinal("%j"), prev = e.sub(t, e.i32(1));
    string stage = stageOf(t), prevStage = stageOf(prev);
    TileDescales descales = tileDescales("%j");
    waitBarrier(barrier(layout.fullKBar(), stage), phaseOf(t));
    waitBarrier(barrier(fullValueBar(), prevStage), phaseOf(prev));
    SmallVector<string> o = unpack("%acc", numAcc, oType);
    // P_{j-1} is a whole tile's; tile j's S, P and P V are on `sc`.
    SmallVector<string> p = unpack("%pp", tile.numP, tile.pType);
    const ScoreColumns &sc = narrowTile ? narrowColumns : tile;
    pingpongSync();
    string s = issueQK(stage, sc);
    // A deferred rescale writes the accumulator registers: fence again.
    if (deferRescale)
      rescaleOWhen(o, carriedFactors, carriedWhen);
    o = issuePV(o, p, prevStage, /*fence=*/deferRescale, tile);
    pingpongArrive();
    waitGroup(1); // S_j is done; P_{j-1} V_{j-1} may still run
    s = pack(fenceValues(unpack(s, sc.numS, sc.sType), "f32"), sc.sType);
    release(layout.emptyKBar(), stage);
    const string oldMax[2] = {"%m0", "%m1"}, oldSum[2] = {"%l0", "%l1"};
    TileSoftmax sm = emitSoftmax(s, "%j", oldMax, oldSum, descales, sc);
    // 16-bit P is packed right away (packed after the wait below, it
    // measured the same, docs/PERF.md); e4m3 P only after the wait.
    if (!cfg.isFP8())
      sm.packedP = packProbabilities(sm.probabilities);
    string valueDescale;
    std::array<string, 2> factor =
        rescaleFactors(sm, "%dvp", descales.value, valueDescale);
    waitGroup(0);
    o = fenceValues(o, "f32");
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
      lastProduct(e.add("%j", e.i32(1)), sm.max, sm.sum, o, sm.packedP,
                  factor, lazy ? sm.rescale : string(), valueDescale, sc);
      return;
    }
    e.op(formatv("llvm.br ^ov_loop({0}, {1}, {2}, {3}, {4}, {5}, {6}{7}{8} : "
                 "i32, f32, f32, f32, f32, {9}, {10}{11}{12})",
                 e.add("%j", e.i32(1)), sm.max[0], sm.max[1], sm.sum[0],
                 sm.sum[1], pack(o, oType), pack(sm.packedP, tile.pType),
                 pending(factor, sm.rescale), carried(valueDescale), oType,
                 tile.pType, pendingTypes, carriedTypes()).str());
  };
  e.label("ov_tile");
  iteration(/*narrowTile=*/false);
  if (!narrow.empty()) {
    e.label("ov_end");
    e.op(formatv("llvm.cond_br {0}, ^ov_narrow, ^ov_last", narrow).str());
    e.label("ov_narrow");
    iteration(/*narrowTile=*/true);
  }

  // Epilogue: the last tile's rescale and P V.
  e.label("ov_last");
  {
    const string max[2] = {"%m0", "%m1"}, sum[2] = {"%l0", "%l1"};
    lastProduct("%j", max, sum, unpack("%acc", numAcc, oType),
                unpack("%pp", tile.numP, tile.pType), carriedFactors,
                carriedWhen, "%dvp", tile);
  }
}

string SM90KernelEmitter::headOffset(const string &tensor,
                                     const string &headIdx) {
  return e.bin("add",
               e.bin("mul", e.zext64(batch), formatv("%{0}_stride_b", tensor).str(),
                     "i64"),
               e.bin("mul", e.zext64(headIdx),
                     formatv("%{0}_stride_h", tensor).str(), "i64"),
               "i64");
}

std::pair<string, string> SM90KernelEmitter::outputBase() {
  string oGlobal = e.def("llvm.addrspacecast %o : !llvm.ptr to !llvm.ptr<1>");
  return {oGlobal, headOffset("o", head)};
}

string SM90KernelEmitter::outputWord(ArrayRef<string> acc, const string &inv,
                                     int r, int64_t i) {
  // Sequenced: as arguments of one call the two products would be emitted
  // in the host compiler's order.
  string lo = e.bin("fmul", acc[4 * i + 2 * r], inv, "f32");
  string hi = e.bin("fmul", acc[4 * i + 2 * r + 1], inv, "f32");
  return packPair(lo, hi, cfg.outputType);
}

string SM90KernelEmitter::outputElement(const string &oGlobal,
                                        const string &offset) {
  return e.def(formatv("llvm.getelementptr {0}[{1}] : (!llvm.ptr<1>, i64) -> "
                       "!llvm.ptr<1>, i16", oGlobal, offset).str());
}

/// Each thread stores its own 4-byte pairs of columns: a warp's store
/// instruction writes 16 bytes into each of 8 rows.
void SM90KernelEmitter::storeODirect(ArrayRef<string> acc, const string inv[2]) {
  auto [oGlobal, oHeadBase] = outputBase();
  string quadCol = e.zext64(e.mul(quad, e.i32(2)));
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
      string word = outputWord(acc, inv[r], r, i);
      string off = e.bin("add", rowOff, e.i64(8 * i), "i64");
      string ptr = outputElement(oGlobal, off);
      e.op(formatv("llvm.store {0}, {1} {{alignment = 4 : i64} : i32, !llvm.ptr<1>",
                   word, ptr).str());
    }
    e.op(formatv("llvm.br ^{0}", next).str());
    e.label(next);
  }
}

/// The quad's four threads hold a row's 8-column groups 4 bytes each: a
/// 4 x 4 transpose of 32-bit words across the quad (two butterfly stages of
/// shuffles) gives thread q the whole of group 4m + q, which it stores as
/// one 16-byte unit: a quad writes 64 contiguous bytes of a row per store.
void SM90KernelEmitter::storeOQuadTransposed(ArrayRef<string> acc,
                                             const string inv[2]) {
  auto [oGlobal, oHeadBase] = outputBase();
  string quadCol = e.mul(quad, e.i32(8));
  string allLanes = e.i32(-1), clamp = e.i32(31);
  string upper[3];
  for (int mask : {1, 2})
    upper[mask] = e.icmp("ne", e.bin("and", quad, e.i32(mask)), e.i32(0));
  int64_t groups = std::min(numO / 16, (cfg.headDim + 31) / 32);
  for (int r = 0; r < 2; ++r) {
    // The shuffles need the whole warp: every row transposes, only rows
    // inside the sequence store.
    SmallVector<string> vecs;
    for (int64_t m = 0; m < groups; ++m) {
      string w[4];
      for (int j = 0; j < 4; ++j)
        w[j] = outputWord(acc, inv[r], r, 4 * m + j);
      // Stage `mask`: word x of thread q stays where bit `mask` of x and q
      // agree, else it comes from word x ^ mask of thread q ^ mask.
      for (int mask : {2, 1})
        for (int x = 0; x < 4; ++x) {
          if (x & mask)
            continue;
          string send = e.select(upper[mask], w[x], w[x | mask]);
          string recv = e.def(formatv("nvvm.shfl.sync bfly {0}, {1}, {2}, {3} : "
                                      "i32 -> i32", allLanes, send, e.i32(mask),
                                      clamp).str());
          w[x] = e.select(upper[mask], recv, w[x]);
          w[x | mask] = e.select(upper[mask], w[x | mask], recv);
        }
      string vec = e.def("llvm.mlir.poison : vector<4xi32>");
      for (int j = 0; j < 4; ++j)
        vec = e.def(formatv("llvm.insertelement {0}, {1}[{2} : i32] : "
                            "vector<4xi32>", w[j], vec, e.i32(j)).str());
      vecs.push_back(vec);
    }
    string next = "store_done" + str(r);
    string body = "store_row" + str(r);
    e.op(formatv("llvm.cond_br {0}, ^{1}, ^{2}", e.icmp("slt", row[r], "%seq_q"),
                 body, next).str());
    e.label(body);
    string rowOff = e.bin("mul", e.zext64(row[r]), "%o_stride_s", "i64");
    rowOff = e.bin("add", e.bin("add", oHeadBase, rowOff, "i64"),
                   e.zext64(quadCol), "i64");
    for (int64_t m = 0; m < groups; ++m) {
      string ptr =
          outputElement(oGlobal, e.bin("add", rowOff, e.i64(32 * m), "i64"));
      string store = formatv("llvm.store {0}, {1} {{alignment = 16 : i64} : "
                             "vector<4xi32>, !llvm.ptr<1>", vecs[m], ptr).str();
      if (32 * (m + 1) <= cfg.headDim) {
        e.op(store);
        continue;
      }
      // The last group straddles the head dim: thread q stores group 4m + q
      // only if it lies inside.
      string in = fresh("unit_in"), done = fresh("unit_out");
      e.op(formatv("llvm.cond_br {0}, ^{1}, ^{2}",
                   e.icmp("slt", e.add(quadCol, e.i32(32 * m)),
                          e.i32(cfg.headDim)), in, done).str());
      e.label(in);
      e.op(store);
      e.op(formatv("llvm.br ^{0}", done).str());
      e.label(done);
    }
    e.op(formatv("llvm.br ^{0}", next).str());
    e.label(next);
  }
}

/// Q's layout: atoms of 64 columns, 128-byte rows, 16-byte units swizzled by
/// row % 8, so that each store instruction hits 8 distinct units (no bank
/// conflict); it is also the layout of a 128B-swizzled TMA box.
void SM90KernelEmitter::writeOToShared(ArrayRef<string> acc,
                                       const string inv[2],
                                       const string &bufferOffset) {
  int64_t atomBytes = cfg.blockM * 128;
  // Rows r and r + 8 of the thread share row % 8, hence the swizzle.
  string swizzle = e.bin("shl", e.bin("and", rowInTile, e.i32(7)), e.i32(4));
  string quadByte = e.mul(quad, e.i32(4));
  for (int r = 0; r < 2; ++r) {
    string rowByte = e.add(e.mul(e.add(rowInTile, e.i32(8 * r)), e.i32(128)),
                           quadByte);
    for (int64_t i = 0; i < numO / 4; ++i) {
      string word = outputWord(acc, inv[r], r, i);
      string unit = e.bin("xor", swizzle, e.i32((i % 8) * 16));
      string off = e.add(e.add(rowByte, unit), e.i32((i / 8) * atomBytes));
      e.op(formatv("llvm.store {0}, {1} {{alignment = 4 : i64} : i32, "
                   "!llvm.ptr<3>", word,
                   e.smemPtr(base, e.add(bufferOffset, off))).str());
    }
  }
  // A TMA store reads the tile through the async proxy.
  if (cfg.tmaStore)
    e.op("nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = "
         "#nvvm.shared_space<cta>}");
  warpgroupBarrier();
}

void SM90KernelEmitter::storeOByTma(ArrayRef<string> acc, const string inv[2]) {
  bool ownBuffer = cfg.hasOwnOutputBuffer();
  string buffer = ownBuffer ? e.i32(layout.oOffset) : qBufferOffset();
  string issuer = isStoreIssuer();
  if (ownBuffer) {
    // The warpgroup's rows of the buffer hold the previous item's O until
    // its TMA stores have read them: the issuer waits for that (long done,
    // an item later) and the warpgroup's barrier tells the others.
    string wait = fresh("o_reads_wait"), free = fresh("o_reads_done");
    e.op(formatv("llvm.cond_br {0}, ^{1}, ^{2}", issuer, wait, free).str());
    e.label(wait);
    e.op("nvvm.cp.async.bulk.wait_group 0 {read}");
    e.op(formatv("llvm.br ^{0}", free).str());
    e.label(free);
    warpgroupBarrier();
  }
  writeOToShared(acc, inv, buffer);
  // Only Q's buffer goes back: the other threads are done with it, and the
  // issuer hands it back in the next item (handBackStoredQ).
  string issue = fresh("o_tma"), done = fresh("o_stored");
  string others = ownBuffer ? done : fresh("o_hand_back");
  e.op(formatv("llvm.cond_br {0}, ^{1}, ^{2}", issuer, issue, others).str());
  e.label(issue);
  string rows = e.mul(wg, e.i32(64));
  for (int64_t c = 0; c < cfg.outputChunks(); ++c) {
    string src = e.add(buffer, e.add(e.i32(c * cfg.blockM * 128),
                                     e.mul(rows, e.i32(128))));
    e.op(formatv("nvvm.cp.async.bulk.tensor.global.shared.cta %o_map, {0}, "
                 "box[{1}, {2}, {3}, {4}] : !llvm.ptr, !llvm.ptr<3>",
                 e.smemPtr(base, src),
                 e.i32(c * SM90KernelConfig::kOutputAtomColumns),
                 e.add(qTileRow, rows), head, batch).str());
  }
  e.op("nvvm.cp.async.bulk.commit.group");
  e.op(formatv("llvm.br ^{0}", done).str());
  if (!ownBuffer) {
    e.label(others);
    arriveQEmpty();
    e.op(formatv("llvm.br ^{0}", done).str());
  }
  e.label(done);
}

void SM90KernelEmitter::handBackStoredQ() {
  if (!cfg.storesOThroughQBuffer())
    return;
  string back = fresh("stored_q_back"), done = fresh("stored_q_done");
  string previous = e.bin("and", e.icmp("ugt", workOrdinal, e.i32(0)),
                          isStoreIssuer(), "i1");
  e.op(formatv("llvm.cond_br {0}, ^{1}, ^{2}", previous, back, done).str());
  e.label(back);
  e.op("nvvm.cp.async.bulk.wait_group 0 {read}");
  // The previous item's buffer: the other one of the two.
  e.op(formatv("nvvm.mbarrier.arrive {0} : !llvm.ptr<3>",
               qBarrier(layout.qEmptyBar1(), layout.qEmptyBar())).str());
  e.op(formatv("llvm.br ^{0}", done).str());
  e.label(done);
}

/// The warpgroup writes its 64 rows of O / l into its own rows of Q's
/// buffer (writeOToShared), then copies whole 16-byte units out,
/// consecutive threads along a row: a warp's store writes 512 contiguous
/// bytes (d 256) or two rows of 256, instead of 16 bytes into each of 8
/// rows. The kernel ABI's 16-byte alignment of o and of its strides
/// (align_bytes) makes the 16-byte stores legal.
void SM90KernelEmitter::storeOStaged(ArrayRef<string> acc, const string inv[2]) {
  int64_t atomBytes = cfg.blockM * 128;
  writeOToShared(acc, inv, e.i32(0));

  auto [oGlobal, oHeadBase] = outputBase();
  string thread = e.bin("and", tid, e.i32(127));
  int64_t unitsPerRow = dPad / 8;
  for (int64_t k = 0; k < 64 * unitsPerRow / 128; ++k) {
    string index = e.add(e.i32(k * 128), thread);
    string rowInWg = e.bin("udiv", index, e.i32(unitsPerRow));
    string unitInRow = e.bin("urem", index, e.i32(unitsPerRow));
    string tileRow = e.add(e.mul(wg, e.i32(64)), rowInWg);
    string unit = e.bin("xor", e.bin("and", unitInRow, e.i32(7)),
                        e.bin("and", tileRow, e.i32(7)));
    string off = e.add(e.add(e.mul(e.bin("lshr", unitInRow, e.i32(3)),
                                   e.i32(atomBytes)),
                             e.mul(tileRow, e.i32(128))),
                       e.bin("shl", unit, e.i32(4)));
    string vec = e.def(formatv("llvm.load {0} {{alignment = 16 : i64} : "
                               "!llvm.ptr<3> -> vector<4xi32>",
                               e.smemPtr(base, off)).str());
    string seqRow = e.add(qTileRow, tileRow), col = e.mul(unitInRow, e.i32(8));
    string inside = e.icmp("slt", seqRow, "%seq_q");
    if (cfg.headDim < dPad)
      inside = e.bin("and", inside, e.icmp("slt", col, e.i32(cfg.headDim)), "i1");
    string body = fresh("store_unit"), next = fresh("unit_done");
    e.op(formatv("llvm.cond_br {0}, ^{1}, ^{2}", inside, body, next).str());
    e.label(body);
    string elem = e.bin("add", oHeadBase,
                        e.bin("add", e.bin("mul", e.zext64(seqRow), "%o_stride_s", "i64"),
                              e.zext64(col), "i64"), "i64");
    string ptr = outputElement(oGlobal, elem);
    e.op(formatv("llvm.store {0}, {1} {{alignment = 16 : i64} : vector<4xi32>, "
                 "!llvm.ptr<1>", vec, ptr).str());
    e.op(formatv("llvm.br ^{0}", next).str());
    e.label(next);
  }
}

// ---- epilogue: O / l, LSE, stores of the rows inside the sequence ----
void SM90KernelEmitter::emitEpilogue() {
  e.label("epilogue", formatv("(%fm0: f32, %fm1: f32, %fl0: f32, %fl1: f32, "
                              "%facc: {0}{1})", oType,
                              carriedArgs("%fdv")).str());
  // The turns close with the kernel (persistent: after the last item).
  if (!cfg.persistent)
    closePingpong();
  // The plain loop hands Q back here (the overlapped one after its last S).
  if (!opts.intraWarpgroupOverlap)
    releaseQ();
  string finalMax[2] = {"%fm0", "%fm1"}, finalSum[2] = {"%fl0", "%fl1"};
  string finalAcc = "%facc";
  if (cfg.splitTail)
    emitTailCombine(finalMax, finalSum, finalAcc, "consume_next");
  string allLanes = e.i32(-1), clamp = e.i32(31);
  string inv[2], lse[2];
  SmallVector<string> accVals = unpack(finalAcc, numAcc, oType);
  for (int r = 0; r < 2; ++r) {
    // l: the whole row's sum in every thread of the quad (rowSumMma), or
    // each thread's share of the columns, added up across the quad.
    string l = cfg.rowSumMma ? accVals[numO + r] : finalSum[r];
    if (!cfg.rowSumMma)
      for (int sh : {1, 2}) {
        string other = e.def(formatv("nvvm.shfl.sync bfly {0}, {1}, {2}, {3} : "
                                     "f32 -> f32", allLanes, l, e.i32(sh),
                                     clamp).str());
        l = e.bin("fadd", l, other, "f32");
      }
    string hasKeys = e.fcmp("ogt", l, zero);
    // FP8: O is in units of V's descale (of the last tile, when per block).
    string unit = carryValueDescale ? string("%fdv")
                  : !valueScale.empty() ? valueScale
                                        : e.f32(1.0f);
    string recip = e.bin("fdiv", unit, l, "f32");
    inv[r] = e.select(hasKeys, recip, zero, "f32");
    if (cfg.hasLse) {
      string lg2 = e.def(formatv("llvm.inline_asm asm_dialect = att \"lg2.approx.f32 "
                                 "$0, $1;\", \"=f,f\" {0} : (f32) -> f32", l).str());
      if (cfg.isFP8()) // l is 2^kFP8ProbabilityLog2 times the true sum
        lg2 = e.bin("fsub", lg2,
                    e.f32(static_cast<float>(kFP8ProbabilityLog2)), "f32");
      string value = e.fma(finalMax[r], e.f32(softmaxScale),
                           e.bin("fmul", lg2, e.f32(kLn2), "f32"));
      lse[r] = e.select(hasKeys, value, negInf, "f32");
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
    string lseGlobal = e.def("llvm.addrspacecast %lse : !llvm.ptr to !llvm.ptr<1>");
    string lseHeadBase = headOffset("lse", head);
    for (int r = 0; r < 2; ++r) {
      // The quad's first thread stores the row's LSE.
      string next = "lse_done" + str(r), body = "store_lse" + str(r);
      string store = e.bin("and", e.icmp("slt", row[r], "%seq_q"),
                           e.icmp("eq", quad, e.i32(0)), "i1");
      e.op(formatv("llvm.cond_br {0}, ^{1}, ^{2}", store, body, next).str());
      e.label(body);
      string off = e.bin("add", lseHeadBase, e.zext64(row[r]), "i64");
      string ptr = e.def(formatv("llvm.getelementptr {0}[{1}] : (!llvm.ptr<1>, "
                                 "i64) -> !llvm.ptr<1>, f32", lseGlobal, off).str());
      e.op(formatv("llvm.store {0}, {1} {{alignment = 4 : i64} : f32, !llvm.ptr<1>",
                   lse[r], ptr).str());
      e.op(formatv("llvm.br ^{0}", next).str());
      e.label(next);
    }
  }
  // After O is out: the tiles this warpgroup skips are the other
  // warpgroups' last ones, which they are still computing.
  releaseSkippedTiles();
  if (!cfg.persistent) {
    e.op("llvm.br ^exit");
    return;
  }
  // The split tail's pieces without an item's first tile come here from
  // emitTailCombine.
  if (cfg.splitTail) {
    e.op("llvm.br ^consume_next");
    e.label("consume_next");
  }
  endWorkLoop("consume_work");
  if (pingpong()) {
    e.label("consume_exit");
    closePingpong();
    e.op("llvm.br ^exit");
  }
}

string SM90KernelEmitter::emit() {
  string text = signature();
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
  e.label("exit");
  // Shared memory must outlive the last TMA stores' reads.
  if (cfg.tmaStore)
    e.op("nvvm.cp.async.bulk.wait_group 0 {read}");
  e.op("llvm.return");
  text += e.text;
  text += "  }\n";
  return text;
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

std::string mlir::fattn::emitSM90KernelText(const SM90KernelConfig &config,
                                            const SM90Options &options) {
  return SM90KernelEmitter(config, options).emit();
}
