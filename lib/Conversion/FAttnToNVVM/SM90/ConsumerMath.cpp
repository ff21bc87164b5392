//===- ConsumerMath.cpp - sm_90a kernel: the math of one KV tile ----------===//
//
// The sm_90a kernel is built op by op through KernelBuilder into an
// llvm.func of NVVM and LLVM operations (no text is parsed); this file holds
// its signature and the consumers' math of one KV tile.
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
// and pingpong are described at SM90KernelEmitter (KernelEmitter.h) and
// built in ConsumerLoops.cpp; the epilogue in Epilogue.cpp. The entry block,
// the work items (and the persistent loop over them), the copies and the
// producer warpgroup are in Entry.cpp. FP8 kernels differ in the producer
// (V staged and transposed into a V^T ring), the k32 e4m3 wgmmas, P as e4m3
// and the descales: FP8Kernel.cpp.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

using namespace mlir;
using namespace mlir::fattn;
using namespace mlir::fattn::sm90;

LLVM::LLVMFuncOp SM90KernelEmitter::signature() {
  Type ptr = e.ptr(), i32 = e.i32(), i64 = e.i64();
  SmallVector<KernelParam> params = {
      {"q", ptr}, {"k", ptr}, {"v", ptr}, {"o", ptr}};
  if (cfg.hasLse)
    params.push_back({"lse", ptr});
  if (cfg.splitTail)
    params.push_back({"workspace", ptr});
  for (const char *n : {"batch", "heads_q", "heads_kv", "seq_q", "seq_k"})
    params.push_back({n, i32});
  if (cfg.hasTailPairs())
    params.push_back({"tail_pairs", i32});
  for (const char *t : {"q", "k", "v", "o"})
    for (const char *d : {"b", "h", "s"})
      params.push_back({string(t) + "_stride_" + d, i64});
  if (cfg.hasLse) {
    params.push_back({"lse_stride_b", i64});
    params.push_back({"lse_stride_h", i64});
  }
  if (cfg.hasDescales()) {
    for (const char *t : {"q", "k", "v"})
      params.push_back({string(t) + "_descale", ptr});
    for (const char *t : {"q", "k", "v"})
      for (const char *d : {"b", "h", "blk"})
        params.push_back({string(t) + "_descale_stride_" + d, i64});
  }
  SmallVector<const char *> maps = {"q", "k", "v"};
  if (cfg.tmaStore)
    maps.push_back("o");
  for (const char *t : maps)
    params.push_back({string(t) + "_map", ptr, /*tensorMap=*/true});
  // Runtime scalars last (describeSM90Kernel: `scale` or `scale_log2` and
  // `rescale_margin`, then `softcap`).
  if (cfg.dynamicScale)
    params.push_back({cfg.takesScaleLog2() ? "scale_log2" : "scale", e.f32()});
  if (cfg.takesRescaleMargin())
    params.push_back({"rescale_margin", e.f32()});
  if (cfg.dynamicSoftcap)
    params.push_back({"softcap", e.f32()});
  return e.beginFunction(cfg.name, params, cfg.threads());
}

void SM90KernelEmitter::loadRuntimeScalars() {
  if (cfg.dynamicSoftcap)
    softcapParam = e.arg("softcap");
  if (cfg.takesScaleLog2()) {
    // Used as they come, never derived from: ptxas then reads them from
    // uniform registers, and no register of a thread holds them (or a
    // product of them) through the loops, whose budget is tight.
    scaleLog2Param = e.arg("scale_log2");
    if (cfg.takesRescaleMargin())
      rescaleMarginParam = e.arg("rescale_margin");
    return;
  }
  // With a softcap the softmax's scale is 1, a constant; scale / softcap
  // multiplies the scores once per tile.
  Value scale = cfg.dynamicScale ? e.arg("scale") : Value();
  if (softcap && (scale || softcapParam))
    softcapInnerParam =
        e.fdiv(scale ? scale : e.f32(cfg.scale),
               softcapParam ? softcapParam : e.f32(cfg.softcap));
}

SmallVector<Value> SM90KernelEmitter::packProbabilities(ArrayRef<Value> p) {
  if (cfg.isFP8())
    return packProbabilitiesE4M3(p);
  SmallVector<Value> packed;
  for (size_t i = 0; i + 1 < p.size(); i += 2)
    packed.push_back(packPair(p[i], p[i + 1], halfType(cfg.elementType)));
  return packed;
}

Value SM90KernelEmitter::packPair(Value a, Value b, Type half) {
  return target<SM90PackPairOp>(a, b, half);
}

SmallVector<Value> SM90KernelEmitter::unpack(Value aggregate, int64_t n) {
  SmallVector<Value> values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back(e.extractValue(aggregate, i));
  return values;
}

Value SM90KernelEmitter::pack(ArrayRef<Value> values, Type type) {
  Value aggregate = e.poison(type);
  for (size_t i = 0; i < values.size(); ++i)
    aggregate = e.insertValue(aggregate, values[i], i);
  return aggregate;
}

/// Passes `values` through an empty asm statement that claims to rewrite
/// them. Placed right after a wgmma.wait_group, it keeps LLVM from moving
/// any use of a wgmma result above the wait (the results are plain SSA
/// values to LLVM, but the registers are written asynchronously).
SmallVector<Value> SM90KernelEmitter::fenceValues(ArrayRef<Value> values) {
  int64_t n = values.size();
  Type elem = values.front().getType();
  string cons;
  for (int64_t i = 0; i < n; ++i)
    cons += (i ? "," : "") + string(isa<FloatType>(elem) ? "=f" : "=r");
  for (int64_t i = 0; i < n; ++i)
    cons += "," + str(i);
  Value result = e.inlineAsm(e.structOf(n, elem), "", cons, values,
                             /*sideEffects=*/true);
  return unpack(result, n);
}

Value SM90KernelEmitter::issueQK(Value stage, const ScoreColumns &sc) {
  Value kDesc = descriptorInSlot(kDesc0, stage, layout.kStageBytes);
  wgmmaFence();
  Value s = e.zero(sc.sType);
  // Every k step is 32 bytes of a row: 16 16-bit or 32 e4m3 elements.
  for (int64_t kk = 0; kk < dPad / kStep; ++kk) {
    int64_t c = kk / 4, within = kk % 4; // 128-byte atom, 32-byte step
    Value da = e.add(qDescItem ? qDescItem : qDesc,
                     e.i64(c * cfg.blockM * 8 + within * 2));
    Value db = e.add(kDesc, e.i64(c * bn * 8 + within * 2));
    s = target<SM90WgmmaOp>(sc.sType, da, db, s, operandType,
                            /*accumulate=*/kk != 0);
  }
  wgmmaCommit();
  return s;
}

SmallVector<Value> SM90KernelEmitter::issuePV(ArrayRef<Value> oIn,
                                              ArrayRef<Value> pPacked,
                                              Value stage, bool fence,
                                              const ScoreColumns &sc) {
  int64_t stageBytes = cfg.isFP8() ? layout.vtStageBytes : layout.vStageBytes;
  Value vDesc = descriptorInSlot(vDesc0, stage, stageBytes);
  if (fence)
    wgmmaFence();
  // 16-bit: B = V as stored (N-major, transposed); e4m3: B = V^T, K-major
  // (fp8 wgmma has no transpose).
  const bool transposeV = !cfg.isFP8();
  // acc + P B (P B alone without `accumulate`) on the registers `acc`.
  auto rsWgmma = [&](ArrayRef<Value> acc, ArrayRef<Value> a, Value desc,
                     bool accumulate, bool transposeB) {
    Value result =
        target<SM90WgmmaRsOp>(e.structOf(acc.size(), e.f32()), a, desc, acc,
                              operandType, accumulate, transposeB);
    return unpack(result, acc.size());
  };
  SmallVector<Value> o(oIn.begin(), oIn.begin() + numO);
  // rowSumMma: each k step's P also against the ones tile (K-major: no
  // transpose, which e4m3 lacks anyway; 8 rows of 32 bytes in its atom),
  // into an accumulator of this tile only: the first step does not add
  // (scale-d 0). A fresh sum per tile matters for e4m3, whose wgmma adds
  // to its accumulator with fewer bits than f32: with l accumulated over
  // whole rows, O's error at 16k keys grew sixfold (docs/PERF.md).
  Value onesDesc;
  tileRowSums.clear();
  if (cfg.rowSumMma) {
    // V's first descriptor moved to the tile (the same swizzle; the leading
    // byte offset is unused): no register held across the loop.
    int64_t vFirst = cfg.isFP8() ? layout.vtOffset : layout.vOffset;
    onesDesc = e.add(vDesc0, e.i64((layout.onesOffset - vFirst) >> 4));
    tileRowSums.assign(4, zero);
  }
  auto addRowSums = [&](ArrayRef<Value> a, bool first) {
    if (!cfg.rowSumMma)
      return;
    tileRowSums = rsWgmma(tileRowSums, a, onesDesc, /*accumulate=*/!first,
                          /*transposeB=*/false);
  };
  auto result = [&] {
    wgmmaCommit();
    o.append(oIn.begin() + numO, oIn.end());
    return o;
  };
  if (cfg.isFP8()) {
    // V^T: head-dim rows of 128-key atoms; a 32-key step is 32 bytes of a
    // row, a 64-column part of O starts 64 rows further.
    for (int64_t kk = 0; kk < sc.columns / kStep; ++kk) {
      ArrayRef<Value> a(pPacked.data() + 4 * kk, 4);
      int64_t step = (kk / 4) * cfg.headDimV * 8 + (kk % 4) * 2;
      if (opts.wideValueMma) {
        o = rsWgmma(o, a, e.add(vDesc, e.i64(step)), /*accumulate=*/true,
                    transposeV);
      } else {
        for (int64_t c = 0; c < dPadV / 64; ++c) {
          Value desc = e.add(vDesc, e.i64(step + c * 64 * 8));
          SmallVector<Value> part(o.begin() + 32 * c, o.begin() + 32 * (c + 1));
          part = rsWgmma(part, a, desc, /*accumulate=*/true, transposeV);
          std::copy(part.begin(), part.end(), o.begin() + 32 * c);
        }
      }
      addRowSums(a, kk == 0);
    }
    return result();
  }
  for (int64_t kk = 0; kk < sc.columns / 16; ++kk) {
    ArrayRef<Value> a(pPacked.data() + 4 * kk, 4);
    if (opts.wideValueMma) {
      Value desc = e.add(vDesc, e.i64(kk * 128));
      o = rsWgmma(o, a, desc, /*accumulate=*/true, transposeV);
    } else {
      for (int64_t c = 0; c < chunksV; ++c) {
        Value desc = e.add(vDesc, e.i64(c * bn * 8 + kk * 128));
        SmallVector<Value> part(o.begin() + 32 * c, o.begin() + 32 * (c + 1));
        part = rsWgmma(part, a, desc, /*accumulate=*/true, transposeV);
        std::copy(part.begin(), part.end(), o.begin() + 32 * c);
      }
    }
    addRowSums(a, kk == 0);
  }
  return result();
}

void SM90KernelEmitter::foldRowSums(SmallVector<Value> &acc) {
  if (!cfg.rowSumMma)
    return;
  // Registers 0 and 2: rows r and r + 8 (the other two are the same sums).
  SmallVector<Value> sums = fenceValues({tileRowSums[0], tileRowSums[2]});
  for (int r = 0; r < 2; ++r)
    acc[numO + r] = e.fadd(acc[numO + r], sums[r]);
}

/// Softcap, the mask of edge tiles and the online softmax of tile `j`'s
/// scores. Ends in a fresh block (the mask is a branch), in which the
/// returned values are defined.
TileSoftmax SM90KernelEmitter::emitSoftmax(Value scores, Value j,
                                           const Value oldMax[2],
                                           const Value oldSum[2],
                                           const TileDescales &descales,
                                           const ScoreColumns &sc) {
  Value s = scores;
  // FP8 descales: the true score of row r is dq(r) * dk(tile) * s. The
  // factor goes into the multiplications that are there anyway (softcap's,
  // or the exp2 FMA and the row max), never into a pass over the tile;
  // except K's factors per column (blocks smaller than the tile), which
  // take one multiplication per score, before the softcap and the mask.
  Value rowScale[2];
  bool scaled = cfg.hasDescales();
  bool keyColumns = scaled && cfg.hasKeyFactorsPerColumn();
  if (scaled)
    for (int r = 0; r < 2; ++r)
      rowScale[r] = keyColumns ? qScale[r] : e.fmul(qScale[r], descales.key);
  if (keyColumns) {
    SmallVector<Value> factors = keyColumnFactors(descales);
    for (int64_t i = 0; i < sc.numS; ++i) {
      Value x = e.extractValue(s, i);
      x = e.fmul(x, factors[keyColumnIndex(i)]);
      s = e.insertValue(s, x, i);
    }
  }
  if (softcap) {
    // s = softcap * tanh(scale * s / softcap); the softmax then uses scale 1.
    Value inner[2], cap = softcapParam ? softcapParam : e.f32(cfg.softcap);
    inner[0] = inner[1] = softcapInnerParam
                              ? softcapInnerParam
                              : e.f32(cfg.scale / cfg.softcap);
    if (scaled)
      for (int r = 0; r < 2; ++r)
        inner[r] = e.fmul(rowScale[r], inner[r]);
    scaled = false; // the capped scores are true scores
    for (int64_t i = 0; i < sc.numS; ++i) {
      Value x = e.extractValue(s, i);
      x = e.fmul(x, inner[(i % 4) / 2]);
      x = e.tanh(x);
      x = e.fmul(x, cap);
      s = e.insertValue(s, x, i);
    }
  }

  // Edge tiles (window edges, diagonal, sequence tail) are masked.
  string maskLabel = fresh("mask"), softmaxLabel = fresh("softmax");
  Value needMask =
      e.orI(e.icmp(ICmp::slt, j, fullLo), e.icmp(ICmp::sge, j, fullHi));
  e.condBr(needMask, maskLabel, {}, softmaxLabel, {s});

  e.place(maskLabel);
  {
    Value colBase = e.add(e.mul(j, e.i32(bn)), e.mul(quad, e.i32(2)));
    Value hiRel[2], loRel[2];
    for (int r = 0; r < 2; ++r) {
      hiRel[r] = e.sub(hiLimit[r], colBase);
      loRel[r] = e.sub(loLimit[r], colBase);
    }
    Value masked = s;
    for (int64_t i = 0; i < sc.numS; ++i) {
      int64_t r = (i % 4) / 2, col = keyColumnOffset(keyColumnIndex(i));
      Value c = e.i32(col);
      Value ok = e.andI(e.icmp(ICmp::sle, c, hiRel[r]),
                        e.icmp(ICmp::sge, c, loRel[r]));
      Value x = e.extractValue(masked, i);
      x = e.select(ok, x, negInf);
      masked = e.insertValue(masked, x, i);
    }
    e.br(softmaxLabel, {masked});
  }

  // ---- online softmax on the accumulator layout ----
  auto softmaxArgs = e.place(softmaxLabel, {sc.sType});
  Value arg = softmaxArgs[0];
  SmallVector<Value> sv = unpack(arg, sc.numS);
  Value scaleL2 = scaleLog2Value();
  Value allLanes = e.i32(-1);
  TileSoftmax out;
  SmallVector<Value> p(sc.numS);
  const bool lazyRescale = cfg.rescaleThreshold > 0.0f;
  Value grew[2];
  for (int r = 0; r < 2; ++r) {
    // With descales the max is taken over the stored scores and scaled once
    // (the factor is positive), then merged with the running max.
    Value mx = scaled ? negInf : oldMax[r];
    for (int64_t i = 0; i < sc.numS; ++i)
      if ((i % 4) / 2 == r)
        mx = e.fmax(mx, sv[i]);
    // The four threads of a quad hold the same rows.
    mx = target<SM90QuadReduceOp>(SM90QuadReduceKind::Max, mx);
    Value coef = scaleL2;
    if (scaled) {
      mx = e.fmax(oldMax[r], e.fmul(mx, rowScale[r]));
      coef = e.fmul(rowScale[r], scaleL2);
    }
    // Conditional rescaling: the row keeps its running max unless the
    // tile's exceeds it by more than 2^threshold in P (a row that has seen
    // no key, max -inf, always takes the tile's). P then stays below
    // 2^threshold, and O and l, both in units of the kept max, need no
    // rescale.
    if (lazyRescale) {
      // max > kept + threshold / scaleLog2: one add off the max's path. A
      // runtime scale's margin comes with it (`rescale_margin`), so that
      // the test costs no more than with a constant. The first tile's kept
      // max is -inf: any max above it is taken.
      Value margin = rescaleMarginParam
                         ? rescaleMarginParam
                         : e.f32(cfg.rescaleThreshold / scaleLog2);
      grew[r] = e.fcmp(FCmp::ogt, mx,
                       oldMax[r] == negInf ? negInf
                                           : e.fadd(oldMax[r], margin));
      mx = e.select(grew[r], mx, oldMax[r]);
    }
    out.max[r] = mx;
    // Rows that have seen no key keep max -inf; take probabilities against 0
    // so that exp2(-inf) = 0 rather than NaN.
    Value negScaled = negScaledMax(mx);
    out.alpha[r] = e.ex2(e.fma(oldMax[r], scaleL2, negScaled));
    // A kept max rescales by exactly 1 (the FMA above leaves the rounding
    // error of oldMax * scale).
    if (lazyRescale)
      out.alpha[r] = e.select(grew[r], out.alpha[r], e.f32(1.0f));
    // FP8: P is taken 2^kFP8ProbabilityLog2 times larger, so that its small
    // values are e4m3 normals rather than subnormals (P <= 1 would put every
    // value below 2^-6 on the subnormal grid of step 2^-9). l grows with it,
    // so O / l is unchanged; the LSE takes the factor back out.
    Value bias =
        cfg.isFP8()
            ? e.fadd(negScaled, e.f32(static_cast<float>(kFP8ProbabilityLog2)))
            : negScaled;
    // The row sum as independent chains of adds: a warpgroup is one warp
    // per SM sub-partition, which cannot hide a dependent chain of 56 adds
    // (FP8, 224-key tiles). Two chains measured up to 3% faster with rows
    // of 48 and 56 scores, and nothing or slower with 40 or fewer
    // (docs/PERF.md, 2026-11-30; at 40, 16-bit 160-key tiles, 0.7-1%
    // slower, 2026-12-02).
    SmallVector<Value> sums(sc.numS / 2 > 40 ? 2 : 1);
    int64_t inRow = 0;
    std::pair<Value, Value> affine;
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
      Value &chain = sums[inRow++ % sums.size()];
      chain = !chain ? p[i] : e.fadd(chain, p[i]);
    }
    // With rowSumMma the P V step sums the rows; the carried l stays unused.
    if (cfg.rowSumMma) {
      out.sum[r] = oldSum[r];
      continue;
    }
    Value rowSum = sums[0];
    for (size_t c = 1; c < sums.size(); ++c)
      rowSum = e.fadd(rowSum, sums[c]);
    // l stays a per-thread partial sum; the quad reduces it at the end.
    out.sum[r] = e.fma(oldSum[r], out.alpha[r], rowSum);
  }
  // The warp skips O's rescale only when none of its rows moved its max: a
  // branch that is the same for the warp's 32 threads.
  if (skipsRescale())
    out.rescale = e.voteAny(allLanes, e.orI(grew[0], grew[1]));
  out.probabilities = std::move(p);
  return out;
}

void SM90KernelEmitter::rescaleO(SmallVector<Value> &o,
                                 const std::array<Value, 2> &factor) {
  // With rowSumMma l of rows r and r + 8 too, in O's units.
  for (int64_t i = 0; i < numAcc; ++i)
    o[i] = e.fmul(o[i], factor[accRow(i)]);
}

void SM90KernelEmitter::rescaleOWhen(SmallVector<Value> &o,
                                     const std::array<Value, 2> &factor,
                                     Value when) {
  if (!when) {
    rescaleO(o, factor);
    return;
  }
  string yes = fresh("rescale"), done = fresh("rescaled");
  Value kept = pack(o, oType);
  e.condBr(when, yes, {}, done, {kept});
  e.place(yes);
  SmallVector<Value> scaled = unpack(kept, numAcc);
  rescaleO(scaled, factor);
  e.br(done, {pack(scaled, oType)});
  auto joined = e.place(done, {oType});
  o = unpack(joined[0], numAcc);
}
