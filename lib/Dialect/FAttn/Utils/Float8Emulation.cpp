//===- Float8Emulation.cpp - f8E4M3FN arithmetic in integer ops -----------===//

#include "fattn/Dialect/FAttn/Utils/Float8Emulation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

using namespace mlir;
using namespace mlir::fattn;

namespace {
/// Small helpers over i32 values.
struct I32Ops {
  OpBuilder &b;
  Location loc;
  Value cst(int32_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  Value shr(Value x, int32_t n) {
    return arith::ShRUIOp::create(b, loc, x, cst(n));
  }
  Value shl(Value x, int32_t n) {
    return arith::ShLIOp::create(b, loc, x, cst(n));
  }
  Value band(Value x, int32_t m) {
    return arith::AndIOp::create(b, loc, x, cst(m));
  }
  Value bor(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value eq(Value x, int32_t v) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, cst(v));
  }
  Value f32(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
};
} // namespace

Value mlir::fattn::emitF8E4M3FNToF32(OpBuilder &b, Location loc, Value f8) {
  I32Ops i{b, loc};
  Value bits = arith::BitcastOp::create(b, loc, b.getI8Type(), f8);
  Value u = arith::ExtUIOp::create(b, loc, b.getI32Type(), bits);
  Value sign = i.shl(i.band(i.shr(u, 7), 1), 31);
  Value exponent = i.band(i.shr(u, 3), 15);
  Value mantissa = i.band(u, 7);
  // Normal numbers: rebias the exponent (7 -> 127) and widen the mantissa.
  Value normalBits = i.bor(
      sign, i.bor(i.shl(i.add(exponent, i.cst(120)), 23), i.shl(mantissa, 20)));
  Value normal = arith::BitcastOp::create(b, loc, b.getF32Type(), normalBits);
  // Subnormals: mantissa * 2^-9, with the sign.
  Value magnitude = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, b.getF32Type(), mantissa),
      i.f32(1.0f / 512.0f));
  Value negative = i.eq(sign, 0);
  Value subnormal = arith::SelectOp::create(
      b, loc, negative, magnitude, arith::NegFOp::create(b, loc, magnitude));
  Value isNaN =
      arith::AndIOp::create(b, loc, i.eq(exponent, 15), i.eq(mantissa, 7));
  Value finite =
      arith::SelectOp::create(b, loc, i.eq(exponent, 0), subnormal, normal);
  return arith::SelectOp::create(
      b, loc, isNaN, i.f32(std::numeric_limits<float>::quiet_NaN()), finite);
}

Value mlir::fattn::emitF32ToF8E4M3FN(OpBuilder &b, Location loc, Value x) {
  I32Ops i{b, loc};
  Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), x);
  Value sign = i.shl(i.shr(bits, 31), 7);
  Value a = math::AbsFOp::create(b, loc, x);
  Value aBits = arith::BitcastOp::create(b, loc, b.getI32Type(), a);
  // Normal range: round the f32 mantissa to 3 bits, to nearest even; a carry
  // into the exponent is the right result. The code is then
  // (exponent - 120) << 3 | mantissa, i.e. (rounded bits >> 20) - (120 << 3).
  Value rounded =
      i.add(aBits, i.add(i.cst(0x7FFFF), i.band(i.shr(aBits, 20), 1)));
  Value normalCode =
      arith::SubIOp::create(b, loc, i.shr(rounded, 20), i.cst(120 << 3));
  // Subnormal range (|x| < 2^-6): multiples of 2^-9, rounded to nearest even.
  Value steps = math::RoundEvenOp::create(
      b, loc, arith::MulFOp::create(b, loc, a, i.f32(512.0f)));
  Value subnormalCode = arith::FPToUIOp::create(b, loc, b.getI32Type(), steps);
  auto lt = [&](Value v, float bound) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, v,
                                 i.f32(bound));
  };
  Value code = arith::SelectOp::create(b, loc, lt(a, 1.0f / 64.0f),
                                       subnormalCode, normalCode);
  // Saturate to 448 (0x7E); NaN maps to 0x7F.
  code = arith::SelectOp::create(b, loc, lt(a, 448.0f), code, i.cst(0x7E));
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  code = arith::SelectOp::create(b, loc, isNaN, i.cst(0x7F), code);
  Value byte =
      arith::TruncIOp::create(b, loc, b.getI8Type(), i.bor(code, sign));
  return arith::BitcastOp::create(b, loc, b.getType<Float8E4M3FNType>(), byte);
}

Value mlir::fattn::emitF8E4M3FNZero(OpBuilder &b, Location loc) {
  Value zero = arith::ConstantIntOp::create(b, loc, b.getI8Type(), 0);
  return arith::BitcastOp::create(b, loc, b.getType<Float8E4M3FNType>(), zero);
}

Value mlir::fattn::emitExtToF32(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isF32())
    return v;
  if (isa<Float8E4M3FNType>(v.getType()))
    return emitF8E4M3FNToF32(b, loc, v);
  return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
}

Value mlir::fattn::emitTruncFromF32(OpBuilder &b, Location loc, Value v,
                                    Type type) {
  if (type.isF32())
    return v;
  if (isa<Float8E4M3FNType>(type))
    return emitF32ToF8E4M3FN(b, loc, v);
  return arith::TruncFOp::create(b, loc, type, v);
}
