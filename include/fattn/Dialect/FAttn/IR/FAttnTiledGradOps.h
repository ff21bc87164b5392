//===- FAttnTiledGradOps.h - the tiled backward form ------------*- C++ -*-===//

#ifndef FATTN_DIALECT_FATTN_IR_FATTNTILEDGRADOPS_H
#define FATTN_DIALECT_FATTN_IR_FATTNTILEDGRADOPS_H

#include "fattn/Dialect/FAttn/IR/FAttnDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnTiledGradOps.h.inc"

#endif // FATTN_DIALECT_FATTN_IR_FATTNTILEDGRADOPS_H
