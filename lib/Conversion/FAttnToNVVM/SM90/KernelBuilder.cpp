//===- KernelBuilder.cpp - typed builder of the sm_90a kernel -------------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <cstring>

using namespace mlir;
using namespace mlir::fattn::sm90;

KernelBuilder::KernelBuilder(OpBuilder &builder, Location loc)
    : b(builder), loc(loc) {}

KernelBuilder::~KernelBuilder() {
  // A block that was branched to but never placed: an emitter bug, which
  // leaves the function unverifiable; free it without dangling uses.
  for (auto &entry : pending)
    entry.second->dropAllUses();
}

LLVM::LLVMFuncOp KernelBuilder::beginFunction(StringRef name,
                                              ArrayRef<KernelParam> params,
                                              int64_t threads) {
  MLIRContext *ctx = b.getContext();
  SmallVector<Type> types;
  for (const KernelParam &p : params)
    types.push_back(p.type);
  auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), types);
  func = LLVM::LLVMFuncOp::create(b, loc, name, type);
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                b.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
  func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                b.getI32IntegerAttr(1));
  for (auto [i, p] : llvm::enumerate(params)) {
    if (!p.tensorMap)
      continue;
    func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                    b.getI64IntegerAttr(64));
    func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                    TypeAttr::get(LLVM::LLVMArrayType::get(i8(), 128)));
    func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                    b.getUnitAttr());
  }
  Block *entry = func.addEntryBlock(b);
  for (auto [p, value] : llvm::zip(params, entry->getArguments()))
    args[p.name] = value;
  b.setInsertionPointToEnd(entry);
  return func;
}

Value KernelBuilder::arg(StringRef name) const {
  auto it = args.find(name);
  assert(it != args.end() && "no kernel parameter of this name");
  return it->second;
}

Type KernelBuilder::ptr(unsigned space) {
  return LLVM::LLVMPointerType::get(b.getContext(), space);
}

Type KernelBuilder::structOf(int64_t n, Type element) {
  return LLVM::LLVMStructType::getLiteral(b.getContext(),
                                          SmallVector<Type>(n, element));
}

Value KernelBuilder::i1(bool v) {
  return LLVM::ConstantOp::create(b, loc, i1(), b.getBoolAttr(v));
}

Value KernelBuilder::i32(int64_t v) {
  return LLVM::ConstantOp::create(b, loc, i32(),
                                  b.getI32IntegerAttr(static_cast<int32_t>(v)));
}

Value KernelBuilder::i64(int64_t v) {
  return LLVM::ConstantOp::create(b, loc, i64(), b.getI64IntegerAttr(v));
}

Value KernelBuilder::f32(float v) {
  return LLVM::ConstantOp::create(b, loc, f32(), b.getF32FloatAttr(v));
}

Value KernelBuilder::poison(Type type) {
  return LLVM::PoisonOp::create(b, loc, type);
}

Value KernelBuilder::zero(Type type) {
  return LLVM::ZeroOp::create(b, loc, type);
}

Value KernelBuilder::add(Value x, Value y) {
  return LLVM::AddOp::create(b, loc, x, y);
}
Value KernelBuilder::sub(Value x, Value y) {
  return LLVM::SubOp::create(b, loc, x, y);
}
Value KernelBuilder::mul(Value x, Value y) {
  return LLVM::MulOp::create(b, loc, x, y);
}
Value KernelBuilder::udiv(Value x, Value y) {
  return LLVM::UDivOp::create(b, loc, x, y);
}
Value KernelBuilder::urem(Value x, Value y) {
  return LLVM::URemOp::create(b, loc, x, y);
}
Value KernelBuilder::sdiv(Value x, Value y) {
  return LLVM::SDivOp::create(b, loc, x, y);
}
Value KernelBuilder::srem(Value x, Value y) {
  return LLVM::SRemOp::create(b, loc, x, y);
}
Value KernelBuilder::andI(Value x, Value y) {
  return LLVM::AndOp::create(b, loc, x, y);
}
Value KernelBuilder::orI(Value x, Value y) {
  return LLVM::OrOp::create(b, loc, x, y);
}
Value KernelBuilder::xorI(Value x, Value y) {
  return LLVM::XOrOp::create(b, loc, x, y);
}
Value KernelBuilder::shl(Value x, Value y) {
  return LLVM::ShlOp::create(b, loc, x, y);
}
Value KernelBuilder::lshr(Value x, Value y) {
  return LLVM::LShrOp::create(b, loc, x, y);
}
Value KernelBuilder::fadd(Value x, Value y) {
  return LLVM::FAddOp::create(b, loc, x, y);
}
Value KernelBuilder::fsub(Value x, Value y) {
  return LLVM::FSubOp::create(b, loc, x, y);
}
Value KernelBuilder::fmul(Value x, Value y) {
  return LLVM::FMulOp::create(b, loc, x, y);
}
Value KernelBuilder::fneg(Value x) { return LLVM::FNegOp::create(b, loc, x); }
Value KernelBuilder::fdiv(Value x, Value y) {
  return LLVM::FDivOp::create(b, loc, x, y);
}

Value KernelBuilder::icmp(ICmp predicate, Value x, Value y) {
  return LLVM::ICmpOp::create(b, loc, predicate, x, y);
}

Value KernelBuilder::fcmp(FCmp predicate, Value x, Value y) {
  return LLVM::FCmpOp::create(b, loc, predicate, x, y);
}

Value KernelBuilder::select(Value condition, Value x, Value y) {
  return LLVM::SelectOp::create(b, loc, condition, x, y);
}

Value KernelBuilder::fmax(Value x, Value y) {
  return LLVM::MaxNumOp::create(b, loc, x, y);
}

Value KernelBuilder::fma(Value x, Value y, Value z) {
  return LLVM::FMAOp::create(b, loc, x, y, z);
}

Value KernelBuilder::fmaSat(Value x, Value y, Value z) {
  return inlineAsm(f32(), "fma.rn.sat.f32 $0, $1, $2, $3;", "=f,f,f,f",
                   {x, y, z}, /*sideEffects=*/false);
}

Value KernelBuilder::tanh(Value x) {
  return inlineAsm(f32(), "tanh.approx.f32 $0, $1;", "=f,f", {x},
                   /*sideEffects=*/false);
}

Value KernelBuilder::ex2(Value x) {
  return callIntrinsic("llvm.nvvm.ex2.approx.ftz.f32", f32(), {x});
}

Value KernelBuilder::prmt(Value x, Value y, Value selector) {
  return callIntrinsic("llvm.nvvm.prmt", i32(), {x, y, selector});
}

Value KernelBuilder::mulhiU(Value x, Value y) {
  return callIntrinsic("llvm.nvvm.mulhi.ui", i32(), {x, y});
}

Value KernelBuilder::ctlz(Value x) {
  return LLVM::CountLeadingZerosOp::create(b, loc, x.getType(), x,
                                           /*is_zero_poison=*/false);
}

Value KernelBuilder::zext(Value x, Type type) {
  return LLVM::ZExtOp::create(b, loc, type, x);
}
Value KernelBuilder::trunc(Value x, Type type) {
  return LLVM::TruncOp::create(b, loc, type, x);
}
Value KernelBuilder::bitcast(Value x, Type type) {
  return LLVM::BitcastOp::create(b, loc, type, x);
}
Value KernelBuilder::fptrunc(Value x, Type type) {
  return LLVM::FPTruncOp::create(b, loc, type, x);
}
Value KernelBuilder::addrspacecast(Value x, Type type) {
  return LLVM::AddrSpaceCastOp::create(b, loc, type, x);
}
Value KernelBuilder::ptrtoint(Value x, Type type) {
  return LLVM::PtrToIntOp::create(b, loc, type, x);
}

Value KernelBuilder::extractValue(Value aggregate, int64_t index) {
  return LLVM::ExtractValueOp::create(b, loc, aggregate, index);
}

Value KernelBuilder::insertValue(Value aggregate, Value value, int64_t index) {
  return LLVM::InsertValueOp::create(b, loc, aggregate, value, index);
}

Value KernelBuilder::extractElement(Value vector, Value index) {
  return LLVM::ExtractElementOp::create(b, loc, vector, index);
}

Value KernelBuilder::insertElement(Value vector, Value value, Value index) {
  return LLVM::InsertElementOp::create(b, loc, vector, value, index);
}

Value KernelBuilder::byteOffset(Value base, Value offset) {
  return LLVM::GEPOp::create(b, loc, base.getType(), i8(), base,
                             ValueRange{offset});
}

Value KernelBuilder::elementAddress(Value base, Type element, Value index) {
  return LLVM::GEPOp::create(b, loc, base.getType(), element, base,
                             ValueRange{index});
}

Value KernelBuilder::load(Type type, Value address, unsigned alignment) {
  return LLVM::LoadOp::create(b, loc, type, address, alignment);
}

void KernelBuilder::store(Value value, Value address, unsigned alignment) {
  LLVM::StoreOp::create(b, loc, value, address, alignment);
}

Value KernelBuilder::addressOf(StringRef global, Type type) {
  return LLVM::AddressOfOp::create(
      b, loc, type, FlatSymbolRefAttr::get(b.getContext(), global));
}

Value KernelBuilder::inlineAsm(Type result, StringRef text,
                               StringRef constraints, ValueRange operands,
                               bool sideEffects) {
  auto op = LLVM::InlineAsmOp::create(
      b, loc, result ? TypeRange(result) : TypeRange(), operands, text,
      constraints, sideEffects, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  return result ? op.getResult(0) : Value();
}

Value KernelBuilder::callIntrinsic(StringRef name, Type result,
                                   ValueRange callArgs) {
  auto op = LLVM::CallIntrinsicOp::create(b, loc, result, b.getStringAttr(name),
                                          callArgs);
  return op.getResult(0);
}

Value KernelBuilder::specialRegister(SpecialRegister reg) {
  switch (reg) {
  case SpecialRegister::ThreadIdX:
    return NVVM::ThreadIdXOp::create(b, loc, i32());
  case SpecialRegister::BlockIdX:
    return NVVM::BlockIdXOp::create(b, loc, i32());
  case SpecialRegister::BlockIdY:
    return NVVM::BlockIdYOp::create(b, loc, i32());
  case SpecialRegister::BlockIdZ:
    return NVVM::BlockIdZOp::create(b, loc, i32());
  case SpecialRegister::GridDimX:
    return NVVM::GridDimXOp::create(b, loc, i32());
  }
  llvm_unreachable("unknown special register");
}

Value KernelBuilder::shuffle(NVVM::ShflKind kind, Value value, Value offset,
                             Value clamp, Value mask) {
  return NVVM::ShflOp::create(b, loc, value.getType(), mask, value, offset,
                              clamp, kind, UnitAttr());
}

Value KernelBuilder::voteAny(Value mask, Value predicate) {
  return NVVM::VoteSyncOp::create(b, loc, i1(), mask, predicate,
                                  NVVM::VoteSyncKind::any);
}

Value KernelBuilder::electSync() {
  return NVVM::ElectSyncOp::create(b, loc, i1(), Value());
}

void KernelBuilder::barrier0() { NVVM::Barrier0Op::create(b, loc); }

void KernelBuilder::namedBarrier(Value id, Value threads) {
  NVVM::BarrierOp::create(b, loc, Type(), id, threads,
                          NVVM::BarrierReductionAttr(), Value());
}

void KernelBuilder::namedBarrierArrive(Value id, Value threads) {
  NVVM::BarrierArriveOp::create(b, loc, id, threads);
}

void KernelBuilder::setMaxRegisters(int64_t count, bool increase) {
  NVVM::SetMaxRegisterOp::create(b, loc, static_cast<uint32_t>(count),
                                 increase
                                     ? NVVM::SetMaxRegisterAction::increase
                                     : NVVM::SetMaxRegisterAction::decrease);
}

void KernelBuilder::mbarrierInit(Value barrier, Value count, Value predicate) {
  NVVM::MBarrierInitOp::create(b, loc, barrier, count, predicate);
}

void KernelBuilder::mbarrierArrive(Value barrier) {
  NVVM::MBarrierArriveOp::create(b, loc, Type(), barrier, Value());
}

void KernelBuilder::mbarrierArriveExpectTx(Value barrier, Value bytes) {
  NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), barrier, bytes,
                                         NVVM::MemScopeKind::CTA,
                                         /*relaxed=*/false, Value());
}

void KernelBuilder::mbarrierTryWaitParity(Value barrier, Value phase,
                                          Value ticks) {
  NVVM::MBarrierTryWaitParityOp::create(b, loc, barrier, phase, ticks);
}

void KernelBuilder::fenceMbarrierInit() {
  NVVM::FenceMbarrierInitOp::create(b, loc);
}

void KernelBuilder::fenceProxyAsyncShared() {
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
}

void KernelBuilder::wgmmaFence() { NVVM::WgmmaFenceAlignedOp::create(b, loc); }

void KernelBuilder::wgmmaCommitGroup() {
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
}

void KernelBuilder::wgmmaWaitGroup(int64_t pending) {
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, static_cast<uint64_t>(pending));
}

Value KernelBuilder::wgmmaSS(Value descA, Value descB, Value acc, int64_t n,
                             int64_t k, NVVM::WGMMATypes type,
                             bool accumulate) {
  auto shape = NVVM::MMAShapeAttr::get(b.getContext(), 64, n, k);
  return NVVM::WgmmaMmaAsyncOp::create(
      b, loc, acc.getType(), acc, descA, descB, shape, type, type,
      NVVM::WGMMATypes::f32,
      accumulate ? NVVM::WGMMAScaleOut::one : NVVM::WGMMAScaleOut::zero,
      NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row,
      NVVM::MMALayout::col, NVVM::MMAIntOverflowAttr());
}

void KernelBuilder::tmaLoad(Value dst, Value map, Value barrier,
                            ValueRange coordinates) {
  NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
      b, loc, dst, map, coordinates, barrier, /*im2colOffsets=*/ValueRange(),
      /*multicastMask=*/Value(), /*l2CacheHint=*/Value(),
      NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false, NVVM::CTAGroupKindAttr(),
      /*predicate=*/Value());
}

void KernelBuilder::tmaStore(Value map, Value src, ValueRange coordinates) {
  NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
      b, loc, map, src, coordinates, /*l2CacheHint=*/Value(),
      NVVM::TMAStoreMode::TILE, /*predicate=*/Value());
}

void KernelBuilder::bulkCommitGroup() {
  NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
}

void KernelBuilder::bulkWaitGroupRead(int64_t pending) {
  NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, static_cast<uint32_t>(pending),
                                       b.getUnitAttr());
}

Block *KernelBuilder::block(StringRef name) {
  if (auto it = placed.find(name); it != placed.end())
    return it->second;
  std::unique_ptr<Block> &slot = pending[name];
  if (!slot)
    slot = std::make_unique<Block>();
  return slot.get();
}

ValueRange KernelBuilder::place(StringRef name, TypeRange argTypes) {
  Block *blk = block(name);
  auto it = pending.find(name);
  assert(it != pending.end() && "block placed twice");
  func.getBody().push_back(it->second.release());
  pending.erase(it);
  placed[name] = blk;
  for (Type type : argTypes)
    blk->addArgument(type, loc);
  b.setInsertionPointToEnd(blk);
  return blk->getArguments();
}

void KernelBuilder::br(StringRef dest, ValueRange branchArgs) {
  LLVM::BrOp::create(b, loc, branchArgs, block(dest));
}

void KernelBuilder::condBr(Value condition, StringRef trueDest,
                           StringRef falseDest) {
  condBr(condition, trueDest, {}, falseDest, {});
}

void KernelBuilder::condBr(Value condition, StringRef trueDest,
                           ValueRange trueArgs, StringRef falseDest,
                           ValueRange falseArgs) {
  LLVM::CondBrOp::create(b, loc, condition, block(trueDest), trueArgs,
                         block(falseDest), falseArgs);
}

void KernelBuilder::ret() { LLVM::ReturnOp::create(b, loc, ValueRange()); }
