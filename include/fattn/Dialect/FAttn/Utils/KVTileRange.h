//===- KVTileRange.h - which KV tiles a Q tile visits -----------*- C++ -*-===//
//
// The mask arithmetic of the FlashAttention-2 loop order, written once over
// an abstract integer type so that the same formula computes on int64_t (unit
// tests, host code) and emits arith IR (every lowering of
// fattn.kv_tile_range).
//
// Masks are aligned bottom-right: query i sees key j iff
//   i + off - window_left <= j <= i + off + window_right,   off = seq_k -
//   seq_q,
// with -1 meaning unbounded, and always 0 <= j < seq_k.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_UTILS_KVTILERANGE_H
#define FATTN_DIALECT_FATTN_UTILS_KVTILERANGE_H

#include <algorithm>
#include <cstdint>

namespace mlir::fattn {

/// Compile-time parameters of a range computation.
struct KVTileRangeParams {
  int64_t blockM;
  int64_t blockN;
  int64_t windowLeft;  // -1 = unbounded
  int64_t windowRight; // -1 = unbounded
};

/// Tiles [lo, hi) are visited; [fullLo, fullHi) need no mask;
/// lo <= fullLo <= fullHi <= hi. When no tile is fully visible,
/// fullLo = fullHi = lo, so the masked tiles are [fullHi, hi).
template <typename Int> struct KVTileRange { Int lo, fullLo, fullHi, hi; };

/// `Ops` provides: Int, Bool, cst(int64_t), add, sub, mul, min, max,
/// floorDiv(Int, int64_t), ceilDiv(Int, int64_t), lt(Int, Int) -> Bool,
/// select(Bool, Int, Int). All arithmetic is signed.
template <typename Ops>
KVTileRange<typename Ops::Int>
computeKVTileRange(Ops &ops, typename Ops::Int qTile, typename Ops::Int seqQ,
                   typename Ops::Int seqK, const KVTileRangeParams &p) {
  using Int = typename Ops::Int;
  Int zero = ops.cst(0);
  Int offset = ops.sub(seqK, seqQ);
  Int lastKey = ops.sub(seqK, ops.cst(1));
  // First and last valid rows of this Q tile.
  Int firstRow = ops.mul(qTile, ops.cst(p.blockM));
  Int lastRow =
      ops.sub(ops.min(ops.add(firstRow, ops.cst(p.blockM)), seqQ), ops.cst(1));

  // Keys that some row sees: [minKey, maxKey].
  auto leftEdge = [&](Int row) {
    return p.windowLeft < 0 ? zero
                            : ops.max(zero, ops.sub(ops.add(row, offset),
                                                    ops.cst(p.windowLeft)));
  };
  auto rightEdge = [&](Int row) {
    return p.windowRight < 0
               ? lastKey
               : ops.min(lastKey,
                         ops.add(ops.add(row, offset), ops.cst(p.windowRight)));
  };
  Int minKey = leftEdge(firstRow), maxKey = rightEdge(lastRow);
  auto empty = ops.lt(maxKey, minKey);
  Int lo = ops.select(empty, zero, ops.floorDiv(minKey, p.blockN));
  Int hi = ops.select(empty, zero,
                      ops.add(ops.floorDiv(maxKey, p.blockN), ops.cst(1)));

  // Keys that every row sees: [minFull, maxFull]; a tile is full when it lies
  // inside.
  Int minFull = leftEdge(lastRow), maxFull = rightEdge(firstRow);
  Int fullLo = ops.max(ops.ceilDiv(minFull, p.blockN), lo);
  Int fullHi =
      ops.min(ops.floorDiv(ops.add(maxFull, ops.cst(1)), p.blockN), hi);
  auto noFull = ops.lt(ops.sub(fullHi, fullLo), ops.cst(1));
  fullLo = ops.select(noFull, lo, fullLo);
  fullHi = ops.select(noFull, lo, fullHi);
  return {lo, fullLo, fullHi, hi};
}

/// The `Ops` of computeKVTileRange on plain integers.
struct Int64Ops {
  using Int = int64_t;
  using Bool = bool;
  Int cst(int64_t v) { return v; }
  Int add(Int a, Int b) { return a + b; }
  Int sub(Int a, Int b) { return a - b; }
  Int mul(Int a, Int b) { return a * b; }
  Int min(Int a, Int b) { return std::min(a, b); }
  Int max(Int a, Int b) { return std::max(a, b); }
  Int floorDiv(Int a, int64_t d) {
    Int q = a / d;
    return (a % d != 0 && (a < 0) != (d < 0)) ? q - 1 : q;
  }
  Int ceilDiv(Int a, int64_t d) { return -floorDiv(-a, d); }
  Bool lt(Int a, Int b) { return a < b; }
  Int select(Bool c, Int a, Int b) { return c ? a : b; }
  // WorkOrder.h's (non-negative values).
  Int div(Int a, Int b) { return a / b; }
  Int rem(Int a, Int b) { return a % b; }
  Bool le(Int a, Int b) { return a <= b; }
  Bool isOdd(Int a) { return (a & 1) != 0; }
  Int opaque(Int a) { return a; }
};

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_UTILS_KVTILERANGE_H
