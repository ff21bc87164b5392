//===- KVTileRangeBuilder.cpp - emit the KV tile range as arith IR --------===//

#include "fattn/Dialect/FAttn/Utils/KVTileRangeBuilder.h"
#include "fattn/Dialect/FAttn/Utils/QTileRange.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::fattn;

namespace {
/// The `Ops` of computeKVTileRange on `index` SSA values.
struct IndexArithOps {
  using Int = Value;
  using Bool = Value;
  OpBuilder &b;
  Location loc;

  Int cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Int add(Int x, Int y) { return arith::AddIOp::create(b, loc, x, y); }
  Int sub(Int x, Int y) { return arith::SubIOp::create(b, loc, x, y); }
  Int mul(Int x, Int y) { return arith::MulIOp::create(b, loc, x, y); }
  Int min(Int x, Int y) { return arith::MinSIOp::create(b, loc, x, y); }
  Int max(Int x, Int y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Int floorDiv(Int x, int64_t d) {
    return arith::FloorDivSIOp::create(b, loc, x, cst(d));
  }
  Int ceilDiv(Int x, int64_t d) {
    return arith::CeilDivSIOp::create(b, loc, x, cst(d));
  }
  Bool lt(Int x, Int y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
  }
  Int select(Bool c, Int x, Int y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
};
} // namespace

KVTileRange<Value>
mlir::fattn::buildKVTileRange(OpBuilder &builder, Location loc, Value qTile,
                              Value seqQ, Value seqK,
                              const KVTileRangeParams &params) {
  IndexArithOps ops{builder, loc};
  return computeKVTileRange(ops, qTile, seqQ, seqK, params);
}

KVTileRange<Value>
mlir::fattn::buildQTileRange(OpBuilder &builder, Location loc, Value kvTile,
                             Value seqQ, Value seqK,
                             const KVTileRangeParams &params) {
  IndexArithOps ops{builder, loc};
  return computeQTileRange(ops, kvTile, seqQ, seqK, params);
}

Value mlir::fattn::buildKeyVisible(OpBuilder &b, Location loc, Value row,
                                   Value key, Value offset, Value seqK,
                                   int64_t windowLeft, int64_t windowRight) {
  auto cmp = [&](arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, pred, x, y);
  };
  Value visible = cmp(arith::CmpIPredicate::slt, key, seqK);
  Value diag = arith::AddIOp::create(b, loc, row, offset);
  if (windowLeft >= 0) {
    Value first = arith::SubIOp::create(
        b, loc, diag, arith::ConstantIndexOp::create(b, loc, windowLeft));
    visible = arith::AndIOp::create(b, loc, visible,
                                    cmp(arith::CmpIPredicate::sge, key, first));
  }
  if (windowRight >= 0) {
    Value last = arith::AddIOp::create(
        b, loc, diag, arith::ConstantIndexOp::create(b, loc, windowRight));
    visible = arith::AndIOp::create(b, loc, visible,
                                    cmp(arith::CmpIPredicate::sle, key, last));
  }
  return visible;
}
