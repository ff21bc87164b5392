//===- AttentionKernel.cpp - the sm_80 attention kernel in NVVM -----------===//
//
// Implements the tiled online-softmax form as one CTA per (Q tile, head,
// batch) with the decisions recorded by --fattn-sm80-async-copy (shared
// memory ring) and --fattn-sm80-mma (fragments):
//
//   prologue: cp.async Q (group), K/V tiles lo .. lo+stages-2 (a group each)
//   for j in [lo, full_lo) masked, [full_lo, full_hi), [full_hi, hi) masked:
//     cp.async.wait_group(stages-2); bar.sync       -- tile j landed
//     cp.async tile j+stages-1 into the slot freed by j-1; commit
//       (only tile hi-1 can end past seq_k: only its copies are guarded)
//     S = Q Kᵀ        ldmatrix (Q, K) + mma.sync m16n8k16, f32
//     [softcap]; [mask: only the loops of tiles that cross an edge]
//     online softmax  quad shuffles, exp2 with scale·log2(e) folded in
//     O = O·alpha + P V   P from registers, V by ldmatrix.trans
//   O / l through each warp's rows of the Q tile, stored in 16-byte chunks;
//   LSE = scale·m + ln l (0 / -inf for rows without keys).
//
// A runtime scale or softcap (operands of the tiled op) arrives as f32
// kernel parameters after the others; each thread derives scale·log2(e) or
// scale / softcap from them once, in the entry block.
//
// Register budget: at head dims 96 and 128 the accumulator (up to 128) and
// scores (64) leave little room, so nothing that the loops do not need stays
// live across them: each tile re-derives its indices and addresses, the
// epilogue re-reads its indices, and Q's ldmatrix base is kept from being
// hoisted as 16 separate addresses. Head dim 64 has room: its loops keep the
// prologue's indices, which measured up to 3% faster (docs/PERF.md).
//
// Head dims that are multiples of 8 but not of 16 (40, 72, ..., 248): S =
// Q Kᵀ steps through Q's and K's head dim 16 columns at a time, and its last
// step has 8. Its ldmatrix reads 16 columns as every step does (the row
// pitch holds a spare 16-byte chunk past the head dim: planSmem), and the
// mma.sync takes zeros in place of the A and B registers of columns 8-15, so
// that whatever the spare chunk holds never reaches S. P V and O go through
// V's head dim in n8 tiles; an odd count leaves the last ldmatrix.trans's
// second tile unused.
//
// The tile loops are unrolled here: every fragment is an SSA value, so the
// scf.for over KV tiles carries the accumulator, row max and row sum (and
// the token of the latest cp.async commit group).
//
// The kernel is built at the target level (L3): the copies, commit groups,
// ldmatrix, mma.sync, P's packing, O's and the LSE's stores and the warp
// barrier are fattn.sm80.* ops (FAttnSM80Ops.td), the waits
// nvgpu.device_async_wait, the CTA's barriers gpu.barrier, the quads'
// shuffles gpu.shuffle, the masks and the softmax arith and math ops (exp2,
// fma, log2, the softcap's tanh); lowerSM80TargetOps (TargetToNVVM.cpp)
// lowers them.
//
//===----------------------------------------------------------------------===//

#include "fattn/Conversion/FAttnToNVVM/FAttnToNVVM.h"
#include "fattn/Conversion/FAttnToNVVM/KernelSymbol.h"
#include "fattn/Dialect/FAttn/IR/FAttnSM80Ops.h"
#include "fattn/Dialect/FAttn/Transforms/SM80/Passes.h"
#include "fattn/Dialect/FAttn/Utils/KVTileRangeBuilder.h"
#include "fattn/Dialect/FAttn/Utils/SM80Layout.h"

#include "SM80Builder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/bit.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fattn;
using namespace mlir::fattn::sm80;

namespace {
constexpr int64_t kThreads = 128;
constexpr double kLog2E = 1.4426950408889634;
constexpr double kLn2 = 0.6931471805599453;

/// The configuration of one kernel, read from the annotated op.
struct SM80KernelConfig {
  /// Q's and K's head dim, and V's (O's), which may differ.
  int64_t headDim, headDimV, blockM, blockN, warps, rowsPerWarp, stages;
  bool bf16, qInRegisters, hasLse;
  double scale, softcap;
  /// The scale or the softcap is a kernel parameter (`scale`, `softcap`),
  /// not the constant above.
  bool dynamicScale, dynamicSoftcap;
  int64_t windowLeft, windowRight;
  sm80::SmemPlan plan;
  /// Whether each KV tile derives its per-thread indices and addresses anew
  /// (see KernelEmitter::deriveIndices) instead of keeping the prologue's.
  bool rederiveIndices;

  bool hasSoftcap() const { return dynamicSoftcap || softcap > 0; }
};

/// A 16-bit A fragment (4 x i32) and the f32 accumulator of one m16n8 tile.
using AFrag = std::array<Value, 4>;
using AccFrag = std::array<Value, 4>;

class KernelEmitter : SM80Builder {
public:
  KernelEmitter(ImplicitLocOpBuilder &b, const SM80KernelConfig &cfg)
      : SM80Builder(b), cfg(cfg) {
    mFrags = cfg.rowsPerWarp / 16;
    nFrags = cfg.blockN / 8;
    dFrags = cfg.headDimV / 8;
    elemBytes = 2;
  }

  void emit(LLVM::LLVMFuncOp func, LLVM::GlobalOp smemGlobal);

private:
  Type halfType() {
    return cfg.bf16 ? Type(b.getBF16Type()) : Type(b.getF16Type());
  }
  /// Closes the cp.async commit group of the copies issued since the last
  /// one; its token names it.
  Value commitGroup() {
    return SM80CommitGroupOp::create(b, nvgpu::DeviceAsyncTokenType::get(ctx));
  }
  /// Waits until at most the `pending` latest commit groups are in flight
  /// (`group` is the latest).
  void waitGroups(Value group, int64_t pending) {
    nvgpu::DeviceAsyncWaitOp::create(b, group, b.getI32IntegerAttr(pending));
  }
  // The softmax's math is upstream's math ops; the L3 -> L4 conversion
  // computes exp2, log2 and tanh with the approximate instructions
  // (TargetToNVVM.cpp).
  Value exp2(Value x) { return math::Exp2Op::create(b, x); }
  Value fma(Value x, Value y, Value z) {
    return math::FmaOp::create(b, x, y, z);
  }
  /// The value of lane (lane xor `offset`): a butterfly shuffle over the
  /// whole warp (the quads' row reductions).
  Value shuffleXor(Value v, int64_t offset) {
    return gpu::ShuffleOp::create(b, v, offset, /*width=*/32,
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  }
  /// Two f32 -> one i32 holding two 16-bit floats (low = first).
  Value pack(Value lo, Value hi) {
    return SM80PackPairOp::create(b, lo, hi, halfType());
  }
  std::array<Value, 4> ldmatrix(Value ptr, bool transpose) {
    auto op = SM80LdmatrixX4Op::create(b, ptr, transpose);
    return {op.getWord0(), op.getWord1(), op.getWord2(), op.getWord3()};
  }
  AccFrag mma(const AFrag &a, Value b0, Value b1, const AccFrag &c) {
    auto op = SM80MmaOp::create(b, ValueRange(a), ValueRange{b0, b1},
                                ValueRange(c), halfType());
    return {op.getD0(), op.getD1(), op.getD2(), op.getD3()};
  }

  /// A copy of `v` (i32 or i64) that LLVM cannot see through or move; see
  /// deriveIndices.
  Value opaque(Value v) {
    bool wide = v.getType() == i64;
    return LLVM::InlineAsmOp::create(
               b, v.getType(), ValueRange{v},
               wide ? "mov.b64 $0, $1;" : "mov.b32 $0, $1;",
               wide ? "=l,l" : "=r,r", /*has_side_effects=*/true,
               /*is_align_stack=*/false,
               LLVM::tailcallkind::TailCallKind::None,
               /*asm_dialect=*/LLVM::AsmDialectAttr(),
               /*operand_attrs=*/ArrayAttr())
        .getResult(0);
  }
  /// Reads a special register (e.g. "%ctaid.y") anew. The NVVM intrinsics
  /// would be CSE'd with the prologue's reads, so that the value stayed live
  /// across the KV loops; the loops and the epilogue re-read what they need
  /// instead.
  Value readSpecialRegister(StringRef name) {
    return LLVM::InlineAsmOp::create(
               b, i32, ValueRange{}, ("mov.u32 $0, " + name + ";").str(),
               "=r", /*has_side_effects=*/true, /*is_align_stack=*/false,
               LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
               ArrayAttr())
        .getResult(0);
  }

  /// The Q tile this CTA computes. When later Q tiles see more keys (causal
  /// or right-window masks), the tiles run in reverse launch order so that
  /// the longest CTAs start first and the short ones fill the tail.
  Value queryTile(Value ctaidX, function_ref<Value()> nctaidX) {
    if (cfg.windowRight >= 0 && cfg.windowLeft < 0)
      return arith::SubIOp::create(
          b, arith::SubIOp::create(b, nctaidX(), c32(1)), ctaidX);
    return ctaidX;
  }

  /// Issues the cp.async copies of `rows` rows of `columns` elements
  /// starting at sequence row `firstRow` of the (batch, head) slice at `base`
  /// into shared memory at byte offset `smemOffset`. With `guarded`, rows at
  /// or past `seqLen` are zero-filled (a 0-byte copy) and read from row
  /// `firstRow`, which exists, so that no address past the tensor is formed;
  /// without, every row must exist.
  void copyTile(Value base, Value strideS, Value firstRow, Value seqLen,
                Value smemOffset, int64_t rows, bool guarded, int64_t columns);
  void copyKV(Value tile, Value slot, bool guarded);
  /// Starts the copies of KV tile `next` into `slot` when next < hi. Only
  /// tile hi - 1 can end past seq_k, so only it takes the guarded copies.
  void prefetchKV(Value next, Value slot);
  /// S = Q Kᵀ for the K tile in `slot`.
  SmallVector<AccFrag> scores(Value slot);
  void applySoftcap(SmallVector<AccFrag> &s);
  SmallVector<AccFrag> applyMask(const SmallVector<AccFrag> &s, Value tile);
  /// One scf.for over the KV tiles [from, to) carrying `state` (accumulator,
  /// row maxima, lane sums, the latest commit group); `masked` loops apply the mask to every tile,
  /// the others contain no mask code at all.
  ValueRange tileLoop(Value from, Value to, bool masked, ValueRange state);
  /// The k-steps of 16 columns of S = Q Kᵀ over Q's and K's head dim, the
  /// last one of 8 columns where the head dim is not a multiple of 16.
  int64_t kSteps() const { return llvm::divideCeil(cfg.headDim, 16); }
  bool isHalfStep(int64_t kk) const {
    return cfg.headDim % 16 != 0 && kk + 1 == kSteps();
  }
  /// Zeros in place of the registers of the columns 8-15 of k-step `kk`
  /// (A's words 2 and 3) where the step has 8 columns.
  AFrag queryFragment(std::array<Value, 4> words, int64_t kk) {
    if (isHalfStep(kk))
      words[2] = words[3] = c32(0);
    return AFrag{words[0], words[1], words[2], words[3]};
  }
  Value queryRow(int64_t mf, int64_t half) {
    return add(rowBase, c32(mf * 16 + half * 8));
  }
  int64_t accIndex(int64_t mf, int64_t df) const { return mf * dFrags + df; }

  const SM80KernelConfig &cfg;
  int64_t mFrags, nFrags, dFrags, elemBytes;

  /// Derives the per-thread indices and K/V addresses below from the
  /// special registers and parameters. The prologue reads them through the
  /// NVVM ops; with cfg.rederiveIndices each KV loop derives them anew per
  /// tile from fresh reads (readSpecialRegister, opaque parameters), because
  /// LICM would otherwise hoist every lane offset and copy address out of
  /// the loop and hold each in registers across it, where the accumulator
  /// and scores need them.
  void deriveIndices(bool fresh);
  /// The values deriveIndices sets; tileLoop restores them after its body.
  SmallVector<Value *> perThreadValues() {
    return {&tid,      &warp,     &lane,    &qTile,     &firstRow,
            &head,     &batch,    &kBase,   &vBase,     &kStrideS,
            &vStrideS, &rowBase,  &qLdOffset, &kLdOffset, &vLdOffset};
  }

  // Kernel parameters.
  Value qArg, kArg, vArg, headsQ, headsKV, seqQ, seqK;
  Value strides[4][3];
  // Runtime scalars (null when constant) and, from them, scale / softcap
  // (with a softcap) or scale·log2(e) (without), derived in the entry block.
  Value scaleParam, softcapParam, softcapInner, scaleLog2Param;
  Value smem;
  Value lo, hi;  // the KV tiles this Q tile visits
  Value kvHead;  // of the prologue, kept: see deriveIndices

  // Per-thread values of deriveIndices.
  Value tid, warp, lane, qTile, firstRow, head, batch;
  Value kBase, vBase, kStrideS, vStrideS;
  Value rowBase;                     // first query row of this lane (i32)
  Value qLdOffset, kLdOffset, vLdOffset; // per-lane ldmatrix byte offsets
  SmallVector<AFrag> qRegs;          // [mf * kSteps + kk] when in registers
};

void KernelEmitter::deriveIndices(bool fresh) {
  auto sreg = [&](StringRef name, auto op) -> Value {
    if (fresh)
      return readSpecialRegister(name);
    return decltype(op)::create(b, i32);
  };
  auto param = [&](Value v) { return fresh ? opaque(v) : v; };
  tid = sreg("%tid.x", NVVM::ThreadIdXOp());
  warp = arith::DivUIOp::create(b, tid, c32(32));
  lane = arith::RemUIOp::create(b, tid, c32(32));
  qTile = queryTile(sreg("%ctaid.x", NVVM::BlockIdXOp()),
                    [&] { return sreg("%nctaid.x", NVVM::GridDimXOp()); });
  head = sreg("%ctaid.y", NVVM::BlockIdYOp());
  batch = sreg("%ctaid.z", NVVM::BlockIdZOp());
  firstRow = mul(qTile, c32(cfg.blockM));
  rowBase = add(add(firstRow, mul(warp, c32(cfg.rowsPerWarp))),
                arith::DivUIOp::create(b, lane, c32(4)));

  // GQA: query head h reads KV head h / (Hq / Hkv). Two integer divisions
  // are too slow to repeat per tile: the loops reuse the prologue's.
  if (!fresh)
    kvHead = arith::DivUIOp::create(
        b, head, arith::DivUIOp::create(b, headsQ, headsKV));
  Value kvHeadHere = fresh ? opaque(kvHead) : kvHead;
  // Byte offsets of the (batch, head) slices; strides are in elements.
  Value eb = c64(elemBytes);
  auto slice = [&](Value ptr, int64_t t, Value h) {
    Value off = add(mul(toI64(batch), param(strides[t][0])),
                    mul(toI64(h), param(strides[t][1])));
    return gep(ptrG, ptr, mul(off, eb));
  };
  kBase = slice(kArg, 1, kvHeadHere);
  vBase = slice(vArg, 2, kvHeadHere);
  kStrideS = mul(param(strides[1][2]), eb);
  vStrideS = mul(param(strides[2][2]), eb);

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
}

void KernelEmitter::copyTile(Value base, Value strideS, Value firstRow,
                             Value seqLen, Value smemOffset, int64_t rows,
                             bool guarded, int64_t columns) {
  SM80CopyTileOp::create(b, base, firstRow, strideS, smem, smemOffset, tid,
                         guarded ? seqLen : Value(), rows, columns * elemBytes,
                         cfg.plan.rowPitchBytes, kThreads);
}

void KernelEmitter::copyKV(Value tile, Value slot, bool guarded) {
  Value firstRow = mul(tile, c32(cfg.blockN));
  Value slotOffset = mul(slot, c32(cfg.plan.stageBytes));
  copyTile(kBase, kStrideS, firstRow, seqK,
           add(slotOffset, c32(cfg.plan.kOffset(0))), cfg.blockN, guarded,
           cfg.headDim);
  copyTile(vBase, vStrideS, firstRow, seqK,
           add(slotOffset, c32(cfg.plan.vOffset(0))), cfg.blockN, guarded,
           cfg.headDimV);
}

void KernelEmitter::prefetchKV(Value next, Value slot) {
  Value last = arith::SubIOp::create(b, hi, c32(1));
  auto inner = scf::IfOp::create(b, cmp(arith::CmpIPredicate::slt, next, last),
                                 /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(inner.thenBlock());
  copyKV(next, slot, /*guarded=*/false);
  b.setInsertionPointToStart(inner.elseBlock());
  auto tail = scf::IfOp::create(b, cmp(arith::CmpIPredicate::eq, next, last),
                                /*withElseRegion=*/false);
  b.setInsertionPointToStart(tail.thenBlock());
  copyKV(next, slot, /*guarded=*/true);
}

SmallVector<AccFrag> KernelEmitter::scores(Value slot) {
  int64_t pitch = cfg.plan.rowPitchBytes;
  int64_t kSteps = this->kSteps();
  Value zero = cf(0.0);
  SmallVector<AccFrag> s(mFrags * nFrags, AccFrag{zero, zero, zero, zero});
  // One base pointer each for K and Q; every ldmatrix adds a constant that
  // the address mode absorbs.
  Value kPtr = gep(ptrS, smem,
                   add(mul(slot, c32(cfg.plan.stageBytes)),
                       add(c32(cfg.plan.kOffset(0)), kLdOffset)));
  Value qPtr;
  if (!cfg.qInRegisters)
    qPtr = gep(ptrS, smem, qLdOffset);
  for (int64_t kk = 0; kk < kSteps; ++kk) {
    SmallVector<AFrag> a(mFrags);
    for (int64_t mf = 0; mf < mFrags; ++mf) {
      if (cfg.qInRegisters) {
        a[mf] = qRegs[mf * kSteps + kk];
        continue;
      }
      a[mf] = queryFragment(
          ldmatrix(
              gep(ptrS, qPtr, c32(mf * 16 * pitch + kk * 16 * elemBytes)),
              /*transpose=*/false),
          kk);
    }
    for (int64_t np = 0; np < nFrags / 2; ++np) {
      std::array<Value, 4> kb = ldmatrix(
          gep(ptrS, kPtr, c32(np * 16 * pitch + kk * 16 * elemBytes)), false);
      // B's words of columns 8-15 (b1 of both n8 tiles).
      if (isHalfStep(kk))
        kb[1] = kb[3] = c32(0);
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
  Value inner = softcapInner ? softcapInner : cf(cfg.scale / cfg.softcap);
  Value cap = softcapParam ? softcapParam : cf(cfg.softcap);
  for (AccFrag &frag : s)
    for (Value &v : frag) {
      Value x = arith::MulFOp::create(b, v, inner);
      v = arith::MulFOp::create(b, math::TanhOp::create(b, x), cap);
    }
}

SmallVector<AccFrag> KernelEmitter::applyMask(const SmallVector<AccFrag> &s,
                                              Value tile) {
  // Bottom-right aligned: query qi sees key kj iff kj < seq_k and
  // qi + off - window_left <= kj <= qi + off + window_right. Element e of
  // n-tile nf holds key colBase + nf·8 + e, so each row turns its bounds
  // into bounds on the constant nf·8 + e once: one compare per bound and
  // element.
  Value negInf = cf(-std::numeric_limits<double>::infinity());
  Value offset = arith::SubIOp::create(b, seqK, seqQ);
  Value colBase = add(mul(tile, c32(cfg.blockN)),
                      mul(arith::RemUIOp::create(b, lane, c32(4)), c32(2)));
  Value lastKey = arith::SubIOp::create(b, seqK, add(colBase, c32(1)));
  SmallVector<AccFrag> out(s);
  for (int64_t mf = 0; mf < mFrags; ++mf)
    for (int64_t half = 0; half < 2; ++half) {
      Value diag = arith::SubIOp::create(b, add(queryRow(mf, half), offset),
                                         colBase);
      Value upper = lastKey;
      if (cfg.windowRight >= 0)
        upper = arith::MinSIOp::create(b, upper,
                                       add(diag, c32(cfg.windowRight)));
      Value lower;
      if (cfg.windowLeft >= 0)
        lower = arith::SubIOp::create(b, diag, c32(cfg.windowLeft));
      for (int64_t nf = 0; nf < nFrags; ++nf)
        for (int64_t e = 0; e < 2; ++e) {
          Value key = c32(nf * 8 + e);
          Value visible = cmp(arith::CmpIPredicate::sle, key, upper);
          if (lower)
            visible = arith::AndIOp::create(
                b, visible, cmp(arith::CmpIPredicate::sge, key, lower));
          Value &v = out[mf * nFrags + nf][half * 2 + e];
          v = select(visible, v, negInf);
        }
    }
  return out;
}

ValueRange KernelEmitter::tileLoop(Value from, Value to, bool masked,
                                   ValueRange init) {
  int64_t pitch = cfg.plan.rowPitchBytes;
  int64_t accCount = mFrags * dFrags * 4;
  double scaleLog2 = (cfg.hasSoftcap() ? 1.0 : cfg.scale) * kLog2E;
  Value zero = cf(0.0), negInf = cf(-std::numeric_limits<double>::infinity());

  auto loop = scf::ForOp::create(b, from, to, c32(1), init);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value tile = loop.getInductionVar();
  ValueRange state = loop.getRegionIterArgs();
  // Per-thread indices from fresh reads, for this loop body only.
  SmallVector<Value *> perThread = perThreadValues();
  SmallVector<Value> outer =
      llvm::map_to_vector(perThread, [](Value *v) { return *v; });
  auto restore = llvm::make_scope_exit([&] {
    for (auto [slot, value] : llvm::zip_equal(perThread, outer))
      *slot = value;
  });
  if (cfg.rederiveIndices)
    deriveIndices(/*fresh=*/true);
  // Ring slots count from `lo`, across the loops of one CTA.
  Value it = arith::SubIOp::create(b, tile, lo);
  Value slot = arith::RemUIOp::create(b, it, c32(cfg.stages));

  // Tile j has landed and every warp is done with tile j - 1, whose slot
  // the prefetch of tile j + stages - 1 reuses.
  waitGroups(state.back(), cfg.stages - 2);
  gpu::BarrierOp::create(b);
  prefetchKV(add(tile, c32(cfg.stages - 1)),
             arith::RemUIOp::create(b, add(it, c32(cfg.stages - 1)),
                                    c32(cfg.stages)));
  Value group = commitGroup();

  SmallVector<AccFrag> s = scores(slot);
  if (cfg.hasSoftcap())
    applySoftcap(s);
  if (masked) {
    s = applyMask(s, tile);
  } else {
    // A scheduling fence for ptxas: with nothing between the last Q·Kᵀ mma
    // and the softmax, ptxas interleaves the row-max and exp2 chains into
    // the mma sequence, which keeps about 30 more registers live at head
    // dim 128 and spills (sm_80 and sm_90). Passing every score through a
    // select on a condition that holds for each tile of the loop (but that
    // LLVM cannot prove) makes all scores meet at one point; it costs one
    // select per score.
    Value inLoop = cmp(arith::CmpIPredicate::slt, tile, opaque(to));
    Value negInf = cf(-std::numeric_limits<double>::infinity());
    for (AccFrag &frag : s)
      for (Value &v : frag)
        v = select(inLoop, v, negInf);
  }

  // Online softmax per row (mf, half); the 4 lanes of a row share it.
  SmallVector<Value> acc(state.begin(), state.begin() + accCount);
  SmallVector<Value> newMax, newSum;
  Value c2 = scaleLog2Param ? scaleLog2Param : cf(scaleLog2);
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
      // Only masked tiles can leave a row without keys.
      Value safe = mx;
      if (masked) {
        Value isNegInf =
            arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mx, negInf);
        safe = select(isNegInf, zero, mx);
      }
      Value negScaledMax =
          arith::NegFOp::create(b, arith::MulFOp::create(b, safe, c2));
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
  Value vPtr = gep(ptrS, smem,
                   add(mul(slot, c32(cfg.plan.stageBytes)),
                       add(c32(cfg.plan.vOffset(0)), vLdOffset)));
  for (int64_t kc = 0; kc < kChunks; ++kc) {
    SmallVector<AFrag> p(mFrags);
    for (int64_t mf = 0; mf < mFrags; ++mf) {
      const AccFrag &lo = s[mf * nFrags + 2 * kc];
      const AccFrag &hi = s[mf * nFrags + 2 * kc + 1];
      p[mf] = {pack(lo[0], lo[1]), pack(lo[2], lo[3]), pack(hi[0], hi[1]),
               pack(hi[2], hi[3])};
    }
    // An odd number of n8 tiles leaves the last ldmatrix's second unused.
    for (int64_t dp = 0; 2 * dp < dFrags; ++dp) {
      std::array<Value, 4> vb = ldmatrix(
          gep(ptrS, vPtr, c32(kc * 16 * pitch + dp * 16 * elemBytes)), true);
      for (int64_t mf = 0; mf < mFrags; ++mf)
        for (int64_t h = 0; h < 2 && 2 * dp + h < dFrags; ++h) {
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
  yield.push_back(group);
  scf::YieldOp::create(b, yield);
  return loop.getResults();
}

void KernelEmitter::emit(LLVM::LLVMFuncOp func, LLVM::GlobalOp smemGlobal) {
  Block *entry = func.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  auto args = entry->getArguments();
  unsigned a = 0;
  qArg = args[a++];
  kArg = args[a++];
  vArg = args[a++];
  Value o = args[a++];
  Value lse = cfg.hasLse ? args[a++] : Value();
  a++; // batch: the grid covers it
  headsQ = args[a++];
  headsKV = args[a++];
  seqQ = args[a++];
  seqK = args[a++];
  for (auto &tensor : strides)
    for (Value &s : tensor)
      s = args[a++];
  Value lseStrideB, lseStrideH;
  if (cfg.hasLse) {
    lseStrideB = args[a++];
    lseStrideH = args[a++];
  }
  // Runtime scalars, and what the loops need of them, once per thread.
  // Without a softcap the scale comes as scale·log2(e) (`scale_log2`), what
  // the softmax multiplies by: used as it comes, ptxas reads it from the
  // constant bank in each FMA, where a product of it would take a register
  // of each thread through the loops.
  if (cfg.dynamicScale)
    (cfg.hasSoftcap() ? scaleParam : scaleLog2Param) = args[a++];
  if (cfg.dynamicSoftcap)
    softcapParam = args[a++];
  if (cfg.hasSoftcap() && (scaleParam || softcapParam))
    softcapInner = arith::DivFOp::create(
        b, scaleParam ? scaleParam : cf(cfg.scale),
        softcapParam ? softcapParam : cf(cfg.softcap));

  smem = LLVM::AddressOfOp::create(b, smemGlobal);
  deriveIndices(/*fresh=*/false);
  int64_t pitch = cfg.plan.rowPitchBytes;
  Value eb = c64(elemBytes);
  Value qBase = gep(ptrG, qArg,
                    mul(add(mul(toI64(batch), strides[0][0]),
                            mul(toI64(head), strides[0][1])),
                        eb));
  Value qStrideS = mul(strides[0][2], eb);

  // The KV tiles this Q tile visits.
  Type index = b.getIndexType();
  auto toIndex = [&](Value x) { return arith::IndexCastUIOp::create(b, index, x); };
  auto fromIndex = [&](Value x) { return arith::IndexCastOp::create(b, i32, x); };
  KVTileRange<Value> range = buildKVTileRange(
      b, b.getLoc(), toIndex(qTile), toIndex(seqQ), toIndex(seqK),
      {cfg.blockM, cfg.blockN, cfg.windowLeft, cfg.windowRight});
  lo = fromIndex(range.lo);
  hi = fromIndex(range.hi);
  Value fullLo = fromIndex(range.fullLo), fullHi = fromIndex(range.fullHi);

  // Prologue: Q, then the first stages - 1 KV tiles, one commit group each.
  copyTile(qBase, qStrideS, firstRow, seqQ, c32(cfg.plan.qOffset), cfg.blockM,
           /*guarded=*/true, cfg.headDim);
  Value copies = commitGroup();
  for (int64_t s = 0; s + 1 < cfg.stages; ++s) {
    prefetchKV(add(lo, c32(s)), c32(s));
    copies = commitGroup();
  }
  int64_t kSteps = this->kSteps();
  if (cfg.qInRegisters) {
    waitGroups(copies, cfg.stages - 1);
    gpu::BarrierOp::create(b);
    for (int64_t mf = 0; mf < mFrags; ++mf)
      for (int64_t kk = 0; kk < kSteps; ++kk) {
        Value off = add(qLdOffset, c32(mf * 16 * pitch + kk * 16 * elemBytes));
        qRegs.push_back(queryFragment(ldmatrix(gep(ptrS, smem, off), false), kk));
      }
  }

  // The loop state: accumulator, then per (mf, half) row max and lane sum,
  // then the latest commit group.
  Value zero = cf(0.0), negInf = cf(-std::numeric_limits<double>::infinity());
  SmallVector<Value> init(mFrags * dFrags * 4, zero);
  int64_t accCount = init.size();
  init.append(mFrags * 2, negInf);
  init.append(mFrags * 2, zero);
  init.push_back(copies);

  // Tiles crossing the left window edge, tiles every row sees whole, tiles
  // crossing the diagonal, right window edge or seq_k. Without a left
  // window, fullLo = lo and the first loop would never run.
  ValueRange state = init;
  if (cfg.windowLeft >= 0)
    state = tileLoop(lo, fullLo, /*masked=*/true, state);
  state = tileLoop(fullLo, fullHi, /*masked=*/false, state);
  SmallVector<Value> result(tileLoop(fullHi, hi, /*masked=*/true, state));
  // No copy may still be in flight when the CTA exits, and the epilogue
  // reuses the Q tile, whose rows other threads copied: after a KV loop
  // their copies are complete, but a Q tile without KV tiles (rows that see
  // no key) reaches here with no barrier since.
  waitGroups(result.back(), 0);
  gpu::BarrierOp::create(b);

  // Epilogue: O = acc / l (0 without keys), LSE = scale·m + ln l (-inf).
  // Indices and addresses are derived anew from the special registers and
  // parameters, so that none of them holds a register across the loops.
  deriveIndices(/*fresh=*/true);
  Value warpRow = add(firstRow, mul(warp, c32(cfg.rowsPerWarp)));
  Value group = arith::DivUIOp::create(b, lane, c32(4));
  Value inGroup = arith::RemUIOp::create(b, lane, c32(4));
  double lseScale = cfg.hasSoftcap() ? 1.0 : cfg.scale;

  // O goes through shared memory so that it leaves in 16-byte row chunks
  // instead of 4-byte pieces: each warp writes its rows into its own rows of
  // the Q tile, which only it has read (ldmatrix returned before), so a
  // warp-level barrier orders the exchange within the warp.
  Value warpSmem = add(c32(cfg.plan.qOffset),
                       mul(warp, c32(cfg.rowsPerWarp * pitch)));
  Value fragPtr = gep(ptrS, smem,
                      add(warpSmem, add(mul(group, c32(pitch)),
                                        mul(inGroup, c32(2 * elemBytes)))));
  for (int64_t mf = 0; mf < mFrags; ++mf)
    for (int64_t half = 0; half < 2; ++half) {
      Value sum = result[accCount + mFrags * 2 + mf * 2 + half];
      sum = arith::AddFOp::create(b, sum, shuffleXor(sum, 1));
      sum = arith::AddFOp::create(b, sum, shuffleXor(sum, 2));
      Value hasKeys =
          arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, sum, zero);
      Value inv = select(hasKeys, arith::DivFOp::create(b, cf(1.0), sum), zero);
      int64_t rowInWarp = mf * 16 + half * 8;
      SmallVector<Value> values;
      for (int64_t df = 0; df < dFrags; ++df) {
        int64_t base = accIndex(mf, df) * 4 + half * 2;
        values.append({result[base], result[base + 1]});
      }
      SM80StageRowOp::create(b, fragPtr, rowInWarp * pitch, inv, values,
                             halfType());
      if (!cfg.hasLse)
        continue;
      Value row = add(add(warpRow, group), c32(rowInWarp));
      auto lead = scf::IfOp::create(
          b,
          arith::AndIOp::create(b, cmp(arith::CmpIPredicate::eq, inGroup, c32(0)),
                                cmp(arith::CmpIPredicate::ult, row, seqQ)),
          false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(lead.thenBlock());
      Value max = result[accCount + mf * 2 + half];
      Value value;
      if (scaleLog2Param) { // (scale_log2·max + log2 l)·ln 2
        Value log2Sum = math::Log2Op::create(b, sum);
        value = arith::MulFOp::create(
            b, math::FmaOp::create(b, max, scaleLog2Param, log2Sum), cf(kLn2));
      } else {
        Value ln =
            arith::MulFOp::create(b, math::Log2Op::create(b, sum), cf(kLn2));
        value = arith::AddFOp::create(
            b, arith::MulFOp::create(b, max, cf(lseScale)), ln);
      }
      value = select(hasKeys, value, negInf);
      Value off = add(add(mul(toI64(batch), lseStrideB),
                          mul(toI64(head), lseStrideH)),
                      toI64(row));
      SM80StoreLseOp::create(b, value, lse, off);
    }
  SM80SyncWarpOp::create(b);

  // The warp's rows leave in 16-byte chunks, consecutive lanes reading and
  // writing consecutive chunks.
  Value oBase = gep(ptrG, o,
                    mul(add(mul(toI64(batch), strides[3][0]),
                            mul(toI64(head), strides[3][1])),
                        eb));
  Value oStrideS = mul(strides[3][2], eb);
  SM80StoreRowsOp::create(b, smem, warpSmem, lane, oBase, warpRow, oStrideS,
                          seqQ, cfg.rowsPerWarp, cfg.headDimV * elemBytes,
                          pitch);
  LLVM::ReturnOp::create(b, ValueRange{});
}

/// Checks that the shared-memory plan `smem` holds the tiles of `cfg`: a
/// row of a tile within row_pitch, Q's rows and the ring apart and inside
/// the CTA's bytes, a K and a V tile in each slot.
LogicalResult checkSmemPlan(TiledAttentionOp op, SM80SmemPlanAttr smem,
                            const SM80KernelConfig &cfg) {
  auto fail = [&](const Twine &what) {
    return op.emitOpError() << "sm_80 kernel: the shared-memory plan "
                            << smem << " does not hold the tiles: " << what;
  };
  // Bounds the products below (the plan's values are below 2^32).
  int64_t pitch = smem.getRowPitch();
  if (cfg.blockM > kSM80MaxSharedBytes / pitch ||
      cfg.blockN > kSM80MaxSharedBytes / pitch)
    return fail("expected tiles of block_m = " + Twine(cfg.blockM) +
                " and block_n = " + Twine(cfg.blockN) + " rows of " +
                Twine(pitch) + " bytes within the " +
                Twine(kSM80MaxSharedBytes) +
                " bytes of shared memory of an sm_80 CTA");
  int64_t qEnd = smem.getQOffset() + cfg.blockM * pitch;
  int64_t ringEnd = smem.getKvOffset() + cfg.stages * smem.getStageBytes();
  // ldmatrix reads whole 16-column blocks, past a head dim that is not a
  // multiple of 16 too.
  int64_t widest = std::max(cfg.headDim, cfg.headDimV);
  if (int64_t padded = llvm::alignTo(widest, 16); pitch / 2 < padded)
    return fail("expected row_pitch to hold a row of head dim " +
                Twine(widest) +
                (padded != widest
                     ? " padded to " + std::to_string(padded) + " columns"
                     : std::string()) +
                " (2 bytes each)");
  if (smem.getStageBytes() < 2 * cfg.blockN * pitch)
    return fail("expected stage_bytes >= " +
                Twine(2 * cfg.blockN * pitch) +
                " (a K and a V tile of block_n = " + Twine(cfg.blockN) +
                " rows)");
  if (qEnd > smem.getKvOffset() && ringEnd > smem.getQOffset())
    return fail("expected Q's rows [" + Twine(smem.getQOffset()) + ", " +
                Twine(qEnd) + ") and the ring [" + Twine(smem.getKvOffset()) +
                ", " + Twine(ringEnd) + ") not to overlap");
  if (qEnd > smem.getBytes())
    return fail("expected Q's rows to end within bytes = " +
                Twine(smem.getBytes()) + ", found " + Twine(qEnd));
  if (smem.getBytes() > kSM80MaxSharedBytes)
    return fail("expected at most " + Twine(kSM80MaxSharedBytes) +
                " bytes, the shared memory of an sm_80 CTA");
  return success();
}

/// The kernel's configuration: the op's shapes and the plans of
/// --fattn-sm80-async-copy and --fattn-sm80-mma, which place every tile and
/// fragment.
FailureOr<SM80KernelConfig> readConfig(TiledAttentionOp op) {
  Attribute smemValue = op->getAttr(kSM80SmemAttr);
  Attribute mmaValue = op->getAttr(kSM80MmaAttr);
  if (!smemValue || !mmaValue)
    return op.emitOpError("sm_80 kernel: missing ")
           << (smemValue ? kSM80MmaAttr : kSM80SmemAttr)
           << "; run --fattn-sm80-async-copy and --fattn-sm80-mma first";
  auto smem = dyn_cast<SM80SmemPlanAttr>(smemValue);
  auto mma = dyn_cast<SM80MmaPlanAttr>(mmaValue);
  if (!smem || !mma)
    return op.emitOpError("sm_80 kernel: expected ")
           << (smem ? kSM80MmaAttr : kSM80SmemAttr) << " to be a "
           << (smem ? "#fattn.sm80_mma_plan" : "#fattn.sm80_smem_plan")
           << ", found " << (smem ? mmaValue : smemValue);
  // The sm_90a lowering choices (--fattn-sm90-*) and TMA plan are not the
  // sm_80 kernel's: an op that carries one was planned for the other chip.
  for (NamedAttribute attr : op->getAttrs())
    if (attr.getName().strref().starts_with("fattn.sm90."))
      return op.emitOpError("sm_80 kernel: ")
             << attr.getName().getValue()
             << " is a plan of the sm_90a kernel, which the sm_80 kernel "
                "does not follow; drop its pass or lower for sm_90a";
  SM80KernelConfig cfg;
  auto qType = cast<MemRefType>(op.getQuery().getType());
  cfg.headDim = qType.getDimSize(3);
  cfg.headDimV = op.getValueHeadDim();
  cfg.bf16 = qType.getElementType().isBF16();
  cfg.blockM = op.getBlockM();
  cfg.blockN = op.getBlockN();
  cfg.stages = smem.getStages();
  cfg.warps = mma.getWarps();
  cfg.rowsPerWarp = mma.getRowsPerWarp();
  cfg.qInRegisters = mma.getQOperand() == SM80QOperand::Registers;
  cfg.hasLse = static_cast<bool>(op.getLse());
  cfg.dynamicScale = static_cast<bool>(op.getDynamicScale());
  cfg.dynamicSoftcap = static_cast<bool>(op.getDynamicSoftcap());
  cfg.scale = cfg.dynamicScale ? 0.0 : op.getScale()->convertToFloat();
  cfg.softcap = op.getStaticSoftcap();
  cfg.windowLeft = op.getWindowLeft();
  cfg.windowRight = op.getWindowRight();
  cfg.plan.rowPitchBytes = smem.getRowPitch();
  cfg.plan.qOffset = smem.getQOffset();
  cfg.plan.kvOffset = smem.getKvOffset();
  cfg.plan.stageBytes = smem.getStageBytes();
  cfg.plan.stages = cfg.stages;
  cfg.plan.blockN = cfg.blockN;
  cfg.plan.totalBytes = smem.getBytes();
  // With the indices and addresses hoisted out of the loops, head dim 128
  // spills up to 200 bytes (ptxas for sm_90) and head dim 96 spilled too; at
  // 64 the registers hold them, and the loops are faster without the
  // per-tile re-derivation.
  cfg.rederiveIndices = std::max(cfg.headDim, cfg.headDimV) > 64;
  if (cfg.warps * 32 != kThreads || cfg.blockM % cfg.warps != 0 ||
      cfg.blockM / cfg.warps != cfg.rowsPerWarp || cfg.blockN % 16)
    return op.emitOpError()
           << "sm_80 kernel: expected " << kSM80MmaAttr << " to split block_m = "
           << cfg.blockM << " among " << kThreads / 32
           << " warps and block_n a multiple of 16, found " << mma
           << " and block_n = " << cfg.blockN;
  if (failed(checkSmemPlan(op, smem, cfg)))
    return failure();
  return cfg;
}
} // namespace

FailureOr<LLVM::LLVMFuncOp>
mlir::fattn::buildSM80AttentionKernel(OpBuilder &builder, TiledAttentionOp op,
                                      StringRef name) {
  if (failed(checkKernelSymbol(op, "kernel name", name)) ||
      failed(checkKernelWindows(op, "the sm_80 lowering")))
    return failure();
  FailureOr<SM80KernelConfig> cfg = readConfig(op);
  if (failed(cfg))
    return failure();
  MLIRContext *ctx = builder.getContext();
  ImplicitLocOpBuilder b(op.getLoc(), builder);

  // Dynamic shared memory: one extern array shared by all kernels.
  StringRef smemName = kSharedMemorySymbol;
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
  // Runtime scalars (KernelDescription: `scale`, then `softcap`).
  params.append(static_cast<int>(cfg->dynamicScale) +
                    static_cast<int>(cfg->dynamicSoftcap),
                b.getF32Type());
  auto func = LLVM::LLVMFuncOp::create(
      b, name, LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), params));
  // A kernel for the GPU dialect too: gpu.launch_func (the host launch)
  // accepts only functions marked so.
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), b.getUnitAttr());
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
  // Kernels with runtime scalars say so (describeSM80Kernel lists them).
  if (cfg->dynamicScale || cfg->dynamicSoftcap) {
    NamedAttrList info(func->getAttrOfType<DictionaryAttr>(kKernelInfoAttrName));
    info.set("dynamic_scale", attrs.getBoolAttr(cfg->dynamicScale));
    info.set("dynamic_softcap", attrs.getBoolAttr(cfg->dynamicSoftcap));
    func->setAttr(kKernelInfoAttrName, info.getDictionary(ctx));
  }
  // So do kernels whose V head dim differs from Q's and K's.
  if (cfg->headDimV != cfg->headDim) {
    NamedAttrList info(func->getAttrOfType<DictionaryAttr>(kKernelInfoAttrName));
    info.set("head_dim_v", attrs.getI64IntegerAttr(cfg->headDimV));
    func->setAttr(kKernelInfoAttrName, info.getDictionary(ctx));
  }

  OpBuilder::InsertionGuard guard(b);
  KernelEmitter(b, *cfg).emit(func, smemGlobal);
  return func;
}
