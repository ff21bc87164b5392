//===- Passes.h - fattn sm_90a conversion -----------------------*- C++ -*-===//

#ifndef FATTN_CONVERSION_FATTNTONVVM_SM90_PASSES_H
#define FATTN_CONVERSION_FATTNTONVVM_SM90_PASSES_H

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fattn {

#define GEN_PASS_DECL
#include "fattn/Conversion/FAttnToNVVM/SM90/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fattn/Conversion/FAttnToNVVM/SM90/Passes.h.inc"

} // namespace mlir::fattn

#endif // FATTN_CONVERSION_FATTNTONVVM_SM90_PASSES_H
