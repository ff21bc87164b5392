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

} // namespace mlir::fattn

#endif // FATTN_DIALECT_FATTN_UTILS_KVTILERANGEBUILDER_H
