//===- SM80LayoutTest.cpp - exhaustive checks of the sm_80 layout math ----===//
//
// A plain executable (run by test/Unit/sm80-layout.test): simulates
// ldmatrix.x4 and the mma.sync m16n8k16 fragment maps lane by lane, and
// checks the shared-memory plan. Prints "PASS" or the first failure.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Utils/SM80Layout.h"

#include <cstdio>
#include <cstdlib>
#include <set>

using namespace mlir::fattn::sm80;

namespace {
int failures = 0;
void expect(bool ok, const char *what, int64_t lane, int64_t reg) {
  if (!ok && failures++ < 10)
    std::printf("FAIL: %s (lane %lld, reg %lld)\n", what, (long long)lane,
                (long long)reg);
}

/// Element (row, col) of the stored 16x16 block that ldmatrix.x4 (optionally
/// .trans) delivers to half `half` of register `reg` of `lane`, given the row
/// addresses of `role`.
RowCol ldmatrixElement(LdMatrixRole role, bool trans, int64_t lane,
                       int64_t reg, int64_t half) {
  // Matrix `reg` is addressed by lanes 8*reg .. 8*reg+7: its top-left corner.
  RowCol corner = ldmatrixRowAddress(role, 8 * reg);
  for (int64_t r = 1; r < 8; ++r) {
    RowCol next = ldmatrixRowAddress(role, 8 * reg + r);
    expect(next.first == corner.first + r && next.second == corner.second,
           "ldmatrix row addresses of one matrix are consecutive rows", lane,
           reg);
  }
  // Without .trans lane t gets row t/4, columns 2(t%4)+{0,1} of the 8x8
  // matrix; with .trans it gets rows 2(t%4)+{0,1} of column t/4.
  int64_t r = trans ? 2 * (lane % 4) + half : lane / 4;
  int64_t c = trans ? lane / 4 : 2 * (lane % 4) + half;
  return {corner.first + r, corner.second + c};
}
} // namespace

int main() {
  for (int64_t lane = 0; lane < 32; ++lane) {
    for (int64_t reg = 0; reg < 4; ++reg)
      for (int64_t half = 0; half < 2; ++half) {
        // Q (row-major, rows = M) -> A fragment.
        RowCol a = mmaAElement(lane, reg, half);
        expect(ldmatrixElement(LdMatrixRole::OperandA, false, lane, reg, half) ==
                   a,
               "ldmatrix(Q) yields the A fragment", lane, reg);
        // K stored by rows (n, k): register reg is b(reg % 2) of n-tile reg/2.
        RowCol kb = mmaBElement(lane, reg % 2, half); // (k, n)
        RowCol kElem = ldmatrixElement(LdMatrixRole::OperandBFromRows, false,
                                       lane, reg, half); // (n, k) stored
        expect(kElem.first == kb.second + 8 * (reg / 2) &&
                   kElem.second == kb.first,
               "ldmatrix(K) yields B fragments of Kᵀ", lane, reg);
        // V stored by rows (k, n), read with .trans.
        RowCol vElem = ldmatrixElement(LdMatrixRole::OperandBTransposed, true,
                                       lane, reg, half);
        expect(vElem.first == kb.first &&
                   vElem.second == kb.second + 8 * (reg / 2),
               "ldmatrix.trans(V) yields B fragments of V", lane, reg);
        // P reuse: the accumulators of n-tiles 2c (regs 0,1 of A) and 2c+1
        // (regs 2,3) hold exactly the A fragment of k-chunk c.
        int64_t tile = reg / 2;
        int64_t accReg = (reg % 2) * 2 + half;
        RowCol acc = mmaAccElement(lane, accReg);
        expect(acc.first == a.first && acc.second + 8 * tile == a.second,
               "accumulator of Q·Kᵀ is the A fragment of P·V", lane, reg);
        // A k-step of 8 columns (a head dim that is a multiple of 8 but not
        // of 16): the kernel zeros A's registers 2 and 3 and the words 1 and
        // 3 of K's ldmatrix, which must be exactly the columns 8-15.
        expect((a.second >= 8) == (reg >= 2),
               "A's registers 2 and 3 hold the columns 8-15", lane, reg);
        expect((kElem.second >= 8) == (reg % 2 == 1),
               "K's ldmatrix words 1 and 3 hold the columns 8-15", lane, reg);
      }
  }
  // Every element of each fragment is owned exactly once.
  std::set<RowCol> accSeen, aSeen;
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t reg = 0; reg < 4; ++reg) {
      accSeen.insert(mmaAccElement(lane, reg));
      for (int64_t half = 0; half < 2; ++half)
        aSeen.insert(mmaAElement(lane, reg, half));
    }
  expect(accSeen.size() == 128 && aSeen.size() == 256,
         "fragments cover their tiles", 0, 0);

  // Shared memory: 16-byte aligned rows, 8 rows of one ldmatrix phase on 8
  // distinct 16-byte bank groups (conflict-free), for every shipped head dim;
  // rows hold whole 16-column blocks (ldmatrix reads them).
  for (int64_t headDim = 8; headDim <= 256; headDim += 8) {
    SmemPlan plan = planSmem(headDim, 2, 128, 64, 2);
    expect(plan.rowPitchBytes % 16 == 0 && plan.kvOffset % 16 == 0 &&
               plan.stageBytes % 16 == 0,
           "16-byte aligned plan", headDim, 0);
    expect(plan.vOffset(1) + 64 * plan.rowPitchBytes == plan.totalBytes,
           "ring ends at totalBytes", headDim, 0);
    expect(plan.rowPitchBytes >= (headDim + 15) / 16 * 32,
           "rows hold whole 16-column blocks", headDim, 0);
    for (int64_t col = 0; col < headDim * 2; col += 16) {
      std::set<int64_t> groups;
      for (int64_t row = 0; row < 8; ++row)
        groups.insert(bankGroup(row * plan.rowPitchBytes + col));
      expect(groups.size() == 8, "conflict-free ldmatrix phase", headDim, col);
    }
  }
  if (failures) {
    std::printf("%d failures\n", failures);
    return EXIT_FAILURE;
  }
  std::printf("PASS\n");
  return EXIT_SUCCESS;
}
