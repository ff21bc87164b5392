//===- Passes.cpp - C API of the fattn passes -----------------------------===//

#include "fattn-c/Passes.h"

#include "fattn/Conversion/FAttnToNVVM/SM90/Passes.h"
#include "fattn/Conversion/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/SM80/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h"

#include "mlir/CAPI/Pass.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::fattn;

extern "C" {

#include "fattn-c/FAttnConversionPasses.capi.cpp.inc"
#include "fattn-c/FAttnPasses.capi.cpp.inc"
#include "fattn-c/FAttnSM80Passes.capi.cpp.inc"
#include "fattn-c/FAttnSM90ConversionPasses.capi.cpp.inc"
#include "fattn-c/FAttnSM90Passes.capi.cpp.inc"

}
