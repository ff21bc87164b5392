//===- QTileRange.h - which Q tiles see a KV tile ---------------*- C++ -*-===//
//
// The backward pass loops over KV tiles outside and Q tiles inside
// (FlashAttention-2, section 3.2), so it needs the converse of
// computeKVTileRange: the Q tiles whose rows see some key of a KV tile. The
// mask is symmetric under exchanging queries and keys: query i sees key j iff
//   j - off - window_right <= i <= j - off + window_left,  off = seq_k - seq_q,
// which is the forward's rule with the roles of (query, key), (seq_q, seq_k),
// (block_m, block_n) and (window_left, window_right) exchanged. The same
// computation therefore gives the range, with the same tiles masked.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_UTILS_QTILERANGE_H
#define FATTN_DIALECT_FATTN_UTILS_QTILERANGE_H

#include "fattn/Dialect/FAttn/Utils/KVTileRange.h"

namespace mlir::fattn {

/// The parameters of computeKVTileRange with queries and keys exchanged.
inline KVTileRangeParams exchangeQueriesAndKeys(const KVTileRangeParams &p) {
  return {p.blockN, p.blockM, p.windowRight, p.windowLeft};
}

/// Q tiles [lo, hi) hold a row that sees some key of KV tile `kvTile`; every
/// row of the tiles in [fullLo, fullHi) sees every key of it (no mask
/// needed). `p` is the forward's parameters (block_m rows per Q tile,
/// block_n per KV tile).
template <typename Ops>
KVTileRange<typename Ops::Int>
computeQTileRange(Ops &ops, typename Ops::Int kvTile, typename Ops::Int seqQ,
                  typename Ops::Int seqK, const KVTileRangeParams &p) {
  return computeKVTileRange(ops, kvTile, seqK, seqQ, exchangeQueriesAndKeys(p));
}

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_UTILS_QTILERANGE_H
