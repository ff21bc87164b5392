//===- SM80Ops.cpp - sm_80 target ops (L3) --------------------------------===//

#include "fattn/Dialect/FAttn/IR/FAttnSM80Ops.h"

#include "llvm/ADT/bit.h"

using namespace mlir;
using namespace mlir::fattn;

#define GET_OP_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnSM80Ops.cpp.inc"

/// The largest row width, pitch and row count the ops take: their byte
/// offsets are 32-bit.
static constexpr int64_t kMaxBytes = int64_t(1) << 20;

/// Rows of `rowBytes` bytes, `rowPitch` apart, copied by 16-byte chunks.
static LogicalResult verifyRows(Operation *op, int64_t rows, int64_t rowBytes,
                                int64_t rowPitch) {
  if (rowBytes <= 0 || rowBytes % 16 != 0 || rowBytes > kMaxBytes)
    return op->emitOpError() << "expected row_bytes a positive multiple of 16 "
                                "(16-byte chunks) up to "
                             << kMaxBytes << ", found " << rowBytes;
  if (rowPitch < rowBytes || rowPitch % 16 != 0 || rowPitch > kMaxBytes)
    return op->emitOpError()
           << "expected row_pitch a multiple of 16 from row_bytes = "
           << rowBytes << " up to " << kMaxBytes << ", found " << rowPitch;
  if (rows <= 0 || rows > kMaxBytes / rowPitch)
    return op->emitOpError() << "expected rows positive and at most "
                             << kMaxBytes / rowPitch << " (" << kMaxBytes
                             << " bytes of rows " << rowPitch
                             << " bytes apart), found " << rows;
  return success();
}

/// The 16-bit float type of fragments and packed pairs.
static LogicalResult verifyElementType(Operation *op, Type element) {
  if (!element.isBF16() && !element.isF16())
    return op->emitOpError() << "expected element_type bf16 or f16, found "
                              << element;
  return success();
}

int64_t SM80CopyTileOp::getRowsPerStep() {
  return static_cast<int64_t>(llvm::bit_floor(
      static_cast<uint64_t>(getThreads() / getChunksPerRow())));
}

LogicalResult SM80CopyTileOp::verify() {
  if (failed(verifyRows(*this, getRows(), getRowBytes(), getRowPitch())))
    return failure();
  int64_t threads = getThreads();
  if (threads < getChunksPerRow() || threads % 32 != 0 || threads > 1024)
    return emitOpError() << "expected threads a multiple of 32 up to 1024 "
                            "with one for each 16-byte chunk of a row (at "
                            "least "
                         << getChunksPerRow() << "), found " << threads;
  if (getRows() % getRowsPerStep() != 0)
    return emitOpError() << "expected rows a multiple of "
                         << getRowsPerStep() << " (the rows that " << threads
                         << " threads copy in one step), found " << getRows();
  return success();
}

LogicalResult SM80MmaOp::verify() {
  return verifyElementType(*this, getElementType());
}

LogicalResult SM80PackPairOp::verify() {
  return verifyElementType(*this, getElementType());
}

LogicalResult SM80StageRowOp::verify() {
  size_t values = getValues().size();
  if (values == 0 || values % 2 != 0)
    return emitOpError() << "expected a positive, even number of values "
                            "(pairs of adjacent columns), found "
                         << values;
  if (getOffset() < 0 || getOffset() > kMaxBytes)
    return emitOpError() << "expected offset in [0, " << kMaxBytes
                         << "], found " << getOffset();
  return verifyElementType(*this, getElementType());
}

LogicalResult SM80StoreRowsOp::verify() {
  return verifyRows(*this, getRows(), getRowBytes(), getRowPitch());
}
