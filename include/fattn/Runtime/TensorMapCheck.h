//===- TensorMapCheck.h - why cuTensorMapEncodeTiled would refuse a map ---===//
//
// The driver answers a bad tensor map with CUDA_ERROR_INVALID_VALUE alone.
// This names the rule that the arguments break (the limits documented for
// cuTensorMapEncodeTiled), so that a launcher can say what is wrong. No
// CUDA needed: unit-tested anywhere.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_RUNTIME_TENSORMAPCHECK_H
#define FATTN_RUNTIME_TENSORMAPCHECK_H

#include <cstdint>
#include <string>

namespace fattn::runtime {

/// cuTensorMapEncodeTiled's arguments, innermost dim first, with the data
/// type's size in bytes and the swizzle as its span in bytes (0: none).
struct TiledTensorMapArgs {
  uint32_t rank = 0;
  uint64_t address = 0;
  const uint64_t *dims = nullptr;
  const uint64_t *stridesBytes = nullptr; // rank - 1 entries, dims 1..rank-1
  const uint32_t *box = nullptr;
  const uint32_t *elementStrides = nullptr;
  uint32_t elementBytes = 1;
  uint32_t swizzleBytes = 0;
};

/// Empty when the arguments keep to the driver's limits; otherwise the first
/// rule they break, e.g. "dim 1's stride is 100 bytes; it must be a multiple
/// of 16 below 2^40".
std::string tiledTensorMapProblem(const TiledTensorMapArgs &args);

/// "dims [128, 1000, 8, 2], strides [256, 256000, 2048000] bytes, box [64,
/// 128, 1, 1]" (innermost first), for messages.
std::string describeTiledTensorMap(const TiledTensorMapArgs &args);

} // namespace fattn::runtime

#endif // FATTN_RUNTIME_TENSORMAPCHECK_H
