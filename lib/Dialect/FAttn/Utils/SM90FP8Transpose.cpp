//===- SM90FP8Transpose.cpp - lane maps of the FP8 V transpose ------------===//

#include "fattn/Dialect/FAttn/Utils/SM90FP8Transpose.h"

using namespace mlir::fattn::sm90;

// PTX ISA, ldmatrix / stmatrix m8n8 .b16: lanes 8i .. 8i + 7 address the 8
// rows of matrix i; register i of lane t holds row t / 4, b16 columns
// 2 (t % 4) and 2 (t % 4) + 1 (with .trans: rows 2 (t % 4) and 2 (t % 4) + 1
// of b16 column t / 4, low half first).
//
// After ldmatrix, lane t (r = t / 4, c = t % 4) holds V columns 4c .. 4c + 3
// of one key per matrix. stmatrix.trans writes its low (high) half into V^T
// row 2c (2c + 1) of a matrix at b16 column r, key slots 2r and 2r + 1,
// which wgmma_e4m3_k32 fills with keys 2q, 2q + 1 (r = 2q) or 2q + 8,
// 2q + 9 (r = 2q + 1). So matrix 0's row r and matrix 1's row r are those
// two keys, and one prmt interleaves them for two of the lane's four
// columns.

TransposeLoadRow mlir::fattn::sm90::fp8TransposeLoadRow(int64_t lane) {
  int64_t matrix = lane / 8, row = lane % 8;
  bool second = matrix % 2 == 1;
  // Even rows take the pair (2q, 2q + 1) = (row, row + 1); odd rows the
  // pair (2q + 8, 2q + 9) = (row + 7, row + 8), its second key in matrix
  // 0, so that the 8 keys of each matrix differ mod 8.
  int64_t key = row % 2 == 0 ? row + (second ? 1 : 0) : row + (second ? 7 : 8);
  return {key, matrix / 2};
}

int64_t mlir::fattn::sm90::fp8TransposeStoreRow(int64_t lane) {
  int64_t matrix = lane / 8, row = lane % 8;
  int64_t c = row / 2, half = row % 2;
  // Register 0 (matrix 0) of lane c takes columns 4c, 4c + 1 when c < 2
  // and 4c + 2, 4c + 3 when c >= 2 (register 1 the other two): the 8 rows
  // of each matrix then differ mod 8.
  bool lowColumns = (c < 2) == (matrix % 2 == 0);
  return 16 * (matrix / 2) + 4 * c + (lowColumns ? 0 : 2) + half;
}

uint32_t mlir::fattn::sm90::fp8TransposeSelector(int64_t lane) {
  int64_t r = lane / 4, c = lane % 4;
  // Bytes (first key, second key) of column x, then of column x + 1; the
  // first key sits in matrix 0 (bytes 0-3) for even r, in matrix 1 (bytes
  // 4-7) for odd r.
  uint32_t x = c < 2 ? 0 : 2;
  uint32_t first = r % 2 == 0 ? 0 : 4, second = 4 - first;
  return (first + x) | (second + x) << 4 | (first + x + 1) << 8 |
         (second + x + 1) << 12;
}
