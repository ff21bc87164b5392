//===- Passes.h - fattn sm_90a transforms -----------------------*- C++ -*-===//

#ifndef FATTN_DIALECT_FATTN_TRANSFORMS_SM90_PASSES_H
#define FATTN_DIALECT_FATTN_TRANSFORMS_SM90_PASSES_H

#include "fattn/Dialect/FAttn/IR/FAttnAttrs.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fattn {

#define GEN_PASS_DECL
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fattn/Dialect/FAttn/Transforms/SM90/Passes.h.inc"

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_TRANSFORMS_SM90_PASSES_H
