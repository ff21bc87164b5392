//===- MaskBruteForce.h - the mask rule, one query and key at a time ------===//
//
// The definition that the tile range tests check the range math against:
// query i sees key j iff both exist and
//   i + off - window_left <= j <= i + off + window_right,   off = seq_k - seq_q,
// with -1 meaning unbounded.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_UNITTESTS_DIALECT_MASKBRUTEFORCE_H
#define FATTN_UNITTESTS_DIALECT_MASKBRUTEFORCE_H

#include "fattn/Dialect/FAttn/Utils/KVTileRange.h"

#include <cstdint>
#include <utility>

namespace mlir::fattn {

inline bool seesKey(int64_t i, int64_t j, int64_t seqQ, int64_t seqK,
                    int64_t windowLeft, int64_t windowRight) {
  int64_t diag = i + seqK - seqQ;
  if (i < 0 || i >= seqQ || j < 0 || j >= seqK)
    return false;
  if (windowLeft >= 0 && j < diag - windowLeft)
    return false;
  if (windowRight >= 0 && j > diag + windowRight)
    return false;
  return true;
}

/// Calls check(seqQ, seqK, params) over the sequence lengths, tile sizes
/// and windows that the range tests sweep.
template <typename Check> void forEachMaskCase(Check check) {
  for (int64_t seqQ : {1, 5, 16, 33, 64, 100})
    for (int64_t seqK : {1, 7, 16, 40, 64, 129})
      for (auto [bm, bn] :
           {std::pair<int64_t, int64_t>{16, 16}, {16, 8}, {8, 32}, {64, 64}})
        for (int64_t wl : {-1, 0, 3, 17, 64})
          for (int64_t wr : {-1, 0, 2, 31})
            check(seqQ, seqK, KVTileRangeParams{bm, bn, wl, wr});
}

} // namespace mlir::fattn

#endif // FATTN_UNITTESTS_DIALECT_MASKBRUTEFORCE_H
