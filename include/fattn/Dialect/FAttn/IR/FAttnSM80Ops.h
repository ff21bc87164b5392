//===- FAttnSM80Ops.h - sm_80 target ops (L3) -------------------*- C++ -*-===//
//
// fattn.sm80.*: the target ops (L3) of the sm_80 kernel (FAttnSM80Ops.td).
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_IR_FATTNSM80OPS_H
#define FATTN_DIALECT_FATTN_IR_FATTNSM80OPS_H

#include "fattn/Dialect/FAttn/IR/FAttnDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnSM80Ops.h.inc"

#endif // FATTN_DIALECT_FATTN_IR_FATTNSM80OPS_H
