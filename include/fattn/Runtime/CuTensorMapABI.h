//===- CuTensorMapABI.h - cuTensorMapEncodeTiled's enum values --*- C++ -*-===//
//
// The values of the CUDA driver's tensor-map enums that host code generated
// by --fattn-gpu-launch passes to mgpuTensorMapEncodeTiled (whose arguments
// are cuTensorMapEncodeTiled's). The compiler has no CUDA headers; the
// runtime that implements the entry point checks these against cuda.h.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_RUNTIME_CUTENSORMAPABI_H
#define FATTN_RUNTIME_CUTENSORMAPABI_H

#include <cstdint>

namespace fattn::cu_abi {

// CUtensorMapDataType
inline constexpr int32_t kDataTypeUInt8 = 0;
inline constexpr int32_t kDataTypeFloat16 = 6;
inline constexpr int32_t kDataTypeFloat32 = 7;
inline constexpr int32_t kDataTypeBFloat16 = 9;
// CUtensorMapInterleave
inline constexpr int32_t kInterleaveNone = 0;
// CUtensorMapSwizzle: none, 32B, 64B, 128B
inline constexpr int32_t kSwizzleNone = 0;
inline constexpr int32_t kSwizzle32B = 1;
inline constexpr int32_t kSwizzle64B = 2;
inline constexpr int32_t kSwizzle128B = 3;
// CUtensorMapL2promotion: none, 64B, 128B, 256B
inline constexpr int32_t kL2PromotionNone = 0;
inline constexpr int32_t kL2Promotion64B = 1;
inline constexpr int32_t kL2Promotion128B = 2;
inline constexpr int32_t kL2Promotion256B = 3;
// CUtensorMapFloatOOBfill
inline constexpr int32_t kOobFillNone = 0;
inline constexpr int32_t kOobFillNaNRequestZeroFMA = 1;

/// Bytes of a CUtensorMap, and its alignment.
inline constexpr int64_t kTensorMapBytes = 128;
inline constexpr int64_t kTensorMapAlign = 64;

} // namespace fattn::cu_abi

#endif // FATTN_RUNTIME_CUTENSORMAPABI_H
