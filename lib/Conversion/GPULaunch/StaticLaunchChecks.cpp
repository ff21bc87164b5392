//===- StaticLaunchChecks.cpp - launch checks that static shapes decide ---===//

#include "StaticLaunchChecks.h"

#include "fattn/Runtime/LaunchPlan.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fattn;
namespace rt = ::fattn::runtime;

/// The static size of `dim` of `type`, or nothing where it is dynamic or
/// `type` has no such dim.
static std::optional<int64_t> staticSize(MemRefType type, int64_t dim) {
  if (!type || dim >= type.getRank() || type.isDynamicDim(dim))
    return std::nullopt;
  return type.getDimSize(dim);
}

/// The static stride of `dim` of `type` in elements, or nothing.
static std::optional<int64_t> staticStride(MemRefType type, int64_t dim) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type || dim >= type.getRank() ||
      failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(strides[dim]))
    return std::nullopt;
  return strides[dim];
}

LogicalResult
mlir::fattn::checkStaticLaunch(const rt::KernelDescription &desc,
                               ArrayRef<MemRefType> types,
                               llvm::function_ref<InFlightDiagnostic()> error) {
  // Sizes below 2^31: the kernels take them, and index by them, in 32 bits.
  for (auto [slot, type] : llvm::enumerate(types)) {
    if (!type)
      continue;
    for (int64_t dim = 0; dim < type.getRank(); ++dim)
      if (std::optional<int64_t> size = staticSize(type, dim);
          size && *size > INT32_MAX)
        return error() << "tensor '" << rt::tensorName(slot) << "' has "
                       << *size << " in dim " << dim
                       << ", the kernels take sizes below 2^31",
               failure();
  }

  MemRefType q = types[rt::kQ], k = types[rt::kK];
  auto sizeOf = [&](rt::SizeName name) -> std::optional<int64_t> {
    switch (name) {
    case rt::SizeName::Batch:
      return staticSize(q, 0);
    case rt::SizeName::HeadsQ:
      return staticSize(q, 1);
    case rt::SizeName::HeadsKV:
      return staticSize(k, 1);
    case rt::SizeName::SeqQ:
      return staticSize(q, 2);
    case rt::SizeName::SeqK:
      return staticSize(k, 2);
    case rt::SizeName::NumSMs:
      return std::nullopt;
    }
    return std::nullopt;
  };
  // A launch without work (batch, heads or queries 0) is skipped.
  bool work = true, surelyWork = true;
  for (rt::SizeName name :
       {rt::SizeName::Batch, rt::SizeName::HeadsQ, rt::SizeName::SeqQ}) {
    std::optional<int64_t> size = sizeOf(name);
    work &= !size || *size != 0;
    surelyWork &= size && *size != 0;
  }
  if (!work)
    return success();
  if (std::optional<int64_t> keys = sizeOf(rt::SizeName::SeqK);
      surelyWork && keys && *keys == 0)
    return error() << "k has no keys but q has queries", failure();

  // The grid, as fattn's runtime computes it, where its sizes are static (a
  // dynamic size counts as 1, which no limit refuses).
  rt::ProblemSizes sizes;
  auto orOne = [&](rt::SizeName name) -> uint64_t {
    return sizeOf(name).value_or(1);
  };
  sizes.batch = orOne(rt::SizeName::Batch);
  sizes.headsQ = orOne(rt::SizeName::HeadsQ);
  sizes.headsKV = orOne(rt::SizeName::HeadsKV);
  sizes.seqQ = orOne(rt::SizeName::SeqQ);
  sizes.seqK = orOne(rt::SizeName::SeqK);
  sizes.numSMs = 1;
  std::array<uint32_t, 3> grid;
  std::string message;
  if (!rt::computeGrid(desc.grid, desc.cluster, sizes, "kernel", grid,
                       message)) {
    StringRef reason(message);
    reason.consume_front("kernel: ");
    return error() << reason, failure();
  }

  for (const rt::ParamSpec &param : desc.params) {
    // A u32 stride (sizes are below 2^31 already).
    if (param.type == rt::ParamType::U32 &&
        param.source == rt::ParamSource::Stride) {
      if (std::optional<int64_t> stride =
              staticStride(types[param.tensor], param.dim);
          stride && *stride > static_cast<int64_t>(UINT32_MAX))
        return error() << "parameter '" << param.name << "' = " << *stride
                       << " does not fit in u32",
               failure();
      continue;
    }
    if (param.source != rt::ParamSource::TensorMap)
      continue;
    // TMA's strides (of every dim but the innermost of the map) in bytes:
    // nonzero and below 2^40; a size-1 dim's is rounded up to 16. (Their
    // alignment is the run-time check of every kernel's strides.)
    const rt::TensorMapSpec &spec = param.tensorMap;
    MemRefType type = types[spec.tensor];
    if (!type)
      continue;
    int64_t elementBytes =
        std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    int64_t rank = static_cast<int64_t>(spec.box.size());
    for (int64_t dim = 0; dim + 1 < rank; ++dim) {
      std::optional<int64_t> size = staticSize(type, dim);
      std::optional<int64_t> stride = staticStride(type, dim);
      if (!stride)
        continue;
      int64_t bytes = 0;
      bool overflow = llvm::MulOverflow(*stride, elementBytes, bytes);
      if (size == 1)
        bytes = std::max<int64_t>(16, llvm::alignTo(bytes, 16));
      else if (!size)
        continue; // 0 might be a size-1 dim's.
      auto diag = [&]() {
        return error() << "tensormap parameter '" << param.name
                       << "' of tensor '" << rt::tensorName(spec.tensor)
                       << "': the stride of dim " << dim << " is ";
      };
      if (bytes == 0)
        return diag() << "0 (a broadcast view); TMA needs a nonzero stride",
               failure();
      if (overflow || bytes >= (int64_t(1) << 40))
        return diag() << *stride << " elements of " << elementBytes
                      << " bytes; TMA takes strides below 2^40 bytes",
               failure();
    }
  }
  return success();
}
