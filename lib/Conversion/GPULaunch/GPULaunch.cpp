//===- GPULaunch.cpp - --fattn-gpu-launch ---------------------------------===//
//
// Calls of outlined attention functions whose bodies became kernels turn
// into host code that launches them: the kernel's description (the JSON of
// docs/KERNEL-ABI.md that fattn-compile writes and fattn's runtime reads)
// says what each parameter is, how big the grid is and how each tensor map
// is encoded, and this pass computes all of it from the call's memrefs.
//
//===----------------------------------------------------------------------===//

#include "fattn/Conversion/GPULaunch/GPULaunch.h"
#include "fattn/Conversion/FAttnToNVVM/FAttnToNVVM.h"
#include "fattn/Conversion/FAttnToNVVM/KernelDescription.h"
#include "fattn/Conversion/Passes.h"
#include "fattn/Runtime/CuTensorMapABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

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

/// The host entry point that encodes a tensor map (upstream's MLIR CUDA
/// runtime ABI: cuTensorMapEncodeTiled's arguments, the map written to the
/// first).
static constexpr llvm::StringLiteral kEncodeTensorMap =
    "mgpuTensorMapEncodeTiled";

FailureOr<json::Object> mlir::fattn::kernelDescriptionOf(LLVM::LLVMFuncOp kernel) {
  if (auto text = kernel->getAttrOfType<StringAttr>("fattn.kernel_description")) {
    llvm::Expected<json::Value> parsed = json::parse(text.getValue());
    if (!parsed) {
      std::string message = llvm::toString(parsed.takeError());
      return kernel.emitOpError("fattn.kernel_description is not JSON: ")
             << message;
    }
    if (json::Object *object = parsed->getAsObject())
      return std::move(*object);
    return kernel.emitOpError("fattn.kernel_description is not a JSON object");
  }
  if (auto info = kernel->getAttrOfType<DictionaryAttr>(kKernelInfoAttrName))
    return toJSON(describeSM80Kernel(info, kernel.getSymName()));
  return kernel.emitOpError("has no kernel description (neither ")
         << "fattn.kernel_description nor " << kKernelInfoAttrName << ")";
}

namespace {

/// A memref operand taken apart: the address of element 0 and its sizes and
/// strides (index values), and its element size in bytes.
struct TensorView {
  Value address; // i64
  SmallVector<Value> sizes, strides;
  int64_t elementBytes = 1;
};

/// Emits the launch of one kernel; fails with a diagnostic at `loc`.
class LaunchEmitter {
public:
  LaunchEmitter(OpBuilder &b, Location loc, ModuleOp module,
                LLVM::LLVMFuncOp kernel, const json::Object &description)
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
  const TensorView *tensor(StringRef name) {
    auto it = views.find(name);
    return it == views.end() ? nullptr : &it->second;
  }
  FailureOr<Value> size(StringRef name);
  void checkOperands();
  FailureOr<Value> parameter(const json::Object &param, Type kernelType);
  FailureOr<Value> stride(StringRef name);
  FailureOr<Value> tensorMap(const json::Object &param);
  FailureOr<SmallVector<Value, 3>> grid();
  Value stackArray(Type element, ArrayRef<Value> values);

  OpBuilder &b;
  Location loc;
  ModuleOp module;
  LLVM::LLVMFuncOp kernel;
  const json::Object &desc;
  llvm::StringMap<TensorView> views;
};

} // namespace

TensorView LaunchEmitter::view(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  TensorView t;
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

FailureOr<Value> LaunchEmitter::size(StringRef name) {
  const TensorView &q = *tensor("q"), &k = *tensor("k");
  if (name == "batch")
    return q.sizes[0];
  if (name == "heads_q")
    return q.sizes[1];
  if (name == "heads_kv")
    return k.sizes[1];
  if (name == "seq_q")
    return q.sizes[2];
  if (name == "seq_k")
    return k.sizes[2];
  if (name == "num_sms")
    return error() << "it needs the device's multiprocessor count "
                      "(persistent kernels; fattn's runtime launches them)",
           failure();
  return error() << "unknown size '" << name << "'", failure();
}

/// The checks of docs/KERNEL-ABI.md ("Tensor checks before a launch") that
/// the memref types leave to run time, as assertions.
void LaunchEmitter::checkOperands() {
  using P = arith::CmpIPredicate;
  const TensorView &q = *tensor("q"), &k = *tensor("k"), &v = *tensor("v"),
                   &o = *tensor("o");
  bool transposedValue = desc.getString("value_layout").has_value();
  Value batch = q.sizes[0], headsQ = q.sizes[1], seqQ = q.sizes[2];
  Value headsKV = k.sizes[1], seqK = k.sizes[2];
  auto equal = [&](Value a, Value c) { return cmp(P::eq, a, c); };
  check(both(equal(k.sizes[0], batch), equal(v.sizes[0], batch)),
        "q, k and v must have the same batch size");
  check(both(both(equal(o.sizes[0], batch), equal(o.sizes[1], headsQ)),
             equal(o.sizes[2], seqQ)),
        "o must have q's batch, heads and sequence length");
  check(equal(v.sizes[1], headsKV), "v must have k's heads");
  if (!transposedValue)
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
  if (const TensorView *lse = tensor("lse"))
    check(both(both(equal(lse->sizes[0], batch), equal(lse->sizes[1], headsQ)),
               equal(lse->sizes[2], seqQ)),
          "lse must be [batch, heads of q, sequence length of q]");
  // Descale factors: [batch, heads_kv] (rank 2) or [batch, heads,
  // ceildiv(seq, block)] (rank 3; Q's heads and queries for q, K's for k and
  // v), as the description says (KERNEL-ABI.md, "FP8 descale factors").
  if (const json::Object *descales = desc.getObject("descale")) {
    for (auto [name, heads, seq] :
         {std::tuple<StringRef, Value, Value>{"q", headsQ, seqQ},
          {"k", headsKV, seqK},
          {"v", headsKV, seqK}}) {
      const TensorView *t = tensor((name + "_descale").str());
      const json::Object *form = descales->getObject(name);
      if (!t || !form)
        continue;
      int64_t rank = form->getInteger("rank").value_or(0);
      Value ok = cmp(P::eq, zero, zero);
      if (rank >= 2)
        ok = both(equal(t->sizes[0], batch),
                  equal(t->sizes[1], rank == 2 ? headsKV : heads));
      if (rank == 3) {
        Value blocks = arith::CeilDivUIOp::create(
            b, loc, seq, index(form->getInteger("block").value_or(1)));
        ok = both(ok, equal(t->sizes[2], blocks));
      }
      if (rank >= 2)
        check(ok, "tensor '" + name + "_descale' must be " +
                      (rank == 2 ? Twine("[batch, heads of k]")
                                 : "[batch, heads, ceildiv(seq, " +
                                       Twine(form->getInteger("block").value_or(1)) +
                                       ")] of " + (name == "q" ? "q" : "k")));
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
  int64_t align = desc.getInteger("align_bytes").value_or(16);
  Value alignBytes = i64(align);
  for (auto [name, t] : {std::pair<StringRef, const TensorView *>{"q", &q},
                         {"k", &k},
                         {"v", &v},
                         {"o", &o}}) {
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
    check(aligned, "tensor '" + name + "' needs " + Twine(align) +
                       "-byte aligned data and batch, heads and sequence "
                       "strides, and an innermost stride of 1");
  }
}

FailureOr<Value> LaunchEmitter::stride(StringRef name) {
  // <t>_stride_<b|h|s>, lse_stride_<b|h>, <t>_descale_stride_<b|h|blk>.
  auto [tensorName, dimName] = name.rsplit("_stride_");
  bool descale = tensorName.consume_back("_descale");
  std::string tensorKey =
      descale ? (tensorName + "_descale").str() : tensorName.str();
  const TensorView *t = tensor(tensorKey);
  if (!t)
    return error() << "parameter '" << name << "' names no operand of the "
                   << "launch",
           failure();
  int dim = llvm::StringSwitch<int>(dimName)
                .Case("b", 0)
                .Case("h", 1)
                .Cases({"s", "blk"}, 2)
                .Default(-1);
  if (dim < 0)
    return error() << "unknown stride parameter '" << name << "'", failure();
  // A descale tensor fills the strides it does not have with 0 (rank 0: all
  // three; rank 2: the block's).
  if (dim >= static_cast<int>(t->strides.size()))
    return index(0);
  return t->strides[dim];
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

FailureOr<Value> LaunchEmitter::tensorMap(const json::Object &param) {
  StringRef name = param.getString("name").value_or("");
  StringRef tensorName = param.getString("tensor").value_or("");
  const TensorView *t = tensor(tensorName);
  if (!t)
    return error() << "tensor map '" << name << "' of tensor '" << tensorName
                   << "', which the launch does not have",
           failure();
  StringRef elementType = param.getString("element_type").value_or("");
  int32_t dataType = llvm::StringSwitch<int32_t>(elementType)
                         .Case("f16", cu::kDataTypeFloat16)
                         .Case("bf16", cu::kDataTypeBFloat16)
                         .Case("f32", cu::kDataTypeFloat32)
                         // TMA moves fp8 as bytes.
                         .Cases({"e4m3", "e5m2"}, cu::kDataTypeUInt8)
                         .Default(-1);
  int32_t swizzle = llvm::StringSwitch<int32_t>(
                        param.getString("swizzle").value_or("none"))
                        .Case("none", cu::kSwizzleNone)
                        .Case("32B", cu::kSwizzle32B)
                        .Case("64B", cu::kSwizzle64B)
                        .Case("128B", cu::kSwizzle128B)
                        .Default(-1);
  int32_t l2 = llvm::StringSwitch<int32_t>(
                   param.getString("l2_promotion").value_or("256B"))
                   .Case("none", cu::kL2PromotionNone)
                   .Case("64B", cu::kL2Promotion64B)
                   .Case("128B", cu::kL2Promotion128B)
                   .Case("256B", cu::kL2Promotion256B)
                   .Default(-1);
  int32_t oob = llvm::StringSwitch<int32_t>(
                    param.getString("oob_fill").value_or("zero"))
                    .Case("zero", cu::kOobFillNone)
                    .Case("nan", cu::kOobFillNaNRequestZeroFMA)
                    .Default(-1);
  size_t rank = t->sizes.size();
  const json::Array *box = param.getArray("box");
  const json::Array *elementStrides = param.getArray("element_strides");
  if (dataType < 0 || swizzle < 0 || l2 < 0 || oob < 0 || !box ||
      box->size() != rank || (elementStrides && elementStrides->size() != rank))
    return error() << "tensor map '" << name
                   << "' has fields this launch cannot encode",
           failure();

  // cuTensorMapEncodeTiled lists the innermost dim first: the logical order
  // reversed. Strides in bytes, of dims 1..rank-1 in that order; a size-1
  // dim's stride is never used, but must still be a nonzero multiple of 16.
  Type i32Type = b.getI32Type(), i64Type = b.getI64Type();
  SmallVector<Value> dims, strides, boxes, steps;
  Value one = index(1), sixteen = index(16), fifteen = index(15);
  for (size_t i = 0; i < rank; ++i) {
    size_t logical = rank - 1 - i;
    dims.push_back(arith::IndexCastOp::create(b, loc, i64Type,
                                              t->sizes[logical]));
    boxes.push_back(i32((*box)[logical].getAsInteger().value_or(0)));
    steps.push_back(i32(elementStrides
                            ? (*elementStrides)[logical].getAsInteger().value_or(1)
                            : 1));
    if (i == 0)
      continue;
    Value bytes = arith::MulIOp::create(b, loc, t->strides[logical],
                                        index(t->elementBytes));
    Value rounded = arith::MulIOp::create(
        b, loc,
        arith::DivUIOp::create(b, loc,
                               arith::AddIOp::create(b, loc, bytes, fifteen),
                               sixteen),
        sixteen);
    rounded = arith::MaxUIOp::create(b, loc, rounded, sixteen);
    Value unit = cmp(arith::CmpIPredicate::eq, t->sizes[logical], one);
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
  Value address = LLVM::IntToPtrOp::create(b, loc, ptrType, t->address);
  Value stridesArray = strides.empty()
                           ? LLVM::ZeroOp::create(b, loc, ptrType).getResult()
                           : stackArray(i64Type, strides);
  LLVM::CallOp::create(
      b, loc, encodeType, kEncodeTensorMap,
      ValueRange{map, i32(dataType), i32(rank), address,
                 stackArray(i64Type, dims), stridesArray,
                 stackArray(i32Type, boxes), stackArray(i32Type, steps),
                 i32(cu::kInterleaveNone), i32(swizzle), i32(l2), i32(oob)});
  return LLVM::LoadOp::create(b, loc, mapType, map).getResult();
}

FailureOr<Value> LaunchEmitter::parameter(const json::Object &param,
                                          Type kernelType) {
  StringRef name = param.getString("name").value_or("");
  StringRef type = param.getString("type").value_or("");
  if (type == "tensormap")
    return tensorMap(param);
  if (type == "ptr") {
    // In the kernel's address space (sm_80 kernels take global pointers).
    auto pointerType = dyn_cast<LLVM::LLVMPointerType>(kernelType);
    if (!pointerType)
      pointerType = LLVM::LLVMPointerType::get(b.getContext());
    if (const TensorView *t = tensor(name))
      return LLVM::IntToPtrOp::create(b, loc, pointerType, t->address)
          .getResult();
    if (name == "workspace")
      return error() << "it needs a runtime workspace (split-tail kernels; "
                        "fattn's runtime launches them)",
             failure();
    return error() << "pointer parameter '" << name << "' names no operand "
                   << "of the launch",
           failure();
  }
  if (type == "f32") {
    std::optional<double> scale = desc.getNumber("scale");
    std::optional<double> value =
        llvm::StringSwitch<std::optional<double>>(name)
            .Case("scale", scale)
            .Case("scale_log2",
                  scale ? std::optional<double>(*scale * M_LOG2E)
                        : std::nullopt)
            .Case("softcap", desc.getNumber("softcap"))
            .Default(std::nullopt);
    if (!value)
      return error() << "unknown f32 parameter '" << name << "'", failure();
    return arith::ConstantFloatOp::create(b, loc, b.getF32Type(),
                                          APFloat(float(*value)))
        .getResult();
  }
  if (type != "u32" && type != "u64")
    return error() << "parameter '" << name << "' of unknown type '" << type
                   << "'",
           failure();
  if (name == "tail_pairs")
    return error() << "it needs the work order's tail (work-order-tail "
                      "kernels; fattn's runtime launches them)",
           failure();
  FailureOr<Value> value =
      name.contains("_stride_") ? stride(name) : size(name);
  if (failed(value))
    return failure();
  Type integer = type == "u32" ? b.getI32Type() : b.getI64Type();
  return arith::IndexCastOp::create(b, loc, integer, *value).getResult();
}

FailureOr<SmallVector<Value, 3>> LaunchEmitter::grid() {
  const json::Array *entries = desc.getArray("grid");
  if (!entries || entries->empty() || entries->size() > 3)
    return error() << "the description's grid has no 1 to 3 entries",
           failure();
  SmallVector<Value, 3> grid;
  for (const json::Value &entry : *entries) {
    const json::Array *pair = entry.getAsArray();
    std::optional<StringRef> name =
        pair && pair->size() == 2 ? (*pair)[0].getAsString() : std::nullopt;
    std::optional<int64_t> divisor =
        pair && pair->size() == 2 ? (*pair)[1].getAsInteger() : std::nullopt;
    if (!name || !divisor || *divisor < 1)
      return error() << "a grid entry is not [size, divisor]", failure();
    FailureOr<Value> s = size(*name);
    if (failed(s))
      return failure();
    grid.push_back(arith::CeilDivUIOp::create(b, loc, *s, index(*divisor)));
  }
  while (grid.size() < 3)
    grid.push_back(index(1));
  return grid;
}

LogicalResult
LaunchEmitter::emit(ArrayRef<std::pair<StringRef, Value>> tensors) {
  for (auto [name, value] : tensors) {
    if (!isa<MemRefType>(value.getType()))
      return error() << "operand '" << name << "' is not a memref", failure();
    views[name] = view(value);
  }
  for (StringRef required : {"q", "k", "v", "o"})
    if (!tensor(required))
      return error() << "the launch has no operand '" << required << "'",
             failure();
  if (desc.getBoolean("has_lse").value_or(false) != bool(tensor("lse")))
    return error() << (tensor("lse")
                           ? "the call passes an LSE, the kernel writes none"
                           : "the kernel writes an LSE, the call passes none"),
           failure();
  if (const json::Object *descales = desc.getObject("descale"))
    for (StringRef name : {"q", "k", "v"}) {
      const TensorView *t = tensor((name + "_descale").str());
      const json::Object *form = descales->getObject(name);
      int64_t rank = form ? form->getInteger("rank").value_or(-1) : -1;
      if (!t || static_cast<int64_t>(t->sizes.size()) != rank)
        return error() << "the kernel reads " << name << "'s descale factors "
                       << "as a rank-" << rank << " tensor, the call passes "
                       << (t ? "a rank-" + std::to_string(t->sizes.size()) +
                                   " tensor"
                             : std::string("none")),
               failure();
    }
  checkOperands();

  FailureOr<SmallVector<Value, 3>> gridSize = grid();
  if (failed(gridSize))
    return failure();
  std::optional<gpu::KernelDim3> cluster;
  if (const json::Array *dims = desc.getArray("cluster")) {
    SmallVector<Value, 3> c;
    for (const json::Value &d : *dims)
      c.push_back(index(d.getAsInteger().value_or(1)));
    if (c.size() != 3)
      return error() << "the description's cluster is not [x, y, z]",
             failure();
    // Each grid dim rounded up to a multiple of the cluster's.
    for (int i = 0; i < 3; ++i)
      (*gridSize)[i] = arith::MulIOp::create(
          b, loc, arith::CeilDivUIOp::create(b, loc, (*gridSize)[i], c[i]),
          c[i]);
    cluster = gpu::KernelDim3{c[0], c[1], c[2]};
  }

  // No launch without work (batch, heads or queries 0); keys 0 with queries
  // is an error, as in fattn's runtime.
  using P = arith::CmpIPredicate;
  const TensorView &q = *tensor("q");
  Value zero = index(0);
  Value work = both(both(cmp(P::ne, q.sizes[0], zero),
                         cmp(P::ne, q.sizes[1], zero)),
                    cmp(P::ne, q.sizes[2], zero));
  auto ifWork = scf::IfOp::create(b, loc, work, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifWork.thenBlock()->getTerminator());
  check(cmp(P::ne, tensor("k")->sizes[2], zero),
        "k has no keys but q has queries");

  const json::Array *params = desc.getArray("params");
  if (!params)
    return error() << "the description has no params", failure();
  if (params->size() != kernel.getNumArguments())
    return error() << "the description lists " << params->size()
                   << " parameters, the kernel takes "
                   << kernel.getNumArguments(),
           failure();
  SmallVector<Value> operands;
  for (auto [p, kernelType] :
       llvm::zip(*params, kernel.getFunctionType().getParams())) {
    const json::Object *param = p.getAsObject();
    if (!param)
      return error() << "a parameter is not an object", failure();
    FailureOr<Value> value = parameter(*param, kernelType);
    if (failed(value))
      return failure();
    operands.push_back(*value);
  }

  std::optional<int64_t> threads = desc.getInteger("threads");
  std::optional<int64_t> smem = desc.getInteger("dynamic_smem_bytes");
  if (!threads || !smem)
    return error() << "the description has no threads or dynamic_smem_bytes",
           failure();
  auto gpuModule = kernel->getParentOfType<gpu::GPUModuleOp>();
  auto symbol = SymbolRefAttr::get(gpuModule.getSymNameAttr(),
                                   {FlatSymbolRefAttr::get(kernel)});
  Value c1 = index(1);
  gpu::LaunchFuncOp::create(
      b, loc, symbol,
      gpu::KernelDim3{(*gridSize)[0], (*gridSize)[1], (*gridSize)[2]},
      gpu::KernelDim3{index(*threads), c1, c1}, i32(*smem), operands,
      /*asyncObject=*/Value(), cluster);
  return success();
}

LogicalResult mlir::fattn::buildKernelLaunch(
    OpBuilder &builder, Location loc, ModuleOp module, LLVM::LLVMFuncOp kernel,
    const json::Object &description,
    ArrayRef<std::pair<StringRef, Value>> tensors) {
  // Built aside and moved in whole: a launch that fails leaves the IR as it
  // was (but for the entry point's declaration).
  Block scratch;
  Block *block = builder.getInsertionBlock();
  Block::iterator point = builder.getInsertionPoint();
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&scratch);
    if (failed(LaunchEmitter(builder, loc, module, kernel, description)
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
  FailureOr<json::Object> description = kernelDescriptionOf(kernel);
  if (failed(description))
    return failure();

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
                               *description, tensors)))
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
