//===- RaiseAttention.cpp - attention from linalg to fattn.attention ------===//
//
// Recognizes O = softmax(scale * Q K^T + mask) V written as linalg ops on
// tensors, reading backwards from the P V contraction, and replaces it with
// fattn.attention in the tensor form. Every step proves that the op it reads
// computes what fattn.attention computes; the first that cannot leaves the
// IR as it is.
//
//===----------------------------------------------------------------------===//

#include "fattn/Dialect/FAttn/Transforms/Passes.h"
#include "fattn/Dialect/FAttn/Transforms/Transforms.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#define DEBUG_TYPE "fattn-raise-attention"

namespace mlir::fattn {
#define GEN_PASS_DEF_FATTNRAISEATTENTION
#include "fattn/Dialect/FAttn/Transforms/Passes.h.inc"
} // namespace mlir::fattn

using namespace mlir;
using namespace mlir::fattn;

// The matchers and the rewrite are in Raising/ (fattn::raiseAttention).
namespace {
struct FAttnRaiseAttentionPass
    : public fattn::impl::FAttnRaiseAttentionBase<FAttnRaiseAttentionPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && op->getNumResults() == 1)
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : candidates)
      (void)raiseAttention(rewriter, op);
  }
};
} // namespace
