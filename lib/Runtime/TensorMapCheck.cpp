//===- TensorMapCheck.cpp - why cuTensorMapEncodeTiled would refuse a map -===//

#include "fattn/Runtime/TensorMapCheck.h"

namespace fattn::runtime {

namespace {
std::string list(const uint64_t *values, uint32_t n) {
  std::string text = "[";
  for (uint32_t i = 0; i < n; ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}
std::string list(const uint32_t *values, uint32_t n) {
  std::string text = "[";
  for (uint32_t i = 0; i < n; ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}
} // namespace

std::string describeTiledTensorMap(const TiledTensorMapArgs &a) {
  if (!a.dims || !a.box || (a.rank > 1 && !a.stridesBytes))
    return "rank " + std::to_string(a.rank);
  return "dims " + list(a.dims, a.rank) + ", strides " +
         list(a.stridesBytes, a.rank ? a.rank - 1 : 0) + " bytes, box " + list(a.box, a.rank) +
         " (innermost first)";
}

std::string tiledTensorMapProblem(const TiledTensorMapArgs &a) {
  if (a.rank < 1 || a.rank > 5)
    return "rank " + std::to_string(a.rank) + "; it must be 1 to 5";
  if (!a.dims || !a.box || !a.elementStrides || (a.rank > 1 && !a.stridesBytes))
    return "a null dims, strides, box or element strides array";
  if (a.address % 16 != 0)
    return "the address " + std::to_string(a.address) + " is not 16-byte aligned";
  for (uint32_t i = 0; i < a.rank; ++i) {
    std::string dim = "dim " + std::to_string(i);
    if (a.dims[i] == 0 || a.dims[i] > (uint64_t(1) << 32))
      return dim + "'s size is " + std::to_string(a.dims[i]) + "; it must be 1 to 2^32";
    if (a.box[i] == 0 || a.box[i] > 256)
      return dim + "'s box is " + std::to_string(a.box[i]) + "; it must be 1 to 256";
    if (a.elementStrides[i] == 0 || a.elementStrides[i] > 8)
      return dim + "'s element stride is " + std::to_string(a.elementStrides[i]) +
             "; it must be 1 to 8";
    if (i > 0) {
      uint64_t stride = a.stridesBytes[i - 1];
      if (stride % 16 != 0 || stride >= (uint64_t(1) << 40))
        return dim + "'s stride is " + std::to_string(stride) +
               " bytes; it must be a multiple of 16 below 2^40";
    }
  }
  uint64_t innerBytes = uint64_t(a.box[0]) * a.elementBytes;
  if (innerBytes % 16 != 0)
    return "the innermost box spans " + std::to_string(innerBytes) +
           " bytes; it must span a multiple of 16";
  if (a.swizzleBytes && innerBytes > a.swizzleBytes)
    return "the innermost box spans " + std::to_string(innerBytes) +
           " bytes, more than the " + std::to_string(a.swizzleBytes) + "-byte swizzle";
  return "";
}

} // namespace fattn::runtime
