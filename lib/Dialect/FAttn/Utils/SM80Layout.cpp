//===- SM80Layout.cpp - sm_80 fragment maps and shared-memory plan --------===//

#include "fattn/Dialect/FAttn/Utils/SM80Layout.h"

using namespace mlir::fattn::sm80;

// PTX ISA, "Matrix Fragments for mma.m16n8k16": lane = 4 * group + thread in
// group; registers hold pairs of consecutive columns.
RowCol mlir::fattn::sm80::mmaAccElement(int64_t lane, int64_t reg) {
  int64_t group = lane / 4, inGroup = lane % 4;
  return {group + (reg >= 2 ? 8 : 0), 2 * inGroup + (reg % 2)};
}

RowCol mlir::fattn::sm80::mmaAElement(int64_t lane, int64_t reg, int64_t half) {
  int64_t group = lane / 4, inGroup = lane % 4;
  return {group + (reg % 2 ? 8 : 0), 2 * inGroup + half + (reg >= 2 ? 8 : 0)};
}

RowCol mlir::fattn::sm80::mmaBElement(int64_t lane, int64_t reg, int64_t half) {
  int64_t group = lane / 4, inGroup = lane % 4;
  return {2 * inGroup + half + (reg ? 8 : 0), group};
}

// ldmatrix.x4: lanes 8i..8i+7 address the rows of matrix i; matrix i fills
// register i of every lane.
RowCol mlir::fattn::sm80::ldmatrixRowAddress(LdMatrixRole role, int64_t lane) {
  int64_t matrix = lane / 8, row = lane % 8;
  switch (role) {
  case LdMatrixRole::OperandA:
    // a0: rows 0-7 k 0-7, a1: rows 8-15 k 0-7, a2: rows 0-7 k 8-15, a3.
    return {row + (matrix % 2) * 8, (matrix / 2) * 8};
  case LdMatrixRole::OperandBFromRows:
    // b0/b1 of n 0-7 (k 0-7, k 8-15), then b0/b1 of n 8-15.
    return {row + (matrix / 2) * 8, (matrix % 2) * 8};
  case LdMatrixRole::OperandBTransposed:
    // Rows are k: b0/b1 of n 0-7 (k 0-7, k 8-15), then of n 8-15.
    return {row + (matrix % 2) * 8, (matrix / 2) * 8};
  }
  return {0, 0};
}

SmemPlan mlir::fattn::sm80::planSmem(int64_t headDim, int64_t elemBytes,
                                     int64_t blockM, int64_t blockN,
                                     int64_t stages) {
  SmemPlan plan;
  // A row takes an even number of 16-byte chunks (ldmatrix reads whole
  // 16-column blocks: past a head dim that is not a multiple of 16, one spare
  // chunk), then one more, so that consecutive rows start an odd number of
  // bank groups apart: the 8 rows of an ldmatrix phase hit 8 distinct ones.
  plan.rowPitchBytes = (headDim * elemBytes + 31) / 32 * 32 + 16;
  plan.qOffset = 0;
  plan.kvOffset = blockM * plan.rowPitchBytes;
  plan.stageBytes = 2 * blockN * plan.rowPitchBytes;
  plan.stages = stages;
  plan.blockN = blockN;
  plan.totalBytes = plan.kvOffset + stages * plan.stageBytes;
  return plan;
}

int64_t mlir::fattn::sm80::copyRowsPerStep(int64_t headDim, int64_t elemBytes,
                                           int64_t threads) {
  int64_t chunksPerRow = headDim * elemBytes / 16;
  int64_t rows = 1;
  while (2 * rows * chunksPerRow <= threads)
    rows *= 2;
  return rows;
}
