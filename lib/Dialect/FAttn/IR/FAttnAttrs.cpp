//===- FAttnAttrs.cpp - fattn attributes ----------------------------------===//

#include "fattn/Dialect/FAttn/IR/FAttnAttrs.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <tuple>

using namespace mlir;
using namespace mlir::fattn;

#include "fattn/Dialect/FAttn/IR/FAttnEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "fattn/Dialect/FAttn/IR/FAttnAttrs.cpp.inc"

void FAttnDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fattn/Dialect/FAttn/IR/FAttnAttrs.cpp.inc"
      >();
}

LogicalResult
SM90TMAPlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        int64_t stages, int64_t swizzle, int64_t boxCols,
                        SM90OutputStore store) {
  if (stages < 2)
    return emitError() << "expected at least 2 stages, so that the next "
                          "tile's copy overlaps the current tile's math, "
                          "found "
                       << stages;
  if (swizzle != 128)
    return emitError() << "expected swizzle = 128 (the only swizzle the "
                          "sm_90a lowering implements), found "
                       << swizzle;
  if (boxCols != 64 && boxCols != 128)
    return emitError() << "expected box_cols = 64 (16-bit elements) or 128 "
                          "(e4m3): one 128-byte swizzle atom of a row, found "
                       << boxCols;
  return success();
}

std::string mlir::fattn::formatF32Parameter(float value) {
  char buf[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(buf, sizeof(buf), "%.*g", digits, double(value));
    if (std::strtof(buf, nullptr) == value)
      break;
  }
  std::string text = buf;
  // MLIR's float literals need a point before any exponent (`1.0e-40`,
  // not `1e-40`, which is an integer and an identifier).
  if (std::isfinite(value) && text.find('.') == std::string::npos) {
    size_t exponent = text.find('e');
    text.insert(exponent == std::string::npos ? text.size() : exponent, ".0");
  }
  return text;
}

LogicalResult SM90ConsumerPlanAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, SM90ValueMma valueMma,
    SM90RowSums rowSums, SM90Exp2 exp2, APFloat rescaleThresholdValue,
    int64_t narrowTail, SM90KVRanges kvRanges) {
  float rescaleThreshold = rescaleThresholdValue.convertToFloat();
  // The limits that depend on the op (element type, block_n) are the
  // lowering's and the passes' (LoweringChoices.h).
  if (!(rescaleThreshold >= 0.0f) || !std::isfinite(rescaleThreshold))
    return emitError() << "expected rescale_threshold >= 0 (0: off), found "
                       << formatF32Parameter(rescaleThreshold);
  if (narrowTail < 0)
    return emitError() << "expected narrow_tail >= 0 (0: off), found "
                       << narrowTail;
  return success();
}

LogicalResult
SM90WorkPlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         SM90QTileOrder qTileOrder, int64_t qBuffers,
                         SM90WorkTail tail) {
  if (qBuffers != 1 && qBuffers != 2)
    return emitError() << "expected q_buffers = 1 or 2, found " << qBuffers;
  return success();
}

LogicalResult
SM80SmemPlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         int64_t stages, int64_t rowPitch, int64_t qOffset,
                         int64_t kvOffset, int64_t stageBytes, int64_t bytes) {
  if (stages < 2 || stages > 4)
    return emitError() << "expected 2 to 4 stages, found " << stages;
  // cp.async.cg and ldmatrix move 16-byte units. Bounded by 2^32 so that
  // the sums below cannot overflow (an sm_80 CTA has at most 163 KiB).
  constexpr int64_t kLimit = int64_t(1) << 32;
  for (auto [name, value, minimum] :
       {std::tuple{"row_pitch", rowPitch, 16}, std::tuple{"q_offset", qOffset, 0},
        std::tuple{"kv_offset", kvOffset, 0},
        std::tuple{"stage_bytes", stageBytes, 16},
        std::tuple{"bytes", bytes, 16}})
    if (value < minimum || value % 16 != 0 || value > kLimit)
      return emitError() << "expected " << name << " to be a multiple of 16 "
                         << "bytes in [" << minimum << ", 2^32], found "
                         << value;
  if (kvOffset + stages * stageBytes > bytes)
    return emitError() << "expected the ring (kv_offset + stages * "
                          "stage_bytes = "
                       << kvOffset + stages * stageBytes
                       << ") to fit in bytes = " << bytes;
  return success();
}

LogicalResult
SM80MmaPlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        int64_t warps, int64_t rowsPerWarp,
                        SM80QOperand qOperand) {
  if (warps != 4)
    return emitError() << "expected 4 warps (the 128 threads of the copy "
                          "plan), found "
                       << warps;
  if (rowsPerWarp <= 0 || rowsPerWarp % 16 != 0)
    return emitError() << "expected rows_per_warp to be a positive multiple "
                          "of 16 (m16n8k16 fragments), found "
                       << rowsPerWarp;
  return success();
}
