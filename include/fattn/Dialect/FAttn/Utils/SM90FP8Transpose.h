//===- SM90FP8Transpose.h - lane maps of the FP8 V transpose ----*- C++ -*-===//
//
// The sm_90a FP8 kernel's producer warpgroup transposes each V tile in
// shared memory (e4m3 wgmma reads B only K-major), permuting the keys by
// wgmma_e4m3_k32 on the way. One step of a warp moves 16 keys (one group) x
// 32 head-dim columns of V (two 16-byte units of a 128-byte row) with
//   ldmatrix.x4 (b16)      4 matrices of 8 keys x 16 columns,
//   prmt                   4 byte regroupings in each lane's registers,
//   stmatrix.x4.trans      4 matrices of 8 V^T rows x 16 key slots,
// fewer than half the instructions of 32-bit loads, byte permutes and 16-byte
// stores, and few enough registers for the 24 of a TMA producer warpgroup.
// These functions say which row each lane addresses and which bytes
// its prmt picks; unittests/Dialect/FP8LayoutTest.cpp runs the three
// instructions' PTX semantics on them and checks every byte of V^T.
//
// Both row sets are chosen so that the 8 rows of every matrix fall on 8
// distinct 16-byte units of the 128-byte swizzle (no bank conflicts):
// ldmatrix's rows are keys that differ mod 8, stmatrix's V^T rows columns
// that differ mod 8.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_UTILS_SM90FP8TRANSPOSE_H
#define FATTN_DIALECT_FATTN_UTILS_SM90FP8TRANSPOSE_H

#include <cstdint>

namespace mlir::fattn::sm90 {

/// The V row (key within the 16-key group) and the 16-byte column unit (0 or
/// 1 of the step's two) that `lane` addresses for ldmatrix.x4. Matrices 0
/// and 2 hold, in row r, the key that the b16 column r of a V^T row takes
/// first (keys 2q, 2q + 9 of slot pairs 4q and 4q + 2), matrices 1 and 3
/// the other one (2q + 1, 2q + 8).
struct TransposeLoadRow {
  int64_t key;
  int64_t unit;
};
TransposeLoadRow fp8TransposeLoadRow(int64_t lane);

/// The V^T row (head-dim column within the step's 32) that `lane` addresses
/// for stmatrix.x4.trans.
int64_t fp8TransposeStoreRow(int64_t lane);

/// The prmt selector that builds stmatrix register 0 (2) of `lane` from
/// ldmatrix registers 0, 1 (2, 3); registers 1 and 3 take the selector xor
/// 0x2222 (the lane's other two columns).
uint32_t fp8TransposeSelector(int64_t lane);

} // namespace mlir::fattn::sm90

#endif // FATTN_DIALECT_FATTN_UTILS_SM90FP8TRANSPOSE_H
