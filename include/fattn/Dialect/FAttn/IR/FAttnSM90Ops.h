//===- FAttnSM90Ops.h - sm_90a target ops (L3) ------------------*- C++ -*-===//
//
// fattn.sm90.*: the target ops (L3) of the sm_90a kernel (FAttnSM90Ops.td).
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_IR_FATTNSM90OPS_H
#define FATTN_DIALECT_FATTN_IR_FATTNSM90OPS_H

#include "fattn/Dialect/FAttn/IR/FAttnDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fattn/Dialect/FAttn/IR/FAttnSM90Enums.h.inc"

#define GET_OP_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnSM90Ops.h.inc"

#endif // FATTN_DIALECT_FATTN_IR_FATTNSM90OPS_H
