//===- fattn-opt.cpp - mlir-opt with the fattn dialect and passes ---------===//

#include "fattn/Dialect/FAttn/IR/FAttnDialect.h"
#include "fattn/Dialect/FAttn/Transforms/BufferizableOpInterfaceImpl.h"
#include "fattn/Dialect/FAttn/Transforms/Passes.h"
#include "fattn/Pipelines/Pipelines.h"
#include "fattn/Conversion/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/SM80/Passes.h"
#include "fattn/Pipelines/SM80Pipeline.h"
#include "fattn/Conversion/FAttnToNVVM/SM90/Passes.h"
#include "fattn/Conversion/FAttnToNVVM/SM90/SM90Lowering.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h"
#include "fattn/Pipelines/SM90Pipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::fattn::registerFAttnPasses();
  mlir::fattn::registerFAttnPipelines();
  mlir::fattn::registerFAttnSM80Passes();
  mlir::fattn::registerFAttnConversionPasses();
  mlir::fattn::registerFAttnSM80Pipeline();
  mlir::fattn::registerFAttnSM90Passes();
  mlir::fattn::registerFAttnSM90ConversionPasses();
  mlir::fattn::registerSM90Pipeline();
  mlir::fattn::registerSM90AttentionKernelBuilder();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::fattn::FAttnDialect>();
  mlir::fattn::registerBufferizableOpInterfaceExternalModels(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "fattn optimizer driver\n", registry));
}
