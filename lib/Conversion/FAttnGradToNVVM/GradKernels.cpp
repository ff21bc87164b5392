//===- GradKernels.cpp - the sm_80 backward: configuration, pre/post ------===//
//
// buildSM80GradKernels turns each tiled backward function into its three
// kernels: reads the configuration from the op, declares one gpu.func per
// grid with the shared parameter list, and builds the preprocess (D, the
// zeroed dQ accumulator and, when deterministic, the Q tiles' zeroed dQ
// counters) and postprocess (dQ) bodies here; the main body is in
// MainKernel.cpp.
//
//===----------------------------------------------------------------------===//

#include "GradKernelBuilder.h"

#include "fattn/Conversion/FAttnGradToNVVM/FAttnGradToNVVM.h"
#include "fattn/Dialect/FAttn/Utils/KVTileRangeBuilder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fattn;
using namespace mlir::fattn::sm80grad;

//===----------------------------------------------------------------------===//
// Configuration
//===----------------------------------------------------------------------===//

/// The longest window bound the kernels take (32-bit key arithmetic in
/// ptxas's hands is not assumed, but the bound keeps row + offset + window
/// far from overflow).
static constexpr int64_t kMaxWindow = int64_t(1) << 30;

FailureOr<GradConfig> sm80grad::readGradConfig(TiledAttentionGradOp op,
                                               const GradTarget &target) {
  StringRef lowering = target.name;
  int64_t granule = target.headDimGranule;
  GradConfig cfg;
  auto q = cast<MemRefType>(op.getQuery().getType());
  Type elem = q.getElementType();
  if (!elem.isBF16() && !elem.isF16())
    return op.emitOpError()
           << lowering << " take f16 or bf16 tensors, found " << elem;
  cfg.elementType = elem;
  int64_t d = q.getShape().back();
  for (Value v :
       {op.getKey(), op.getValue(), op.getOutput(), op.getGradOutput(),
        op.getGradQuery(), op.getGradKey(), op.getGradValue()}) {
    auto type = cast<MemRefType>(v.getType());
    if (type.getShape().back() != d)
      return op.emitOpError()
             << lowering << " need one static head dim for Q, K, V, O and "
             << "their gradients, found " << type << " beside " << q;
    if (type.getElementType() != elem)
      return op.emitOpError() << lowering << " need one element type, found "
                              << type << " beside " << q;
  }
  if (ShapedType::isDynamic(d) || d % granule != 0 || d > kMaxHeadDim)
    return op.emitOpError()
           << lowering << " take head dims that are multiples of " << granule
           << " up to " << kMaxHeadDim << ", found "
           << (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d));
  cfg.headDim = d;
  for (Value v : op->getOperands()) {
    auto type = cast<MemRefType>(v.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return op.emitOpError() << lowering << " need unit-stride rows (the "
                              << "last dim contiguous), found " << type;
  }
  cfg.blockN = op.getBlockN();
  cfg.mainThreads = target.mainThreads(cfg.blockN, d);
  if (op.getBlockM() != kBlockM || cfg.mainThreads == 0)
    return op.emitOpError()
           << lowering << " take " << target.tiles << ", found "
           << op.getBlockM() << " x " << op.getBlockN() << " at head dim " << d;
  cfg.deterministic = op.getDeterministic();
  cfg.scale = op.getScale().convertToDouble();
  cfg.softcap = op.getSoftcap().convertToDouble();
  cfg.windowLeft = static_cast<int64_t>(op.getWindowLeft());
  cfg.windowRight = static_cast<int64_t>(op.getWindowRight());
  for (int64_t bound : {cfg.windowLeft, cfg.windowRight})
    if (bound > kMaxWindow)
      return op.emitOpError() << lowering << " take window bounds up to "
                              << kMaxWindow << ", found " << bound;
  return cfg;
}

StringRef sm80grad::gradTensorName(GradTensor t) {
  static constexpr std::array<StringLiteral, kNumGradTensors> names = {
      "q", "k", "v", "o", "do", "lse", "dq", "dk", "dv", "delta", "dq_accum"};
  return names[static_cast<int>(t)];
}

SmallVector<Type> sm80grad::gradKernelParamTypes(MLIRContext *ctx,
                                                 bool deterministic) {
  Type pointer = LLVM::LLVMPointerType::get(ctx, 1);
  SmallVector<Type> types(kNumGradTensors, pointer);
  types.append(5, IntegerType::get(ctx, 32));
  types.append(kStridedTensors.size() * 3 + 2, IntegerType::get(ctx, 64));
  if (deterministic)
    types.push_back(pointer);
  return types;
}

//===----------------------------------------------------------------------===//
// GradKernelBuilder
//===----------------------------------------------------------------------===//

GradKernelBuilder::GradKernelBuilder(ImplicitLocOpBuilder &b,
                                     const GradConfig &cfg)
    : b(b), cfg(cfg), f32(b.getF32Type()), elem(cfg.elementType) {}

Value GradKernelBuilder::idx(int64_t v) {
  return arith::ConstantIndexOp::create(b, v);
}
Value GradKernelBuilder::f32Const(float v) {
  return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
}
Value GradKernelBuilder::add(Value x, Value y) {
  return arith::AddIOp::create(b, x, y);
}
Value GradKernelBuilder::mul(Value x, Value y) {
  return arith::MulIOp::create(b, x, y);
}
Value GradKernelBuilder::div(Value x, int64_t d) {
  return arith::DivUIOp::create(b, x, idx(d));
}
Value GradKernelBuilder::rem(Value x, int64_t d) {
  return arith::RemUIOp::create(b, x, idx(d));
}
Value GradKernelBuilder::lt(Value x, Value y) {
  return arith::CmpIOp::create(b, arith::CmpIPredicate::slt, x, y);
}
Value GradKernelBuilder::select(Value c, Value x, Value y) {
  return arith::SelectOp::create(b, c, x, y);
}

/// A memref<?xT, global> whose descriptor holds `ptr` (size unbounded,
/// stride 1): the flat view through which the kernels index a tensor.
static Value flatGlobalView(ImplicitLocOpBuilder &b, Value ptr, Type element) {
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  auto array = LLVM::LLVMArrayType::get(i64, 1);
  auto descriptorType = LLVM::LLVMStructType::getLiteral(
      ctx, {ptr.getType(), ptr.getType(), i64, array, array});
  Value d = LLVM::PoisonOp::create(b, descriptorType);
  d = LLVM::InsertValueOp::create(b, d, ptr, ArrayRef<int64_t>{0});
  d = LLVM::InsertValueOp::create(b, d, ptr, ArrayRef<int64_t>{1});
  auto constant = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, i64, b.getI64IntegerAttr(v));
  };
  d = LLVM::InsertValueOp::create(b, d, constant(0), ArrayRef<int64_t>{2});
  d = LLVM::InsertValueOp::create(b, d, constant(int64_t(1) << 62),
                                  ArrayRef<int64_t>{3, 0});
  d = LLVM::InsertValueOp::create(b, d, constant(1), ArrayRef<int64_t>{4, 0});
  auto global = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Global);
  auto type = MemRefType::get({ShapedType::kDynamic}, element,
                              MemRefLayoutAttrInterface(), global);
  return UnrealizedConversionCastOp::create(b, type, d).getResult(0);
}

GradParams GradKernelBuilder::readParams(ValueRange args,
                                         ArrayRef<GradTensor> used) {
  GradParams p;
  for (GradTensor tensor : used) {
    bool isF32 = tensor == GradTensor::LSE || tensor == GradTensor::Delta ||
                 tensor == GradTensor::DQAccum;
    int t = static_cast<int>(tensor);
    p.views[t] = flatGlobalView(b, args[t], isF32 ? f32 : elem);
  }
  auto size = [&](int64_t i) -> Value {
    return arith::IndexCastUIOp::create(b, b.getIndexType(),
                                        args[kNumGradTensors + i]);
  };
  p.batch = size(0);
  p.headsQ = size(1);
  p.headsKV = size(2);
  p.seqQ = size(3);
  p.seqK = size(4);
  unsigned next = kNumGradTensors + 5;
  auto stride = [&]() -> Value {
    return arith::IndexCastOp::create(b, b.getIndexType(), args[next++]);
  };
  for (GradTensor t : kStridedTensors)
    for (int64_t i = 0; i < 3; ++i)
      p.strides[static_cast<int>(t)][i] = stride();
  p.strides[static_cast<int>(GradTensor::LSE)][0] = stride();
  p.strides[static_cast<int>(GradTensor::LSE)][1] = stride();
  if (cfg.deterministic)
    p.dqSemaphore = args[next];
  return p;
}

Value GradKernelBuilder::offset(const GradParams &p, GradTensor t, Value batch,
                                Value head, Value row, Value col) {
  const auto &s = p.strides[static_cast<int>(t)];
  Value o = add(mul(batch, s[0]), mul(head, s[1]));
  if (t == GradTensor::LSE)
    return add(o, row);
  return add(add(o, mul(row, s[2])), col);
}

Value GradKernelBuilder::workspaceOffset(const GradParams &p, Value batch,
                                         Value head, Value row, int64_t cols) {
  Value r = add(mul(add(mul(batch, p.headsQ), head), p.seqQ), row);
  return cols == 1 ? r : mul(r, idx(cols));
}

Value GradKernelBuilder::sharedTile(Value smem, int64_t byteOffset,
                                    int64_t rows, int64_t cols, Type type) {
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  SmallVector<int64_t> shape = {rows};
  if (cols > 0)
    shape.push_back(cols);
  auto tile =
      MemRefType::get(shape, type, MemRefLayoutAttrInterface(), workgroup);
  return memref::ViewOp::create(b, tile, smem, idx(byteOffset), ValueRange{});
}

scf::ForOp GradKernelBuilder::forLoop(
    Value lb, Value ub, ValueRange inits,
    llvm::function_ref<SmallVector<Value>(Value, ValueRange)> body) {
  auto loop = scf::ForOp::create(b, lb, ub, idx(1), inits);
  OpBuilder::InsertionGuard guard(b);
  Block *block = loop.getBody();
  if (block->mightHaveTerminator())
    b.setInsertionPoint(block->getTerminator());
  else
    b.setInsertionPointToEnd(block);
  SmallVector<Value> results =
      body(loop.getInductionVar(), loop.getRegionIterArgs());
  if (!inits.empty())
    scf::YieldOp::create(b, results);
  return loop;
}

void GradKernelBuilder::ifThen(Value cond, llvm::function_ref<void()> then) {
  auto op = scf::IfOp::create(b, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(op.thenBlock()->getTerminator());
  then();
}

Value sm80grad::rowLseLog2(GradKernelBuilder &k, const GradParams &p,
                          Value batch, Value head, Value row) {
  ImplicitLocOpBuilder &b = k.b;
  Value valid = k.lt(row, p.seqQ);
  Value lse = memref::LoadOp::create(
      b, p.view(GradTensor::LSE),
      ValueRange{k.offset(p, GradTensor::LSE, batch, head,
                          k.select(valid, row, k.idx(0)), {})});
  Value inf = k.f32Const(std::numeric_limits<float>::infinity());
  Value noKeys = arith::CmpFOp::create(
      b, arith::CmpFPredicate::OEQ, lse,
      k.f32Const(-std::numeric_limits<float>::infinity()));
  Value dead = arith::OrIOp::create(
      b, noKeys,
      arith::XOrIOp::create(b, valid,
                            arith::ConstantOp::create(b, b.getBoolAttr(true))));
  return k.select(
      dead, inf,
      arith::MulFOp::create(b, lse, k.f32Const(llvm::numbers::log2ef)));
}

Value sm80grad::rowDelta(GradKernelBuilder &k, const GradParams &p,
                         Value batch, Value head, Value row) {
  ImplicitLocOpBuilder &b = k.b;
  Value valid = k.lt(row, p.seqQ);
  Value delta = memref::LoadOp::create(
      b, p.view(GradTensor::Delta),
      ValueRange{k.workspaceOffset(p, batch, head,
                                   k.select(valid, row, k.idx(0)), 1)});
  return k.select(valid, delta, k.f32Const(0.0f));
}

GradItems sm80grad::gradItems(GradKernelBuilder &k, const GradParams &p,
                              Value kvHead, QTileRangeOp range) {
  ImplicitLocOpBuilder &b = k.b;
  GradItems items;
  Value groupSize = arith::DivUIOp::create(b, p.headsQ, p.headsKV);
  items.firstHead = k.mul(kvHead, groupSize);
  items.qTileLo = range.getLo();
  Value rangeTiles = arith::MaxSIOp::create(
      b, arith::SubIOp::create(b, range.getHi(), items.qTileLo), k.idx(0));
  items.qTiles = arith::MaxSIOp::create(b, rangeTiles, k.idx(1));
  items.count = k.mul(groupSize, rangeTiles);
  return items;
}

std::pair<Value, Value> GradItems::at(GradKernelBuilder &k, Value index,
                                      Value last) const {
  Value position =
      last ? arith::MinSIOp::create(k.b, index, last).getResult() : index;
  Value head =
      k.add(firstHead, arith::DivUIOp::create(k.b, position, qTiles));
  return {head, k.add(qTileLo, arith::RemUIOp::create(k.b, position, qTiles))};
}

/// The address of the counter of Q tile `qTile` of (batch, head) in
/// dq_semaphore: the u32 at the tile's first row.
static Value gradQuerySemaphore(GradKernelBuilder &k, const GradParams &p,
                                Value batch, Value head, Value qTile) {
  ImplicitLocOpBuilder &b = k.b;
  Value row = k.mul(qTile, k.idx(kBlockM));
  Value offset = arith::IndexCastOp::create(
      b, b.getI64Type(), k.workspaceOffset(p, batch, head, row, 1));
  return LLVM::GEPOp::create(b, p.dqSemaphore.getType(), b.getI32Type(),
                             p.dqSemaphore, ValueRange{offset});
}

/// The GPU scope of the counters' synchronization (PTX .gpu).
static constexpr StringLiteral kDeviceScope = "device";

Value sm80grad::waitForGradQueryTurn(GradKernelBuilder &k,
                                     const GradParams &p, Value tid,
                                     Value batch, Value head, Value qTile,
                                     Value kvTile) {
  ImplicitLocOpBuilder &b = k.b;
  const GradConfig &cfg = k.cfg;
  KVTileRange<Value> seen = buildKVTileRange(
      b, b.getLoc(), qTile, p.seqQ, p.seqK,
      {kBlockM, cfg.blockN, cfg.windowLeft, cfg.windowRight});
  // The KV tiles that visit the Q tile are [seen.lo, seen.hi) (the main
  // kernel's Q tile ranges invert the forward's KV tile range:
  // QTileRangeTest), this one `kvTile - seen.lo` of them below it.
  Type i32 = b.getI32Type();
  Value rank = arith::IndexCastOp::create(
      b, i32, arith::SubIOp::create(b, kvTile, seen.lo));
  Value counter = gradQuerySemaphore(k, p, batch, head, qTile);
  k.ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, k.idx(0)),
           [&] {
             auto spin = scf::WhileOp::create(b, TypeRange{}, ValueRange{});
             {
               OpBuilder::InsertionGuard guard(b);
               b.setInsertionPointToStart(b.createBlock(&spin.getBefore()));
               Value done = LLVM::LoadOp::create(
                   b, i32, counter, /*alignment=*/4, /*isVolatile=*/false,
                   /*isNonTemporal=*/false, /*isInvariant=*/false,
                   /*isInvariantGroup=*/false, LLVM::AtomicOrdering::acquire,
                   kDeviceScope);
               Value waiting = arith::CmpIOp::create(
                   b, arith::CmpIPredicate::ne, done, rank);
               scf::ConditionOp::create(b, waiting, ValueRange{});
               b.setInsertionPointToStart(b.createBlock(&spin.getAfter()));
               scf::YieldOp::create(b);
             }
           });
  gpu::BarrierOp::create(b);
  return counter;
}

void sm80grad::passGradQueryTurn(GradKernelBuilder &k, Value tid,
                                 Value counter) {
  ImplicitLocOpBuilder &b = k.b;
  LLVM::FenceOp::create(b, LLVM::AtomicOrdering::acq_rel, kDeviceScope);
  gpu::BarrierOp::create(b);
  // A fence, then a relaxed increment: NVPTX lowers a release atomicrmw to a
  // relaxed atom without the fence.
  k.ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, k.idx(0)),
           [&] {
             LLVM::FenceOp::create(b, LLVM::AtomicOrdering::acq_rel,
                                   kDeviceScope);
             LLVM::AtomicRMWOp::create(
                 b, LLVM::AtomicBinOp::add, counter,
                 arith::ConstantIntOp::create(b, 1, 32),
                 LLVM::AtomicOrdering::monotonic, kDeviceScope,
                 /*alignment=*/4);
           });
}

void sm80grad::storeRowStatistics(GradKernelBuilder &k, Value tid, Value lse,
                                  Value delta, Value lseTile,
                                  Value deltaTile) {
  k.ifThen(k.lt(tid, k.idx(kBlockM)), [&] {
    memref::StoreOp::create(k.b, lse, lseTile, ValueRange{tid});
    memref::StoreOp::create(k.b, delta, deltaTile, ValueRange{tid});
  });
}

//===----------------------------------------------------------------------===//
// Preprocess and postprocess
//===----------------------------------------------------------------------===//

void sm80grad::buildPreprocessBody(GradKernelBuilder &k, ValueRange args) {
  ImplicitLocOpBuilder &b = k.b;
  int64_t d = k.cfg.headDim;
  GradParams p = k.readParams(args, {GradTensor::O, GradTensor::DO,
                                     GradTensor::Delta, GradTensor::DQAccum});
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value qTile = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value head = gpu::BlockIdOp::create(b, gpu::Dimension::y);
  Value batch = gpu::BlockIdOp::create(b, gpu::Dimension::z);
  // Two threads per row, each over half the columns.
  Value half = k.rem(tid, 2);
  Value row = k.add(k.mul(qTile, k.idx(kBlockM)), k.div(tid, 2));
  Value valid = k.lt(row, p.seqQ);
  // Rows past seq_q read the last row (the shuffle needs every lane).
  Value readRow =
      k.select(valid, row, arith::SubIOp::create(b, p.seqQ, k.idx(1)));
  int64_t halfCols = d / 2;
  Value firstCol = k.mul(half, k.idx(halfCols));
  auto vec8 = VectorType::get({8}, k.f32);
  auto elem8 = VectorType::get({8}, k.elem);
  Value acc = arith::ConstantOp::create(
      b, vec8, DenseElementsAttr::get(vec8, b.getF32FloatAttr(0.0f)));
  for (int64_t c = 0; c < halfCols / 8; ++c) {
    Value col = k.add(firstCol, k.idx(c * 8));
    auto load = [&](GradTensor t) -> Value {
      Value x = vector::LoadOp::create(
          b, elem8, p.view(t),
          ValueRange{k.offset(p, t, batch, head, readRow, col)},
          /*nontemporal=*/false, llvm::MaybeAlign(16));
      return arith::ExtFOp::create(b, vec8, x);
    };
    acc =
        math::FmaOp::create(b, load(GradTensor::DO), load(GradTensor::O), acc);
  }
  Value sum = vector::ReductionOp::create(b, vector::CombiningKind::ADD, acc);
  Value other = gpu::ShuffleOp::create(b, sum, 1, 32, gpu::ShuffleMode::XOR)
                    .getShuffleResult();
  sum = arith::AddFOp::create(b, sum, other);
  k.ifThen(valid, [&] {
    Value isFirst =
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, half, k.idx(0));
    k.ifThen(isFirst, [&] {
      memref::StoreOp::create(
          b, sum, p.view(GradTensor::Delta),
          ValueRange{k.workspaceOffset(p, batch, head, row, 1)});
    });
    // The Q tile's dQ counter (deterministic), before the main kernel.
    if (k.cfg.deterministic)
      k.ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid,
                                     k.idx(0)),
               [&] {
                 LLVM::StoreOp::create(
                     b, arith::ConstantIntOp::create(b, 0, 32),
                     gradQuerySemaphore(k, p, batch, head, qTile), 4);
               });
    auto vec4 = VectorType::get({4}, k.f32);
    Value zeros = arith::ConstantOp::create(
        b, vec4, DenseElementsAttr::get(vec4, b.getF32FloatAttr(0.0f)));
    Value base = k.add(k.workspaceOffset(p, batch, head, row, d), firstCol);
    for (int64_t c = 0; c < halfCols / 4; ++c)
      vector::StoreOp::create(b, zeros, p.view(GradTensor::DQAccum),
                              ValueRange{k.add(base, k.idx(c * 4))},
                              /*nontemporal=*/false, llvm::MaybeAlign(16));
  });
}

void sm80grad::buildPostprocessBody(GradKernelBuilder &k, ValueRange args) {
  ImplicitLocOpBuilder &b = k.b;
  int64_t d = k.cfg.headDim;
  GradParams p = k.readParams(args, {GradTensor::DQAccum, GradTensor::DQ});
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value qTile = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value head = gpu::BlockIdOp::create(b, gpu::Dimension::y);
  Value batch = gpu::BlockIdOp::create(b, gpu::Dimension::z);
  Value row0 = k.mul(qTile, k.idx(kBlockM));
  auto vec8 = VectorType::get({8}, k.f32);
  auto elem8 = VectorType::get({8}, k.elem);
  Value scale = arith::ConstantOp::create(
      b, vec8,
      DenseElementsAttr::get(
          vec8, b.getF32FloatAttr(static_cast<float>(k.cfg.scale))));
  // 8 columns per thread and step, consecutive threads along a row.
  int64_t chunksPerRow = d / 8;
  for (int64_t i = 0; i < kBlockM * chunksPerRow / kThreads; ++i) {
    Value chunk = k.add(tid, k.idx(i * kThreads));
    Value row = k.add(row0, k.div(chunk, chunksPerRow));
    Value col = k.mul(k.rem(chunk, chunksPerRow), k.idx(8));
    k.ifThen(k.lt(row, p.seqQ), [&] {
      Value acc = vector::LoadOp::create(
          b, vec8, p.view(GradTensor::DQAccum),
          ValueRange{k.add(k.workspaceOffset(p, batch, head, row, d), col)},
          /*nontemporal=*/false, llvm::MaybeAlign(16));
      Value dq = arith::TruncFOp::create(b, elem8,
                                         arith::MulFOp::create(b, acc, scale));
      vector::StoreOp::create(
          b, dq, p.view(GradTensor::DQ),
          ValueRange{k.offset(p, GradTensor::DQ, batch, head, row, col)},
          /*nontemporal=*/false, llvm::MaybeAlign(16));
    });
  }
}

//===----------------------------------------------------------------------===//
// The three kernels of a function
//===----------------------------------------------------------------------===//

namespace {
/// The single tiled backward op of `func`, or null.
TiledAttentionGradOp gradOpOf(func::FuncOp func) {
  TiledAttentionGradOp found;
  int count = 0;
  func.walk([&](TiledAttentionGradOp op) {
    found = op;
    ++count;
  });
  return count == 1 ? found : TiledAttentionGradOp();
}

DictionaryAttr kernelInfo(OpBuilder &b, const GradConfig &cfg, StringRef role,
                          int64_t threads, int64_t sharedBytes) {
  SmallVector<NamedAttribute> entries = {
      b.getNamedAttr("role", b.getStringAttr(role)),
      b.getNamedAttr("dtype", b.getStringAttr(cfg.isBF16() ? "bf16" : "f16")),
      b.getNamedAttr("head_dim", b.getI64IntegerAttr(cfg.headDim)),
      b.getNamedAttr("scale", b.getF64FloatAttr(cfg.scale)),
      b.getNamedAttr("softcap", b.getF64FloatAttr(cfg.softcap)),
      b.getNamedAttr("window_left", b.getI64IntegerAttr(cfg.windowLeft)),
      b.getNamedAttr("window_right", b.getI64IntegerAttr(cfg.windowRight)),
      b.getNamedAttr("block_m", b.getI64IntegerAttr(kBlockM)),
      b.getNamedAttr("block_n", b.getI64IntegerAttr(cfg.blockN)),
      b.getNamedAttr("threads", b.getI64IntegerAttr(threads)),
      b.getNamedAttr("dynamic_smem_bytes", b.getI64IntegerAttr(sharedBytes)),
  };
  if (cfg.deterministic)
    entries.push_back(b.getNamedAttr("deterministic", b.getUnitAttr()));
  return b.getDictionaryAttr(entries);
}
} // namespace

LogicalResult sm80grad::buildGradKernels(ModuleOp module,
                                         const GradTarget &target) {
  SmallVector<std::pair<func::FuncOp, TiledAttentionGradOp>> work;
  for (auto func : module.getOps<func::FuncOp>())
    if (TiledAttentionGradOp op = gradOpOf(func))
      work.push_back({func, op});
  if (work.empty())
    return success();
  MLIRContext *ctx = module.getContext();
  OpBuilder ob(ctx);
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  ob.getUnitAttr());
  auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>("fattn_kernels");
  if (!gpuModule) {
    ob.setInsertionPointToEnd(module.getBody());
    auto nvvmTarget =
        NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/3, "nvptx64-nvidia-cuda",
                                  target.chip, target.features);
    gpuModule = gpu::GPUModuleOp::create(ob, module.getLoc(), "fattn_kernels",
                                         ob.getArrayAttr({nvvmTarget}));
  }
  for (auto [func, op] : work) {
    FailureOr<GradConfig> cfg = readGradConfig(op, target);
    if (failed(cfg))
      return failure();
    auto functionType = FunctionType::get(
        ctx, gradKernelParamTypes(ctx, cfg->deterministic), TypeRange{});
    QTileRangeOp range;
    op.getBody().walk([&](QTileRangeOp r) { range = r; });
    if (!range)
      return op.emitOpError()
             << target.name << " expect the body's fattn.q_tile_range";
    if (!SymbolTable::symbolKnownUseEmpty(func, module))
      return func.emitOpError()
             << "is called: " << target.name
             << " have no host launch (fattn's runtime launches them)";
    for (StringRef role : {"preprocess", "main", "postprocess"}) {
      ob.setInsertionPointToEnd(gpuModule.getBody());
      auto kernel = gpu::GPUFuncOp::create(
          ob, op.getLoc(), (func.getSymName() + "_" + role).str(),
          functionType);
      kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                      ob.getUnitAttr());
      // Also ptxas's register budget (nvvm.maxntid, __launch_bounds__).
      int64_t threads = role == "main" ? cfg->mainThreads : kThreads;
      kernel.setKnownBlockSizeAttr(
          ob.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
      ImplicitLocOpBuilder b(op.getLoc(), ctx);
      b.setInsertionPointToStart(&kernel.getBody().front());
      GradKernelBuilder k(b, *cfg);
      ValueRange args = kernel.getArguments();
      int64_t sharedBytes = 0;
      if (role == "preprocess")
        buildPreprocessBody(k, args);
      else if (role == "main")
        sharedBytes = target.buildMain(k, args, range);
      else
        buildPostprocessBody(k, args);
      gpu::ReturnOp::create(b);
      kernel->setAttr(kGradKernelInfoAttrName,
                      kernelInfo(ob, *cfg, role, threads, sharedBytes));
    }
    func.erase();
  }
  return success();
}

LogicalResult mlir::fattn::buildSM80GradKernels(ModuleOp module) {
  auto mainThreads = [](int64_t blockN, int64_t) {
    return blockN == kMainBlockN ? kMainThreads : int64_t{0};
  };
  return buildGradKernels(
      module, GradTarget{"sm_80", "", "the sm_80 backward kernels",
                         /*headDimGranule=*/16, mainThreads,
                         "64 x 128 tiles (block-m=64 block-n=128)",
                         buildMainBody});
}
