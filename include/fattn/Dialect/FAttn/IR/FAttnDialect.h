//===- FAttnDialect.h - fattn dialect ---------------------------*- C++ -*-===//

#ifndef FATTN_DIALECT_FATTN_IR_FATTNDIALECT_H
#define FATTN_DIALECT_FATTN_IR_FATTNDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "fattn/Dialect/FAttn/IR/FAttnOpsDialect.h.inc"

#endif // FATTN_DIALECT_FATTN_IR_FATTNDIALECT_H
