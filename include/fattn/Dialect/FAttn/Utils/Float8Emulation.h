//===- Float8Emulation.h - f8E4M3FN arithmetic in integer ops ---*- C++ -*-===//
//
// LLVM has no 8-bit float types, so the CPU lowering converts f8E4M3FN
// values to and from f32 with integer and f32 ops. The rounding matches the
// GPU's cvt.rn.satfinite.e4m3x2.f32: to nearest even, values beyond the
// largest finite (448) saturate to it, NaN stays NaN.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_UTILS_FLOAT8EMULATION_H
#define FATTN_DIALECT_FATTN_UTILS_FLOAT8EMULATION_H

#include "mlir/IR/Builders.h"

namespace mlir::fattn {

/// The f32 value of an f8E4M3FN scalar (exact).
Value emitF8E4M3FNToF32(OpBuilder &b, Location loc, Value f8);

/// The f8E4M3FN scalar nearest to an f32 one (RNE, saturating).
Value emitF32ToF8E4M3FN(OpBuilder &b, Location loc, Value f32);

/// The f8E4M3FN zero, built from its bit pattern.
Value emitF8E4M3FNZero(OpBuilder &b, Location loc);

/// Widens a float scalar (f32, f16, bf16 or f8E4M3FN) to f32.
Value emitExtToF32(OpBuilder &b, Location loc, Value v);

/// Narrows an f32 scalar to `type` (f32, f16, bf16 or f8E4M3FN), to nearest.
Value emitTruncFromF32(OpBuilder &b, Location loc, Value v, Type type);

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_UTILS_FLOAT8EMULATION_H
