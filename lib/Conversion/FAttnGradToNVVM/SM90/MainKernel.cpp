//===- MainKernel.cpp - the sm_90a backward's main kernel -----------------===//
//
// One CTA per (KV tile, KV head, batch), a warpgroup (128 threads) per 64
// keys of the KV tile: two on 128 keys (fattn-compile's tile at head dim
// 128), one on 64 (at 64; sm90GradBlockN). Warpgroup g owns keys
// [64g, 64g + 64) (wgmma's M) for S^T, dP^T, dK and dV, and the warpgroups
// share each Q tile:
//
//   K, V  -> shared memory (cp.async into 128-byte-swizzled atoms)
//   for each (query head of the group, Q tile of q_tile_range), in order:
//     the next one's Q, dO -> the other of two buffers (cp.async), its
//     LSE·log2(e) and D -> registers; this one's LSE and D -> shared memory
//     S^T  = K_g Q^T, dP^T = V_g dO^T    (wgmma, both operands in smem)
//     [softcap·tanh(S^T·scale / softcap)], [mask outside [full_lo, full_hi)]
//     P^T  = exp2(S^T·scale·log2(e) - LSE·log2(e))
//     dS^T = P^T ∘ (dP^T - D)            [∘ (1 - tanh²) when capped]
//     dV_g += P^T dO, dK_g += dS^T Q     (wgmma, P^T and dS^T from registers,
//                                         dO and Q N-major: transposed B)
//     dS^T -> shared memory; dS by ldmatrix.trans
//     dQ = dS K                          (wgmma, dS from registers, K N-major:
//                                         the warpgroups split its columns,
//                                         or at one atom each adds its keys')
//     dQ -> shared memory; dq_accum += dQ (a bulk reduction per row;
//                                  deterministic: in the Q tile's turn)
//   dK·scale and dV -> global memory
//
// The accumulator of S^T (keys x queries) is, k step by k step, the A
// fragment of the next wgmma: P^T and dS^T never leave registers for dV and
// dK, as in FlashAttention-3. Two warpgroups on 128 keys halve the loads of
// Q and dO and the reductions of dQ per FLOP against one on 64 keys, which
// left the kernel bound by L2's throughput at head dim 128; the next Q
// tile's loads run during this one's products (a CTA of two warpgroups has
// the SM to itself: 255 registers per thread). The tiles are loaded by cp.async rather than TMA so that the
// kernels keep the sm_80 backward's parameters (pointers and strides, no
// tensor maps: docs/KERNEL-ABI.md "Backward"); cp.async's zero fill covers
// the rows past the sequences. The copies write the layout that TMA's
// 128-byte swizzle would (16-byte unit u of row r of a 64-column atom at
// unit u ^ (r mod 8)), which the wgmma descriptors
// (fattn.sm90.wgmma_descriptor) name.
//
// dQ leaves through shared memory: per Q tile, each staged row is one
// fattn.sm90.bulk_reduce_add of d f32 into the row of dq_accum (rows of the
// workspace are contiguous), where per-element atomics took one L2
// operation per element and thread.
//
//===----------------------------------------------------------------------===//

#include "../GradKernelBuilder.h"
#include "SM90GradKernel.h"

#include "fattn/Conversion/FAttnGradToNVVM/FAttnGradToNVVM.h"

#include "fattn/Dialect/FAttn/IR/FAttnSM90Ops.h"
#include "fattn/Dialect/FAttn/Utils/KVTileRangeBuilder.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/Support/MathExtras.h"

#include <limits>
#include <tuple>

using namespace mlir;
using namespace mlir::fattn;
using namespace mlir::fattn::sm80grad;

namespace {
/// Columns of a 128-byte swizzle atom (16-bit elements), also the N of the
/// wgmma of S^T, dP^T (64 queries) and of each part of dK, dV and dQ.
constexpr int64_t kAtomColumns = 64;
/// wgmma's k step of 16-bit operands.
constexpr int64_t kStep = 16;
/// f32 accumulator registers per thread of an m64n64 wgmma.
constexpr int64_t kAccRegisters = 32;
/// Threads of a warpgroup, and the keys each owns (wgmma's M).
constexpr int64_t kGroupThreads = 128, kGroupKeys = 64;

/// The queries of S^T, dP^T, P^T and dS^T in registers at a time (the N of
/// their wgmma): 32 at head dim 128, whose dK and dV take 128 registers
/// (64 queries spill), else the whole Q tile.
int64_t scoreColumns(int64_t headDim) { return headDim > 64 ? 32 : kBlockM; }
/// The 128-byte swizzle repeats every 1024 bytes: tiles start at multiples.
constexpr int64_t kSwizzleBytes = 1024;
/// Row pitch of dS^T in shared memory (elements): 8 past the 64 queries, so
/// that ldmatrix's 8 rows fall in 8 different 16-byte bank groups.
constexpr int64_t kScoresPitch = kBlockM + 8;
/// Row pitch of the staged dQ (f32 elements): 8 past the head dim, so that
/// the four rows a store of 8-byte pairs covers start 32 bytes apart in the
/// banks (a row of the workspace, d f32, is one bulk reduction).
int64_t stagedGradQueryPitch(int64_t headDim) { return headDim + 8; }
/// The warpgroups of the CTA: one per 64 keys of the KV tile.
int64_t warpgroups(const GradConfig &cfg) { return cfg.blockN / kGroupKeys; }
/// Whether the warpgroups split dQ's atoms, each computing its own over all
/// the tile's keys; at one atom (head dim 64) each computes dQ's share of
/// its own keys instead, staged apart and reduced on its own, since wgmma's
/// N-major B cannot start inside an atom.
bool splitsGradQueryColumns(const GradConfig &cfg) {
  return warpgroups(cfg) > 1 &&
         (cfg.headDim / kAtomColumns) % warpgroups(cfg) == 0;
}
int64_t stagedGradQueryBuffers(const GradConfig &cfg) {
  return splitsGradQueryColumns(cfg) ? 1 : warpgroups(cfg);
}

/// Byte offsets of the kernel's shared memory from its 1024-byte-aligned
/// base; `bytes` includes the slack of the alignment. K and V hold each
/// warpgroup's 64 keys as one tile of `tile` bytes (64 rows in d / 64
/// atoms); Q and dO two such tiles each, this Q tile's and the next one's.
struct SM90MainLayout {
  int64_t tile, key, value, query, gradOutput, gradScoresT, lse, delta,
      gradQuery, bytes;
};

SM90MainLayout sm90MainLayout(const GradConfig &cfg) {
  SM90MainLayout l;
  // 64 rows of 128 bytes per atom: tiles are multiples of 8192 bytes.
  l.tile = kGroupKeys * cfg.headDim * 2;
  l.key = 0;
  l.value = l.key + warpgroups(cfg) * l.tile;
  l.query = l.value + warpgroups(cfg) * l.tile;
  l.gradOutput = l.query + 2 * l.tile;
  l.gradScoresT = l.gradOutput + 2 * l.tile;
  l.lse = l.gradScoresT + cfg.blockN * kScoresPitch * 2;
  l.delta = l.lse + kBlockM * 4;
  // 16-byte aligned, as the bulk reductions' sources.
  l.gradQuery = l.delta + kBlockM * 4;
  l.bytes = l.gradQuery + stagedGradQueryBuffers(cfg) * kBlockM *
                              stagedGradQueryPitch(cfg.headDim) * 4 +
            kSwizzleBytes;
  return l;
}

class SM90MainKernelBuilder {
public:
  SM90MainKernelBuilder(GradKernelBuilder &k, ValueRange args)
      : k(k), b(k.b), d(k.cfg.headDim),
        p(k.readParams(args, {GradTensor::Q, GradTensor::K, GradTensor::V,
                              GradTensor::DO, GradTensor::LSE, GradTensor::DK,
                              GradTensor::DV, GradTensor::Delta,
                              GradTensor::DQAccum})) {
    MLIRContext *ctx = b.getContext();
    accType = VectorType::get({kAccRegisters}, k.f32);
    tokenType = nvgpu::DeviceAsyncTokenType::get(ctx);
  }

  int64_t build(QTileRangeOp qTileRange);

private:
  /// One (query head, Q tile) of the CTA's loop, and the buffer of its Q
  /// and dO.
  struct Item {
    Value head, qTile, buffer;
  };

  GradKernelBuilder &k;
  ImplicitLocOpBuilder &b;
  int64_t d;
  GradParams p;
  /// A thread's registers of an m64n64 f32 accumulator (dK, dV, dQ).
  VectorType accType;
  Type tokenType;

  /// The thread, its warpgroup, its warp and lane in the warpgroup, its
  /// accumulator row and column pair, the warp's first of the warpgroup's
  /// rows (keys of S^T, queries of dQ) and the warpgroup's first key.
  Value tid, group, warp, lane, groupRow, pairCol, warpKeys, groupKeys;
  Value kvTile, kvHead, batch, keyBase;
  Value keyTile, valueTile, queryTile, gradOutputTile, gradScoresT, lseTile,
      deltaTile, stagedGradQuery;
  /// Matrix descriptors of the warpgroup's K and V, of the item's Q and dO,
  /// and of the whole K tile (dQ's B).
  Value keyDesc, valueDesc, queryDesc, gradOutputDesc, keyTileDesc;
  /// The shared memory's first 1024-byte boundary (an i32 address).
  Value alignedAddress;
  SM90MainLayout layout;
  /// The CTA's items.
  GradItems cta;

  int64_t parts() const { return d / kAtomColumns; }
  /// 64-column atoms of a tile times its 64 rows: rows of a tile's view.
  int64_t atomRows() const { return parts() * kBlockM; }
  /// The thread's indices from thread index `thread`.
  void deriveThreadIndices(Value thread) {
    tid = thread;
    group = k.div(tid, kGroupThreads);
    warp = k.div(k.rem(tid, kGroupThreads), 32);
    lane = k.rem(tid, 32);
    // The accumulator's rows (g, g + 8 of the warp's 16) and column pair
    // (2t) of this thread.
    groupRow = k.div(lane, 4);
    pairCol = k.mul(k.rem(lane, 4), k.idx(2));
    warpKeys = k.mul(warp, k.idx(16));
    groupKeys = k.mul(group, k.idx(kGroupKeys));
  }
  /// The i32 `value` as LLVM cannot hoist it out of a loop (a shuffle from
  /// the lane itself): the thread's indices and the matrix descriptors
  /// derived from it inside a Q tile are computed there, as in the sm_80
  /// kernel, instead of living in registers across the loop beside dK and
  /// dV (some 70 descriptors of 64 bits spill at head dim 128).
  Value opaque(Value value) {
    Value self =
        arith::IndexCastUIOp::create(b, b.getI32Type(), k.rem(tid, 32));
    return gpu::ShuffleOp::create(b, value, self,
                                  arith::ConstantIntOp::create(b, 32, 32),
                                  gpu::ShuffleMode::IDX)
        .getShuffleResult();
  }
  Value opaqueIndex(Value index) {
    Value t = arith::IndexCastUIOp::create(b, b.getI32Type(), index);
    return arith::IndexCastUIOp::create(b, b.getIndexType(), opaque(t));
  }
  Value opaqueThreadIndex() { return opaqueIndex(tid); }
  Value i32(Value index) {
    return arith::IndexCastUIOp::create(b, b.getI32Type(), index);
  }
  /// The descriptors from the aligned address, those of Q and dO in buffer
  /// `buffer`. The leading byte offset is unused: every wgmma reads one
  /// atom's columns (K-major: 32 bytes of a row; N-major: 64 columns).
  void deriveDescriptors(Value address, Value buffer) {
    auto descriptor = [&](int64_t offset, Value tiles) {
      Value bytes = k.add(k.idx(offset), k.mul(tiles, k.idx(layout.tile)));
      return SM90WgmmaDescriptorOp::create(b, b.getI64Type(), address,
                                           i32(bytes), b.getI64IntegerAttr(16))
          .getResult();
    };
    keyDesc = descriptor(layout.key, group);
    valueDesc = descriptor(layout.value, group);
    queryDesc = descriptor(layout.query, buffer);
    gradOutputDesc = descriptor(layout.gradOutput, buffer);
    keyTileDesc = descriptor(layout.key, k.idx(0));
  }
  Value i64(int64_t v) { return arith::ConstantIntOp::create(b, v, 64); }
  /// `desc` moved by `bytes` (a multiple of 16) in shared memory.
  Value moved(Value desc, int64_t bytes) {
    return bytes == 0 ? desc : arith::AddIOp::create(b, desc, i64(bytes / 16));
  }
  Value moved(Value desc, Value bytes) {
    Value units = arith::IndexCastUIOp::create(b, b.getI64Type(),
                                               k.div(bytes, int64_t{16}));
    return arith::AddIOp::create(b, desc, units);
  }
  /// The registers of an m64nN accumulator: as a vector (for the math) and
  /// as wgmma's struct.
  VectorType vectorOf(int64_t registers) {
    return VectorType::get({registers}, k.f32);
  }
  Type structOf(int64_t registers) {
    return LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(registers, k.f32));
  }
  Value zeroAcc() {
    return arith::ConstantOp::create(
        b, accType, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0f)));
  }
  Value splat(float v, int64_t registers) {
    VectorType type = vectorOf(registers);
    return arith::ConstantOp::create(
        b, type, DenseElementsAttr::get(type, b.getF32FloatAttr(v)));
  }
  SmallVector<Value> elements(Value vector) {
    SmallVector<Value> out;
    for (int64_t i = 0; i < cast<VectorType>(vector.getType()).getNumElements();
         ++i)
      out.push_back(vector::ExtractOp::create(b, vector, ArrayRef<int64_t>{i}));
    return out;
  }
  SmallVector<Value> unpack(Value accStruct) {
    SmallVector<Value> out;
    auto type = cast<LLVM::LLVMStructType>(accStruct.getType());
    for (int64_t i = 0; i < static_cast<int64_t>(type.getBody().size()); ++i)
      out.push_back(
          LLVM::ExtractValueOp::create(b, accStruct, ArrayRef<int64_t>{i}));
    return out;
  }

  void copySwizzled(Value tile, Value firstAtomRow, GradTensor t, Value head,
                    Value firstRow, Value seqLen, Value wanted,
                    SmallVector<Value> &tokens);
  Item item(Value index, Value last = Value());
  Value copyItem(const Item &it, Value wanted, SmallVector<Value> tokens);
  std::pair<Value, Value> itemRowStatistics(const Item &it);
  Value waitedAccumulator(Value accStruct);
  Value ssProduct(Value rowsDesc, Value colsDesc, int64_t columns);
  Value rsProduct(ArrayRef<Value> a, Value bDesc, Value acc, bool accumulate);
  SmallVector<Value> packFragments(Value values);
  Value rowValues(Value tile, int64_t firstColumn, int64_t registers);
  Value mask(Value scores, Value row0);
  void scoresPart(Value row0, Value masked, int64_t firstColumn,
                  SmallVector<Value> &dKStructs, SmallVector<Value> &dVStructs,
                  ArrayRef<Value> dK, ArrayRef<Value> dV);
  SmallVector<Value> gradScoresFragments(Value firstKey, int64_t steps);
  void stageGradQuery(Value dQ, Value firstRow, Value firstColumn);
  void gradQuery(Value row0, Value qTile, Value head);
  SmallVector<Value> itemBody(const Item &it, Value fullLo, Value fullHi,
                              ValueRange carried);
  void storeKV(ArrayRef<Value> acc, GradTensor t, double scale);
};

/// Rows [firstRow, firstRow + 64) of `t` (zeros past `seqLen`, or all zeros
/// unless `wanted`) into `tile`, a memref<N x 64> of 64-column atoms,
/// 128-byte swizzled, from its row `firstAtomRow`.
void SM90MainKernelBuilder::copySwizzled(Value tile, Value firstAtomRow,
                                         GradTensor t, Value head,
                                         Value firstRow, Value seqLen,
                                         Value wanted,
                                         SmallVector<Value> &tokens) {
  int64_t unitsPerRow = d / 8;
  int64_t threads = k.cfg.mainThreads;
  for (int64_t i = 0; i < kBlockM * unitsPerRow / threads; ++i) {
    Value unit = k.add(tid, k.idx(i * threads));
    Value r = k.div(unit, unitsPerRow);
    Value column = k.rem(unit, unitsPerRow);
    Value atomRow = k.add(
        firstAtomRow, k.add(k.mul(k.div(column, 8), k.idx(kBlockM)), r));
    Value swizzled = arith::XOrIOp::create(b, k.rem(column, 8), k.rem(r, 8));
    Value row = k.add(firstRow, r);
    Value valid = k.lt(row, seqLen);
    if (wanted)
      valid = arith::AndIOp::create(b, valid, wanted);
    // Rows past the sequence: no bytes read, 16 zero bytes written.
    Value src = k.select(
        valid, k.offset(p, t, batch, head, row, k.mul(column, k.idx(8))),
        k.idx(0));
    Value count = k.select(valid, k.idx(8), k.idx(0));
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
        b, tokenType, tile, ValueRange{atomRow, k.mul(swizzled, k.idx(8))},
        p.view(t), ValueRange{src}, b.getIndexAttr(8), count, b.getUnitAttr()));
  }
}

/// The CTA's item `index` (its head and Q tile those of item `last` past
/// it, so that every address stays within the tensors); its Q and dO in
/// buffer index mod 2.
SM90MainKernelBuilder::Item SM90MainKernelBuilder::item(Value index,
                                                        Value last) {
  auto [head, qTile] = cta.at(k, index, last);
  return Item{head, qTile, k.rem(index, 2)};
}

/// The cp.async group of `tokens`' copies and `it`'s Q and dO into its
/// buffer (zeros unless `wanted`).
Value SM90MainKernelBuilder::copyItem(const Item &it, Value wanted,
                                      SmallVector<Value> tokens) {
  Value row0 = k.mul(it.qTile, k.idx(kBlockM));
  Value firstAtomRow = k.mul(it.buffer, k.idx(atomRows()));
  copySwizzled(queryTile, firstAtomRow, GradTensor::Q, it.head, row0, p.seqQ,
               wanted, tokens);
  copySwizzled(gradOutputTile, firstAtomRow, GradTensor::DO, it.head, row0,
               p.seqQ, wanted, tokens);
  return nvgpu::DeviceAsyncCreateGroupOp::create(b, tokenType, tokens);
}

/// LSE·log2(e) and D of `it`'s row tid mod 64 (the threads below kBlockM
/// store them; the others' loads hit the same lines, and no branch keeps
/// the values apart).
std::pair<Value, Value>
SM90MainKernelBuilder::itemRowStatistics(const Item &it) {
  Value row = k.add(k.mul(it.qTile, k.idx(kBlockM)), k.rem(tid, kBlockM));
  return {rowLseLog2(k, p, batch, it.head, row),
          rowDelta(k, p, batch, it.head, row)};
}

/// The thread's registers of `accStruct` after fattn.sm90.wgmma_wait_group,
/// as a vector. They pass through an empty asm statement that claims to
/// rewrite them, so that LLVM moves no use above the wait (to LLVM they are
/// plain values, but wgmma writes them asynchronously).
Value SM90MainKernelBuilder::waitedAccumulator(Value accStruct) {
  SmallVector<Value> registers = unpack(accStruct);
  int64_t n = registers.size();
  std::string constraints;
  for (int64_t i = 0; i < n; ++i)
    constraints += (i ? ",=f" : "=f");
  for (int64_t i = 0; i < n; ++i)
    constraints += "," + std::to_string(i);
  Value fenced =
      LLVM::InlineAsmOp::create(
          b, accStruct.getType(), registers, "", constraints,
          /*has_side_effects=*/true, /*is_align_stack=*/false,
          LLVM::tailcallkind::TailCallKind::None,
          /*asm_dialect=*/LLVM::AsmDialectAttr(), /*operand_attrs=*/ArrayAttr())
          .getResult(0);
  return vector::FromElementsOp::create(b, vectorOf(n), unpack(fenced));
}

/// rows cols^T (64 x `columns`, f32) of a 64-row tile and `columns` rows
/// of another, both of d columns in 64-row atoms, K-major: d / 16 wgmma
/// steps of 32 bytes, four per atom.
Value SM90MainKernelBuilder::ssProduct(Value rowsDesc, Value colsDesc,
                                       int64_t columns) {
  TypeAttr element = TypeAttr::get(k.elem);
  Type type = structOf(columns / 2);
  Value acc = LLVM::ZeroOp::create(b, type);
  for (int64_t kk = 0; kk < d / kStep; ++kk) {
    int64_t bytes = (kk / 4) * kBlockM * 128 + (kk % 4) * 32;
    acc = SM90WgmmaOp::create(b, type, moved(rowsDesc, bytes),
                              moved(colsDesc, bytes), acc, element,
                              kk ? b.getUnitAttr() : UnitAttr());
  }
  return acc;
}

/// acc (64 x 64) + A B over as many rows of B as A has k steps (4 i32
/// registers each): B an N-major 64-column atom at `bDesc` (transposed),
/// whose 16 rows per step are 2048 bytes.
Value SM90MainKernelBuilder::rsProduct(ArrayRef<Value> a, Value bDesc,
                                       Value acc, bool accumulate) {
  TypeAttr element = TypeAttr::get(k.elem);
  SmallVector<Value> registers = elements(acc);
  Value result;
  for (int64_t kk = 0; kk < static_cast<int64_t>(a.size()) / 4; ++kk) {
    result = SM90WgmmaRsOp::create(
        b, structOf(kAccRegisters), a.slice(4 * kk, 4),
        moved(bDesc, kk * kStep * 128), registers, element,
        accumulate || kk ? b.getUnitAttr() : UnitAttr(), b.getUnitAttr());
    registers = unpack(result);
  }
  return result;
}

/// The A fragments of the four k steps over a 64-column accumulator: in
/// wgmma's m64n64 accumulator, registers 8j..8j+7 of a thread hold its rows
/// r and r + 8 at columns 16j + 2t + {0, 1, 8, 9}, which is the m64k16 A
/// fragment of step j, two 16-bit values per register.
SmallVector<Value> SM90MainKernelBuilder::packFragments(Value values) {
  SmallVector<Value> x = elements(values), packed;
  for (int64_t i = 0; i < static_cast<int64_t>(x.size()); i += 2)
    packed.push_back(SM90PackPairOp::create(b, x[i], x[i + 1], k.elem));
  return packed;
}

/// The per-query values (LSE or D) of the thread's columns firstColumn +
/// 8i + 2t + {0, 1}, in accumulator order (registers 4i + {0, 1} and
/// 4i + {2, 3}: the same columns of two rows).
Value SM90MainKernelBuilder::rowValues(Value tile, int64_t firstColumn,
                                       int64_t registers) {
  auto pair = VectorType::get({2}, k.f32);
  SmallVector<Value> out;
  for (int64_t i = 0; i < registers / 4; ++i) {
    Value v = vector::LoadOp::create(
        b, pair, tile, ValueRange{k.add(k.idx(firstColumn + 8 * i), pairCol)});
    Value lo = vector::ExtractOp::create(b, v, ArrayRef<int64_t>{0});
    Value hi = vector::ExtractOp::create(b, v, ArrayRef<int64_t>{1});
    out.append({lo, hi, lo, hi});
  }
  return vector::FromElementsOp::create(b, vectorOf(registers), out);
}

/// -inf where the query does not see the key (fattn.mask's rule): register
/// j holds key r + 8 ((j mod 4) / 2) and query row0 + 8 (j / 4) + 2t +
/// (j mod 2).
Value SM90MainKernelBuilder::mask(Value scores, Value row0) {
  Value negInf = arith::ConstantOp::create(
      b, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
  Value offset = arith::SubIOp::create(b, p.seqK, p.seqQ);
  Value firstKey = k.add(k.add(keyBase, k.add(groupKeys, warpKeys)), groupRow);
  SmallVector<Value> x = elements(scores);
  for (int64_t j = 0; j < static_cast<int64_t>(x.size()); ++j) {
    Value key = k.add(firstKey, k.idx(8 * ((j % 4) / 2)));
    Value row = k.add(k.add(row0, k.idx(8 * (j / 4) + j % 2)), pairCol);
    Value visible = buildKeyVisible(b, b.getLoc(), row, key, offset, p.seqK,
                                    k.cfg.windowLeft, k.cfg.windowRight);
    x[j] = k.select(visible, x[j], negInf);
  }
  return vector::FromElementsOp::create(b, scores.getType(), x);
}

/// Queries [firstColumn, firstColumn + scoreColumns) of the Q tile: S^T and
/// dP^T to dS^T, dS^T into shared memory, and the wgmma of dV += P^T dO and
/// dK += dS^T Q on the accumulators `dK` and `dV` (64-column parts), whose
/// results (complete after a wait) go to `dKStructs` and `dVStructs`.
void SM90MainKernelBuilder::scoresPart(Value row0, Value masked,
                                       int64_t firstColumn,
                                       SmallVector<Value> &dKStructs,
                                       SmallVector<Value> &dVStructs,
                                       ArrayRef<Value> dK, ArrayRef<Value> dV) {
  int64_t columns = scoreColumns(d), registers = columns / 2;
  // The part's rows of Q and dO: 128-byte rows of the atoms.
  int64_t rowBytes = firstColumn * 128;
  // S^T = K Q^T and dP^T = V dO^T (the wait also completes the previous
  // part's dV and dK).
  SM90WgmmaFenceOp::create(b);
  Value scoresStruct = ssProduct(keyDesc, moved(queryDesc, rowBytes), columns);
  SM90WgmmaCommitGroupOp::create(b);
  Value gradProbsStruct =
      ssProduct(valueDesc, moved(gradOutputDesc, rowBytes), columns);
  SM90WgmmaCommitGroupOp::create(b);
  SM90WgmmaWaitGroupOp::create(b, b.getI64IntegerAttr(0));
  Value scores = waitedAccumulator(scoresStruct);
  Value gradProbs = waitedAccumulator(gradProbsStruct);

  // Capped: softcap·tanh(S^T·scale / softcap); masked on the tiles that
  // need it.
  double softcap = k.cfg.softcap;
  Value tanh;
  if (softcap > 0) {
    tanh = math::TanhOp::create(
        b, arith::MulFOp::create(
               b, scores,
               splat(static_cast<float>(k.cfg.scale / softcap), registers)));
    scores = arith::MulFOp::create(
        b, tanh, splat(static_cast<float>(softcap), registers));
  }
  Value partRow0 = k.add(row0, k.idx(firstColumn));
  auto ifOp = scf::IfOp::create(
      b, masked,
      [&](OpBuilder &nested, Location) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nested.getInsertionBlock(),
                            nested.getInsertionPoint());
        scf::YieldOp::create(b, mask(scores, partRow0));
      },
      [&](OpBuilder &nested, Location) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nested.getInsertionBlock(),
                            nested.getInsertionPoint());
        scf::YieldOp::create(b, scores);
      });
  scores = ifOp.getResult(0);

  // P^T = exp2(S^T·scale·log2(e) - LSE·log2(e)) (the capped scores carry the
  // scale already); dS^T = P^T ∘ (dP^T - D) ∘ (1 - tanh²).
  Value scaleLog2 = splat(static_cast<float>((softcap > 0 ? 1.0 : k.cfg.scale) *
                                             llvm::numbers::log2e),
                          registers);
  Value probs = math::Exp2Op::create(
      b, arith::SubFOp::create(b, arith::MulFOp::create(b, scores, scaleLog2),
                               rowValues(lseTile, firstColumn, registers)));
  Value gradScores = arith::MulFOp::create(
      b, probs,
      arith::SubFOp::create(b, gradProbs,
                            rowValues(deltaTile, firstColumn, registers)));
  if (softcap > 0)
    gradScores = arith::MulFOp::create(
        b, gradScores,
        arith::SubFOp::create(b, splat(1.0f, registers),
                              arith::MulFOp::create(b, tanh, tanh)));

  // dS^T to shared memory, in the 16-bit type of the products.
  auto half2 = VectorType::get({2}, k.elem);
  for (int64_t i = 0; i < registers / 4; ++i)
    for (int64_t h = 0; h < 2; ++h) {
      int64_t first = 4 * i + 2 * h;
      Value pair = vector::ShuffleOp::create(
          b, gradScores, gradScores, ArrayRef<int64_t>{first, first + 1});
      Value key =
          k.add(k.add(groupKeys, warpKeys), k.add(groupRow, k.idx(8 * h)));
      Value col = k.add(k.idx(firstColumn + 8 * i), pairCol);
      vector::StoreOp::create(b, arith::TruncFOp::create(b, half2, pair),
                              gradScoresT, ValueRange{key, col});
    }

  // dV += P^T dO and dK += dS^T Q over the part's rows of dO and Q, per 64
  // columns of the head dim.
  SmallVector<Value> probsA = packFragments(probs);
  SmallVector<Value> gradScoresA = packFragments(gradScores);
  SM90WgmmaFenceOp::create(b);
  dVStructs.clear();
  dKStructs.clear();
  for (int64_t c = 0; c < parts(); ++c)
    dVStructs.push_back(
        rsProduct(probsA, moved(gradOutputDesc, c * kBlockM * 128 + rowBytes),
                  dV[c], /*accumulate=*/true));
  for (int64_t c = 0; c < parts(); ++c)
    dKStructs.push_back(rsProduct(
        gradScoresA, moved(queryDesc, c * kBlockM * 128 + rowBytes), dK[c],
        /*accumulate=*/true));
  SM90WgmmaCommitGroupOp::create(b);
}

/// dS's A fragments of the warp's 16 queries over keys [firstKey,
/// firstKey + 16 steps) of the tile, by ldmatrix.trans of dS^T.
SmallVector<Value> SM90MainKernelBuilder::gradScoresFragments(Value firstKey,
                                                              int64_t steps) {
  Value aTransRow = k.add(k.rem(lane, 8), k.mul(k.div(lane, 16), k.idx(8)));
  Value bCol = k.mul(k.rem(k.div(lane, 8), 2), k.idx(8));
  auto fragType = VectorType::get({4, 2}, k.elem);
  auto word = VectorType::get({1}, b.getI32Type());
  SmallVector<Value> fragments;
  for (int64_t kk = 0; kk < steps; ++kk) {
    Value frag = nvgpu::LdMatrixOp::create(
        b, fragType, gradScoresT,
        ValueRange{k.add(firstKey, k.add(k.idx(kk * kStep), aTransRow)),
                   k.add(warpKeys, bCol)},
        /*transpose=*/true, /*numTiles=*/4);
    for (int64_t r = 0; r < 4; ++r) {
      Value pair = vector::ExtractOp::create(b, frag, ArrayRef<int64_t>{r});
      fragments.push_back(vector::ExtractOp::create(
          b, vector::BitCastOp::create(b, word, pair), ArrayRef<int64_t>{0}));
    }
  }
  return fragments;
}

/// The warpgroup's m64n64 part of dQ into the staged dQ at (firstRow,
/// firstColumn): the warp's 16 rows are queries 16w.. as its rows of S^T
/// are keys 16w.., the thread's rows g and g + 8.
void SM90MainKernelBuilder::stageGradQuery(Value dQ, Value firstRow,
                                           Value firstColumn) {
  auto pair = VectorType::get({2}, k.f32);
  for (int64_t i = 0; i < kAccRegisters / 4; ++i)
    for (int64_t h = 0; h < 2; ++h) {
      int64_t first = 4 * i + 2 * h;
      Value row =
          k.add(firstRow, k.add(warpKeys, k.add(groupRow, k.idx(8 * h))));
      Value col = k.add(firstColumn, k.add(k.idx(8 * i), pairCol));
      vector::StoreOp::create(
          b, vector::ShuffleOp::create(b, pair, dQ, dQ, {first, first + 1}),
          stagedGradQuery, ValueRange{row, col});
    }
}

/// dQ = dS K of Q tile `qTile` (first row row0) into dq_accum's rows of
/// `head`, through the staged dQ; deterministic, in the Q tile's turn. dS^T
/// is whole in shared memory, the previous tile's reductions are done
/// reading the staged dQ.
void SM90MainKernelBuilder::gradQuery(Value row0, Value qTile, Value head) {
  int64_t halfSteps = kGroupKeys / kStep;
  auto product = [&](Value firstKey, Value bDesc, Value acc, bool accumulate) {
    // dS's fragments are loaded for each product: held across the parts,
    // their registers beside dK, dV and dQ's spill at head dim 128.
    SmallVector<Value> fragments = gradScoresFragments(firstKey, halfSteps);
    SM90WgmmaFenceOp::create(b);
    Value dQStruct = rsProduct(fragments, bDesc, acc, accumulate);
    SM90WgmmaCommitGroupOp::create(b);
    SM90WgmmaWaitGroupOp::create(b, b.getI64IntegerAttr(0));
    return waitedAccumulator(dQStruct);
  };
  int64_t stagedRows = kBlockM;
  int64_t groups = warpgroups(k.cfg);
  if (splitsGradQueryColumns(k.cfg)) {
    // The warpgroup's atoms of dQ over the tile's keys, each warpgroup's 64
    // keys of K (N-major) in turn.
    int64_t groupParts = parts() / groups;
    for (int64_t j = 0; j < groupParts; ++j) {
      Value atom = k.add(k.mul(group, k.idx(groupParts)), k.idx(j));
      Value atomBytes = k.mul(atom, k.idx(kBlockM * 128));
      Value dQ = zeroAcc();
      for (int64_t half = 0; half < groups; ++half)
        dQ = product(k.idx(half * kGroupKeys),
                     moved(keyTileDesc,
                           k.add(atomBytes, k.idx(half * layout.tile))),
                     dQ, /*accumulate=*/half > 0);
      stageGradQuery(dQ, k.idx(0), k.mul(atom, k.idx(kAtomColumns)));
    }
  } else {
    // dQ's share of the warpgroup's own keys, staged in its own rows.
    stagedRows = groups * kBlockM;
    for (int64_t c = 0; c < parts(); ++c) {
      Value dQ = product(groupKeys, moved(keyDesc, c * kBlockM * 128),
                         zeroAcc(), /*accumulate=*/false);
      stageGradQuery(dQ, k.mul(group, k.idx(kBlockM)),
                     k.idx(c * kAtomColumns));
    }
  }
  // The staged rows to the async proxy; one thread per staged row of the
  // tile within seq_q adds it to its row of dq_accum.
  SM90FenceProxyAsyncOp::create(b);
  gpu::BarrierOp::create(b);
  // The row's addresses, computed here by every thread: the shuffles that
  // keep them from being hoisted out of the loop (where their (batch, head)
  // part would hold registers beside dK and dV) take the whole warp.
  Value row = k.add(row0, k.rem(tid, kBlockM));
  Value offset =
      k.workspaceOffset(p, opaqueIndex(batch), opaqueIndex(head), row, d);
  Value address = k.add(memref::ExtractAlignedPointerAsIndexOp::create(
                            b, p.view(GradTensor::DQAccum)),
                        k.mul(offset, k.idx(4)));
  Value destination = LLVM::IntToPtrOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext(), 1),
      arith::IndexCastUIOp::create(b, b.getI64Type(), address).getResult());
  int64_t pitchBytes = stagedGradQueryPitch(d) * 4;
  Value source = arith::AddIOp::create(
      b, opaque(alignedAddress),
      i32(k.add(k.idx(layout.gradQuery), k.mul(tid, k.idx(pitchBytes)))));
  auto reduce = [&](Value issuers) {
    k.ifThen(arith::AndIOp::create(b, issuers, k.lt(row, p.seqQ)), [&] {
      SM90BulkReduceAddOp::create(b, destination, source,
                                  arith::ConstantIntOp::create(b, d * 4, 32));
      SM90BulkCommitGroupOp::create(b);
    });
  };
  if (!k.cfg.deterministic) {
    reduce(k.lt(tid, k.idx(stagedRows)));
    return;
  }
  // In the Q tile's turn: the reductions after the acquired counter (the
  // async proxy after the generic one), their writes complete before it
  // passes. Warpgroups that stage shares of the same rows add them in turn.
  Value counter = waitForGradQueryTurn(k, p, tid, batch, head, qTile, kvTile);
  NVVM::FenceProxyOp::create(b, NVVM::ProxyKind::async_global, {});
  int64_t rounds = stagedRows / kBlockM;
  for (int64_t r = 0; r < rounds; ++r) {
    Value first = k.idx(r * kBlockM), end = k.idx((r + 1) * kBlockM);
    reduce(arith::AndIOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::sge, tid, first),
        k.lt(tid, end)));
    NVVM::CpAsyncBulkWaitGroupOp::create(b, 0, UnitAttr());
    if (r + 1 < rounds)
      gpu::BarrierOp::create(b);
  }
  NVVM::FenceProxyOp::create(b, NVVM::ProxyKind::async_global, {});
  passGradQueryTurn(k, tid, counter);
}

/// One item: its Q and dO in their buffer (complete), LSE and D in shared
/// memory; dK and dV carried in `carried` (64-column parts).
SmallVector<Value> SM90MainKernelBuilder::itemBody(const Item &it,
                                                   Value fullLo, Value fullHi,
                                                   ValueRange carried) {
  SmallVector<Value> dK(carried.begin(), carried.begin() + parts());
  SmallVector<Value> dV(carried.begin() + parts(), carried.end());
  deriveDescriptors(opaque(alignedAddress), it.buffer);
  Value row0 = k.mul(it.qTile, k.idx(kBlockM));

  // S^T to dS^T, dV and dK in parts of scoreColumns queries.
  Value belowFull = k.lt(it.qTile, fullLo);
  Value aboveFull =
      arith::CmpIOp::create(b, arith::CmpIPredicate::sge, it.qTile, fullHi);
  Value masked = arith::OrIOp::create(b, belowFull, aboveFull);
  SmallVector<Value> dKStructs, dVStructs;
  for (int64_t first = 0; first < kBlockM; first += scoreColumns(d)) {
    scoresPart(row0, masked, first, dKStructs, dVStructs, dK, dV);
    // The next part's accumulators: its wgmma's inputs, no registers of
    // their own.
    for (int64_t c = 0; c < parts(); ++c) {
      dK[c] = vector::FromElementsOp::create(b, accType, unpack(dKStructs[c]));
      dV[c] = vector::FromElementsOp::create(b, accType, unpack(dVStructs[c]));
    }
  }

  // The previous tile's bulk reductions are done reading the staged dQ
  // (their issuers wait, the barrier holds the others), and dS^T is whole.
  SM90BulkWaitGroupReadOp::create(b, b.getI64IntegerAttr(0));
  gpu::BarrierOp::create(b);
  gradQuery(row0, it.qTile, it.head);
  // The last wait covered dK's and dV's groups too.
  SmallVector<Value> results;
  for (Value s : dKStructs)
    results.push_back(waitedAccumulator(s));
  for (Value s : dVStructs)
    results.push_back(waitedAccumulator(s));
  return results;
}

void SM90MainKernelBuilder::storeKV(ArrayRef<Value> acc, GradTensor t,
                                    double scale) {
  auto half2 = VectorType::get({2}, k.elem);
  auto pair = VectorType::get({2}, k.f32);
  Value factor = arith::ConstantOp::create(
      b, pair,
      DenseElementsAttr::get(pair,
                             b.getF32FloatAttr(static_cast<float>(scale))));
  for (int64_t h = 0; h < 2; ++h) {
    Value key = k.add(k.add(keyBase, k.add(groupKeys, warpKeys)),
                      k.add(groupRow, k.idx(8 * h)));
    k.ifThen(k.lt(key, p.seqK), [&] {
      for (auto [c, part] : llvm::enumerate(acc))
        for (int64_t i = 0; i < kAccRegisters / 4; ++i) {
          int64_t first = 4 * i + 2 * h;
          Value x = vector::ShuffleOp::create(
              b, part, part, ArrayRef<int64_t>{first, first + 1});
          if (scale != 1.0)
            x = arith::MulFOp::create(b, x, factor);
          Value col = k.add(
              k.idx(static_cast<int64_t>(c) * kAtomColumns + 8 * i), pairCol);
          // 4 bytes: the ABI's 16-byte aligned rows, an even column.
          vector::StoreOp::create(
              b, arith::TruncFOp::create(b, half2, x), p.view(t),
              ValueRange{k.offset(p, t, batch, kvHead, key, col)},
              /*nontemporal=*/false, llvm::MaybeAlign(4));
        }
    });
  }
}

int64_t SM90MainKernelBuilder::build(QTileRangeOp qTileRange) {
  layout = sm90MainLayout(k.cfg);
  Value threadIndex = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  kvTile = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  kvHead = gpu::BlockIdOp::create(b, gpu::Dimension::y);
  batch = gpu::BlockIdOp::create(b, gpu::Dimension::z);
  deriveThreadIndices(threadIndex);
  keyBase = k.mul(kvTile, k.idx(k.cfg.blockN));

  // The tiles from the first 1024-byte boundary of the dynamic shared
  // memory: the swizzle is a function of the address bits 4-9.
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value smem = gpu::DynamicSharedMemoryOp::create(
      b, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                         MemRefLayoutAttrInterface(), workgroup));
  Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, smem);
  Value pad = k.rem(arith::SubIOp::create(b, k.idx(kSwizzleBytes),
                                          k.rem(address, kSwizzleBytes)),
                    kSwizzleBytes);
  alignedAddress = i32(k.add(address, pad));
  auto view = [&](int64_t offset, ArrayRef<int64_t> shape, Type type) {
    auto tileType =
        MemRefType::get(shape, type, MemRefLayoutAttrInterface(), workgroup);
    return memref::ViewOp::create(b, tileType, smem, k.add(pad, k.idx(offset)),
                                  ValueRange{})
        .getResult();
  };
  int64_t groups = warpgroups(k.cfg);
  keyTile = view(layout.key, {groups * atomRows(), kAtomColumns}, k.elem);
  valueTile = view(layout.value, {groups * atomRows(), kAtomColumns}, k.elem);
  queryTile = view(layout.query, {2 * atomRows(), kAtomColumns}, k.elem);
  gradOutputTile =
      view(layout.gradOutput, {2 * atomRows(), kAtomColumns}, k.elem);
  gradScoresT = view(layout.gradScoresT, {k.cfg.blockN, kScoresPitch}, k.elem);
  lseTile = view(layout.lse, {kBlockM}, k.f32);
  deltaTile = view(layout.delta, {kBlockM}, k.f32);
  stagedGradQuery = view(
      layout.gradQuery,
      {stagedGradQueryBuffers(k.cfg) * kBlockM, stagedGradQueryPitch(d)},
      k.f32);

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
  for (int64_t g = 0; g < groups; ++g) {
    Value firstKey = k.add(keyBase, k.idx(g * kGroupKeys));
    copySwizzled(keyTile, k.idx(g * atomRows()), GradTensor::K, kvHead,
                 firstKey, p.seqK, Value(), tokens);
    copySwizzled(valueTile, k.idx(g * atomRows()), GradTensor::V, kvHead,
                 firstKey, p.seqK, Value(), tokens);
  }
  Item first = item(k.idx(0));
  Value firstCopies = copyItem(first, k.lt(k.idx(0), items), tokens);
  auto [firstLse, firstDelta] = itemRowStatistics(first);

  SmallVector<Value> inits(2 * parts());
  for (Value &v : inits)
    v = zeroAcc();
  inits.append({firstLse, firstDelta});
  Value fullLo = range.getFullLo(), fullHi = range.getFullHi();
  scf::ForOp loop = k.forLoop(
      k.idx(0), items, inits, [&](Value index, ValueRange carried) {
        // The previous item's readers of the buffer the next one fills, and
        // of LSE and D, are done (its wgmma waited for every group).
        gpu::BarrierOp::create(b);
        auto entryIndices = std::make_tuple(tid, group, warp, lane, groupRow,
                                            pairCol, warpKeys, groupKeys);
        deriveThreadIndices(opaqueThreadIndex());
        Value lse = carried[2 * parts()], delta = carried[2 * parts() + 1];
        storeRowStatistics(k, tid, lse, delta, lseTile, deltaTile);
        // The next item's Q and dO into the other buffer (zeros past the
        // last item), its LSE and D into registers, while this one runs.
        Value nextIndex = k.add(index, k.idx(1));
        Item next = item(nextIndex, arith::SubIOp::create(b, items, k.idx(1)));
        Value copies = copyItem(next, k.lt(nextIndex, items), {});
        auto [nextLse, nextDelta] = itemRowStatistics(next);
        // This item's copies are done (the next one's may be pending).
        nvgpu::DeviceAsyncWaitOp::create(b, copies, b.getI32IntegerAttr(1));
        // The copies' writes before wgmma's reads (the async proxy).
        SM90FenceProxyAsyncOp::create(b);
        gpu::BarrierOp::create(b);
        SmallVector<Value> results =
            itemBody(item(index), fullLo, fullHi,
                     carried.take_front(2 * parts()));
        results.append({nextLse, nextDelta});
        std::tie(tid, group, warp, lane, groupRow, pairCol, warpKeys,
                 groupKeys) = entryIndices;
        return results;
      });
  // The last item's zero fill done before the kernel ends.
  nvgpu::DeviceAsyncWaitOp::create(b, firstCopies, b.getI32IntegerAttr(0));
  SmallVector<Value> dK(loop.getResults().begin(),
                        loop.getResults().begin() + parts());
  SmallVector<Value> dV(loop.getResults().begin() + parts(),
                        loop.getResults().begin() + 2 * parts());
  storeKV(dK, GradTensor::DK, k.cfg.scale);
  storeKV(dV, GradTensor::DV, 1.0);
  // The last bulk reductions read shared memory until they are done.
  SM90BulkWaitGroupReadOp::create(b, b.getI64IntegerAttr(0));
  return layout.bytes;
}
} // namespace

int64_t sm80grad::buildSM90MainBody(GradKernelBuilder &k, ValueRange args,
                                    QTileRangeOp qTileRange) {
  return SM90MainKernelBuilder(k, args).build(qTileRange);
}

int64_t mlir::fattn::sm90GradBlockN(int64_t headDim) {
  // Two warpgroups where they split dQ's atoms; at one atom (head dim 64)
  // their shares of dQ double its reductions, and one warpgroup on 64 keys,
  // two CTAs per SM, was faster (docs/PERF.md, 2026-12-07).
  return headDim % (2 * kAtomColumns) == 0 ? 2 * kGroupKeys : kGroupKeys;
}

LogicalResult mlir::fattn::buildSM90GradKernels(ModuleOp module) {
  // A warpgroup per 64 keys, one or two.
  auto mainThreads = [](int64_t blockN, int64_t) {
    return blockN == kGroupKeys || blockN == 2 * kGroupKeys
               ? blockN / kGroupKeys * kGroupThreads
               : int64_t{0};
  };
  // PTX 8.0: wgmma and the sm_90a target.
  return buildGradKernels(
      module, GradTarget{"sm_90a", "+ptx80", "the sm_90a backward kernels",
                         /*headDimGranule=*/kAtomColumns, mainThreads,
                         "64 x 64 or 64 x 128 tiles (block-m=64, block-n=64 "
                         "or 128)",
                         buildSM90MainBody});
}
