//===- AttentionKernel.cpp - the sm_80 attention kernel in NVVM -----------===//
//
// Implements the tiled online-softmax form as one CTA per (Q tile, head,
// batch) with the decisions recorded by --fattn-sm80-async-copy (shared
// memory ring) and --fattn-sm80-mma (fragments):
//
//   prologue: cp.async Q (group), K/V tiles lo .. lo+stages-2 (a group each)
//   for j in [lo, hi):
//     cp.async.wait_group(stages-2); bar.sync       -- tile j landed
//     cp.async tile j+stages-1 into the slot freed by j-1; commit
//     S = Q Kᵀ        ldmatrix (Q, K) + mma.sync m16n8k16, f32
//     [softcap]; [mask, only for tiles that cross an edge: kv_tile_range]
//     online softmax  quad shuffles, exp2 with scale·log2(e) folded in
//     O = O·alpha + P V   P from registers, V by ldmatrix.trans
//   O / l and LSE = scale·m + ln l straight from registers (0 / -inf for
//   rows without keys).
//
// The tile loops are unrolled here: every fragment is an SSA value, so the
// scf.for over KV tiles carries the accumulator, row max and row sum.
//
//===----------------------------------------------------------------------===//

#include "fattn/Conversion/FAttnToNVVM/FAttnToNVVM.h"
#include "fattn/Dialect/FAttn/Transforms/SM80/Passes.h"
#include "fattn/Dialect/FAttn/Utils/KVTileRangeBuilder.h"
#include "fattn/Dialect/FAttn/Utils/SM80Layout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fattn;

namespace {
constexpr int64_t kThreads = 128;
constexpr double kLog2E = 1.4426950408889634;
constexpr double kLn2 = 0.6931471805599453;

/// The configuration of one kernel, read from the annotated op.
struct SM80KernelConfig {
  int64_t headDim, blockM, blockN, warps, rowsPerWarp, stages;
  bool bf16, qInRegisters, hasLse;
  double scale, softcap;
  int64_t windowLeft, windowRight;
  sm80::SmemPlan plan;
};

/// A 16-bit A fragment (4 x i32) and the f32 accumulator of one m16n8 tile.
using AFrag = std::array<Value, 4>;
using AccFrag = std::array<Value, 4>;

class KernelEmitter {
public:
  KernelEmitter(ImplicitLocOpBuilder &b, const SM80KernelConfig &cfg)
      : b(b), cfg(cfg) {
    ctx = b.getContext();
    i1 = b.getI1Type();
    i32 = b.getI32Type();
    i64 = b.getI64Type();
    f32 = b.getF32Type();
    ptrG = LLVM::LLVMPointerType::get(ctx, 1);
    ptrS = LLVM::LLVMPointerType::get(ctx, 3);
    mFrags = cfg.rowsPerWarp / 16;
    nFrags = cfg.blockN / 8;
    dFrags = cfg.headDim / 8;
    elemBytes = 2;
  }

  void emit(LLVM::LLVMFuncOp func, LLVM::GlobalOp smemGlobal);

private:
  // Constants and small helpers.
  Value c32(int64_t v) {
    return arith::ConstantOp::create(b, b.getI32IntegerAttr(v));
  }
  Value c64(int64_t v) {
    return arith::ConstantOp::create(b, b.getI64IntegerAttr(v));
  }
  Value cf(double v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, c, x, y);
  }
  Value toI64(Value v) { return arith::ExtUIOp::create(b, i64, v); }
  Value gep(Type ptrType, Value base, Value byteOffset) {
    return LLVM::GEPOp::create(b, ptrType, b.getI8Type(), base,
                               ValueRange{byteOffset});
  }
  Value intrinsic(StringRef name, Value x) {
    return LLVM::CallIntrinsicOp::create(b, f32, b.getStringAttr(name),
                                         ValueRange{x})
        .getResult(0);
  }
  Value exp2(Value x) { return intrinsic("llvm.nvvm.ex2.approx.ftz.f32", x); }
  Value fma(Value x, Value y, Value z) {
    return LLVM::FMAOp::create(b, x, y, z);
  }
  Value shuffleXor(Value v, int64_t offset) {
    return NVVM::ShflOp::create(b, f32, c32(-1), v, c32(offset), c32(0x1f),
                                NVVM::ShflKindAttr::get(ctx,
                                                        NVVM::ShflKind::bfly),
                                UnitAttr());
  }
  /// Two f32 -> one i32 holding two 16-bit floats (low = first).
  Value pack(Value lo, Value hi) {
    Type half = cfg.bf16 ? Type(b.getBF16Type()) : Type(b.getF16Type());
    auto vecF32 = VectorType::get({2}, f32);
    Value v = LLVM::PoisonOp::create(b, vecF32);
    v = LLVM::InsertElementOp::create(b, v, lo, c32(0));
    v = LLVM::InsertElementOp::create(b, v, hi, c32(1));
    Value t = LLVM::FPTruncOp::create(b, VectorType::get({2}, half), v);
    return LLVM::BitcastOp::create(b, i32, t);
  }
  std::array<Value, 4> ldmatrix(Value ptr, bool transpose) {
    auto type = LLVM::LLVMStructType::getLiteral(ctx, {i32, i32, i32, i32});
    Value r = NVVM::LdMatrixOp::create(
        b, type, ptr, b.getI32IntegerAttr(4),
        NVVM::MMALayoutAttr::get(ctx, transpose ? NVVM::MMALayout::col
                                                : NVVM::MMALayout::row),
        NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
        NVVM::LdStMatrixEltTypeAttr::get(ctx, NVVM::LdStMatrixEltType::B16));
    std::array<Value, 4> regs;
    for (int64_t i = 0; i < 4; ++i)
      regs[i] = LLVM::ExtractValueOp::create(b, r, i);
    return regs;
  }
  AccFrag mma(const AFrag &a, Value b0, Value b1, const AccFrag &c) {
    auto type = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
    NVVM::MMATypes t = cfg.bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    // f16 operands are typed vector<2xf16>; bf16 ones stay i32.
    auto operand = [&](Value x) -> Value {
      if (cfg.bf16)
        return x;
      return LLVM::BitcastOp::create(b, VectorType::get({2}, b.getF16Type()),
                                     x);
    };
    SmallVector<Value> aOps = llvm::map_to_vector(a, operand);
    SmallVector<Value> bOps = {operand(b0), operand(b1)};
    Value r = NVVM::MmaOp::create(
        b, type, ValueRange(aOps), ValueRange(bOps), ValueRange(c),
        ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{t, t},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    AccFrag d;
    for (int64_t i = 0; i < 4; ++i)
      d[i] = LLVM::ExtractValueOp::create(b, r, i);
    return d;
  }

  /// Issues the cp.async copies of `rows` rows starting at sequence row
  /// `firstRow` of the (batch, head) slice at `base` into shared memory at
  /// byte offset `smemOffset`; rows at or past `seqLen` are zero-filled.
  void copyTile(Value base, Value strideS, Value firstRow, Value seqLen,
                Value smemOffset, int64_t rows);
  void copyKV(Value tile, Value slot);
  /// S = Q Kᵀ for the K tile in `slot`.
  SmallVector<AccFrag> scores(Value slot);
  void applySoftcap(SmallVector<AccFrag> &s);
  SmallVector<AccFrag> applyMask(const SmallVector<AccFrag> &s, Value tile);
  Value queryRow(int64_t mf, int64_t half) {
    return add(rowBase, c32(mf * 16 + half * 8));
  }
  int64_t accIndex(int64_t mf, int64_t df) const { return mf * dFrags + df; }

  ImplicitLocOpBuilder &b;
  const SM80KernelConfig &cfg;
  MLIRContext *ctx;
  Type i1, i32, i64, f32, ptrG, ptrS;
  int64_t mFrags, nFrags, dFrags, elemBytes;

  // Values of the kernel prologue.
  Value tid, lane, smem, seqQ, seqK;
  Value kBase, vBase, kStrideS, vStrideS;
  Value rowBase;                     // first query row of this lane (i32)
  Value qLdOffset, kLdOffset, vLdOffset; // per-lane ldmatrix byte offsets
  SmallVector<AFrag> qRegs;          // [mf * kSteps + kk] when in registers
};

void KernelEmitter::copyTile(Value base, Value strideS, Value firstRow,
                             Value seqLen, Value smemOffset, int64_t rows) {
  int64_t chunksPerRow = cfg.headDim * elemBytes / 16;
  int64_t copies = rows * chunksPerRow / kThreads;
  // Copy i of this thread: row tid / chunksPerRow + i * rowsPerStep, chunk
  // tid % chunksPerRow. Addresses advance by a fixed step, so only one
  // pointer per tile stays live.
  if (kThreads % chunksPerRow != 0) {
    // Head dim 96: a thread's chunks do not share a column; address each.
    for (int64_t i = 0; i < copies; ++i) {
      Value chunk = add(tid, c32(i * kThreads));
      Value row = arith::DivUIOp::create(b, chunk, c32(chunksPerRow));
      Value col = arith::RemUIOp::create(b, chunk, c32(chunksPerRow));
      Value seqRow = add(firstRow, row);
      Value valid = cmp(arith::CmpIPredicate::ult, seqRow, seqLen);
      Value src = gep(ptrG, base,
                      add(mul(toI64(seqRow), strideS), toI64(mul(col, c32(16)))));
      Value dst = gep(ptrS, smem,
                      add(smemOffset, add(mul(row, c32(cfg.plan.rowPitchBytes)),
                                          mul(col, c32(16)))));
      NVVM::CpAsyncOp::create(
          b, dst, src, b.getI32IntegerAttr(16),
          NVVM::LoadCacheModifierKindAttr::get(
              ctx, NVVM::LoadCacheModifierKind::CG),
          select(valid, c32(16), c32(0)));
    }
    return;
  }
  int64_t rowsPerStep = kThreads / chunksPerRow;
  Value row0 = arith::DivUIOp::create(b, tid, c32(chunksPerRow));
  Value col = arith::RemUIOp::create(b, tid, c32(chunksPerRow));
  Value src = gep(ptrG, base,
                  add(mul(toI64(add(firstRow, row0)), strideS),
                      toI64(mul(col, c32(16)))));
  Value srcStep = mul(strideS, c64(rowsPerStep));
  Value dst = gep(ptrS, smem,
                  add(smemOffset, add(mul(row0, c32(cfg.plan.rowPitchBytes)),
                                      mul(col, c32(16)))));
  // Rows left in the sequence for this thread's first copy.
  Value left = arith::SubIOp::create(b, seqLen, add(firstRow, row0));
  for (int64_t i = 0; i < copies; ++i) {
    // Past the end: copy 0 bytes (zero-fill); nothing is read from `src`.
    Value valid = cmp(arith::CmpIPredicate::sgt, left, c32(i * rowsPerStep));
    Value size = select(valid, c32(16), c32(0));
    NVVM::CpAsyncOp::create(
        b, gep(ptrS, dst, c32(i * rowsPerStep * cfg.plan.rowPitchBytes)),
        src, b.getI32IntegerAttr(16),
        NVVM::LoadCacheModifierKindAttr::get(ctx,
                                             NVVM::LoadCacheModifierKind::CG),
        size);
    if (i + 1 < copies)
      src = gep(ptrG, src, srcStep);
  }
}

void KernelEmitter::copyKV(Value tile, Value slot) {
  Value firstRow = mul(tile, c32(cfg.blockN));
  Value slotOffset = mul(slot, c32(cfg.plan.stageBytes));
  copyTile(kBase, kStrideS, firstRow, seqK,
           add(slotOffset, c32(cfg.plan.kOffset(0))), cfg.blockN);
  copyTile(vBase, vStrideS, firstRow, seqK,
           add(slotOffset, c32(cfg.plan.vOffset(0))), cfg.blockN);
}

SmallVector<AccFrag> KernelEmitter::scores(Value slot) {
  int64_t pitch = cfg.plan.rowPitchBytes;
  int64_t kSteps = cfg.headDim / 16;
  Value zero = cf(0.0);
  SmallVector<AccFrag> s(mFrags * nFrags, AccFrag{zero, zero, zero, zero});
  Value kSlot = add(mul(slot, c32(cfg.plan.stageBytes)),
                    add(c32(cfg.plan.kOffset(0)), kLdOffset));
  for (int64_t kk = 0; kk < kSteps; ++kk) {
    SmallVector<AFrag> a(mFrags);
    for (int64_t mf = 0; mf < mFrags; ++mf) {
      if (cfg.qInRegisters) {
        a[mf] = qRegs[mf * kSteps + kk];
        continue;
      }
      Value off = add(qLdOffset, c32(mf * 16 * pitch + kk * 16 * elemBytes));
      a[mf] = ldmatrix(gep(ptrS, smem, off), /*transpose=*/false);
    }
    for (int64_t np = 0; np < nFrags / 2; ++np) {
      Value off = add(kSlot, c32(np * 16 * pitch + kk * 16 * elemBytes));
      std::array<Value, 4> kb = ldmatrix(gep(ptrS, smem, off), false);
      for (int64_t mf = 0; mf < mFrags; ++mf) {
        AccFrag &s0 = s[mf * nFrags + 2 * np];
        AccFrag &s1 = s[mf * nFrags + 2 * np + 1];
        s0 = mma(a[mf], kb[0], kb[1], s0);
        s1 = mma(a[mf], kb[2], kb[3], s1);
      }
    }
  }
  return s;
}

void KernelEmitter::applySoftcap(SmallVector<AccFrag> &s) {
  // softcap · tanh(scale · s / softcap); the softmax then uses scale 1.
  Value inner = cf(cfg.scale / cfg.softcap), cap = cf(cfg.softcap);
  for (AccFrag &frag : s)
    for (Value &v : frag) {
      Value x = arith::MulFOp::create(b, v, inner);
      Value t = NVVM::InlinePtxOp::create(b, TypeRange{f32}, ValueRange{x},
                                          ValueRange{},
                                          "tanh.approx.f32 $0, $1;", Value())
                    .getResult(0);
      v = arith::MulFOp::create(b, t, cap);
    }
}

SmallVector<AccFrag> KernelEmitter::applyMask(const SmallVector<AccFrag> &s,
                                              Value tile) {
  // Bottom-right aligned: query qi sees key kj iff kj < seq_k and
  // qi + off - window_left <= kj <= qi + off + window_right.
  Value negInf = cf(-std::numeric_limits<double>::infinity());
  Value offset = arith::SubIOp::create(b, seqK, seqQ);
  Value colBase = add(mul(tile, c32(cfg.blockN)),
                      mul(arith::RemUIOp::create(b, lane, c32(4)), c32(2)));
  SmallVector<AccFrag> out(s);
  for (int64_t mf = 0; mf < mFrags; ++mf)
    for (int64_t half = 0; half < 2; ++half) {
      Value diag = add(queryRow(mf, half), offset);
      for (int64_t nf = 0; nf < nFrags; ++nf)
        for (int64_t e = 0; e < 2; ++e) {
          Value kj = add(colBase, c32(nf * 8 + e));
          Value visible = cmp(arith::CmpIPredicate::slt, kj, seqK);
          if (cfg.windowLeft >= 0)
            visible = arith::AndIOp::create(
                b, visible,
                cmp(arith::CmpIPredicate::sge, kj,
                    arith::SubIOp::create(b, diag, c32(cfg.windowLeft))));
          if (cfg.windowRight >= 0)
            visible = arith::AndIOp::create(
                b, visible,
                cmp(arith::CmpIPredicate::sle, kj,
                    add(diag, c32(cfg.windowRight))));
          Value &v = out[mf * nFrags + nf][half * 2 + e];
          v = select(visible, v, negInf);
        }
    }
  return out;
}

void KernelEmitter::emit(LLVM::LLVMFuncOp func, LLVM::GlobalOp smemGlobal) {
  Block *entry = func.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  auto args = entry->getArguments();
  unsigned a = 0;
  Value q = args[a++], k = args[a++], v = args[a++], o = args[a++];
  Value lse = cfg.hasLse ? args[a++] : Value();
  a++; // batch: the grid covers it
  Value headsQ = args[a++], headsKV = args[a++];
  seqQ = args[a++];
  seqK = args[a++];
  Value strides[4][3];
  for (auto &tensor : strides)
    for (Value &s : tensor)
      s = args[a++];
  Value lseStrideB, lseStrideH;
  if (cfg.hasLse) {
    lseStrideB = args[a++];
    lseStrideH = args[a++];
  }

  smem = LLVM::AddressOfOp::create(b, smemGlobal);
  tid = NVVM::ThreadIdXOp::create(b, i32);
  Value warp = arith::DivUIOp::create(b, tid, c32(32));
  lane = arith::RemUIOp::create(b, tid, c32(32));
  Value qTile = NVVM::BlockIdXOp::create(b, i32);
  Value head = NVVM::BlockIdYOp::create(b, i32);
  Value batch = NVVM::BlockIdZOp::create(b, i32);
  // GQA: query head h reads KV head h / (Hq / Hkv).
  Value kvHead =
      arith::DivUIOp::create(b, head, arith::DivUIOp::create(b, headsQ, headsKV));

  // Byte offsets of the (batch, head) slices; strides are in elements.
  Value eb = c64(elemBytes);
  auto slice = [&](Value ptr, Value strideB, Value strideH, Value h) {
    Value off = add(mul(toI64(batch), strideB), mul(toI64(h), strideH));
    return gep(ptrG, ptr, mul(off, eb));
  };
  Value qBase = slice(q, strides[0][0], strides[0][1], head);
  kBase = slice(k, strides[1][0], strides[1][1], kvHead);
  vBase = slice(v, strides[2][0], strides[2][1], kvHead);
  Value oBase = slice(o, strides[3][0], strides[3][1], head);
  Value qStrideS = mul(strides[0][2], eb);
  kStrideS = mul(strides[1][2], eb);
  vStrideS = mul(strides[2][2], eb);
  Value oStrideS = mul(strides[3][2], eb);

  Value firstRow = mul(qTile, c32(cfg.blockM));
  Value group = arith::DivUIOp::create(b, lane, c32(4));
  Value inGroup = arith::RemUIOp::create(b, lane, c32(4));
  rowBase = add(add(firstRow, mul(warp, c32(cfg.rowsPerWarp))), group);

  // Per-lane ldmatrix row addresses (see SM80Layout.h), in bytes.
  int64_t pitch = cfg.plan.rowPitchBytes;
  Value l8 = arith::RemUIOp::create(b, lane, c32(8));
  Value mat = arith::DivUIOp::create(b, lane, c32(8));
  Value matLo = arith::RemUIOp::create(b, mat, c32(2));
  Value matHi = arith::DivUIOp::create(b, mat, c32(2));
  auto ldOffset = [&](Value row, Value col) {
    return add(mul(row, c32(pitch)), mul(col, c32(8 * elemBytes)));
  };
  // A and B.trans: row = l8 + 8·(mat % 2), col = 8·(mat / 2); B: swapped.
  Value rowA = add(l8, mul(matLo, c32(8)));
  qLdOffset = add(c32(cfg.plan.qOffset),
                  add(mul(warp, c32(cfg.rowsPerWarp * pitch)),
                      ldOffset(rowA, matHi)));
  kLdOffset = ldOffset(add(l8, mul(matHi, c32(8))), matLo);
  vLdOffset = ldOffset(rowA, matHi);

  // The KV tiles this Q tile visits.
  Type index = b.getIndexType();
  auto toIndex = [&](Value x) { return arith::IndexCastUIOp::create(b, index, x); };
  auto fromIndex = [&](Value x) { return arith::IndexCastOp::create(b, i32, x); };
  KVTileRange<Value> range = buildKVTileRange(
      b, b.getLoc(), toIndex(qTile), toIndex(seqQ), toIndex(seqK),
      {cfg.blockM, cfg.blockN, cfg.windowLeft, cfg.windowRight});
  Value lo = fromIndex(range.lo), fullLo = fromIndex(range.fullLo);
  Value fullHi = fromIndex(range.fullHi), hi = fromIndex(range.hi);

  // Prologue: Q, then the first stages - 1 KV tiles, one commit group each.
  copyTile(qBase, qStrideS, firstRow, seqQ, c32(cfg.plan.qOffset), cfg.blockM);
  NVVM::CpAsyncCommitGroupOp::create(b);
  for (int64_t s = 0; s + 1 < cfg.stages; ++s) {
    Value tile = add(lo, c32(s));
    auto ifOp = scf::IfOp::create(b, cmp(arith::CmpIPredicate::slt, tile, hi),
                                  /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      copyKV(tile, c32(s));
    }
    NVVM::CpAsyncCommitGroupOp::create(b);
  }
  int64_t kSteps = cfg.headDim / 16;
  if (cfg.qInRegisters) {
    NVVM::CpAsyncWaitGroupOp::create(b, b.getI32IntegerAttr(cfg.stages - 1));
    NVVM::Barrier0Op::create(b);
    for (int64_t mf = 0; mf < mFrags; ++mf)
      for (int64_t kk = 0; kk < kSteps; ++kk) {
        Value off = add(qLdOffset, c32(mf * 16 * pitch + kk * 16 * elemBytes));
        std::array<Value, 4> r = ldmatrix(gep(ptrS, smem, off), false);
        qRegs.push_back(AFrag{r[0], r[1], r[2], r[3]});
      }
  }

  // The loop state: accumulator, then per (mf, half) row max and lane sum.
  Value zero = cf(0.0), negInf = cf(-std::numeric_limits<double>::infinity());
  SmallVector<Value> init(mFrags * dFrags * 4, zero);
  int64_t accCount = init.size();
  init.append(mFrags * 2, negInf);
  init.append(mFrags * 2, zero);
  double scaleLog2 = (cfg.softcap > 0 ? 1.0 : cfg.scale) * kLog2E;

  auto loop = scf::ForOp::create(b, lo, hi, c32(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value tile = loop.getInductionVar();
    ValueRange state = loop.getRegionIterArgs();
    Value it = arith::SubIOp::create(b, tile, lo);
    Value slot = arith::RemUIOp::create(b, it, c32(cfg.stages));

    // Tile j has landed and every warp is done with tile j - 1.
    NVVM::CpAsyncWaitGroupOp::create(b, b.getI32IntegerAttr(cfg.stages - 2));
    NVVM::Barrier0Op::create(b);
    Value next = add(tile, c32(cfg.stages - 1));
    auto prefetch =
        scf::IfOp::create(b, cmp(arith::CmpIPredicate::slt, next, hi), false);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(prefetch.thenBlock());
      copyKV(next, arith::RemUIOp::create(b, add(it, c32(cfg.stages - 1)),
                                          c32(cfg.stages)));
    }
    NVVM::CpAsyncCommitGroupOp::create(b);

    SmallVector<AccFrag> s = scores(slot);
    if (cfg.softcap > 0)
      applySoftcap(s);
    // Only tiles outside [full_lo, full_hi) cross an edge and need the mask.
    bool mayMask = true;
    if (mayMask) {
      Value needMask = arith::OrIOp::create(
          b, cmp(arith::CmpIPredicate::slt, tile, fullLo),
          cmp(arith::CmpIPredicate::sge, tile, fullHi));
      SmallVector<Type> types(s.size() * 4, f32);
      auto ifOp = scf::IfOp::create(b, types, needMask, true);
      auto flatten = [](const SmallVector<AccFrag> &frags) {
        SmallVector<Value> flat;
        for (const AccFrag &f : frags)
          flat.append(f.begin(), f.end());
        return flat;
      };
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        scf::YieldOp::create(b, flatten(applyMask(s, tile)));
        b.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(b, flatten(s));
      }
      for (size_t i = 0; i < s.size(); ++i)
        for (int64_t e = 0; e < 4; ++e)
          s[i][e] = ifOp.getResult(i * 4 + e);
    }

    // Online softmax per row (mf, half); the 4 lanes of a row share it.
    SmallVector<Value> acc(state.begin(), state.begin() + accCount);
    SmallVector<Value> newMax, newSum;
    Value c2 = cf(scaleLog2);
    for (int64_t mf = 0; mf < mFrags; ++mf)
      for (int64_t half = 0; half < 2; ++half) {
        Value oldMax = state[accCount + mf * 2 + half];
        Value oldSum = state[accCount + mFrags * 2 + mf * 2 + half];
        Value mx = oldMax;
        for (int64_t nf = 0; nf < nFrags; ++nf)
          for (int64_t e = 0; e < 2; ++e)
            mx = arith::MaxNumFOp::create(b, mx,
                                          s[mf * nFrags + nf][half * 2 + e]);
        mx = arith::MaxNumFOp::create(b, mx, shuffleXor(mx, 1));
        mx = arith::MaxNumFOp::create(b, mx, shuffleXor(mx, 2));
        // Rows that saw no key yet take probabilities against 0 (no NaN).
        Value isNegInf =
            arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mx, negInf);
        Value safe = select(isNegInf, zero, mx);
        Value negScaledMax = arith::NegFOp::create(
            b, arith::MulFOp::create(b, safe, c2));
        Value alpha = exp2(fma(oldMax, c2, negScaledMax));
        Value sum = zero;
        for (int64_t nf = 0; nf < nFrags; ++nf)
          for (int64_t e = 0; e < 2; ++e) {
            Value &x = s[mf * nFrags + nf][half * 2 + e];
            x = exp2(fma(x, c2, negScaledMax));
            sum = arith::AddFOp::create(b, sum, x);
          }
        newMax.push_back(mx);
        newSum.push_back(fma(oldSum, alpha, sum));
        for (int64_t df = 0; df < dFrags; ++df)
          for (int64_t e = 0; e < 2; ++e) {
            Value &x = acc[accIndex(mf, df) * 4 + half * 2 + e];
            x = arith::MulFOp::create(b, x, alpha);
          }
      }

    // O += P V: the score accumulators of n-tiles 2c, 2c+1 are the A
    // fragment of k-chunk c.
    int64_t kChunks = cfg.blockN / 16;
    Value vSlot = add(mul(slot, c32(cfg.plan.stageBytes)),
                      add(c32(cfg.plan.vOffset(0)), vLdOffset));
    for (int64_t kc = 0; kc < kChunks; ++kc) {
      SmallVector<AFrag> p(mFrags);
      for (int64_t mf = 0; mf < mFrags; ++mf) {
        const AccFrag &lo = s[mf * nFrags + 2 * kc];
        const AccFrag &hi = s[mf * nFrags + 2 * kc + 1];
        p[mf] = {pack(lo[0], lo[1]), pack(lo[2], lo[3]), pack(hi[0], hi[1]),
                 pack(hi[2], hi[3])};
      }
      for (int64_t dp = 0; dp < dFrags / 2; ++dp) {
        Value off = add(vSlot, c32(kc * 16 * pitch + dp * 16 * elemBytes));
        std::array<Value, 4> vb = ldmatrix(gep(ptrS, smem, off), true);
        for (int64_t mf = 0; mf < mFrags; ++mf)
          for (int64_t h = 0; h < 2; ++h) {
            int64_t base = accIndex(mf, 2 * dp + h) * 4;
            AccFrag c{acc[base], acc[base + 1], acc[base + 2], acc[base + 3]};
            AccFrag d = mma(p[mf], vb[2 * h], vb[2 * h + 1], c);
            for (int64_t e = 0; e < 4; ++e)
              acc[base + e] = d[e];
          }
      }
    }
    SmallVector<Value> yield(acc);
    yield.append(newMax);
    yield.append(newSum);
    scf::YieldOp::create(b, yield);
  }
  // No copy may still be in flight when the CTA exits.
  NVVM::CpAsyncWaitGroupOp::create(b, b.getI32IntegerAttr(0));

  // Epilogue: O = acc / l (0 without keys), LSE = scale·m + ln l (-inf).
  ValueRange result = loop.getResults();
  double lseScale = cfg.softcap > 0 ? 1.0 : cfg.scale;
  Value colOffset = toI64(mul(inGroup, c32(2 * elemBytes)));
  for (int64_t mf = 0; mf < mFrags; ++mf)
    for (int64_t half = 0; half < 2; ++half) {
      Value sum = result[accCount + mFrags * 2 + mf * 2 + half];
      sum = arith::AddFOp::create(b, sum, shuffleXor(sum, 1));
      sum = arith::AddFOp::create(b, sum, shuffleXor(sum, 2));
      Value max = result[accCount + mf * 2 + half];
      Value hasKeys =
          arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, sum, zero);
      Value inv = select(hasKeys, arith::DivFOp::create(b, cf(1.0), sum), zero);
      Value row = queryRow(mf, half);
      auto store = scf::IfOp::create(
          b, cmp(arith::CmpIPredicate::ult, row, seqQ), false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(store.thenBlock());
      Value rowPtr = gep(ptrG, oBase, add(mul(toI64(row), oStrideS), colOffset));
      for (int64_t df = 0; df < dFrags; ++df) {
        int64_t base = accIndex(mf, df) * 4 + half * 2;
        Value x0 = arith::MulFOp::create(b, result[base], inv);
        Value x1 = arith::MulFOp::create(b, result[base + 1], inv);
        Value ptr = gep(ptrG, rowPtr, c64(df * 8 * elemBytes));
        LLVM::StoreOp::create(b, pack(x0, x1), ptr, /*alignment=*/4);
      }
      if (cfg.hasLse) {
        auto lead = scf::IfOp::create(
            b, cmp(arith::CmpIPredicate::eq, inGroup, c32(0)), false);
        b.setInsertionPointToStart(lead.thenBlock());
        Value ln = arith::MulFOp::create(
            b, intrinsic("llvm.nvvm.lg2.approx.f", sum), cf(kLn2));
        Value value = arith::AddFOp::create(
            b, arith::MulFOp::create(b, max, cf(lseScale)), ln);
        value = select(hasKeys, value, negInf);
        Value off = add(add(mul(toI64(batch), lseStrideB),
                            mul(toI64(head), lseStrideH)),
                        toI64(row));
        Value ptr = gep(ptrG, lse, mul(off, c64(4)));
        LLVM::StoreOp::create(b, value, ptr, /*alignment=*/4);
      }
    }
  LLVM::ReturnOp::create(b, ValueRange{});
}

FailureOr<SM80KernelConfig> readConfig(TiledAttentionOp op) {
  auto smemAttr = op->getAttrOfType<DictionaryAttr>(kSM80SmemAttr);
  auto mmaAttr = op->getAttrOfType<DictionaryAttr>(kSM80MmaAttr);
  if (!smemAttr || !mmaAttr)
    return op.emitOpError("sm_80 kernel: missing ")
           << (smemAttr ? kSM80MmaAttr : kSM80SmemAttr)
           << "; run --fattn-sm80-async-copy and --fattn-sm80-mma first";
  auto getInt = [](DictionaryAttr d, StringRef name) -> int64_t {
    auto attr = d.getAs<IntegerAttr>(name);
    return attr ? attr.getInt() : -1;
  };
  SM80KernelConfig cfg;
  auto qType = cast<MemRefType>(op.getQuery().getType());
  cfg.headDim = qType.getDimSize(3);
  cfg.bf16 = qType.getElementType().isBF16();
  cfg.blockM = op.getBlockM();
  cfg.blockN = op.getBlockN();
  cfg.stages = getInt(smemAttr, "stages");
  cfg.warps = getInt(mmaAttr, "warps");
  cfg.rowsPerWarp = getInt(mmaAttr, "rows_per_warp");
  auto qRegs = mmaAttr.getAs<BoolAttr>("q_in_registers");
  cfg.qInRegisters = qRegs && qRegs.getValue();
  cfg.hasLse = static_cast<bool>(op.getLse());
  cfg.scale = op.getScale().convertToFloat();
  cfg.softcap = op.getSoftcap().convertToFloat();
  cfg.windowLeft = op.getWindowLeft();
  cfg.windowRight = op.getWindowRight();
  cfg.plan = sm80::planSmem(cfg.headDim, 2, cfg.blockM, cfg.blockN, cfg.stages);
  if (cfg.stages < 2 || cfg.warps * 32 != kThreads ||
      cfg.rowsPerWarp * cfg.warps != cfg.blockM || cfg.rowsPerWarp % 16 ||
      cfg.blockN % 16 || cfg.plan.totalBytes != getInt(smemAttr, "bytes"))
    return op.emitOpError("sm_80 kernel: inconsistent sm_80 annotations");
  return cfg;
}
} // namespace

FailureOr<LLVM::LLVMFuncOp>
mlir::fattn::buildSM80AttentionKernel(OpBuilder &builder, TiledAttentionOp op,
                                      StringRef name) {
  FailureOr<SM80KernelConfig> cfg = readConfig(op);
  if (failed(cfg))
    return failure();
  MLIRContext *ctx = builder.getContext();
  ImplicitLocOpBuilder b(op.getLoc(), builder);

  // Dynamic shared memory: one extern array shared by all kernels.
  std::string smemName = "fattn_smem";
  auto module = builder.getInsertionBlock()->getParentOp();
  auto smemGlobal = dyn_cast_or_null<LLVM::GlobalOp>(
      SymbolTable::lookupSymbolIn(module, smemName));
  if (!smemGlobal)
    smemGlobal = LLVM::GlobalOp::create(
        b, LLVM::LLVMArrayType::get(b.getI8Type(), 0), /*isConstant=*/false,
        LLVM::Linkage::External, smemName, Attribute(), /*alignment=*/16,
        /*addrSpace=*/3);

  Type ptrG = LLVM::LLVMPointerType::get(ctx, 1);
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  SmallVector<Type> params(4, ptrG);
  if (cfg->hasLse)
    params.push_back(ptrG);
  params.append(5, i32);
  params.append(12, i64);
  if (cfg->hasLse)
    params.append(2, i64);
  auto func = LLVM::LLVMFuncOp::create(
      b, name, LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), params));
  func->setAttr("nvvm.kernel", b.getUnitAttr());
  func->setAttr("nvvm.maxntid", b.getDenseI32ArrayAttr({kThreads, 1, 1}));

  Builder attrs(ctx);
  func->setAttr(
      kKernelInfoAttrName,
      attrs.getDictionaryAttr({
          attrs.getNamedAttr("block_m", attrs.getI64IntegerAttr(cfg->blockM)),
          attrs.getNamedAttr("block_n", attrs.getI64IntegerAttr(cfg->blockN)),
          attrs.getNamedAttr("threads", attrs.getI64IntegerAttr(kThreads)),
          attrs.getNamedAttr("dynamic_smem_bytes",
                             attrs.getI64IntegerAttr(cfg->plan.totalBytes)),
          attrs.getNamedAttr("dtype",
                             attrs.getStringAttr(cfg->bf16 ? "bf16" : "f16")),
          attrs.getNamedAttr("head_dim", attrs.getI64IntegerAttr(cfg->headDim)),
          attrs.getNamedAttr("scale", attrs.getF64FloatAttr(cfg->scale)),
          attrs.getNamedAttr("window_left",
                             attrs.getI64IntegerAttr(cfg->windowLeft)),
          attrs.getNamedAttr("window_right",
                             attrs.getI64IntegerAttr(cfg->windowRight)),
          attrs.getNamedAttr("softcap", attrs.getF64FloatAttr(cfg->softcap)),
          attrs.getNamedAttr("has_lse", attrs.getBoolAttr(cfg->hasLse)),
          attrs.getNamedAttr("stages", attrs.getI64IntegerAttr(cfg->stages)),
      }));

  OpBuilder::InsertionGuard guard(b);
  KernelEmitter(b, *cfg).emit(func, smemGlobal);
  return func;
}
