//===- ContractionMatchers.cpp - batch matmuls and their operands ---------===//
//
// The contractions of attention (Q K^T and P V, named or as a
// linalg.generic) and the ops frontends put on their operands: transposes of
// the last two dims and the GQA broadcast of K and V.
//
//===----------------------------------------------------------------------===//

#include "AttentionMatchers.h"

namespace mlir::fattn::raising {

FailureOr<BatchContraction> matchBatchContraction(Operation *op) {
  auto linalgOp = dyn_cast_if_present<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics() ||
      linalgOp.getNumDpsInputs() != 2 || linalgOp.getNumDpsInits() != 1 ||
      !linalg::isaContractionOpInterface(linalgOp))
    return failure();
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(linalgOp);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1 || dims->batch.empty() || dims->batch.size() > 2)
    return failure();
  // The accumulator must start at zero: C + A B is not attention.
  OpOperand *init = linalgOp.getDpsInitOperand(0);
  std::optional<double> initValue = getUniformFloat(init->get());
  if (!initValue || *initValue != 0.0)
    return failure();

  MLIRContext *ctx = op->getContext();
  auto dimsMap = [&](ArrayRef<unsigned> order) {
    SmallVector<AffineExpr> exprs;
    for (unsigned d : dims->batch)
      exprs.push_back(getAffineDimExpr(d, ctx));
    for (unsigned d : order)
      exprs.push_back(getAffineDimExpr(d, ctx));
    return AffineMap::get(linalgOp.getNumLoops(), 0, exprs, ctx);
  };
  unsigned m = dims->m[0], n = dims->n[0], k = dims->k[0];
  if (linalgOp.getMatchingIndexingMap(init) != dimsMap({m, n}))
    return failure();
  OpOperand *a = linalgOp.getDpsInputOperand(0);
  OpOperand *b = linalgOp.getDpsInputOperand(1);
  if (linalgOp.getMatchingIndexingMap(a) != dimsMap({m, k}))
    std::swap(a, b);
  if (linalgOp.getMatchingIndexingMap(a) != dimsMap({m, k}))
    return failure();
  AffineMap rhsMap = linalgOp.getMatchingIndexingMap(b);
  if (rhsMap != dimsMap({k, n}) && rhsMap != dimsMap({n, k}))
    return failure();
  return BatchContraction{linalgOp, a->get(), b->get(),
                          rhsMap == dimsMap({n, k})};
}

/// `v`, or the source of a linalg.transpose that swaps its last two dims
/// (flipping `transposed`).
Value throughLastDimsTranspose(Value v, bool &transposed) {
  auto transpose = v.getDefiningOp<linalg::TransposeOp>();
  if (!transpose || !transpose.hasPureTensorSemantics())
    return v;
  ArrayRef<int64_t> perm = transpose.getPermutation();
  int64_t rank = perm.size();
  for (int64_t d = 0; d < rank - 2; ++d)
    if (perm[d] != d)
      return v;
  if (perm[rank - 2] != rank - 1 || perm[rank - 1] != rank - 2)
    return v;
  transposed = !transposed;
  return transpose.getInput();
}

/// The source of a broadcast that inserts one dim just before the last two:
/// the query heads of a GQA/MQA group that share a KV head (linalg.broadcast,
/// or a linalg.generic copying its input along that dim), else null. The
/// group is the innermost batch dim, so in the batch dims flattened query
/// head n reads KV head n / group, as in fattn.attention.
Value throughGroupBroadcast(Value v) {
  int64_t rank = cast<ShapedType>(v.getType()).getRank();
  return rank < 4 ? Value() : throughBroadcastAlong(v, rank - 3);
}

} // namespace mlir::fattn::raising
