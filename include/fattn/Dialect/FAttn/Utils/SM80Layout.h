//===- SM80Layout.h - sm_80 fragment maps and shared-memory plan -*- C++ -*-===//
//
// Pure layout math of the sm_80 kernel, kept free of IR so that a unit test
// (unittests/SM80/SM80LayoutTest.cpp) can check it exhaustively:
//  - which element of a tile each lane holds in the mma.sync m16n8k16
//    fragments (A, B, and the f32 accumulator C);
//  - which row each lane addresses for ldmatrix.x4 (plain for Q and K,
//    .trans for V), so that the loaded registers are exactly the fragments;
//  - the shared-memory plan: Q once, then a ring of `stages` K/V slots, rows
//    of an even number of 16-byte chunks (a spare one past a head dim that is
//    not a multiple of 16, which ldmatrix reads) and one more, so that the 8
//    row addresses of one ldmatrix phase fall on 8 distinct 16-byte bank
//    groups (no bank conflicts, no swizzle).
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_UTILS_SM80LAYOUT_H
#define FATTN_DIALECT_FATTN_UTILS_SM80LAYOUT_H

#include <cstdint>
#include <utility>

namespace mlir::fattn::sm80 {

/// (row, column) of an element inside a fragment tile.
using RowCol = std::pair<int64_t, int64_t>;

/// Accumulator C/D of m16n8k16 (16 x 8, f32, 4 registers per lane).
RowCol mmaAccElement(int64_t lane, int64_t reg);
/// Operand A of m16n8k16 (16 x 16, 4 registers of 2 halves per lane).
RowCol mmaAElement(int64_t lane, int64_t reg, int64_t half);
/// Operand B of m16n8k16 as (k, n) (16 x 8, 2 registers of 2 halves).
RowCol mmaBElement(int64_t lane, int64_t reg, int64_t half);

/// How a 16 x 16 block is read with ldmatrix.x4.
enum class LdMatrixRole {
  /// Q (row-major M x K): the four registers are one A fragment.
  OperandA,
  /// K stored N x K (row per key): registers are B fragments (b0, b1) of
  /// the n-tiles [0, 8) and [8, 16).
  OperandBFromRows,
  /// V stored K x N (row per key), read with .trans: registers are B
  /// fragments (b0, b1) of the n-tiles [0, 8) and [8, 16).
  OperandBTransposed,
};

/// The (row, column) inside the 16 x 16 stored block whose address lane
/// `lane` passes to ldmatrix.x4.
RowCol ldmatrixRowAddress(LdMatrixRole role, int64_t lane);

/// The shared-memory plan of one CTA.
struct SmemPlan {
  int64_t rowPitchBytes = 0; // bytes between consecutive rows of a tile
  int64_t qOffset = 0;       // block_m rows of Q
  int64_t kvOffset = 0;      // start of the ring
  int64_t stageBytes = 0;    // one K tile + one V tile
  int64_t stages = 0;
  int64_t blockN = 0;
  int64_t totalBytes = 0;
  int64_t kOffset(int64_t stage) const { return kvOffset + stage * stageBytes; }
  int64_t vOffset(int64_t stage) const {
    return kOffset(stage) + blockN * rowPitchBytes;
  }
};

SmemPlan planSmem(int64_t headDim, int64_t elemBytes, int64_t blockM,
                  int64_t blockN, int64_t stages);

/// The rows of a tile that `threads` copy at once, one 16-byte chunk each
/// (fattn.sm80.copy_tile): the largest power of two whose rows they cover.
/// A tile's rows must be a multiple of it.
int64_t copyRowsPerStep(int64_t headDim, int64_t elemBytes, int64_t threads);

/// The 16-byte bank group (0..7) that a shared-memory byte address hits.
inline int64_t bankGroup(int64_t byteAddress) { return (byteAddress / 16) % 8; }

} // namespace mlir::fattn::sm80

#endif // FATTN_DIALECT_FATTN_UTILS_SM80LAYOUT_H
