//===- MainKernel.cpp - the sm_80 backward's main kernel ------------------===//
//
// One CTA per (KV tile of 128 keys, KV head, batch), 8 warps; warp w owns
// keys [16w, 16w + 16) of the KV tile for dK and dV and, for dQ, rows
// [16(w mod 4), 16(w mod 4) + 16) of each Q tile in head-dim columns
// [(w / 4) d/2, (w / 4 + 1) d/2):
//
//   K, V  -> shared memory (cp.async, zero fill past seq_k)
//   for each (query head of the group, Q tile of q_tile_range), in order:
//     this one's LSE·log2(e) and D (registers) -> shared memory; the next
//     one's Q, dO -> the other of two buffers (cp.async)
//     S^T  = K_w Q^T                    (ldmatrix K, Q; mma.sync)
//     [softcap·tanh(S^T·scale / softcap)]
//     [mask, on the tiles outside [full_lo, full_hi)]
//     P^T  = exp2(S^T·scale·log2(e) - LSE·log2(e))  (scale 1 when capped)
//     dV_w += P^T dO                    (P^T from registers, dO by .trans)
//     dP^T = V_w dO^T
//     dS^T = P^T ∘ (dP^T - D)            [∘ (1 - tanh²) when capped]
//     dK_w += dS^T Q                    (dS^T from registers, Q by .trans)
//     dS^T -> shared memory; the next item's LSE·log2(e), D -> registers
//     dQ_w = dS K over the 128 keys     (ldmatrix.trans of both)
//     dq_accum += dQ_w                  (f32 atomics; deterministic: in the
//                                        Q tile's turn, KV tiles in order)
//   dK·scale and dV -> global memory
//
// The m16n8k16 accumulator of S^T has rows = keys and columns = queries, so
// two adjacent n8 column tiles of P^T (or dS^T) are one A fragment of the
// k16 step over queries: neither P nor dS needs shared memory for dV and dK.
// S^T to dS^T is computed in parts of 16 or 32 queries to keep within 255
// registers (partRows). Eight warps on 128 keys halve the loads of Q and dO
// and the dQ atomics per FLOP against four on 64 keys, which left the kernel
// bound by L2's throughput (FlashAttention-2's sm80 backward also takes
// 64 x 128 tiles with 8 warps); with 256 threads of up to 255 registers the
// CTA has the SM to itself, so the next item's loads run during this one's
// products.
//
//===----------------------------------------------------------------------===//

#include "GradKernelBuilder.h"

#include "fattn/Dialect/FAttn/Utils/KVTileRangeBuilder.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/Support/MathExtras.h"

#include <cassert>
#include <limits>
#include <tuple>

using namespace mlir;
using namespace mlir::fattn;
using namespace mlir::fattn::sm80grad;

namespace {
/// The queries of S^T, P^T, dP^T and dS^T in registers at a time: 16 above
/// head dim 64 (32 spills at 128), else 32.
int64_t partRows(int64_t headDim) { return headDim > 64 ? 16 : 32; }

/// Byte offsets of the main kernel's shared memory. Q and dO are two
/// buffers of kBlockM rows each (one view of 2 kBlockM rows), this item's
/// and the next one's.
struct MainLayout {
  int64_t key, value, query, gradOutput, gradScoresT, lse, delta, bytes;
};

MainLayout mainLayout(const GradConfig &cfg) {
  MainLayout l;
  int64_t kvTile = kMainBlockN * cfg.pitch() * 2;
  int64_t qBuffers = 2 * kBlockM * cfg.pitch() * 2;
  l.key = 0;
  l.value = l.key + kvTile;
  l.query = l.value + kvTile;
  l.gradOutput = l.query + qBuffers;
  l.gradScoresT = l.gradOutput + qBuffers;
  l.lse = l.gradScoresT + kMainBlockN * (kBlockM + 8) * 2;
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
  /// One (query head, Q tile) of the CTA's loop, and the first row of its
  /// Q and dO buffer in their views (0 or kBlockM).
  struct Item {
    Value head, qTile, bufferRow;
  };

  GradKernelBuilder &k;
  ImplicitLocOpBuilder &b;
  int64_t d;
  GradParams p;
  /// The f32 m16n8 accumulator fragment of a lane.
  VectorType accType;
  Type tokenType;

  // Per thread.
  Value tid, warp, lane, groupRow, pairCol;
  Value aRow, aCol, bRow, bCol, aTransRow, warpKeys;
  Value kvTile, kvHead, batch, keyBase;
  // Shared memory views.
  Value keyTile, valueTile, queryTile, gradOutputTile, gradScoresT, lseTile,
      deltaTile;
  /// The CTA's items.
  GradItems cta;

  /// The thread's, its warp's and its lane's indices from the thread index
  /// `thread`.
  void deriveThreadIndices(Value thread) {
    tid = thread;
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

  struct ThreadIndices {
    Value tid, warp, lane, groupRow, pairCol, aRow, aCol, bRow, bCol,
        aTransRow, warpKeys;
  };
  ThreadIndices threadIndices() const {
    return {tid,  warp, lane, groupRow,  pairCol, aRow,
            aCol, bRow, bCol, aTransRow, warpKeys};
  }
  void setThreadIndices(const ThreadIndices &l) {
    std::tie(tid, warp, lane, groupRow, pairCol, aRow, aCol, bRow, bCol,
             aTransRow, warpKeys) =
        std::tie(l.tid, l.warp, l.lane, l.groupRow, l.pairCol, l.aRow, l.aCol,
                 l.bRow, l.bCol, l.aTransRow, l.warpKeys);
  }

  /// The thread index as LLVM cannot hoist it out of a loop (a shuffle
  /// from the lane itself): indices derived from it inside an item are
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

  void copyTile(Value tile, Value firstTileRow, GradTensor t, Value head,
                Value firstRow, Value seqLen, int64_t rows, Value wanted,
                SmallVector<Value> &tokens);
  Item item(Value index, Value last = Value());
  Value copyItem(const Item &it, Value wanted, SmallVector<Value> tokens);
  std::pair<Value, Value> itemRowStatistics(const Item &it);
  Frags transposedScores(Value rowsTile, Value colsTile, Value colsFirstRow,
                         int64_t firstTile);
  Frags mask(const Frags &scores, Value row0, int64_t firstTile);
  Value rowValues(Value tile, int64_t nt);
  void accumulate(const Frags &lhsT, Value rhsTile, Value rhsFirstRow,
                  Frags &acc, int64_t firstTile);
  void scoresPart(Value row0, Value bufferRow, Value masked, int64_t firstTile,
                  Frags &dK, Frags &dV);
  void gradQuery(Value row0, Value qTile, Value head);
  SmallVector<Value> itemBody(const Item &it, const Item &next, Value fullLo,
                              Value fullHi, ValueRange carried);
  void storeKV(const Frags &acc, GradTensor t, double scale);
};

/// Rows [firstRow, firstRow + rows) of `t` (zeros past `seqLen`, or all
/// zeros unless `wanted`) into `tile` from its row `firstTileRow`, 16 bytes
/// per thread and copy.
void MainKernelBuilder::copyTile(Value tile, Value firstTileRow, GradTensor t,
                                 Value head, Value firstRow, Value seqLen,
                                 int64_t rows, Value wanted,
                                 SmallVector<Value> &tokens) {
  int64_t chunksPerRow = d / 8;
  int64_t chunks = rows * chunksPerRow;
  for (int64_t i = 0; i * kMainThreads < chunks; ++i) {
    Value chunk = k.add(tid, k.idx(i * kMainThreads));
    Value r = k.div(chunk, chunksPerRow);
    Value tileRow = k.add(firstTileRow, r);
    Value col = k.mul(k.rem(chunk, chunksPerRow), k.idx(8));
    Value row = k.add(firstRow, r);
    Value valid = k.lt(row, seqLen);
    if (wanted)
      valid = arith::AndIOp::create(b, valid, wanted);
    if ((i + 1) * kMainThreads > chunks) {
      // The threads past the tile (Q and dO at head dims 16 + 32j: 8d
      // chunks, 128 short of a multiple of 256) write zeros into the 16
      // bytes of padding of row chunk - chunks of `tile` (its view spans
      // both buffers, 2 kBlockM rows), which no thread reads: each thread
      // a place of its own, where a repeated chunk would race.
      int64_t past = (i + 1) * kMainThreads - chunks;
      assert(past <= 2 * kBlockM && "the padding of both buffers' rows");
      (void)past;
      Value inside = k.lt(chunk, k.idx(chunks));
      tileRow = k.select(inside, tileRow,
                         arith::SubIOp::create(b, chunk, k.idx(chunks)));
      col = k.select(inside, col, k.idx(d));
      valid = arith::AndIOp::create(b, valid, inside);
    }
    // Rows past the sequence: no bytes read, 16 zero bytes written.
    Value src =
        k.select(valid, k.offset(p, t, batch, head, row, col), k.idx(0));
    Value count = k.select(valid, k.idx(8), k.idx(0));
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
        b, tokenType, tile, ValueRange{tileRow, col}, p.view(t),
        ValueRange{src}, b.getIndexAttr(8), count, b.getUnitAttr()));
  }
}

/// The CTA's item `index` (its head and Q tile those of item `last` past
/// it, so that every address stays within the tensors); its Q and dO in
/// buffer index mod 2.
MainKernelBuilder::Item MainKernelBuilder::item(Value index, Value last) {
  auto [head, qTile] = cta.at(k, index, last);
  return Item{head, qTile, k.mul(k.rem(index, 2), k.idx(kBlockM))};
}

/// The cp.async group of `tokens`' copies and `it`'s Q and dO into its
/// buffer (zeros unless `wanted`).
Value MainKernelBuilder::copyItem(const Item &it, Value wanted,
                                  SmallVector<Value> tokens) {
  Value row0 = k.mul(it.qTile, k.idx(kBlockM));
  copyTile(queryTile, it.bufferRow, GradTensor::Q, it.head, row0, p.seqQ,
           kBlockM, wanted, tokens);
  copyTile(gradOutputTile, it.bufferRow, GradTensor::DO, it.head, row0,
           p.seqQ, kBlockM, wanted, tokens);
  return nvgpu::DeviceAsyncCreateGroupOp::create(b, tokenType, tokens);
}

/// LSE·log2(e) and D of `it`'s row tid mod 64 (the threads below kBlockM
/// store them; the others' loads hit the same lines, and no branch keeps
/// the values apart).
std::pair<Value, Value> MainKernelBuilder::itemRowStatistics(const Item &it) {
  Value row = k.add(k.mul(it.qTile, k.idx(kBlockM)), k.rem(tid, kBlockM));
  return {rowLseLog2(k, p, batch, it.head, row),
          rowDelta(k, p, batch, it.head, row)};
}

/// rowsTile_w colsTileᵀ for the warp's 16 rows of `rowsTile` (keys) and
/// partRows rows of `colsTile` (queries, from its row `colsFirstRow`) from
/// n8 tile `firstTile` on.
Frags MainKernelBuilder::transposedScores(Value rowsTile, Value colsTile,
                                          Value colsFirstRow,
                                          int64_t firstTile) {
  Frags acc(partRows(d) / 8);
  for (Value &a : acc)
    a = zeroAcc();
  for (int64_t ks = 0; ks < d / 16; ++ks) {
    Value a = ldmatrix(rowsTile, k.add(warpKeys, aRow),
                       k.add(k.idx(ks * 16), aCol), 4, false);
    for (auto [i, accTile] : llvm::enumerate(acc)) {
      int64_t nt = firstTile + static_cast<int64_t>(i);
      Value bFrag =
          ldmatrix(colsTile, k.add(colsFirstRow, k.add(k.idx(nt * 8), bRow)),
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
/// x d from its row `rhsFirstRow`, by ldmatrix.trans).
void MainKernelBuilder::accumulate(const Frags &lhsT, Value rhsTile,
                                   Value rhsFirstRow, Frags &acc,
                                   int64_t firstTile) {
  for (int64_t kk = 0; kk < static_cast<int64_t>(lhsT.size()) / 2; ++kk) {
    Value a = packA(lhsT[2 * kk], lhsT[2 * kk + 1]);
    int64_t firstRow = firstTile * 8 + kk * 16;
    for (int64_t dn = 0; dn < d / 8; ++dn) {
      Value bFrag =
          ldmatrix(rhsTile, k.add(rhsFirstRow, k.add(k.idx(firstRow), aRow)),
                   k.idx(dn * 8), 2, true);
      acc[dn] = mma(a, bFrag, acc[dn]);
    }
  }
}

void MainKernelBuilder::scoresPart(Value row0, Value bufferRow, Value masked,
                                   int64_t firstTile, Frags &dK, Frags &dV) {
  // S^T (capped: softcap·tanh(S^T·scale / softcap)), masked on the tiles
  // that need it.
  Frags scores = transposedScores(keyTile, queryTile, bufferRow, firstTile);
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
  accumulate(probs, gradOutputTile, bufferRow, dV, firstTile);

  // dS^T = P^T ∘ (dP^T - D), times the softcap's derivative 1 - tanh².
  Frags gradProbs =
      transposedScores(valueTile, gradOutputTile, bufferRow, firstTile);
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
  accumulate(gradScores, queryTile, bufferRow, dK, firstTile);

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

/// dQ = dS K of Q tile `qTile` (first row row0) over the KV tile's 128 keys,
/// added into dq_accum's rows of `head`: warp w its rows 16(w mod 4).. and
/// head-dim columns (w / 4) d/2.., at most 64 columns (8 accumulator tiles,
/// 32 registers beside dK's and dV's); deterministic, in the Q tile's turn.
/// dS^T is whole in shared memory.
void MainKernelBuilder::gradQuery(Value row0, Value qTile, Value head) {
  int64_t columns = d / 2;
  Value warpRows = k.mul(k.rem(warp, 4), k.idx(16));
  Value firstCol = k.mul(k.div(warp, 4), k.idx(columns));
  Frags dQ(columns / 8);
  for (Value &a : dQ)
    a = zeroAcc();
  for (int64_t kk = 0; kk < kMainBlockN / 16; ++kk) {
    Value a = ldmatrix(gradScoresT, k.add(k.idx(kk * 16), aTransRow),
                       k.add(warpRows, bCol), 4, true);
    for (auto [i, accTile] : llvm::enumerate(dQ)) {
      Value col = k.add(firstCol, k.idx(static_cast<int64_t>(i) * 8));
      Value bFrag =
          ldmatrix(keyTile, k.add(k.idx(kk * 16), aRow), col, 2, true);
      accTile = mma(a, bFrag, accTile);
    }
  }
  Value counter;
  if (k.cfg.deterministic)
    counter = waitForGradQueryTurn(k, p, tid, batch, head, qTile, kvTile);
  for (int64_t half = 0; half < 2; ++half) {
    Value row = k.add(k.add(row0, warpRows), k.add(groupRow, k.idx(8 * half)));
    k.ifThen(k.lt(row, p.seqQ), [&] {
      Value base = k.add(k.workspaceOffset(p, batch, head, row, d),
                         k.add(firstCol, pairCol));
      for (auto [i, accTile] : llvm::enumerate(dQ))
        for (int64_t e = 0; e < 2; ++e) {
          int64_t col = static_cast<int64_t>(i) * 8 + e;
          Value x =
              vector::ExtractOp::create(b, accTile, ArrayRef<int64_t>{half, e});
          memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addf, x,
                                      p.view(GradTensor::DQAccum),
                                      ValueRange{k.add(base, k.idx(col))});
        }
    });
  }
  if (k.cfg.deterministic)
    passGradQueryTurn(k, tid, counter);
}

/// One item: its Q and dO in their buffer (complete), LSE and D in shared
/// memory; dK and dV carried in `carried` (d / 8 accumulator tiles each).
/// Returns them, then `next`'s LSE·log2(e) and D.
SmallVector<Value> MainKernelBuilder::itemBody(const Item &it,
                                               const Item &next, Value fullLo,
                                               Value fullHi,
                                               ValueRange carried) {
  int64_t frags = d / 8;
  Frags dK(carried.begin(), carried.begin() + frags);
  Frags dV(carried.begin() + frags, carried.end());
  Value row0 = k.mul(it.qTile, k.idx(kBlockM));

  // S^T to dS^T in parts of partRows queries (registers).
  Value belowFull = k.lt(it.qTile, fullLo);
  Value aboveFull =
      arith::CmpIOp::create(b, arith::CmpIPredicate::sge, it.qTile, fullHi);
  Value masked = arith::OrIOp::create(b, belowFull, aboveFull);
  int64_t rows = partRows(d);
  for (int64_t part = 0; part < kBlockM / rows; ++part)
    scoresPart(row0, it.bufferRow, masked, part * rows / 8, dK, dV);
  // dS^T is whole.
  gpu::BarrierOp::create(b);
  // The next item's LSE and D into registers, loaded during dQ: loaded
  // with its Q and dO, they were live across the scores parts beside dK and
  // dV, and spilled at head dim 112 with a softcap.
  auto [nextLse, nextDelta] = itemRowStatistics(next);
  gradQuery(row0, it.qTile, it.head);
  SmallVector<Value> results(dK);
  results.append(dV);
  results.append({nextLse, nextDelta});
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
  Value threadIndex = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  kvTile = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  kvHead = gpu::BlockIdOp::create(b, gpu::Dimension::y);
  batch = gpu::BlockIdOp::create(b, gpu::Dimension::z);
  deriveThreadIndices(threadIndex);
  keyBase = k.mul(kvTile, k.idx(kMainBlockN));

  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value smem = gpu::DynamicSharedMemoryOp::create(
      b, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                         MemRefLayoutAttrInterface(), workgroup));
  int64_t pitch = k.cfg.pitch();
  keyTile = k.sharedTile(smem, layout.key, kMainBlockN, pitch, k.elem);
  valueTile = k.sharedTile(smem, layout.value, kMainBlockN, pitch, k.elem);
  queryTile = k.sharedTile(smem, layout.query, 2 * kBlockM, pitch, k.elem);
  gradOutputTile =
      k.sharedTile(smem, layout.gradOutput, 2 * kBlockM, pitch, k.elem);
  gradScoresT =
      k.sharedTile(smem, layout.gradScoresT, kMainBlockN, kBlockM + 8, k.elem);
  lseTile = k.sharedTile(smem, layout.lse, kBlockM, 0, k.f32);
  deltaTile = k.sharedTile(smem, layout.delta, kBlockM, 0, k.f32);

  // The body's Q tile range, on this kernel's values.
  IRMapping mapping;
  mapping.map(qTileRange.getKvTile(), kvTile);
  mapping.map(qTileRange.getSeqQ(), p.seqQ);
  mapping.map(qTileRange.getSeqK(), p.seqK);
  auto range = cast<QTileRangeOp>(b.clone(*qTileRange, mapping));
  cta = gradItems(k, p, kvHead, range);
  Value items = cta.count;

  // K and V, then the first item's Q and dO: one group.
  SmallVector<Value> tokens;
  copyTile(keyTile, k.idx(0), GradTensor::K, kvHead, keyBase, p.seqK,
           kMainBlockN, Value(), tokens);
  copyTile(valueTile, k.idx(0), GradTensor::V, kvHead, keyBase, p.seqK,
           kMainBlockN, Value(), tokens);
  Item first = item(k.idx(0));
  Value firstCopies = copyItem(first, k.lt(k.idx(0), items), tokens);
  auto [firstLse, firstDelta] = itemRowStatistics(first);

  int64_t frags = d / 8;
  SmallVector<Value> inits(2 * frags);
  for (Value &v : inits)
    v = zeroAcc();
  inits.append({firstLse, firstDelta});
  Value fullLo = range.getFullLo(), fullHi = range.getFullHi();
  scf::ForOp loop = k.forLoop(
      k.idx(0), items, inits, [&](Value index, ValueRange carried) {
        // The previous item's readers of the buffer the next one fills, of
        // LSE and D and of dS^T are done.
        gpu::BarrierOp::create(b);
        ThreadIndices entryIndices = threadIndices();
        deriveThreadIndices(opaqueThreadIndex());
        Value lse = carried[2 * frags], delta = carried[2 * frags + 1];
        storeRowStatistics(k, tid, lse, delta, lseTile, deltaTile);
        // The next item's Q and dO into the other buffer (zeros past the
        // last item) while this one runs; its LSE and D come during this
        // one's dQ.
        Value nextIndex = k.add(index, k.idx(1));
        Item next = item(nextIndex, arith::SubIOp::create(b, items, k.idx(1)));
        Value copies = copyItem(next, k.lt(nextIndex, items), {});
        // This item's copies are done (the next one's may be pending).
        nvgpu::DeviceAsyncWaitOp::create(b, copies, b.getI32IntegerAttr(1));
        gpu::BarrierOp::create(b);
        SmallVector<Value> results =
            itemBody(item(index), next, fullLo, fullHi,
                     carried.take_front(2 * frags));
        setThreadIndices(entryIndices);
        return results;
      });
  // The last item's zero fill done before the kernel ends.
  nvgpu::DeviceAsyncWaitOp::create(b, firstCopies, b.getI32IntegerAttr(0));
  Frags dK(loop.getResults().begin(), loop.getResults().begin() + frags);
  Frags dV(loop.getResults().begin() + frags,
           loop.getResults().begin() + 2 * frags);
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
