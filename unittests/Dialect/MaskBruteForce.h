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

#include <cstdint>

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

} // namespace mlir::fattn

#endif // FATTN_UNITTESTS_DIALECT_MASKBRUTEFORCE_H
