//===- Passes.h - fattn conversion passes -----------------------*- C++ -*-===//

#ifndef FATTN_CONVERSION_PASSES_H
#define FATTN_CONVERSION_PASSES_H

#include "fattn/Conversion/FAttnToNVVM/FAttnToNVVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fattn {

#define GEN_PASS_DECL
#include "fattn/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fattn/Conversion/Passes.h.inc"

} // namespace mlir::fattn

#endif // FATTN_CONVERSION_PASSES_H
