//===- TargetToNVVM.cpp - sm_80 target ops (L3) to NVVM -------------------===//
//
// One ConvertOpToLLVMPattern per fattn.sm80.* op, building in the op's place
// what the op stands for (NVVM, LLVM, arith and scf operations: the sm_80
// pipeline lowers the last two after the conversion), together with
// upstream's patterns for the waits for cp.async commit groups
// (nvgpu.device_async_wait), gpu.barrier and gpu.shuffle, and the
// kernel's patterns for its math (SM80MathLowering), in one partial
// conversion.
// The kernels' instructions keep their order through L3:
// scripts/ptx_corpus.py checks every kernel.
//
//===----------------------------------------------------------------------===//

#include "fattn/Conversion/FAttnToNVVM/SM80/TargetToNVVM.h"
#include "fattn/Conversion/FAttnToNVVM/TargetOpLowering.h"
#include "fattn/Conversion/Passes.h"
#include "fattn/Dialect/FAttn/IR/FAttnSM80Ops.h"

#include "SM80Builder.h"

#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"

#define DEBUG_TYPE "convert-fattn-sm80-target-to-nvvm"

namespace mlir::fattn {
#define GEN_PASS_DEF_CONVERTFATTNSM80TARGETTONVVM
#include "fattn/Conversion/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;
using namespace mlir::fattn::sm80;

namespace {

/// What each op stands for, built by `e` in the op's place: the op's
/// replacement values (none for an op without results).
class TargetOpBuilder : public SM80Builder {
public:
  using SM80Builder::SM80Builder;

  SmallVector<Value> lower(SM80CopyTileOp op, SM80CopyTileOp::Adaptor a);
  /// The commit, and the group's token as i32 (as upstream's
  /// nvgpu.device_async_create_group lowers).
  SmallVector<Value> lower(SM80CommitGroupOp, SM80CommitGroupOp::Adaptor) {
    NVVM::CpAsyncCommitGroupOp::create(b);
    return {LLVM::ConstantOp::create(b, i32, b.getI32IntegerAttr(0))};
  }
  SmallVector<Value> lower(SM80LdmatrixX4Op op, SM80LdmatrixX4Op::Adaptor a);
  SmallVector<Value> lower(SM80MmaOp op, SM80MmaOp::Adaptor a);
  SmallVector<Value> lower(SM80PackPairOp op, SM80PackPairOp::Adaptor a) {
    return {packPair(a.getLow(), a.getHigh(), op.getElementType())};
  }
  SmallVector<Value> lower(SM80StageRowOp op, SM80StageRowOp::Adaptor a);
  SmallVector<Value> lower(SM80StoreRowsOp op, SM80StoreRowsOp::Adaptor a);
  SmallVector<Value> lower(SM80StoreLseOp, SM80StoreLseOp::Adaptor a) {
    Value ptr = gep(ptrG, a.getLse(), mul(a.getIndex(), c64(4)));
    LLVM::StoreOp::create(b, a.getValue(), ptr, /*alignment=*/4);
    return {};
  }
  SmallVector<Value> lower(SM80SyncWarpOp, SM80SyncWarpOp::Adaptor) {
    NVVM::SyncWarpOp::create(b, c32(-1));
    return {};
  }

private:
  /// Two f32 -> one i32 holding two 16-bit floats (low = first).
  Value packPair(Value lo, Value hi, Type half) {
    auto vecF32 = VectorType::get({2}, f32);
    Value v = LLVM::PoisonOp::create(b, vecF32);
    v = LLVM::InsertElementOp::create(b, v, lo, c32(0));
    v = LLVM::InsertElementOp::create(b, v, hi, c32(1));
    Value t = LLVM::FPTruncOp::create(b, VectorType::get({2}, half), v);
    return LLVM::BitcastOp::create(b, i32, t);
  }
};

SmallVector<Value> TargetOpBuilder::lower(SM80CopyTileOp op,
                                          SM80CopyTileOp::Adaptor a) {
  Value tid = a.getThread(), base = a.getSource(), strideS = a.getRowStride();
  Value firstRow = a.getFirstRow(), seqLen = a.getSeqLen();
  bool guarded = static_cast<bool>(seqLen);
  int64_t pitch = op.getRowPitch();
  int64_t chunksPerRow = op.getChunksPerRow();
  auto cg = NVVM::LoadCacheModifierKindAttr::get(
      ctx, NVVM::LoadCacheModifierKind::CG);
  // Addresses advance by a fixed step, so that one pointer per tile stays
  // live.
  int64_t rowsPerStep = op.getRowsPerStep();
  int64_t copyThreads = rowsPerStep * chunksPerRow;
  int64_t copies = op.getRows() / rowsPerStep;
  if (copyThreads < static_cast<int64_t>(op.getThreads())) {
    auto active = scf::IfOp::create(
        b, cmp(arith::CmpIPredicate::ult, tid, c32(copyThreads)), false);
    b.setInsertionPointToStart(active.thenBlock());
  }
  Value row0 = arith::DivUIOp::create(b, tid, c32(chunksPerRow));
  Value col = arith::RemUIOp::create(b, tid, c32(chunksPerRow));
  Value colBytes = toI64(mul(col, c32(16)));
  Value src = gep(ptrG, base,
                  add(mul(toI64(add(firstRow, row0)), strideS), colBytes));
  Value srcStep = mul(strideS, c64(rowsPerStep));
  Value dst = gep(ptrS, a.getSmem(),
                  add(a.getOffset(), add(mul(row0, c32(pitch)),
                                         mul(col, c32(16)))));
  // Rows left in the sequence for this thread's first copy, and this
  // thread's column of row `firstRow` (valid: the tile is not empty).
  Value left, firstRowSrc;
  if (guarded) {
    left = arith::SubIOp::create(b, seqLen, add(firstRow, row0));
    firstRowSrc =
        gep(ptrG, base, add(mul(toI64(firstRow), strideS), colBytes));
  }
  for (int64_t i = 0; i < copies; ++i) {
    Value from = src, size;
    if (guarded) {
      Value valid = cmp(arith::CmpIPredicate::sgt, left, c32(i * rowsPerStep));
      from = select(valid, src, firstRowSrc);
      size = select(valid, c32(16), c32(0));
    }
    NVVM::CpAsyncOp::create(b, gep(ptrS, dst, c32(i * rowsPerStep * pitch)),
                            from, b.getI32IntegerAttr(16), cg, size);
    if (i + 1 < copies)
      src = gep(ptrG, src, srcStep);
  }
  return {};
}

SmallVector<Value> TargetOpBuilder::lower(SM80LdmatrixX4Op op,
                                          SM80LdmatrixX4Op::Adaptor a) {
  auto type = LLVM::LLVMStructType::getLiteral(ctx, {i32, i32, i32, i32});
  Value r = NVVM::LdMatrixOp::create(
      b, type, a.getAddress(), b.getI32IntegerAttr(4),
      NVVM::MMALayoutAttr::get(ctx, op.getTrans() ? NVVM::MMALayout::col
                                                  : NVVM::MMALayout::row),
      NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
      NVVM::LdStMatrixEltTypeAttr::get(ctx, NVVM::LdStMatrixEltType::B16));
  SmallVector<Value> regs;
  for (int64_t i = 0; i < 4; ++i)
    regs.push_back(LLVM::ExtractValueOp::create(b, r, i));
  return regs;
}

SmallVector<Value> TargetOpBuilder::lower(SM80MmaOp op, SM80MmaOp::Adaptor a) {
  auto type = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
  bool bf16 = op.getElementType().isBF16();
  NVVM::MMATypes t = bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  // f16 operands are typed vector<2xf16>; bf16 ones stay i32.
  auto operand = [&](Value x) -> Value {
    if (bf16)
      return x;
    return LLVM::BitcastOp::create(b, VectorType::get({2}, b.getF16Type()),
                                   x);
  };
  SmallVector<Value> aOps = llvm::map_to_vector(
      ValueRange{a.getA0(), a.getA1(), a.getA2(), a.getA3()}, operand);
  SmallVector<Value> bOps = {operand(a.getB0()), operand(a.getB1())};
  Value r = NVVM::MmaOp::create(
      b, type, ValueRange(aOps), ValueRange(bOps),
      ValueRange{a.getC0(), a.getC1(), a.getC2(), a.getC3()},
      ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{t, t},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> d;
  for (int64_t i = 0; i < 4; ++i)
    d.push_back(LLVM::ExtractValueOp::create(b, r, i));
  return d;
}

SmallVector<Value> TargetOpBuilder::lower(SM80StageRowOp op,
                                          SM80StageRowOp::Adaptor a) {
  ValueRange values = a.getValues();
  for (size_t i = 0; 2 * i < values.size(); ++i) {
    Value x0 = arith::MulFOp::create(b, values[2 * i], a.getScale());
    Value x1 = arith::MulFOp::create(b, values[2 * i + 1], a.getScale());
    Value ptr = gep(ptrS, a.getAddress(), c32(op.getOffset() + 16 * i));
    LLVM::StoreOp::create(b, packPair(x0, x1, op.getElementType()), ptr,
                          /*alignment=*/4);
  }
  return {};
}

SmallVector<Value> TargetOpBuilder::lower(SM80StoreRowsOp op,
                                          SM80StoreRowsOp::Adaptor a) {
  int64_t pitch = op.getRowPitch();
  Value lane = a.getLane(), smem = a.getSmem(), warpSmem = a.getOffset();
  Value warpRow = a.getFirstRow(), oBase = a.getOutput();
  Value oStrideS = a.getRowStride(), seqQ = a.getSeqLen();
  auto vec4 = VectorType::get({4}, i32);
  int64_t chunksPerRow = op.getRowBytes() / 16;
  int64_t chunks = op.getRows() * chunksPerRow;
  for (int64_t i = 0; 32 * i < chunks; ++i) {
    Value chunk = add(lane, c32(32 * i));
    // The lanes past the last chunk copy nothing in the last round.
    OpBuilder::InsertionGuard inRows(b);
    if (32 * (i + 1) > chunks) {
      auto some = scf::IfOp::create(
          b, cmp(arith::CmpIPredicate::ult, chunk, c32(chunks)), false);
      b.setInsertionPointToStart(some.thenBlock());
    }
    Value row = arith::DivUIOp::create(b, chunk, c32(chunksPerRow));
    Value col = arith::RemUIOp::create(b, chunk, c32(chunksPerRow));
    Value data = LLVM::LoadOp::create(
        b, vec4,
        gep(ptrS, smem,
            add(warpSmem, add(mul(row, c32(pitch)), mul(col, c32(16))))),
        /*alignment=*/16);
    Value seqRow = add(warpRow, row);
    auto store = scf::IfOp::create(
        b, cmp(arith::CmpIPredicate::ult, seqRow, seqQ), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(store.thenBlock());
    Value ptr = gep(ptrG, oBase,
                    add(mul(toI64(seqRow), oStrideS), toI64(mul(col, c32(16)))));
    LLVM::StoreOp::create(b, data, ptr, /*alignment=*/16);
  }
  return {};
}

/// The kernel's f32 math.exp2, math.log2 and math.tanh as the approximate
/// instructions ex2.approx.ftz, lg2.approx and tanh.approx (the softmax's
/// exponentials, the LSE's logarithm, the softcap), and math.fma as
/// llvm.intr.fma. Above upstream's GPU patterns, which would call libdevice.
template <typename MathOp>
struct SM80MathLowering : ConvertOpToLLVMPattern<MathOp> {
  SM80MathLowering(const LLVMTypeConverter &converter)
      : ConvertOpToLLVMPattern<MathOp>(converter, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(MathOp op, typename MathOp::Adaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return rewriter.notifyMatchFailure(op, "not an f32 scalar");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    rewriter.replaceOp(op, build(b, op, a));
    return success();
  }

  static Value intrinsic(ImplicitLocOpBuilder &b, StringRef name, Value x) {
    return LLVM::CallIntrinsicOp::create(b, b.getF32Type(),
                                         b.getStringAttr(name), ValueRange{x})
        .getResult(0);
  }
  static Value build(ImplicitLocOpBuilder &b, math::Exp2Op,
                     math::Exp2Op::Adaptor a) {
    return intrinsic(b, "llvm.nvvm.ex2.approx.ftz.f32", a.getOperand());
  }
  static Value build(ImplicitLocOpBuilder &b, math::Log2Op,
                     math::Log2Op::Adaptor a) {
    return intrinsic(b, "llvm.nvvm.lg2.approx.f", a.getOperand());
  }
  /// No NVVM op or LLVM intrinsic has tanh.approx: inline PTX.
  static Value build(ImplicitLocOpBuilder &b, math::TanhOp,
                     math::TanhOp::Adaptor a) {
    return NVVM::InlinePtxOp::create(b, TypeRange{b.getF32Type()},
                                     ValueRange{a.getOperand()}, ValueRange{},
                                     "tanh.approx.f32 $0, $1;", Value())
        .getResult(0);
  }
  static Value build(ImplicitLocOpBuilder &b, math::FmaOp,
                     math::FmaOp::Adaptor a) {
    return LLVM::FMAOp::create(b, a.getA(), a.getB(), a.getC());
  }
};

/// Each target op's pattern: TargetOpBuilder::lower in the op's place.
struct SM80Lowering {
  template <typename OpTy>
  static SmallVector<Value> lower(OpTy op, typename OpTy::Adaptor adaptor,
                                  ConversionPatternRewriter &rewriter) {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    return TargetOpBuilder(b).lower(op, adaptor);
  }
};
using SM80TargetOps =
    TargetOpSet<SM80Lowering, SM80CopyTileOp, SM80CommitGroupOp,
                SM80LdmatrixX4Op, SM80MmaOp, SM80PackPairOp, SM80StageRowOp,
                SM80StoreRowsOp, SM80StoreLseOp, SM80SyncWarpOp>;

} // namespace

void mlir::fattn::populateSM80TargetToNVVMPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  SM80TargetOps::addPatterns(converter, patterns);
  patterns.add<SM80MathLowering<math::Exp2Op>, SM80MathLowering<math::Log2Op>,
               SM80MathLowering<math::TanhOp>, SM80MathLowering<math::FmaOp>>(
      converter);
}

LogicalResult mlir::fattn::lowerSM80TargetOps(Operation *root) {
  MLIRContext *ctx = root->getContext();
  // The commit groups' tokens become i32 (as in upstream's
  // --convert-nvgpu-to-nvvm), also where the KV loops carry them; every
  // other type stays, so that the kernel's arith and scf code is left as
  // it is for the pipeline's later conversions.
  Type i32 = IntegerType::get(ctx, 32);
  LLVMTypeConverter converter(ctx);
  converter.addConversion(
      [i32](nvgpu::DeviceAsyncTokenType) -> Type { return i32; });
  // GPU address spaces as upstream's --convert-gpu-to-nvvm maps them: the
  // GPU patterns below lower any gpu.dynamic_shared_memory (the backward's
  // L3 has one), which without them aborts.
  populateGpuMemorySpaceAttributeConversions(
      converter, [](gpu::AddressSpace space) -> unsigned {
        switch (space) {
        case gpu::AddressSpace::Global:
          return static_cast<unsigned>(NVVM::NVVMMemorySpace::Global);
        case gpu::AddressSpace::Workgroup:
          return static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared);
        case gpu::AddressSpace::Private:
          return 0;
        }
        llvm_unreachable("unknown GPU address space");
      });
  TypeConverter tokens;
  tokens.addConversion([](Type type) { return type; });
  tokens.addConversion(
      [i32](nvgpu::DeviceAsyncTokenType) -> Type { return i32; });

  RewritePatternSet patterns(ctx);
  populateSM80TargetToNVVMPatterns(converter, patterns);
  populateNVGPUToNVVMConversionPatterns(converter, patterns);
  populateGpuToNVVMConversionPatterns(converter, patterns);
  LLVMConversionTarget target(*ctx);
  target.addLegalDialect<NVVM::NVVMDialect, arith::ArithDialect,
                         scf::SCFDialect>();
  scf::populateSCFStructuralTypeConversionsAndLegality(tokens, patterns,
                                                       target);
  // Any nvgpu op left is one the NVGPU patterns could not lower (the
  // backward's L3, whose bf16 nvgpu.mma.sync only
  // --convert-fattn-grad-to-nvvm-sm80 lowers): a failure, not a success
  // with the op in place.
  target.addIllegalDialect<nvgpu::NVGPUDialect>();
  target.addIllegalOp<gpu::BarrierOp, gpu::ShuffleOp>();
  // The kernel's math: SM80MathLowering's f32 patterns, else upstream's
  // GPU ones (libdevice calls); math without a pattern fails.
  target.addIllegalDialect<math::MathDialect>();
  SM80TargetOps::markIllegal(target);
  return applyPartialConversion(root, target, std::move(patterns));
}

namespace {
struct ConvertFAttnSM80TargetToNVVMPass
    : public fattn::impl::ConvertFAttnSM80TargetToNVVMBase<
          ConvertFAttnSM80TargetToNVVMPass> {
  void runOnOperation() override {
    if (failed(lowerSM80TargetOps(getOperation())))
      signalPassFailure();
  }
};
} // namespace
