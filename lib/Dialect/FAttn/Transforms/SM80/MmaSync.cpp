//===- MmaSync.cpp - assign mma.sync m16n8k16 fragments -------------------===//
//
// The warp decomposition of the sm_80 kernel: each warp owns block_m / warps
// whole query rows (16-row m16n8k16 fragments), so row max and row sum need
// only the 4 lanes that share a row (quad shuffles) and no shared memory.
// Q·Kᵀ takes K from the ring by ldmatrix; its f32 accumulator is, two n-tiles
// at a time, already the A fragment of P·V (converted to 16-bit in
// registers); V is read with ldmatrix.trans. Q stays in registers when that
// costs at most 32 registers per lane, else it is re-read by ldmatrix.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Transforms/SM80/Passes.h"


#define DEBUG_TYPE "fattn-sm80-mma"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNSM80MMA
#include "fattn/Dialect/FAttn/Transforms/SM80/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

LogicalResult mlir::fattn::assignSM80Fragments(TiledAttentionOp op,
                                               int64_t warps) {
  if (!op->hasAttr(kSM80SmemAttr))
    return op.emitOpError("sm_80: run --fattn-sm80-async-copy before "
                          "--fattn-sm80-mma");
  if (warps != 4)
    return op.emitOpError("sm_80: the copy plan assumes 4 warps, found ")
           << warps;
  int64_t blockM = op.getBlockM();
  if (blockM % (16 * warps) != 0)
    return op.emitOpError("sm_80: block_m must be a multiple of 16 * warps = ")
           << 16 * warps << ", found " << blockM;
  int64_t rowsPerWarp = blockM / warps;
  int64_t headDim = cast<MemRefType>(op.getQuery().getType()).getDimSize(3);
  int64_t headDimV = op.getValueHeadDim();
  int64_t blockN = op.getBlockN();
  // Registers per lane: the accumulator (V's head dim) and scores (f32), Q
  // (two 16-bit halves).
  int64_t accRegs = rowsPerWarp * headDimV / 32;
  int64_t scoreRegs = rowsPerWarp * blockN / 32;
  int64_t qRegs = rowsPerWarp * headDim / 64;
  if (accRegs + scoreRegs > 200)
    return op.emitOpError("sm_80: ")
           << rowsPerWarp << " rows per warp with head dim " << headDimV
           << " and block_n " << blockN << " need " << accRegs + scoreRegs
           << " accumulator registers per lane; use a smaller block";
  bool qInRegisters = qRegs <= 32;

  op->setAttr(kSM80MmaAttr,
              SM80MmaPlanAttr::get(op.getContext(), warps, rowsPerWarp,
                                   qInRegisters ? SM80QOperand::Registers
                                                : SM80QOperand::LdMatrix));
  return success();
}

namespace {
struct FAttnSM80MmaPass
    : public fattn::impl::FAttnSM80MmaBase<FAttnSM80MmaPass> {
  using FAttnSM80MmaBase::FAttnSM80MmaBase;
  void runOnOperation() override {
    WalkResult result = getOperation()->walk([&](TiledAttentionOp op) {
      return failed(assignSM80Fragments(op, warps)) ? WalkResult::interrupt()
                                                    : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
