//===- FAttnGradOps.h - the attention backward pass ------------*- C++ -*-===//

#ifndef FATTN_DIALECT_FATTN_IR_FATTNGRADOPS_H
#define FATTN_DIALECT_FATTN_IR_FATTNGRADOPS_H

#include "fattn/Dialect/FAttn/IR/FAttnDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnGradOps.h.inc"

#endif // FATTN_DIALECT_FATTN_IR_FATTNGRADOPS_H
