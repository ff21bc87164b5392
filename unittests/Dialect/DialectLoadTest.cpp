//===- DialectLoadTest.cpp - what loading the fattn dialect loads ---------===//
//
// Loading fattn loads the dialects its own ops need (FAttnDialect.td's
// dependentDialects) and no others: a pass that creates ops of another
// dialect declares it in Passes.td, so that running it alone works.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/IR/FAttnDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

using namespace mlir;

namespace {
TEST(FAttnDialectLoad, LoadsWhatItsOpsNeed) {
  MLIRContext context;
  context.getOrLoadDialect<fattn::FAttnDialect>();
  // The fp8 ops' canonicalizations build arith and tensor ops.
  EXPECT_NE(context.getLoadedDialect<arith::ArithDialect>(), nullptr);
  EXPECT_NE(context.getLoadedDialect<tensor::TensorDialect>(), nullptr);
  // The target ops' operand and result types.
  EXPECT_NE(context.getLoadedDialect<LLVM::LLVMDialect>(), nullptr);
  EXPECT_NE(context.getLoadedDialect<nvgpu::NVGPUDialect>(), nullptr);
}

TEST(FAttnDialectLoad, LeavesThePassesDialectsToThePasses) {
  MLIRContext context;
  context.getOrLoadDialect<fattn::FAttnDialect>();
  EXPECT_EQ(context.getLoadedDialect<memref::MemRefDialect>(), nullptr);
  EXPECT_EQ(context.getLoadedDialect<scf::SCFDialect>(), nullptr);
}
} // namespace
