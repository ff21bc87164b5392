//===- WorkOrder.h - the work items of a persistent CTA ---------*- C++ -*-===//
//
// A persistent kernel runs one CTA per SM over the (Q tile, batch, head)
// work items. Which item a CTA takes in each round is written once here,
// over an abstract integer type as KVTileRange.h, so that the same formula
// emits the sm_90a kernel's code and is unit-tested on int64_t (every item
// exactly once, and the balance of causal rounds).
//
// Round r of a grid of G CTAs takes items [r G, (r + 1) G); CTA c takes item
// c of even rounds and G - 1 - c of odd ones (a snake: with items of unequal
// length, a CTA that took a long one takes a short one next). Item w is
// (Q tile rank, pair) with pair = batch * heads + head:
//   - Q tile fastest: w = pair * numQTiles + rank. The CTAs of a round share
//     pairs, and so their K and V in L2.
//   - Q tile slowest, for masked attention (items of unequal length) with
//     few pairs (pairs * ctasPerPair <= G): w = rank * pairs + pair. A round
//     then holds one or a few ranks, of about one length, which a fixed
//     assignment needs to stay balanced; at least ctasPerPair CTAs share each
//     pair's K and V at a time.
// With reverseQTiles, rank 0 is the last Q tile (the longest causal one).
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_UTILS_WORKORDER_H
#define FATTN_DIALECT_FATTN_UTILS_WORKORDER_H

#include <cstdint>

namespace mlir::fattn {

/// Compile-time parameters of the work order.
struct WorkOrderParams {
  /// Items differ in length (causal or windowed attention).
  bool masked;
  bool reverseQTiles;
  /// Masked: the Q tile is slowest when pairs * ctasPerPair <= grid.
  int64_t ctasPerPair;
};

template <typename Int> struct WorkItem { Int qTile, pair; };

/// The item CTA `cta` of a grid of `grid` takes in round `round`.
/// `Ops` provides: Int, Bool, cst(int64_t), add, sub, mul, isOdd(Int) ->
/// Bool, select(Bool, Int, Int). Values are non-negative.
template <typename Ops>
typename Ops::Int workIndex(Ops &ops, typename Ops::Int round,
                            typename Ops::Int grid, typename Ops::Int cta) {
  auto slot = ops.select(ops.isOdd(round),
                         ops.sub(ops.sub(grid, ops.cst(1)), cta), cta);
  return ops.add(ops.mul(round, grid), slot);
}

/// Work item `index` (< numQTiles * pairs). Besides the above, `Ops`
/// provides div, rem and le on non-negative values (Int, Int).
template <typename Ops>
WorkItem<typename Ops::Int>
decodeWorkItem(Ops &ops, typename Ops::Int index, typename Ops::Int numQTiles,
               typename Ops::Int pairs, typename Ops::Int grid,
               const WorkOrderParams &p) {
  auto rank = ops.rem(index, numQTiles);
  auto pair = ops.div(index, numQTiles);
  if (p.masked) {
    auto few = ops.le(ops.mul(pairs, ops.cst(p.ctasPerPair)), grid);
    rank = ops.select(few, ops.div(index, pairs), rank);
    pair = ops.select(few, ops.rem(index, pairs), pair);
  }
  auto qTile = p.reverseQTiles
                   ? ops.sub(ops.sub(numQTiles, ops.cst(1)), rank)
                   : rank;
  return {qTile, pair};
}

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_UTILS_WORKORDER_H
