//===- FAttnAttrs.h - fattn attributes --------------------------*- C++ -*-===//
//
// The typed plans of FAttnAttrs.td (#fattn.sm90_tma_plan,
// #fattn.sm90_consumer_plan, #fattn.sm90_work_plan, #fattn.sm80_smem_plan,
// #fattn.sm80_mma_plan) and their enums.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_IR_FATTNATTRS_H
#define FATTN_DIALECT_FATTN_IR_FATTNATTRS_H

#include "fattn/Dialect/FAttn/IR/FAttnDialect.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include <string>

#include "fattn/Dialect/FAttn/IR/FAttnEnums.h.inc"

namespace mlir::fattn {
/// `value` in the fewest significant digits that read back as the same f32,
/// with a decimal point (`8.0`, `0.8`): how f32 parameters of the plans print.
std::string formatF32Parameter(float value);
} // namespace mlir::fattn

#define GET_ATTRDEF_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnAttrs.h.inc"

#endif // FATTN_DIALECT_FATTN_IR_FATTNATTRS_H
