//===- KVTileRangeBuilder.h - emit the KV tile range as arith IR -*- C++ -*-===//

#ifndef FATTN_DIALECT_FATTN_UTILS_KVTILERANGEBUILDER_H
#define FATTN_DIALECT_FATTN_UTILS_KVTILERANGEBUILDER_H

#include "fattn/Dialect/FAttn/Utils/KVTileRange.h"
#include "mlir/IR/Builders.h"

namespace mlir::fattn {

/// Emits computeKVTileRange on `index` values with arith ops.
KVTileRange<Value> buildKVTileRange(OpBuilder &builder, Location loc,
                                    Value qTile, Value seqQ, Value seqK,
                                    const KVTileRangeParams &params);

/// Emits computeQTileRange (QTileRange.h) on `index` values: the Q tiles
/// that see KV tile `kvTile`, for the backward pass.
KVTileRange<Value> buildQTileRange(OpBuilder &builder, Location loc,
                                   Value kvTile, Value seqQ, Value seqK,
                                   const KVTileRangeParams &params);

/// Emits whether query `row` sees key `key` (absolute indices; i1): key <
/// seq_k and, for each bound that is not -1, row + offset - window_left <=
/// key <= row + offset + window_right, where offset = seq_k - seq_q. The
/// mask of the forward tiles and of the backward pass.
Value buildKeyVisible(OpBuilder &builder, Location loc, Value row, Value key,
                      Value offset, Value seqK, int64_t windowLeft,
                      int64_t windowRight);

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_UTILS_KVTILERANGEBUILDER_H
