//===- MainKernel.cpp - the sm_80 backward's main kernel ------------------===//
//
// One CTA per (KV tile, KV head, batch), 4 warps; warp w owns keys
// [16w, 16w + 16) of the KV tile for dK and dV, and rows [16w, 16w + 16) of
// each Q tile for dQ:
//
//   K, V  -> shared memory (cp.async, zero fill past seq_k)
//   for each query head of the group, for each Q tile of q_tile_range:
//     Q, dO -> shared memory (cp.async); LSE·log2(e) and D -> shared memory
//     S^T  = K_w Q^T                    (ldmatrix K, Q; mma.sync)
//     [softcap·tanh(S^T·scale / softcap)]
//     [mask, on the tiles outside [full_lo, full_hi)]
//     P^T  = exp2(S^T·scale·log2(e) - LSE·log2(e))  (scale 1 when capped)
//     dV_w += P^T dO                    (P^T from registers, dO by .trans)
//     dP^T = V_w dO^T
//     dS^T = P^T ∘ (dP^T - D)            [∘ (1 - tanh²) when capped]
//     dK_w += dS^T Q                    (dS^T from registers, Q by .trans)
//     dS^T -> shared memory; dQ_w = dS K (ldmatrix.trans of both)
//     dq_accum += dQ_w                  (f32 atomics)
//   dK·scale and dV -> global memory
//
// The m16n8k16 accumulator of S^T has rows = keys and columns = queries, so
// two adjacent n8 column tiles of P^T (or dS^T) are one A fragment of the
// k16 step over queries: neither P nor dS needs shared memory for dV and dK.
// S^T to dS^T is computed in parts of 16 or 32 queries and dQ in parts of 64
// columns, to keep within 255 registers (partRows, kPartColumns).
//
//===----------------------------------------------------------------------===//

#include "GradKernelBuilder.h"

#include "fattn/Dialect/FAttn/Utils/KVTileRangeBuilder.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>
#include <tuple>

using namespace mlir;
using namespace mlir::fattn;
using namespace mlir::fattn::sm80grad;

namespace {
/// The head-dim columns of dQ in registers at a time: parts that keep the
/// d = 128 kernel within 255 registers beside its dK and dV accumulators.
constexpr int64_t kPartColumns = 64;

/// The queries of S^T, P^T, dP^T and dS^T in registers at a time, for the
/// same reason: 16 above head dim 64 (32 spills at 128), else 32.
int64_t partRows(int64_t headDim) { return headDim > 64 ? 16 : 32; }

/// Byte offsets of the main kernel's shared memory.
struct MainLayout {
  int64_t key, value, query, gradOutput, gradScoresT, lse, delta, bytes;
};

MainLayout mainLayout(const GradConfig &cfg) {
  MainLayout l;
  int64_t kvTile = kBlockN * cfg.pitch() * 2;
  int64_t qTile = kBlockM * cfg.pitch() * 2;
  l.key = 0;
  l.value = l.key + kvTile;
  l.query = l.value + kvTile;
  l.gradOutput = l.query + qTile;
  l.gradScoresT = l.gradOutput + qTile;
  l.lse = l.gradScoresT + kBlockN * (kBlockM + 8) * 2;
  l.delta = l.lse + kBlockM * 4;
  l.bytes = l.delta + kBlockM * 4;
  return l;
}

using Frags = SmallVector<Value>;

class MainKernelBuilder {
public:
  MainKernelBuilder(GradKernelBuilder &k, ValueRange args)
      : k(k), b(k.b), d(k.cfg.headDim),
        p(k.readParams(args, {GradTensor::Q, GradTensor::K, GradTensor::V,
                              GradTensor::DO, GradTensor::LSE, GradTensor::DK,
                              GradTensor::DV, GradTensor::Delta,
                              GradTensor::DQAccum})) {
    MLIRContext *ctx = b.getContext();
    accType = VectorType::get({2, 2}, k.f32);
    tokenType = nvgpu::DeviceAsyncTokenType::get(ctx);
  }

  int64_t build(QTileRangeOp qTileRange);

private:
  GradKernelBuilder &k;
  ImplicitLocOpBuilder &b;
  int64_t d;
  GradParams p;
  /// The f32 m16n8 accumulator fragment of a lane.
  VectorType accType;
  Type tokenType;

  // Per thread.
  Value tid, warp, lane, groupRow, pairCol;
  Value aRow, aCol, bRow, bCol, aTransRow;
  Value kvTile, kvHead, batch, keyBase, warpKeys;
  // Shared memory views.
  Value keyTile, valueTile, queryTile, gradOutputTile, gradScoresT, lseTile,
      deltaTile;

  /// The warp's and the lane's indices from the thread index `thread`.
  void deriveLaneIndices(Value thread) {
    warp = k.div(thread, 32);
    lane = k.rem(thread, 32);
    // The accumulator's row (g) and column pair (2t) of this lane.
    groupRow = k.div(lane, 4);
    pairCol = k.mul(k.rem(lane, 4), k.idx(2));
    // ldmatrix addresses: x4 A (rows 0-15, column halves), x2 B (rows 0-7,
    // k halves), x4 A from a transposed tile (k rows 0-15, row halves).
    aRow = k.rem(lane, 16);
    aCol = k.mul(k.div(lane, 16), k.idx(8));
    bRow = k.rem(lane, 8);
    bCol = k.mul(k.rem(k.div(lane, 8), 2), k.idx(8));
    aTransRow = k.add(bRow, aCol);
    warpKeys = k.mul(warp, k.idx(16));
  }

  struct LaneIndices {
    Value warp, lane, groupRow, pairCol, aRow, aCol, bRow, bCol, aTransRow,
        warpKeys;
  };
  LaneIndices laneIndices() const {
    return {warp, lane, groupRow, pairCol,   aRow,
            aCol, bRow, bCol,     aTransRow, warpKeys};
  }
  void setLaneIndices(const LaneIndices &l) {
    std::tie(warp, lane, groupRow, pairCol, aRow, aCol, bRow, bCol, aTransRow,
             warpKeys) =
        std::tie(l.warp, l.lane, l.groupRow, l.pairCol, l.aRow, l.aCol, l.bRow,
                 l.bCol, l.aTransRow, l.warpKeys);
  }

  /// The thread index as LLVM cannot hoist it out of a loop (a shuffle
  /// from the lane itself): indices derived from it inside a Q tile are
  /// recomputed there, so each shared memory address is a base register
  /// and an immediate offset instead of one hoisted 64-bit register per
  /// ldmatrix (which spills at head dim 128).
  Value opaqueThreadIndex() {
    Type i32 = b.getI32Type();
    Value t = arith::IndexCastUIOp::create(b, i32, tid);
    Value self = arith::IndexCastUIOp::create(b, i32, k.rem(tid, 32));
    Value shuffled = gpu::ShuffleOp::create(
                         b, t, self, arith::ConstantIntOp::create(b, 32, 32),
                         gpu::ShuffleMode::IDX)
                         .getShuffleResult();
    return arith::IndexCastUIOp::create(b, b.getIndexType(), shuffled);
  }

  Value zeroAcc() {
    return arith::ConstantOp::create(
        b, accType, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0f)));
  }
  Value splat(float v, VectorType type) {
    return arith::ConstantOp::create(
        b, type, DenseElementsAttr::get(type, b.getF32FloatAttr(v)));
  }
  Value ldmatrix(Value tile, Value row, Value col, int64_t tiles,
                 bool transpose) {
    auto type = VectorType::get({tiles, 2}, k.elem);
    return nvgpu::LdMatrixOp::create(b, type, tile, ValueRange{row, col},
                                     transpose, tiles);
  }
  Value mma(Value a, Value bFrag, Value acc) {
    return nvgpu::MmaSyncOp::create(b, a, bFrag, acc,
                                    ArrayRef<int64_t>{16, 8, 16});
  }
  /// The A fragment (16 x k16, 16-bit) of two adjacent n8 accumulator
  /// tiles.
  Value packA(Value left, Value right) {
    auto half = VectorType::get({2, 2}, k.elem);
    Value lo = arith::TruncFOp::create(b, half, left);
    Value hi = arith::TruncFOp::create(b, half, right);
    return vector::ShuffleOp::create(b, lo, hi, ArrayRef<int64_t>{0, 1, 2, 3});
  }

  void copyTile(Value tile, GradTensor t, Value head, Value firstRow,
                Value seqLen, SmallVector<Value> &tokens);
  Frags transposedScores(Value rowsTile, Value colsTile, int64_t firstTile);
  Frags mask(const Frags &scores, Value row0, int64_t firstTile);
  Value rowValues(Value tile, int64_t nt);
  void accumulate(const Frags &lhsT, Value rhsTile, Frags &acc,
                  int64_t firstTile);
  void scoresPart(Value row0, Value masked, int64_t firstTile, Frags &dK,
                  Frags &dV);
  SmallVector<Value> qTileBody(Value head, Value qTile, Value fullLo,
                               Value fullHi, ValueRange carried);
  void storeKV(const Frags &acc, GradTensor t, double scale);
};

void MainKernelBuilder::copyTile(Value tile, GradTensor t, Value head,
                                 Value firstRow, Value seqLen,
                                 SmallVector<Value> &tokens) {
  int64_t chunksPerRow = d / 8;
  for (int64_t i = 0; i < kBlockM * chunksPerRow / kThreads; ++i) {
    Value chunk = k.add(tid, k.idx(i * kThreads));
    Value r = k.div(chunk, chunksPerRow);
    Value col = k.mul(k.rem(chunk, chunksPerRow), k.idx(8));
    Value row = k.add(firstRow, r);
    Value valid = k.lt(row, seqLen);
    // Rows past the sequence: no bytes read, 16 zero bytes written.
    Value src =
        k.select(valid, k.offset(p, t, batch, head, row, col), k.idx(0));
    Value count = k.select(valid, k.idx(8), k.idx(0));
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
        b, tokenType, tile, ValueRange{r, col}, p.view(t), ValueRange{src},
        b.getIndexAttr(8), count, b.getUnitAttr()));
  }
}

/// rowsTile_w colsTileᵀ for the warp's 16 rows of `rowsTile` (keys) and
/// partRows rows of `colsTile` (queries) from n8 tile `firstTile` on.
Frags MainKernelBuilder::transposedScores(Value rowsTile, Value colsTile,
                                          int64_t firstTile) {
  Frags acc(partRows(d) / 8);
  for (Value &a : acc)
    a = zeroAcc();
  for (int64_t ks = 0; ks < d / 16; ++ks) {
    Value a = ldmatrix(rowsTile, k.add(warpKeys, aRow),
                       k.add(k.idx(ks * 16), aCol), 4, false);
    for (auto [i, accTile] : llvm::enumerate(acc)) {
      int64_t nt = firstTile + static_cast<int64_t>(i);
      Value bFrag = ldmatrix(colsTile, k.add(k.idx(nt * 8), bRow),
                             k.add(k.idx(ks * 16), bCol), 2, false);
      accTile = mma(a, bFrag, accTile);
    }
  }
  return acc;
}

/// -inf where the query does not see the key (fattn.mask's rule).
Frags MainKernelBuilder::mask(const Frags &scores, Value row0,
                              int64_t firstTile) {
  Value negInf = arith::ConstantOp::create(
      b, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
  Value offset = arith::SubIOp::create(b, p.seqK, p.seqQ);
  Frags out;
  for (auto [i, s] : llvm::enumerate(scores)) {
    int64_t nt = firstTile + static_cast<int64_t>(i);
    SmallVector<Value> elements;
    for (int64_t half = 0; half < 2; ++half) {
      Value key =
          k.add(k.add(keyBase, warpKeys), k.add(groupRow, k.idx(8 * half)));
      for (int64_t e = 0; e < 2; ++e) {
        Value row = k.add(k.add(row0, k.idx(nt * 8 + e)), pairCol);
        Value visible = buildKeyVisible(b, b.getLoc(), row, key, offset, p.seqK,
                                        k.cfg.windowLeft, k.cfg.windowRight);
        Value x = vector::ExtractOp::create(b, s, ArrayRef<int64_t>{half, e});
        elements.push_back(k.select(visible, x, negInf));
      }
    }
    out.push_back(vector::FromElementsOp::create(b, accType, elements));
  }
  return out;
}

/// The per-query values (LSE or D) of the thread's columns of n8 tile `nt`,
/// broadcast over its two key rows.
Value MainKernelBuilder::rowValues(Value tile, int64_t nt) {
  auto pair = VectorType::get({2}, k.f32);
  Value v = vector::LoadOp::create(b, pair, tile,
                                   ValueRange{k.add(k.idx(nt * 8), pairCol)});
  return vector::BroadcastOp::create(b, accType, v);
}

/// acc (16 keys x d) += lhsT (16 keys x partRows queries from n8 tile
/// `firstTile` on, accumulator tiles) times those rows of rhsTile (queries
/// x d, by ldmatrix.trans).
void MainKernelBuilder::accumulate(const Frags &lhsT, Value rhsTile, Frags &acc,
                                   int64_t firstTile) {
  for (int64_t kk = 0; kk < static_cast<int64_t>(lhsT.size()) / 2; ++kk) {
    Value a = packA(lhsT[2 * kk], lhsT[2 * kk + 1]);
    int64_t firstRow = firstTile * 8 + kk * 16;
    for (int64_t dn = 0; dn < d / 8; ++dn) {
      Value bFrag = ldmatrix(rhsTile, k.add(k.idx(firstRow), aRow),
                             k.idx(dn * 8), 2, true);
      acc[dn] = mma(a, bFrag, acc[dn]);
    }
  }
}

void MainKernelBuilder::scoresPart(Value row0, Value masked, int64_t firstTile,
                                   Frags &dK, Frags &dV) {
  // S^T (capped: softcap·tanh(S^T·scale / softcap)), masked on the tiles
  // that need it.
  Frags scores = transposedScores(keyTile, queryTile, firstTile);
  double softcap = k.cfg.softcap;
  Frags tanhs;
  if (softcap > 0) {
    Value inner = splat(static_cast<float>(k.cfg.scale / softcap), accType);
    Value outer = splat(static_cast<float>(softcap), accType);
    for (Value &s : scores) {
      Value scaled = arith::MulFOp::create(b, s, inner);
      tanhs.push_back(math::TanhOp::create(b, scaled));
      s = arith::MulFOp::create(b, tanhs.back(), outer);
    }
  }
  auto ifOp = scf::IfOp::create(
      b, masked,
      [&](OpBuilder &nested, Location) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nested.getInsertionBlock(),
                            nested.getInsertionPoint());
        scf::YieldOp::create(b, mask(scores, row0, firstTile));
      },
      [&](OpBuilder &nested, Location) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nested.getInsertionBlock(),
                            nested.getInsertionPoint());
        scf::YieldOp::create(b, scores);
      });
  scores.assign(ifOp.getResults().begin(), ifOp.getResults().end());

  // P^T = exp2(S^T·scale·log2(e) - LSE·log2(e)) (the capped scores carry
  // the scale already).
  Value scaleLog2 = splat(static_cast<float>((softcap > 0 ? 1.0 : k.cfg.scale) *
                                             llvm::numbers::log2e),
                          accType);
  Frags probs;
  for (auto [i, s] : llvm::enumerate(scores)) {
    Value scaled = arith::MulFOp::create(b, s, scaleLog2);
    Value lse = rowValues(lseTile, firstTile + static_cast<int64_t>(i));
    probs.push_back(
        math::Exp2Op::create(b, arith::SubFOp::create(b, scaled, lse)));
  }
  accumulate(probs, gradOutputTile, dV, firstTile);

  // dS^T = P^T ∘ (dP^T - D), times the softcap's derivative 1 - tanh².
  Frags gradProbs = transposedScores(valueTile, gradOutputTile, firstTile);
  Frags gradScores;
  Value one = splat(1.0f, accType);
  for (auto [i, pair] : llvm::enumerate(llvm::zip(probs, gradProbs))) {
    auto [pt, dpt] = pair;
    Value delta = rowValues(deltaTile, firstTile + static_cast<int64_t>(i));
    Value ds =
        arith::MulFOp::create(b, pt, arith::SubFOp::create(b, dpt, delta));
    if (softcap > 0) {
      Value t = tanhs[i];
      Value squared = arith::MulFOp::create(b, t, t);
      ds = arith::MulFOp::create(b, ds, arith::SubFOp::create(b, one, squared));
    }
    gradScores.push_back(ds);
  }
  accumulate(gradScores, queryTile, dK, firstTile);

  // dS^T to shared memory, in the 16-bit type both products take.
  for (auto [i, ds] : llvm::enumerate(gradScores)) {
    int64_t nt = firstTile + static_cast<int64_t>(i);
    Value rounded =
        arith::TruncFOp::create(b, VectorType::get({2, 2}, k.elem), ds);
    for (int64_t half = 0; half < 2; ++half) {
      Value pairValue =
          vector::ExtractOp::create(b, rounded, ArrayRef<int64_t>{half});
      Value key = k.add(warpKeys, k.add(groupRow, k.idx(8 * half)));
      Value col = k.add(k.idx(nt * 8), pairCol);
      vector::StoreOp::create(b, pairValue, gradScoresT, ValueRange{key, col});
    }
  }
}

SmallVector<Value> MainKernelBuilder::qTileBody(Value head, Value qTile,
                                                Value fullLo, Value fullHi,
                                                ValueRange carried) {
  int64_t frags = d / 8;
  Frags dK(carried.begin(), carried.begin() + frags);
  Frags dV(carried.begin() + frags, carried.end());
  // The previous tile's readers of Q, dO, dS^T, LSE and D are done.
  gpu::BarrierOp::create(b);
  LaneIndices entryIndices = laneIndices();
  deriveLaneIndices(opaqueThreadIndex());
  Value row0 = k.mul(qTile, k.idx(kBlockM));
  SmallVector<Value> tokens;
  copyTile(queryTile, GradTensor::Q, head, row0, p.seqQ, tokens);
  copyTile(gradOutputTile, GradTensor::DO, head, row0, p.seqQ, tokens);
  Value group = nvgpu::DeviceAsyncCreateGroupOp::create(b, tokenType, tokens);
  loadRowStatistics(k, p, tid, batch, head, row0, lseTile, deltaTile);
  nvgpu::DeviceAsyncWaitOp::create(b, group, b.getI32IntegerAttr(0));
  gpu::BarrierOp::create(b);

  // S^T to dS^T in parts of partRows queries (registers).
  Value belowFull = k.lt(qTile, fullLo);
  Value aboveFull =
      arith::CmpIOp::create(b, arith::CmpIPredicate::sge, qTile, fullHi);
  Value masked = arith::OrIOp::create(b, belowFull, aboveFull);
  int64_t rows = partRows(d);
  for (int64_t part = 0; part < kBlockM / rows; ++part)
    scoresPart(row0, masked, part * rows / 8, dK, dV);
  gpu::BarrierOp::create(b);

  // dQ_w = dS K over the warp's 16 query rows.
  // (in parts of kPartColumns columns of the head dim).
  Value warpRows = k.mul(warp, k.idx(16));
  for (int64_t firstCol = 0; firstCol < d; firstCol += kPartColumns) {
    int64_t tiles = std::min(kPartColumns, d - firstCol) / 8;
    Frags dQ(tiles);
    for (Value &a : dQ)
      a = zeroAcc();
    for (int64_t kk = 0; kk < kBlockN / 16; ++kk) {
      Value a = ldmatrix(gradScoresT, k.add(k.idx(kk * 16), aTransRow),
                         k.add(warpRows, bCol), 4, true);
      for (auto [i, accTile] : llvm::enumerate(dQ)) {
        int64_t col = firstCol + static_cast<int64_t>(i) * 8;
        Value bFrag =
            ldmatrix(keyTile, k.add(k.idx(kk * 16), aRow), k.idx(col), 2, true);
        accTile = mma(a, bFrag, accTile);
      }
    }
    for (int64_t half = 0; half < 2; ++half) {
      Value row =
          k.add(k.add(row0, warpRows), k.add(groupRow, k.idx(8 * half)));
      k.ifThen(k.lt(row, p.seqQ), [&] {
        Value base = k.add(k.workspaceOffset(p, batch, head, row, d), pairCol);
        for (auto [i, accTile] : llvm::enumerate(dQ))
          for (int64_t e = 0; e < 2; ++e) {
            int64_t col = firstCol + static_cast<int64_t>(i) * 8 + e;
            Value x = vector::ExtractOp::create(b, accTile,
                                                ArrayRef<int64_t>{half, e});
            memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addf, x,
                                        p.view(GradTensor::DQAccum),
                                        ValueRange{k.add(base, k.idx(col))});
          }
      });
    }
  }
  setLaneIndices(entryIndices);
  SmallVector<Value> results(dK);
  results.append(dV);
  return results;
}

void MainKernelBuilder::storeKV(const Frags &acc, GradTensor t, double scale) {
  auto half2 = VectorType::get({2}, k.elem);
  auto pair = VectorType::get({2}, k.f32);
  Value factor = splat(static_cast<float>(scale), pair);
  for (int64_t i = 0; i < 2; ++i) {
    Value key = k.add(k.add(keyBase, warpKeys), k.add(groupRow, k.idx(8 * i)));
    k.ifThen(k.lt(key, p.seqK), [&] {
      for (auto [dn, a] : llvm::enumerate(acc)) {
        Value x = vector::ExtractOp::create(b, a, ArrayRef<int64_t>{i});
        if (scale != 1.0)
          x = arith::MulFOp::create(b, x, factor);
        Value col = k.add(k.idx(dn * 8), pairCol);
        // 4 bytes: the ABI's 16-byte aligned rows, an even column.
        vector::StoreOp::create(
            b, arith::TruncFOp::create(b, half2, x), p.view(t),
            ValueRange{k.offset(p, t, batch, kvHead, key, col)},
            /*nontemporal=*/false, llvm::MaybeAlign(4));
      }
    });
  }
}

int64_t MainKernelBuilder::build(QTileRangeOp qTileRange) {
  MainLayout layout = mainLayout(k.cfg);
  tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  kvTile = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  kvHead = gpu::BlockIdOp::create(b, gpu::Dimension::y);
  batch = gpu::BlockIdOp::create(b, gpu::Dimension::z);
  deriveLaneIndices(tid);
  keyBase = k.mul(kvTile, k.idx(kBlockN));

  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value smem = gpu::DynamicSharedMemoryOp::create(
      b, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                         MemRefLayoutAttrInterface(), workgroup));
  int64_t pitch = k.cfg.pitch();
  keyTile = k.sharedTile(smem, layout.key, kBlockN, pitch, k.elem);
  valueTile = k.sharedTile(smem, layout.value, kBlockN, pitch, k.elem);
  queryTile = k.sharedTile(smem, layout.query, kBlockM, pitch, k.elem);
  gradOutputTile =
      k.sharedTile(smem, layout.gradOutput, kBlockM, pitch, k.elem);
  gradScoresT =
      k.sharedTile(smem, layout.gradScoresT, kBlockN, kBlockM + 8, k.elem);
  lseTile = k.sharedTile(smem, layout.lse, kBlockM, 0, k.f32);
  deltaTile = k.sharedTile(smem, layout.delta, kBlockM, 0, k.f32);

  SmallVector<Value> tokens;
  copyTile(keyTile, GradTensor::K, kvHead, keyBase, p.seqK, tokens);
  copyTile(valueTile, GradTensor::V, kvHead, keyBase, p.seqK, tokens);
  Value group = nvgpu::DeviceAsyncCreateGroupOp::create(b, tokenType, tokens);
  nvgpu::DeviceAsyncWaitOp::create(b, group, b.getI32IntegerAttr(0));

  // The body's Q tile range, on this kernel's values.
  IRMapping mapping;
  mapping.map(qTileRange.getKvTile(), kvTile);
  mapping.map(qTileRange.getSeqQ(), p.seqQ);
  mapping.map(qTileRange.getSeqK(), p.seqK);
  auto range = cast<QTileRangeOp>(b.clone(*qTileRange, mapping));

  Value groupSize = arith::DivUIOp::create(b, p.headsQ, p.headsKV);
  Value firstHead = k.mul(kvHead, groupSize);
  SmallVector<Value> inits(2 * (d / 8));
  for (Value &v : inits)
    v = zeroAcc();
  scf::ForOp heads = k.forLoop(
      k.idx(0), groupSize, inits, [&](Value member, ValueRange carried) {
        Value head = k.add(firstHead, member);
        scf::ForOp tiles =
            k.forLoop(range.getLo(), range.getHi(), carried,
                      [&](Value qTile, ValueRange acc) {
                        return qTileBody(head, qTile, range.getFullLo(),
                                         range.getFullHi(), acc);
                      });
        return SmallVector<Value>(tiles.getResults());
      });
  Frags dK(heads.getResults().begin(), heads.getResults().begin() + d / 8);
  Frags dV(heads.getResults().begin() + d / 8, heads.getResults().end());
  storeKV(dK, GradTensor::DK, k.cfg.scale);
  storeKV(dV, GradTensor::DV, 1.0);
  return layout.bytes;
}
} // namespace

int64_t sm80grad::mainKernelSharedBytes(const GradConfig &cfg) {
  return mainLayout(cfg).bytes;
}

int64_t sm80grad::buildMainBody(GradKernelBuilder &k, ValueRange args,
                                QTileRangeOp qTileRange) {
  return MainKernelBuilder(k, args).build(qTileRange);
}
