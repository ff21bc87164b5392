//===- Passes.h - the backward's GPU conversion -----------------*- C++ -*-===//

#ifndef FATTN_CONVERSION_FATTNGRADTONVVM_PASSES_H
#define FATTN_CONVERSION_FATTNGRADTONVVM_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fattn {

#define GEN_PASS_DECL
#include "fattn/Conversion/FAttnGradToNVVM/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fattn/Conversion/FAttnGradToNVVM/Passes.h.inc"

} // namespace mlir::fattn

#endif // FATTN_CONVERSION_FATTNGRADTONVVM_PASSES_H
