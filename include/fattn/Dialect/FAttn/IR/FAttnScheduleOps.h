//===- FAttnScheduleOps.h - sm_90a schedule ops -----------------*- C++ -*-===//

#ifndef FATTN_DIALECT_FATTN_IR_FATTNSCHEDULEOPS_H
#define FATTN_DIALECT_FATTN_IR_FATTNSCHEDULEOPS_H

#include "fattn/Dialect/FAttn/IR/FAttnDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_TYPEDEF_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnScheduleTypes.h.inc"

#define GET_OP_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnScheduleOps.h.inc"

#endif // FATTN_DIALECT_FATTN_IR_FATTNSCHEDULEOPS_H
