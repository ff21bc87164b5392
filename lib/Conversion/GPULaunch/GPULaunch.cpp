//===- GPULaunch.cpp - --fattn-gpu-launch ---------------------------------===//
//
// Calls of outlined attention functions whose bodies became kernels turn
// into host code that launches them: the kernel's description (the JSON of
// docs/KERNEL-ABI.md that fattn-compile writes and fattn's runtime reads)
// says what each parameter is, how big the grid is and how each tensor map
// is encoded, and this pass computes all of it from the call's memrefs.
//
//===----------------------------------------------------------------------===//

#include "StaticLaunchChecks.h"

#include "fattn/Conversion/GPULaunch/GPULaunch.h"
#include "fattn/Conversion/FAttnToNVVM/FAttnToNVVM.h"
#include "fattn/Conversion/FAttnToNVVM/KernelDescription.h"
#include "fattn/Conversion/Passes.h"
#include "fattn/Runtime/CuTensorMapABI.h"
#include "fattn/Runtime/KernelDescription.h"
#include "fattn/Runtime/LaunchPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>

#define DEBUG_TYPE "fattn-gpu-launch"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNGPULAUNCH
#include "fattn/Conversion/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;
namespace json = llvm::json;
namespace cu = ::fattn::cu_abi;
namespace rt = ::fattn::runtime;

/// The host entry point that encodes a tensor map (upstream's MLIR CUDA
/// runtime ABI: cuTensorMapEncodeTiled's arguments, the map written to the
/// first).
static constexpr llvm::StringLiteral kEncodeTensorMap =
    "mgpuTensorMapEncodeTiled";

/// The kernel's description as text: the sm_90a kernel's attribute as it
/// is, the sm_80 kernel's printed from its `fattn.kernel` dictionary.
static FailureOr<std::string> descriptionText(LLVM::LLVMFuncOp kernel) {
  if (auto text = kernel->getAttrOfType<StringAttr>("fattn.kernel_description"))
    return text.getValue().str();
  if (auto info = kernel->getAttrOfType<DictionaryAttr>(kKernelInfoAttrName))
    return llvm::formatv(
               "{0}", json::Value(toJSON(describeSM80Kernel(
                          info, kernel.getSymName()))))
        .str();
  return kernel.emitOpError("has no kernel description (neither ")
         << "fattn.kernel_description nor " << kKernelInfoAttrName << ")";
}

/// The kernel's description, read by fattn's runtime's strict reader (which
/// also reports text that is not a JSON object): the launch is built from
/// exactly what fattn's runtime would launch the kernel with.
static FailureOr<rt::KernelDescription>
kernelDescriptionOf(LLVM::LLVMFuncOp kernel) {
  FailureOr<std::string> text = descriptionText(kernel);
  if (failed(text))
    return failure();
  rt::KernelDescription description;
  std::string error;
  if (!rt::parseKernelDescription(*text, description, error))
    return kernel.emitOpError("has a kernel description that fattn's runtime "
                              "rejects: ")
           << error;
  return description;
}

namespace {

/// A memref operand taken apart: the address of element 0 and its sizes and
/// strides (index values), and its element size in bytes.
struct TensorView {
  MemRefType type;
  Value address; // i64
  SmallVector<Value> sizes, strides;
  int64_t elementBytes = 1;
};

// cuTensorMapEncodeTiled's enum values for the description's fields.
int32_t tensorMapDataType(rt::DType type) {
  switch (type) {
  case rt::DType::F16:
    return cu::kDataTypeFloat16;
  case rt::DType::BF16:
    return cu::kDataTypeBFloat16;
  case rt::DType::F32:
    return cu::kDataTypeFloat32;
  case rt::DType::E4M3:
  case rt::DType::E5M2:
    return cu::kDataTypeUInt8; // TMA moves fp8 as bytes.
  }
  llvm_unreachable("unknown element type");
}

int32_t tensorMapSwizzle(rt::Swizzle swizzle) {
  switch (swizzle) {
  case rt::Swizzle::None:
    return cu::kSwizzleNone;
  case rt::Swizzle::B32:
    return cu::kSwizzle32B;
  case rt::Swizzle::B64:
    return cu::kSwizzle64B;
  case rt::Swizzle::B128:
    return cu::kSwizzle128B;
  }
  llvm_unreachable("unknown swizzle");
}

int32_t tensorMapL2Promotion(rt::L2Promotion promotion) {
  switch (promotion) {
  case rt::L2Promotion::None:
    return cu::kL2PromotionNone;
  case rt::L2Promotion::B64:
    return cu::kL2Promotion64B;
  case rt::L2Promotion::B128:
    return cu::kL2Promotion128B;
  case rt::L2Promotion::B256:
    return cu::kL2Promotion256B;
  }
  llvm_unreachable("unknown L2 promotion");
}

int32_t tensorMapOobFill(rt::OobFill fill) {
  switch (fill) {
  case rt::OobFill::Zero:
    return cu::kOobFillNone;
  case rt::OobFill::NaN:
    return cu::kOobFillNaNRequestZeroFMA;
  }
  llvm_unreachable("unknown out-of-bounds fill");
}

/// Emits the launch of one kernel; fails with a diagnostic at `loc`.
class LaunchEmitter {
public:
  LaunchEmitter(OpBuilder &b, Location loc, ModuleOp module,
                LLVM::LLVMFuncOp kernel,
                const rt::KernelDescription &description)
      : b(b), loc(loc), module(module), kernel(kernel), desc(description) {}

  LogicalResult emit(ArrayRef<std::pair<StringRef, Value>> tensors);

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  }
  Value i64(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  }
  Value cmp(arith::CmpIPredicate p, Value lhs, Value rhs) {
    return arith::CmpIOp::create(b, loc, p, lhs, rhs);
  }
  Value both(Value lhs, Value rhs) {
    return arith::AndIOp::create(b, loc, lhs, rhs);
  }
  void check(Value condition, const Twine &message) {
    cf::AssertOp::create(b, loc, condition,
                         ("fattn launch of @" + kernel.getSymName() + ": " +
                          message)
                             .str());
  }
  InFlightDiagnostic error() {
    return emitError(loc) << "cannot launch @" << kernel.getSymName()
                          << " from the host: ";
  }

  TensorView view(Value memref);
  const TensorView *tensor(int index) const {
    return views[index] ? &*views[index] : nullptr;
  }
  FailureOr<Value> size(rt::SizeName name);
  void checkOperands();
  FailureOr<Value> parameter(const rt::ParamSpec &param, Type kernelType);
  Value stride(const TensorView &t, int dim);
  Value tensorMap(const TensorView &t, const rt::TensorMapSpec &spec);
  FailureOr<SmallVector<Value, 3>> grid();
  Value stackArray(Type element, ArrayRef<Value> values);

  OpBuilder &b;
  Location loc;
  ModuleOp module;
  LLVM::LLVMFuncOp kernel;
  const rt::KernelDescription &desc;
  std::array<std::optional<TensorView>, rt::kNumTensors> views;
  /// The runtime scale and softcap (f32 operands named "scale" and
  /// "softcap"), for a kernel with "runtime_scalars".
  Value scaleOperand, softcapOperand;
};

} // namespace

TensorView LaunchEmitter::view(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  TensorView t;
  t.type = type;
  t.elementBytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  t.sizes.assign(metadata.getSizes().begin(), metadata.getSizes().end());
  t.strides.assign(metadata.getStrides().begin(), metadata.getStrides().end());
  Value aligned = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value offset = arith::MulIOp::create(b, loc, metadata.getOffset(),
                                       index(t.elementBytes));
  Value address = arith::AddIOp::create(b, loc, aligned, offset);
  t.address = arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
  return t;
}

FailureOr<Value> LaunchEmitter::size(rt::SizeName name) {
  const TensorView &q = *tensor(rt::kQ), &k = *tensor(rt::kK);
  switch (name) {
  case rt::SizeName::Batch:
    return q.sizes[0];
  case rt::SizeName::HeadsQ:
    return q.sizes[1];
  case rt::SizeName::HeadsKV:
    return k.sizes[1];
  case rt::SizeName::SeqQ:
    return q.sizes[2];
  case rt::SizeName::SeqK:
    return k.sizes[2];
  case rt::SizeName::NumSMs:
    return error() << "it needs the device's multiprocessor count "
                      "(persistent kernels; fattn's runtime launches them)",
           failure();
  }
  llvm_unreachable("unknown size");
}

/// The checks of docs/KERNEL-ABI.md ("Tensor checks before a launch") that
/// the memref types leave to run time, as assertions.
void LaunchEmitter::checkOperands() {
  using P = arith::CmpIPredicate;
  const TensorView &q = *tensor(rt::kQ), &k = *tensor(rt::kK),
                   &v = *tensor(rt::kV), &o = *tensor(rt::kO);
  Value batch = q.sizes[0], headsQ = q.sizes[1], seqQ = q.sizes[2];
  Value headsKV = k.sizes[1], seqK = k.sizes[2];
  auto equal = [&](Value a, Value c) { return cmp(P::eq, a, c); };
  check(both(equal(k.sizes[0], batch), equal(v.sizes[0], batch)),
        "q, k and v must have the same batch size");
  check(both(both(equal(o.sizes[0], batch), equal(o.sizes[1], headsQ)),
             equal(o.sizes[2], seqQ)),
        "o must have q's batch, heads and sequence length");
  check(equal(v.sizes[1], headsKV), "v must have k's heads");
  if (desc.valueLayout == rt::ValueLayout::Default)
    check(equal(v.sizes[2], seqK), "v must have k's sequence length");
  // heads_q a multiple of heads_kv (no division by a zero heads_kv).
  Value zero = index(0), one = index(1);
  Value noKVHeads = equal(headsKV, zero);
  Value divisor = arith::SelectOp::create(b, loc, noKVHeads, one, headsKV);
  Value remainder = arith::RemUIOp::create(b, loc, headsQ, divisor);
  check(arith::OrIOp::create(
            b, loc, both(noKVHeads, equal(headsQ, zero)),
            both(cmp(P::ne, headsKV, zero), equal(remainder, zero))),
        "q's heads must be a multiple of k's heads");
  if (const TensorView *lse = tensor(rt::kLse))
    check(both(both(equal(lse->sizes[0], batch), equal(lse->sizes[1], headsQ)),
               equal(lse->sizes[2], seqQ)),
          "lse must be [batch, heads of q, sequence length of q]");
  // Descale factors: [batch, heads_kv] (rank 2) or [batch, heads,
  // ceildiv(seq, block)] (rank 3; Q's heads and queries for q, K's for k and
  // v), as the description says (KERNEL-ABI.md, "FP8 descale factors").
  if (desc.hasDescale) {
    for (int i = rt::kQDescale; i <= rt::kVDescale; ++i) {
      const TensorView *t = tensor(i);
      const rt::DescaleSpec &form = desc.descale[i - rt::kQDescale];
      if (!t || form.rank < 2)
        continue;
      bool ofQ = i == rt::kQDescale;
      Value heads = form.rank == 2 || !ofQ ? headsKV : headsQ;
      Value ok = both(equal(t->sizes[0], batch), equal(t->sizes[1], heads));
      if (form.rank == 3)
        ok = both(ok, equal(t->sizes[2],
                            arith::CeilDivUIOp::create(b, loc, ofQ ? seqQ : seqK,
                                                       index(form.block))));
      check(ok, Twine("tensor '") + rt::tensorName(i) + "' must be " +
                    (form.rank == 2 ? Twine("[batch, heads of k]")
                                    : "[batch, heads, ceildiv(seq, " +
                                          Twine(form.block) + ")] of " +
                                          (ofQ ? "q" : "k")));
    }
  }
  // The kernels take sizes as 32-bit parameters.
  Value limit = index(int64_t(1) << 31);
  Value small = cmp(P::ult, batch, limit);
  for (Value s : {headsQ, headsKV, seqQ, seqK})
    small = both(small, cmp(P::ult, s, limit));
  check(small, "batch, heads and sequence lengths must be below 2^31");
  // Data pointers and the batch, heads and sequence strides aligned as the
  // kernel's vector loads and TMA copies need (a size-1 dim's stride is
  // never used).
  int64_t align = desc.alignBytes;
  Value alignBytes = i64(align);
  for (int i : {rt::kQ, rt::kK, rt::kV, rt::kO}) {
    const TensorView *t = tensor(i);
    Value aligned = equal(
        arith::RemUIOp::create(b, loc, t->address, alignBytes).getResult(),
        i64(0));
    for (int dim = 0; dim < 3; ++dim) {
      Value bytes = arith::MulIOp::create(b, loc, t->strides[dim],
                                          index(t->elementBytes));
      Value ok = equal(arith::RemUIOp::create(b, loc, bytes, index(align)),
                       zero);
      aligned = both(aligned, arith::OrIOp::create(
                                  b, loc, equal(t->sizes[dim], one), ok));
    }
    aligned = both(aligned, equal(t->strides[3], one));
    check(aligned, Twine("tensor '") + rt::tensorName(i) + "' needs " +
                       Twine(align) +
                       "-byte aligned data and batch, heads and sequence "
                       "strides, and an innermost stride of 1");
  }
}

Value LaunchEmitter::stride(const TensorView &t, int dim) {
  // A descale tensor fills the strides it does not have with 0 (rank 0: all
  // three; rank 2: the block's).
  if (dim >= static_cast<int>(t.strides.size()))
    return index(0);
  return t.strides[dim];
}

Value LaunchEmitter::stackArray(Type element, ArrayRef<Value> values) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  auto arrayType = LLVM::LLVMArrayType::get(element, values.size());
  Value array = LLVM::AllocaOp::create(b, loc, ptrType, arrayType, i32(1));
  for (auto [i, v] : llvm::enumerate(values)) {
    Value slot = LLVM::GEPOp::create(b, loc, ptrType, arrayType, array,
                                     ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
    LLVM::StoreOp::create(b, loc, v, slot);
  }
  return array;
}

Value LaunchEmitter::tensorMap(const TensorView &t,
                               const rt::TensorMapSpec &spec) {
  // cuTensorMapEncodeTiled lists the innermost dim first: the logical order
  // reversed. Strides in bytes, of dims 1..rank-1 in that order; a size-1
  // dim's stride is never used, but must still be a nonzero multiple of 16.
  // The runtime's reader checked the box's rank against the tensor's.
  size_t rank = spec.box.size();
  Type i32Type = b.getI32Type(), i64Type = b.getI64Type();
  SmallVector<Value> dims, strides, boxes, steps;
  Value one = index(1), sixteen = index(16), fifteen = index(15);
  for (size_t i = 0; i < rank; ++i) {
    size_t logical = rank - 1 - i;
    dims.push_back(arith::IndexCastOp::create(b, loc, i64Type,
                                              t.sizes[logical]));
    boxes.push_back(i32(spec.box[logical]));
    steps.push_back(i32(spec.elementStrides.empty()
                            ? 1
                            : spec.elementStrides[logical]));
    if (i == 0)
      continue;
    Value bytes = arith::MulIOp::create(b, loc, t.strides[logical],
                                        index(t.elementBytes));
    Value rounded = arith::MulIOp::create(
        b, loc,
        arith::DivUIOp::create(b, loc,
                               arith::AddIOp::create(b, loc, bytes, fifteen),
                               sixteen),
        sixteen);
    rounded = arith::MaxUIOp::create(b, loc, rounded, sixteen);
    Value unit = cmp(arith::CmpIPredicate::eq, t.sizes[logical], one);
    Value stride = arith::SelectOp::create(b, loc, unit, rounded, bytes);
    strides.push_back(arith::IndexCastOp::create(b, loc, i64Type, stride));
  }

  MLIRContext *ctx = b.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto mapType = LLVM::LLVMArrayType::get(b.getI8Type(), cu::kTensorMapBytes);
  auto encodeType = LLVM::LLVMFunctionType::get(
      LLVM::LLVMVoidType::get(ctx),
      {ptrType, i32Type, i32Type, ptrType, ptrType, ptrType, ptrType, ptrType,
       i32Type, i32Type, i32Type, i32Type});
  if (!module.lookupSymbol(kEncodeTensorMap)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::LLVMFuncOp::create(b, loc, kEncodeTensorMap, encodeType);
  }
  Value map = LLVM::AllocaOp::create(b, loc, ptrType, mapType, i32(1),
                                     cu::kTensorMapAlign);
  Value address = LLVM::IntToPtrOp::create(b, loc, ptrType, t.address);
  Value stridesArray = strides.empty()
                           ? LLVM::ZeroOp::create(b, loc, ptrType).getResult()
                           : stackArray(i64Type, strides);
  LLVM::CallOp::create(
      b, loc, encodeType, kEncodeTensorMap,
      ValueRange{map, i32(tensorMapDataType(spec.elementType)), i32(rank),
                 address, stackArray(i64Type, dims), stridesArray,
                 stackArray(i32Type, boxes), stackArray(i32Type, steps),
                 i32(cu::kInterleaveNone), i32(tensorMapSwizzle(spec.swizzle)),
                 i32(tensorMapL2Promotion(spec.l2Promotion)),
                 i32(tensorMapOobFill(spec.oobFill))});
  return LLVM::LoadOp::create(b, loc, mapType, map).getResult();
}

FailureOr<Value> LaunchEmitter::parameter(const rt::ParamSpec &param,
                                          Type kernelType) {
  auto operandOf = [&](int index) -> FailureOr<const TensorView *> {
    if (const TensorView *t = tensor(index))
      return t;
    return error() << "parameter '" << param.name << "' names "
                   << rt::tensorName(index)
                   << ", which is no operand of the launch",
           failure();
  };
  switch (param.source) {
  case rt::ParamSource::TensorMap: {
    FailureOr<const TensorView *> t = operandOf(param.tensorMap.tensor);
    if (failed(t))
      return failure();
    return tensorMap(**t, param.tensorMap);
  }
  case rt::ParamSource::Pointer: {
    FailureOr<const TensorView *> t = operandOf(param.tensor);
    if (failed(t))
      return failure();
    // In the kernel's address space (sm_80 kernels take global pointers).
    auto pointerType = dyn_cast<LLVM::LLVMPointerType>(kernelType);
    if (!pointerType)
      pointerType = LLVM::LLVMPointerType::get(b.getContext());
    return LLVM::IntToPtrOp::create(b, loc, pointerType, (*t)->address)
        .getResult();
  }
  case rt::ParamSource::Workspace:
    return error() << "it needs a runtime workspace (split-tail kernels; "
                      "fattn's runtime launches them)",
           failure();
  case rt::ParamSource::TailPairs:
    return error() << "it needs the work order's tail (work-order-tail "
                      "kernels; fattn's runtime launches them)",
           failure();
  case rt::ParamSource::Scalar: {
    // Runtime scalars: the call's operands.
    if (param.scalar == rt::ScalarName::Softcap ? desc.runtimeSoftcap
                                                : desc.runtimeScale) {
      if (param.scalar == rt::ScalarName::Softcap)
        return softcapOperand;
      if (param.scalar == rt::ScalarName::Scale)
        return scaleOperand;
      auto f32 = [&](double v) {
        return arith::ConstantFloatOp::create(b, loc, b.getF32Type(),
                                              APFloat(static_cast<float>(v)));
      };
      Value scaleLog2 =
          arith::MulFOp::create(b, loc, scaleOperand, f32(M_LOG2E));
      if (param.scalar == rt::ScalarName::ScaleLog2)
        return scaleLog2;
      return arith::DivFOp::create(b, loc, f32(desc.rescaleThreshold),
                                   scaleLog2)
          .getResult();
    }
    double value =
        rt::scalarParamValue(desc, param.scalar, desc.scale, desc.softcap);
    return arith::ConstantFloatOp::create(b, loc, b.getF32Type(),
                                          APFloat(float(value)))
        .getResult();
  }
  case rt::ParamSource::Size:
  case rt::ParamSource::Stride: {
    Value value;
    if (param.source == rt::ParamSource::Stride) {
      FailureOr<const TensorView *> t = operandOf(param.tensor);
      if (failed(t))
        return failure();
      value = stride(**t, param.dim);
    } else {
      FailureOr<Value> s = size(param.size);
      if (failed(s))
        return failure();
      value = *s;
    }
    Type integer =
        param.type == rt::ParamType::U32 ? b.getI32Type() : b.getI64Type();
    return arith::IndexCastOp::create(b, loc, integer, value).getResult();
  }
  }
  llvm_unreachable("unknown parameter source");
}

FailureOr<SmallVector<Value, 3>> LaunchEmitter::grid() {
  SmallVector<Value, 3> grid;
  for (const rt::GridDim &dim : desc.grid) {
    FailureOr<Value> s = size(dim.size);
    if (failed(s))
      return failure();
    grid.push_back(arith::CeilDivUIOp::create(b, loc, *s, index(dim.divisor)));
  }
  while (grid.size() < 3)
    grid.push_back(index(1));
  return grid;
}

LogicalResult
LaunchEmitter::emit(ArrayRef<std::pair<StringRef, Value>> tensors) {
  for (auto [name, value] : tensors) {
    if (name == "scale" || name == "softcap") {
      if (!value.getType().isF32())
        return error() << "operand '" << name << "' is not an f32", failure();
      (name == "scale" ? scaleOperand : softcapOperand) = value;
      continue;
    }
    int slot = 0;
    while (slot < rt::kNumTensors && name != rt::tensorName(slot))
      ++slot;
    if (slot == rt::kNumTensors)
      return error() << "operand '" << name << "' is no tensor of the kernel "
                     << "ABI",
             failure();
    if (!isa<MemRefType>(value.getType()))
      return error() << "operand '" << name << "' is not a memref", failure();
    views[slot] = view(value);
  }
  for (auto [runtime, operand, name] :
       {std::tuple{desc.runtimeScale, scaleOperand, "scale"},
        std::tuple{desc.runtimeSoftcap, softcapOperand, "softcap"}})
    if (runtime != bool(operand))
      return error() << (runtime ? "the kernel takes its " : "the call passes a ")
                     << name
                     << (runtime ? " at run time, the call passes none"
                                 : ", the kernel compiled its own in"),
             failure();
  for (int required : {rt::kQ, rt::kK, rt::kV, rt::kO})
    if (!tensor(required))
      return error() << "the launch has no operand '"
                     << rt::tensorName(required) << "'",
             failure();
  if (desc.hasLse != bool(tensor(rt::kLse)))
    return error() << (tensor(rt::kLse)
                           ? "the call passes an LSE, the kernel writes none"
                           : "the kernel writes an LSE, the call passes none"),
           failure();
  if (desc.hasDescale)
    for (int i = rt::kQDescale; i <= rt::kVDescale; ++i) {
      const TensorView *t = tensor(i);
      int64_t rank = desc.descale[i - rt::kQDescale].rank;
      if (!t || static_cast<int64_t>(t->sizes.size()) != rank)
        return error() << "the kernel reads "
                       << StringRef(rt::tensorName(i)).drop_back(
                              strlen("_descale"))
                       << "'s descale factors as a rank-" << rank
                       << " tensor, the call passes "
                       << (t ? "a rank-" + std::to_string(t->sizes.size()) +
                                   " tensor"
                             : std::string("none")),
               failure();
    }
  SmallVector<MemRefType> types;
  for (const std::optional<TensorView> &t : views)
    types.push_back(t ? t->type : MemRefType());
  if (failed(checkStaticLaunch(desc, types, [&] { return error(); })))
    return failure();
  checkOperands();

  FailureOr<SmallVector<Value, 3>> gridSize = grid();
  if (failed(gridSize))
    return failure();
  std::optional<gpu::KernelDim3> cluster;
  if (desc.hasCluster) {
    SmallVector<Value, 3> c;
    for (uint32_t d : desc.cluster)
      c.push_back(index(d));
    // Each grid dim rounded up to a multiple of the cluster's.
    for (int i = 0; i < 3; ++i)
      (*gridSize)[i] = arith::MulIOp::create(
          b, loc, arith::CeilDivUIOp::create(b, loc, (*gridSize)[i], c[i]),
          c[i]);
    cluster = gpu::KernelDim3{c[0], c[1], c[2]};
  }
  // CUDA's limits on the grid, as fattn's runtime checks them (computeGrid).
  for (size_t i = 0; i < desc.grid.size(); ++i)
    check(cmp(arith::CmpIPredicate::ule, (*gridSize)[i],
              index(static_cast<int64_t>(rt::kMaxGrid[i]))),
          Twine("grid dim ") + StringRef("xyz").substr(i, 1) + " = ceildiv(" +
              rt::sizeName(desc.grid[i].size) + ", " +
              Twine(desc.grid[i].divisor) + ") must be at most " +
              Twine(rt::kMaxGrid[i]));

  // No launch without work (batch, heads or queries 0); keys 0 with queries
  // is an error, as in fattn's runtime.
  using P = arith::CmpIPredicate;
  const TensorView &q = *tensor(rt::kQ);
  Value zero = index(0);
  Value work = both(both(cmp(P::ne, q.sizes[0], zero),
                         cmp(P::ne, q.sizes[1], zero)),
                    cmp(P::ne, q.sizes[2], zero));
  auto ifWork = scf::IfOp::create(b, loc, work, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifWork.thenBlock()->getTerminator());
  check(cmp(P::ne, tensor(rt::kK)->sizes[2], zero),
        "k has no keys but q has queries");

  if (desc.params.size() != kernel.getNumArguments())
    return error() << "the description lists " << desc.params.size()
                   << " parameters, the kernel takes "
                   << kernel.getNumArguments(),
           failure();
  SmallVector<Value> operands;
  for (auto [param, kernelType] :
       llvm::zip(desc.params, kernel.getFunctionType().getParams())) {
    FailureOr<Value> value = parameter(param, kernelType);
    if (failed(value))
      return failure();
    operands.push_back(*value);
  }

  auto gpuModule = kernel->getParentOfType<gpu::GPUModuleOp>();
  auto symbol = SymbolRefAttr::get(gpuModule.getSymNameAttr(),
                                   {FlatSymbolRefAttr::get(kernel)});
  Value c1 = index(1);
  gpu::LaunchFuncOp::create(
      b, loc, symbol,
      gpu::KernelDim3{(*gridSize)[0], (*gridSize)[1], (*gridSize)[2]},
      gpu::KernelDim3{index(desc.threads), c1, c1},
      i32(desc.dynamicSmemBytes), operands,
      /*asyncObject=*/Value(), cluster);
  return success();
}

LogicalResult mlir::fattn::buildKernelLaunch(
    OpBuilder &builder, Location loc, ModuleOp module, LLVM::LLVMFuncOp kernel,
    ArrayRef<std::pair<StringRef, Value>> tensors) {
  FailureOr<rt::KernelDescription> description = kernelDescriptionOf(kernel);
  if (failed(description))
    return failure();
  // Built aside and moved in whole: a launch that fails leaves the IR as it
  // was (but for the entry point's declaration).
  Block scratch;
  Block *block = builder.getInsertionBlock();
  Block::iterator point = builder.getInsertionPoint();
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&scratch);
    if (failed(LaunchEmitter(builder, loc, module, kernel, *description)
                   .emit(tensors)))
      return failure();
  }
  block->getOperations().splice(point, scratch.getOperations());
  return success();
}

LogicalResult mlir::fattn::launchOutlinedAttention(RewriterBase &rewriter,
                                                   func::CallOp call) {
  auto names = call->getAttrOfType<ArrayAttr>(kLaunchTensorsAttrName);
  if (!names || names.size() != call.getNumOperands())
    return call.emitOpError("needs ")
           << kLaunchTensorsAttrName << " naming each of its "
           << call.getNumOperands() << " operands";
  auto module = call->getParentOfType<ModuleOp>();
  auto callee = module.lookupSymbol<func::FuncOp>(call.getCalleeAttr());
  auto ref = callee ? callee->getAttrOfType<SymbolRefAttr>(kKernelRefAttrName)
                    : SymbolRefAttr();
  if (!ref)
    return call.emitOpError("calls @")
           << call.getCallee()
           << ", which no GPU conversion turned into a kernel (no "
           << kKernelRefAttrName << ")";
  auto kernel = dyn_cast_or_null<LLVM::LLVMFuncOp>(
      SymbolTable::lookupNearestSymbolFrom(module, ref));
  if (!kernel)
    return call.emitOpError("calls @")
           << call.getCallee() << ", whose kernel " << ref
           << " is not an llvm.func";
  SmallVector<std::pair<StringRef, Value>> tensors;
  for (auto [name, value] : llvm::zip(names, call.getOperands())) {
    auto text = dyn_cast<StringAttr>(name);
    if (!text)
      return call.emitOpError() << kLaunchTensorsAttrName
                                << " must hold strings";
    tensors.push_back({text.getValue(), value});
  }
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(call);
  if (failed(buildKernelLaunch(rewriter, call.getLoc(), module, kernel,
                               tensors)))
    return failure();
  rewriter.eraseOp(call);
  if (SymbolTable::symbolKnownUseEmpty(callee, module))
    rewriter.eraseOp(callee);
  return success();
}

namespace {
struct FAttnGPULaunchPass
    : public mlir::fattn::impl::FAttnGPULaunchBase<FAttnGPULaunchPass> {
  void runOnOperation() override {
    SmallVector<func::CallOp> calls;
    getOperation()->walk([&](func::CallOp call) {
      if (call->hasAttr(kLaunchTensorsAttrName))
        calls.push_back(call);
    });
    IRRewriter rewriter(&getContext());
    for (func::CallOp call : calls)
      if (failed(launchOutlinedAttention(rewriter, call)))
        return signalPassFailure();
  }
};
} // namespace
