//===- TargetToNVVM.cpp - sm_90a target ops (L3) to NVVM ------------------===//
//
// One ConvertOpToLLVMPattern per fattn.sm90.* op. Each pattern's body is the
// KernelBuilder calls that the op stands for, built in place of the op, so
// that the kernel's instructions keep their order through L3: the PTX
// depends on it (scripts/ptx_corpus.py checks every kernel).
//
//===----------------------------------------------------------------------===//

#include "fattn/Conversion/FAttnToNVVM/SM90/TargetToNVVM.h"
#include "fattn/Conversion/FAttnToNVVM/TargetOpLowering.h"
#include "fattn/Conversion/FAttnToNVVM/SM90/Passes.h"
#include "fattn/Dialect/FAttn/IR/FAttnSM90Ops.h"
#include "fattn/Dialect/FAttn/Utils/LinearExp2.h"

#include "KernelBuilder.h"
#include "KernelEmitter.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

#define DEBUG_TYPE "convert-fattn-sm90-target-to-nvvm"

namespace mlir::fattn {
#define GEN_PASS_DEF_CONVERTFATTNSM90TARGETTONVVM
#include "fattn/Conversion/FAttnToNVVM/SM90/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;
using namespace mlir::fattn::sm90;

namespace {

/// The suspend-time hint of a wait, in ns: the PTX loop around
/// mbarrier.try_wait.parity retries past it until the phase completes.
constexpr int64_t kWaitSuspendHintNs = 10000000;

// What each op stands for, built by `e` in the op's place: the op's
// replacement value, or null for an op without results.

/// The region's offset, a constant.
Value lower(SM90SmemRegionOp op, SM90SmemRegionOp::Adaptor, KernelBuilder &e) {
  return e.i32(op.getOffset());
}

Value lower(SM90SetMaxNRegOp op, SM90SetMaxNRegOp::Adaptor, KernelBuilder &e) {
  e.setMaxRegisters(op.getCount(),
                    op.getAction() == SM90RegisterAction::Increase);
  return Value();
}

Value lower(SM90ElectOneOp, SM90ElectOneOp::Adaptor, KernelBuilder &e) {
  return e.electSync();
}

/// Two butterfly shuffles over the quad, each combined with the thread's
/// value.
Value lower(SM90QuadReduceOp op, SM90QuadReduceOp::Adaptor a,
            KernelBuilder &e) {
  Value allLanes = e.i32(-1), clamp = e.i32(31);
  Value x = a.getValue();
  for (int lanes : {1, 2}) {
    Value other =
        e.shuffle(NVVM::ShflKind::bfly, x, e.i32(lanes), clamp, allLanes);
    x = op.getKind() == SM90QuadReduceKind::Max ? e.fmax(x, other)
                                                : e.fadd(x, other);
  }
  return x;
}

/// The fptrunc of the vector (low, high) to `element`, as an i32.
Value packPair(KernelBuilder &e, Value low, Value high, Type element) {
  Value v = e.poison(e.vector(2, e.f32()));
  v = e.insertElement(v, low, e.i32(0));
  v = e.insertElement(v, high, e.i32(1));
  Value h = e.fptrunc(v, e.vector(2, element));
  return e.bitcast(h, e.i32());
}

Value lower(SM90PackPairOp op, SM90PackPairOp::Adaptor a, KernelBuilder &e) {
  return packPair(e, a.getLow(), a.getHigh(), op.getElementType());
}

/// Pair i of an accumulator row's `values`, times `scale`, packed.
Value scaledPair(KernelBuilder &e, ValueRange values, Value scale, size_t i,
                 Type element) {
  // Sequenced: as arguments of one call the two products would be emitted
  // in the host compiler's order.
  Value lo = e.fmul(values[2 * i], scale);
  Value hi = e.fmul(values[2 * i + 1], scale);
  return packPair(e, lo, hi, element);
}

/// Pair i: one 4-byte store at element offset + 8 i.
Value lower(SM90StoreFragmentOp op, SM90StoreFragmentOp::Adaptor a,
            KernelBuilder &e) {
  for (size_t i = 0; 2 * i < a.getValues().size(); ++i) {
    Value word =
        scaledPair(e, a.getValues(), a.getScale(), i, op.getElementType());
    Value off = e.add(a.getOffset(), e.i64(8 * i));
    Value ptr = e.elementAddress(a.getOutput(), e.builder().getI16Type(), off);
    e.store(word, ptr, 4);
  }
  return Value();
}

/// Stage `mask` (2, then 1): word x of thread q stays where bit `mask` of x
/// and q agree, else it comes from word x ^ mask of thread q ^ mask.
Value lower(SM90QuadTransposeOp, SM90QuadTransposeOp::Adaptor a,
            KernelBuilder &e) {
  Value allLanes = e.i32(-1), clamp = e.i32(31);
  Value upper[3] = {Value(), a.getOdd(), a.getUpper()};
  Value w[4] = {a.getWord0(), a.getWord1(), a.getWord2(), a.getWord3()};
  for (int mask : {2, 1})
    for (int x = 0; x < 4; ++x) {
      if (x & mask)
        continue;
      Value send = e.select(upper[mask], w[x], w[x | mask]);
      Value recv = e.shuffle(NVVM::ShflKind::bfly, send, e.i32(mask), clamp,
                             allLanes);
      w[x] = e.select(upper[mask], recv, w[x]);
      w[x | mask] = e.select(upper[mask], w[x | mask], recv);
    }
  Value vec = e.poison(e.vector(4, e.i32()));
  for (int j = 0; j < 4; ++j)
    vec = e.insertElement(vec, w[j], e.i32(j));
  return vec;
}

/// Pair i: one 4-byte store at buffer + row_byte + (16 (i mod 8) xor
/// swizzle) + (i / 8) atom_bytes.
Value lower(SM90StageFragmentOp op, SM90StageFragmentOp::Adaptor a,
            KernelBuilder &e) {
  int64_t atomBytes = op.getAtomBytes();
  for (size_t i = 0; 2 * i < a.getValues().size(); ++i) {
    Value word =
        scaledPair(e, a.getValues(), a.getScale(), i, op.getElementType());
    Value unit = e.xorI(a.getSwizzle(), e.i32((i % 8) * 16));
    Value off =
        e.add(e.add(a.getRowByte(), unit), e.i32((i / 8) * atomBytes));
    e.store(word, e.byteOffset(a.getBase(), e.add(a.getBuffer(), off)), 4);
  }
  return Value();
}

/// A 16-byte load at (unit / 8) atom_bytes + 128 row + 16 ((unit mod 8) xor
/// (row mod 8)).
Value lower(SM90LoadSwizzledUnitOp op, SM90LoadSwizzledUnitOp::Adaptor a,
            KernelBuilder &e) {
  Value row = a.getRow(), unitInRow = a.getUnit();
  Value unit = e.xorI(e.andI(unitInRow, e.i32(7)), e.andI(row, e.i32(7)));
  Value off = e.add(
      e.add(e.mul(e.lshr(unitInRow, e.i32(3)), e.i32(op.getAtomBytes())),
            e.mul(row, e.i32(128))),
      e.shl(unit, e.i32(4)));
  return e.load(e.vector(4, e.i32()), e.byteOffset(a.getBase(), off), 16);
}

/// shfl.sync.idx from lane 0.
Value lower(SM90WarpUniformOp, SM90WarpUniformOp::Adaptor a,
            KernelBuilder &e) {
  return e.shuffle(NVVM::ShflKind::idx, a.getValue(), e.i32(0), e.i32(31),
                   e.i32(-1));
}

/// Inline PTX: the address is 32-bit (an !llvm.ptr<3> is 64-bit in PTX and
/// would take two registers). Side effects: it must stay after the wait for
/// the rows' arrival.
SmallVector<Value> lower(SM90LdmatrixX4Op, SM90LdmatrixX4Op::Adaptor a,
                         KernelBuilder &e) {
  Value words = e.inlineAsm(
      e.structOf(4, e.i32()),
      "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {$0, $1, $2, $3}, [$4];",
      "=r,=r,=r,=r,r", {a.getAddress()}, /*sideEffects=*/true);
  SmallVector<Value> w;
  for (int i = 0; i < 4; ++i)
    w.push_back(e.extractValue(words, i));
  return w;
}

/// Four prmt.b32 (inline PTX), the last result first: the order of the
/// measured kernels (and of the PTX corpus).
SmallVector<Value> lower(SM90PermuteBytesOp, SM90PermuteBytesOp::Adaptor a,
                         KernelBuilder &e) {
  auto prmt = [&](Value x, Value y, Value selector) {
    return e.inlineAsm(e.i32(), "prmt.b32 $0, $1, $2, $3;", "=r,r,r,r",
                       {x, y, selector}, /*sideEffects=*/false);
  };
  Value r3 = prmt(a.getWord2(), a.getWord3(), a.getSelector1());
  Value r2 = prmt(a.getWord2(), a.getWord3(), a.getSelector0());
  Value r1 = prmt(a.getWord0(), a.getWord1(), a.getSelector1());
  Value r0 = prmt(a.getWord0(), a.getWord1(), a.getSelector0());
  return {r0, r1, r2, r3};
}

Value lower(SM90StmatrixX4TransOp, SM90StmatrixX4TransOp::Adaptor a,
            KernelBuilder &e) {
  e.inlineAsm(Type(),
              "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [$0], "
              "{$1, $2, $3, $4};",
              "r,r,r,r,r",
              {a.getAddress(), a.getWord0(), a.getWord1(), a.getWord2(),
               a.getWord3()},
              /*sideEffects=*/true);
  return Value();
}

/// Two cvt.rn.satfinite.e4m3x2 (the intrinsic's first source is the upper
/// byte), merged as the halves of a vector of two i16, or zero-extended and
/// permuted.
Value lower(SM90PackE4M3Op op, SM90PackE4M3Op::Adaptor a, KernelBuilder &e) {
  Type i16 = e.builder().getI16Type();
  auto cvt = [&](Value low, Value high) {
    return e.callIntrinsic("llvm.nvvm.ff.to.e4m3x2.rn", i16, {high, low});
  };
  Value lo = cvt(a.getByte0(), a.getByte1());
  Value hi = cvt(a.getByte2(), a.getByte3());
  if (op.getByPermute()) {
    // hi's zext first, as the kernels were emitted when measured
    Value wideHi = e.zext(hi, e.i32()), wideLo = e.zext(lo, e.i32());
    // bytes 0-1 of `lo`, then bytes 0-1 of `hi`
    return e.prmt(wideLo, wideHi, e.i32(0x5410));
  }
  Value v = e.poison(e.vector(2, i16));
  v = e.insertElement(v, lo, e.i32(0));
  v = e.insertElement(v, hi, e.i32(1));
  return e.bitcast(v, e.i32());
}

/// Each pair: cvt.rn.f16x2 (the first source is the upper half), then
/// 256 u + 1536 in both halves (f16 0x6600 + the byte); the prmt takes the
/// low byte of each half.
Value lower(SM90PackBytesOp, SM90PackBytesOp::Adaptor a, KernelBuilder &e) {
  auto halves = [&](Value lo, Value hi) {
    Value h = e.inlineAsm(e.i32(), "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f",
                          {hi, lo}, /*sideEffects=*/false);
    Value scale = e.i32(kLinearExp2F16Scale);
    Value magic = e.i32(kLinearExp2F16Magic);
    return e.inlineAsm(e.i32(), "fma.rn.f16x2 $0, $1, $2, $3;", "=r,r,r,r",
                       {h, scale, magic}, /*sideEffects=*/false);
  };
  Value lo = halves(a.getByte0(), a.getByte1());
  Value hi = halves(a.getByte2(), a.getByte3());
  return e.prmt(lo, hi, e.i32(0x6420));
}

/// stage = ordinal mod stages.
Value lower(SM90RingStageOp op, SM90RingStageOp::Adaptor a, KernelBuilder &e) {
  return e.urem(a.getOrdinal(), e.i32(op.getStages()));
}

/// phase = (ordinal / stages) mod 2.
Value lower(SM90RingPhaseOp op, SM90RingPhaseOp::Adaptor a, KernelBuilder &e) {
  Value round = e.udiv(a.getOrdinal(), e.i32(op.getStages()));
  return e.andI(round, e.i32(1));
}

/// base + offset + 8 * stage, a byte address in shared memory.
Value lower(SM90RingBarrierOp op, SM90RingBarrierOp::Adaptor a,
            KernelBuilder &e) {
  Value entry = e.mul(a.getStage(), e.i32(8));
  Value offset = e.add(e.i32(op.getOffset()), entry);
  return e.byteOffset(a.getBase(), offset);
}

Value lower(SM90MBarrierInitOp op, SM90MBarrierInitOp::Adaptor a,
            KernelBuilder &e) {
  e.mbarrierInit(a.getBarrier(), e.i32(op.getCount()), a.getPredicate());
  return Value();
}

Value lower(SM90MBarrierWaitOp, SM90MBarrierWaitOp::Adaptor a,
            KernelBuilder &e) {
  e.mbarrierTryWaitParity(a.getBarrier(), a.getParity(),
                          e.i32(kWaitSuspendHintNs));
  return Value();
}

Value lower(SM90MBarrierArriveOp, SM90MBarrierArriveOp::Adaptor a,
            KernelBuilder &e) {
  e.mbarrierArrive(a.getBarrier());
  return Value();
}

Value lower(SM90MBarrierArriveExpectTxOp op,
            SM90MBarrierArriveExpectTxOp::Adaptor a, KernelBuilder &e) {
  e.mbarrierArriveExpectTx(a.getBarrier(), e.i32(op.getBytes()));
  return Value();
}

Value lower(SM90NamedBarrierOp op, SM90NamedBarrierOp::Adaptor a,
            KernelBuilder &e) {
  e.namedBarrier(a.getId(), e.i32(op.getThreads()));
  return Value();
}

Value lower(SM90NamedBarrierArriveOp op, SM90NamedBarrierArriveOp::Adaptor a,
            KernelBuilder &e) {
  e.namedBarrierArrive(a.getId(), e.i32(op.getThreads()));
  return Value();
}

/// The copy's destination is the shared::cluster address of base + offset
/// (the CTA's own, without a cluster).
Value lower(SM90TmaLoadOp, SM90TmaLoadOp::Adaptor a, KernelBuilder &e) {
  Value dst = e.byteOffset(a.getBase(), a.getOffset());
  Value clusterDst = e.addrspacecast(dst, e.ptr(7));
  e.tmaLoad(clusterDst, a.getMap(), a.getBarrier(), a.getCoordinates());
  return Value();
}

Value lower(SM90WgmmaFenceOp, SM90WgmmaFenceOp::Adaptor, KernelBuilder &e) {
  e.wgmmaFence();
  return Value();
}

Value lower(SM90WgmmaCommitGroupOp, SM90WgmmaCommitGroupOp::Adaptor,
            KernelBuilder &e) {
  e.wgmmaCommitGroup();
  return Value();
}

Value lower(SM90WgmmaWaitGroupOp op, SM90WgmmaWaitGroupOp::Adaptor,
            KernelBuilder &e) {
  e.wgmmaWaitGroup(op.getPending());
  return Value();
}

Value lower(SM90WgmmaOp op, SM90WgmmaOp::Adaptor a, KernelBuilder &e) {
  Type element = op.getElementType();
  NVVM::WGMMATypes type = element.isBF16()  ? NVVM::WGMMATypes::bf16
                          : element.isF16() ? NVVM::WGMMATypes::f16
                                            : NVVM::WGMMATypes::e4m3;
  return e.wgmmaSS(a.getDescriptorA(), a.getDescriptorB(), a.getAccumulator(),
                   op.getN(), op.getK(), type, op.getAccumulate());
}

Value lower(SM90TmaStoreOp, SM90TmaStoreOp::Adaptor a, KernelBuilder &e) {
  e.tmaStore(a.getMap(), e.byteOffset(a.getBase(), a.getOffset()),
             a.getCoordinates());
  return Value();
}

/// Inline PTX: MLIR 22's NVVM has the tensor form of the bulk reduction
/// only. The shared address is 32-bit, as ldmatrix_x4's.
Value lower(SM90BulkReduceAddOp, SM90BulkReduceAddOp::Adaptor a,
            KernelBuilder &e) {
  e.inlineAsm(Type(),
              "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 "
              "[$0], [$1], $2;",
              "l,r,r,~{memory}",
              {a.getDestination(), a.getSource(), a.getBytes()},
              /*sideEffects=*/true);
  return Value();
}

Value lower(SM90BulkCommitGroupOp, SM90BulkCommitGroupOp::Adaptor,
            KernelBuilder &e) {
  e.bulkCommitGroup();
  return Value();
}

Value lower(SM90BulkWaitGroupReadOp op, SM90BulkWaitGroupReadOp::Adaptor,
            KernelBuilder &e) {
  e.bulkWaitGroupRead(op.getPending());
  return Value();
}

Value lower(SM90FenceProxyAsyncOp, SM90FenceProxyAsyncOp::Adaptor,
            KernelBuilder &e) {
  e.fenceProxyAsyncShared();
  return Value();
}

/// Bits 0-13: the start address / 16; 16-29: the leading byte offset / 16;
/// 32-45: the stride byte offset / 16 (1024: eight 128-byte rows); 62-63:
/// the 128-byte swizzle (1).
Value lower(SM90WgmmaDescriptorOp op, SM90WgmmaDescriptorOp::Adaptor a,
            KernelBuilder &e) {
  Value addr = e.add(a.getAddress(), a.getOffset());
  Value units = e.lshr(addr, e.i32(4));
  Value field = e.andI(units, e.i32(0x3FFF));
  uint64_t leading = uint64_t(op.getLeadingBytes() >> 4) & 0x3FFF;
  uint64_t bits =
      (uint64_t(1) << 62) | (uint64_t(1024 >> 4) << 32) | (leading << 16);
  Value wide = e.zext64(field);
  return e.orI(wide, e.i64(int64_t(bits)));
}

/// wgmma with A from registers has no NVVM op: inline PTX, the accumulator
/// registers tied to the outputs.
Value lower(SM90WgmmaRsOp op, SM90WgmmaRsOp::Adaptor a, KernelBuilder &e) {
  Type element = op.getElementType();
  bool fp8 = isa<Float8E4M3FNType>(element);
  std::string type = fp8 ? "e4m3" : element.isBF16() ? "bf16" : "f16";
  int64_t numAcc = op.getN() / 2;
  std::string outs, cons;
  for (int64_t i = 0; i < numAcc; ++i) {
    outs += (i ? ",$" : "$") + std::to_string(i);
    cons += i ? ",=f" : "=f";
  }
  cons += ",r,r,r,r,l";
  for (int64_t i = 0; i < numAcc; ++i)
    cons += "," + std::to_string(i);
  auto operand = [&](int64_t i) { return "$" + std::to_string(numAcc + i); };
  // scale-d, imm-scale-a, imm-scale-b and (16-bit only) imm-trans-b.
  std::string immediates = op.getAccumulate() ? "1, 1, 1" : "0, 1, 1";
  if (!fp8)
    immediates += op.getTransposeB() ? ", 1" : ", 0";
  std::string text =
      "wgmma.mma_async.sync.aligned.m64n" + std::to_string(op.getN()) + "k" +
      std::to_string(op.getK()) + ".f32." + type + "." + type + " {" + outs +
      "}, {" + operand(0) + "," + operand(1) + "," + operand(2) + "," +
      operand(3) + "}, " + operand(4) + ", " + immediates + ";";
  SmallVector<Value> args(a.getA());
  args.push_back(a.getDescriptorB());
  llvm::append_range(args, a.getAccumulator());
  return e.inlineAsm(op.getResult().getType(), text, cons, args,
                     /*sideEffects=*/true);
}

/// WorkOrder.h's decodeWorkItem, then the pair's head and batch, with the
/// multiplier and the shift of each divisor that the op marks fast.
SmallVector<Value> lower(SM90WorkItemOp op, SM90WorkItemOp::Adaptor a,
                         KernelBuilder &e) {
  llvm::DenseMap<Value, FastDivisor> fast;
  ValueRange magic = a.getMagic();
  Value divisors[] = {a.getQTiles(), a.getHeads()};
  for (auto [divisor, isFast] : llvm::zip_equal(divisors, op.getFastDivisors()))
    if (isFast) {
      fast[divisor] = FastDivisor{magic[0], magic[1]};
      magic = magic.drop_front(2);
    }
  BuilderIntOps ops{e, &fast};
  WorkOrderParams order{op.getMasked(), op.getReverseQTiles(),
                        static_cast<int64_t>(op.getCtasPerPair()),
                        /*launchTail=*/static_cast<bool>(a.getTailPairs())};
  WorkItem<Value> item =
      decodeWorkItem(ops, a.getIndex(), a.getQTiles(), a.getPairs(),
                     a.getGrid(), order, a.getTailPairs());
  // The batch's quotient before the head's remainder, the order of the PTX
  // corpus's kernels (the other order changes the PTX of those by div.u32).
  Value batch = ops.div(item.pair, a.getHeads());
  Value head = ops.rem(item.pair, a.getHeads());
  return {item.qTile, head, batch};
}

/// Each target op's pattern: `lower` in the op's place, by a KernelBuilder.
struct SM90Lowering {
  template <typename OpTy>
  static auto lower(OpTy op, typename OpTy::Adaptor adaptor,
                    ConversionPatternRewriter &rewriter) {
    KernelBuilder e(rewriter, op.getLoc());
    return ::lower(op, adaptor, e);
  }
};

using SM90TargetOps = TargetOpSet<
    SM90Lowering, SM90SmemRegionOp, SM90SetMaxNRegOp, SM90ElectOneOp,
    SM90QuadReduceOp, SM90PackPairOp, SM90PackE4M3Op, SM90PackBytesOp,
    SM90StoreFragmentOp, SM90QuadTransposeOp, SM90StageFragmentOp,
    SM90LoadSwizzledUnitOp, SM90WarpUniformOp, SM90LdmatrixX4Op,
    SM90PermuteBytesOp, SM90StmatrixX4TransOp, SM90RingStageOp, SM90RingPhaseOp,
    SM90RingBarrierOp, SM90MBarrierInitOp, SM90MBarrierWaitOp,
    SM90MBarrierArriveOp, SM90MBarrierArriveExpectTxOp, SM90NamedBarrierOp,
    SM90NamedBarrierArriveOp, SM90TmaLoadOp, SM90WgmmaFenceOp, SM90TmaStoreOp,
    SM90BulkReduceAddOp, SM90BulkCommitGroupOp, SM90BulkWaitGroupReadOp,
    SM90FenceProxyAsyncOp, SM90WgmmaDescriptorOp, SM90WgmmaCommitGroupOp,
    SM90WgmmaWaitGroupOp, SM90WgmmaOp, SM90WgmmaRsOp, SM90WorkItemOp>;

} // namespace

void mlir::fattn::populateSM90TargetToNVVMPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  SM90TargetOps::addPatterns(converter, patterns);
}

LogicalResult mlir::fattn::lowerSM90TargetOps(Operation *root) {
  MLIRContext *ctx = root->getContext();
  LLVMTypeConverter converter(ctx);
  RewritePatternSet patterns(ctx);
  populateSM90TargetToNVVMPatterns(converter, patterns);
  // L3 written with upstream ops around the target ops (loops, index and
  // float arithmetic) reaches NVVM and LLVM in the same conversion, as
  // IREE's ConvertToNVVM combines upstream sets with its own.
  populateSCFToControlFlowConversionPatterns(patterns);
  cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
  arith::populateArithToLLVMConversionPatterns(converter, patterns);
  populateMathToLLVMConversionPatterns(converter, patterns);
  LLVMConversionTarget target(*ctx);
  target.addLegalDialect<NVVM::NVVMDialect>();
  target.addIllegalDialect<scf::SCFDialect, cf::ControlFlowDialect,
                           arith::ArithDialect, math::MathDialect>();
  SM90TargetOps::markIllegal(target);
  return applyPartialConversion(root, target, std::move(patterns));
}

namespace {
struct ConvertFAttnSM90TargetToNVVMPass
    : public fattn::impl::ConvertFAttnSM90TargetToNVVMBase<
          ConvertFAttnSM90TargetToNVVMPass> {
  void runOnOperation() override {
    if (failed(lowerSM90TargetOps(getOperation())))
      signalPassFailure();
  }
};
} // namespace
