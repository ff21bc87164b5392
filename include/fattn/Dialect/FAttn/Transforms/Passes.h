//===- Passes.h - fattn target-independent passes ---------------*- C++ -*-===//

#ifndef FATTN_DIALECT_FATTN_TRANSFORMS_PASSES_H
#define FATTN_DIALECT_FATTN_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fattn {

#define GEN_PASS_DECL
#include "fattn/Dialect/FAttn/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fattn/Dialect/FAttn/Transforms/Passes.h.inc"

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_TRANSFORMS_PASSES_H
