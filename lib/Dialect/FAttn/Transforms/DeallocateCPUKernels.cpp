//===- DeallocateCPUKernels.cpp - free the CPU kernels' temporaries -------===//

#include "fattn/Dialect/FAttn/Transforms/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/Transforms.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#define DEBUG_TYPE "fattn-deallocate-cpu-kernels"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNDEALLOCATECPUKERNELS
#include "fattn/Dialect/FAttn/Transforms/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

namespace {
/// The function-local part of upstream's buffer-deallocation-pipeline; the
/// lowering of the resulting bufferization.dealloc ops needs the module (it
/// may insert a helper function) and is left to the caller's pipeline.
void buildKernelDeallocation(OpPassManager &pm) {
  pm.addPass(memref::createExpandReallocPass(
      memref::ExpandReallocPassOptions{/*emitDeallocs=*/false}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
}

struct FAttnDeallocateCPUKernelsPass
    : public fattn::impl::FAttnDeallocateCPUKernelsBase<
          FAttnDeallocateCPUKernelsPass> {
  void runOnOperation() override {
    OpPassManager pm(func::FuncOp::getOperationName());
    buildKernelDeallocation(pm);
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(kCPUKernelAttrName) || func.isExternal())
        continue;
      if (failed(runPipeline(pm, func)))
        return signalPassFailure();
    }
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    FAttnDeallocateCPUKernelsBase::getDependentDialects(registry);
    OpPassManager pm(func::FuncOp::getOperationName());
    buildKernelDeallocation(pm);
    pm.getDependentDialects(registry);
  }
};
} // namespace
