//===- FAttnAttrs.h - fattn attributes --------------------------*- C++ -*-===//
//
// The typed plans of FAttnAttrs.td (#fattn.sm90_tma_plan,
// #fattn.sm80_smem_plan, #fattn.sm80_mma_plan) and their enums.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_IR_FATTNATTRS_H
#define FATTN_DIALECT_FATTN_IR_FATTNATTRS_H

#include "fattn/Dialect/FAttn/IR/FAttnDialect.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "fattn/Dialect/FAttn/IR/FAttnEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnAttrs.h.inc"

#endif // FATTN_DIALECT_FATTN_IR_FATTNATTRS_H
