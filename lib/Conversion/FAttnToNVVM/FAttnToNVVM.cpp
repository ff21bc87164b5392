//===- FAttnToNVVM.cpp - tiled attention functions -> NVVM kernels --------===//
//
// The target-independent half of --convert-fattn-to-nvvm: finds the attention
// functions, creates the gpu.module with the chip's #nvvm.target, and hands
// each tiled op to the chip's kernel builder (registry below; sm_80 built in,
// sm_90a registered from lib/Conversion/FAttnToNVVM/SM90/).
//
//===----------------------------------------------------------------------===//

#include "fattn/Conversion/FAttnToNVVM/FAttnToNVVM.h"
#include "fattn/Conversion/FAttnToNVVM/SM80/TargetToNVVM.h"
#include "fattn/Conversion/Passes.h"
#include "fattn/Conversion/UnloweredOps.h"
#include "fattn/Dialect/FAttn/IR/FAttnTiledGradOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/StringMap.h"

#define DEBUG_TYPE "convert-fattn-to-nvvm"

namespace mlir::fattn {
#define GEN_PASS_DEF_CONVERTFATTNTONVVM
#include "fattn/Conversion/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

namespace {
llvm::StringMap<AttentionKernelBuilder> &builderRegistry() {
  static llvm::StringMap<AttentionKernelBuilder> registry = [] {
    llvm::StringMap<AttentionKernelBuilder> r;
    r["sm_80"] = buildSM80AttentionKernel;
    return r;
  }();
  return registry;
}

/// The single tiled_attention of an attention function, or null.
TiledAttentionOp attentionOf(func::FuncOp func) {
  TiledAttentionOp found;
  int count = 0;
  func.walk([&](TiledAttentionOp op) {
    found = op;
    ++count;
  });
  return count == 1 ? found : TiledAttentionOp();
}
} // namespace

void mlir::fattn::registerAttentionKernelBuilder(
    StringRef chip, AttentionKernelBuilder builder) {
  builderRegistry()[chip] = std::move(builder);
}

const AttentionKernelBuilder *
mlir::fattn::lookupAttentionKernelBuilder(StringRef chip) {
  auto it = builderRegistry().find(chip);
  return it == builderRegistry().end() ? nullptr : &it->second;
}

LogicalResult mlir::fattn::convertFAttnToNVVM(ModuleOp module, StringRef chip,
                                              bool keepTargetOps) {
  SmallVector<std::pair<func::FuncOp, TiledAttentionOp>> work;
  for (auto func : module.getOps<func::FuncOp>())
    if (TiledAttentionOp op = attentionOf(func))
      work.push_back({func, op});
  if (work.empty())
    return success();
  const AttentionKernelBuilder *builder = lookupAttentionKernelBuilder(chip);
  if (!builder)
    return work.front().second.emitOpError("no NVVM kernel builder for chip '")
           << chip << "' (sm_80 is built in; see FAttnToNVVM.h for sm_90a)";

  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());
  auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>("fattn_kernels");
  if (!gpuModule) {
    b.setInsertionPointToEnd(module.getBody());
    auto target = NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/3,
                                            "nvptx64-nvidia-cuda", chip);
    gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), "fattn_kernels",
                                         b.getArrayAttr({target}));
  }
  for (auto [func, op] : work) {
    b.setInsertionPointToEnd(gpuModule.getBody());
    FailureOr<LLVM::LLVMFuncOp> kernel = (*builder)(b, op, func.getSymName());
    if (failed(kernel))
      return failure();
    if (chip == "sm_80" && !keepTargetOps && failed(lowerSM80TargetOps(*kernel)))
      return failure();
    if (SymbolTable::symbolKnownUseEmpty(func, module)) {
      func.erase();
      continue;
    }
    op.erase();
    markConvertedFunction(func, gpuModule, *kernel);
  }
  return success();
}

void mlir::fattn::markConvertedFunction(Operation *func,
                                        gpu::GPUModuleOp module,
                                        LLVM::LLVMFuncOp kernel) {
  func->setAttr(kKernelRefAttrName,
                SymbolRefAttr::get(module.getSymNameAttr(),
                                   {FlatSymbolRefAttr::get(kernel)}));
}

LogicalResult mlir::fattn::checkKernelWindows(TiledAttentionOp op,
                                              StringRef lowering) {
  for (auto [name, bound] : {std::pair{"window_left", op.getWindowLeft()},
                             std::pair{"window_right", op.getWindowRight()}})
    if (static_cast<int64_t>(bound) > kMaxKernelWindow)
      return op.emitOpError()
             << lowering << " needs " << name << " at most "
             << kMaxKernelWindow << " (2^30, the kernels' key indices are "
             << "32-bit), found " << static_cast<int64_t>(bound)
             << "; -1 is an unbounded window";
  return success();
}

namespace {
struct ConvertFAttnToNVVMPass
    : public fattn::impl::ConvertFAttnToNVVMBase<ConvertFAttnToNVVMPass> {
  using ConvertFAttnToNVVMBase::ConvertFAttnToNVVMBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(refuseOpsNotLowered<AttentionOp>(
            module, getArgument(),
            "run --fattn-tile and the target's passes first (--fattn-" +
                StringRef(chip == "sm_80" ? "sm80" : "sm90") +
                "-pipeline runs them all)")) ||
        failed(refuseOpsNotLowered<TiledAttentionGradOp>(
            module, getArgument(),
            "--convert-fattn-grad-to-nvvm-" +
                StringRef(chip == "sm_80" ? "sm80" : "sm90") +
                " lowers it")) ||
        failed(refuseSharedFunctions<TiledAttentionOp>(module, getArgument())))
      return signalPassFailure();
    if (failed(convertFAttnToNVVM(module, chip, keepTargetOps)))
      signalPassFailure();
  }
};
} // namespace
