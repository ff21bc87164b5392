//===- fattn-opt.cpp - mlir-opt with the fattn dialect and passes ---------===//
//
// Every upstream dialect and pass, plus fattn's registration
// (fattn/InitFAttn.h): the same one the C API and embedding compilers call,
// so that fattn-opt runs what they run.
//
//===----------------------------------------------------------------------===//

#include "fattn/InitFAttn.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::fattn::registerFAttnPassesAndPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::fattn::registerFAttnDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "fattn optimizer driver\n", registry));
}
