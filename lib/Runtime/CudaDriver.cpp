//===- CudaDriver.cpp - Driver-API helpers: errors, tensor maps -----------===//

#include "CudaDriver.h"

#include <cstring>

namespace fattn::runtime {

std::string describeCudaError(CUresult result, const std::string &call) {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = "unknown CUresult";
  if (cuGetErrorString(result, &text) != CUDA_SUCCESS || !text)
    text = "";
  return call + " failed: " + name + " (" + std::to_string(int(result)) +
         (*text ? ": " + std::string(text) : std::string()) + ")";
}

namespace {

CUtensorMapDataType toCuDataType(DType dtype) {
  switch (dtype) {
  case DType::F16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case DType::BF16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case DType::F32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  // TMA moves fp8 as plain bytes; only the kernel interprets them.
  case DType::E4M3:
  case DType::E5M2: return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  }
  return CU_TENSOR_MAP_DATA_TYPE_UINT8;
}

CUtensorMapSwizzle toCuSwizzle(Swizzle s) {
  switch (s) {
  case Swizzle::None: return CU_TENSOR_MAP_SWIZZLE_NONE;
  case Swizzle::B32: return CU_TENSOR_MAP_SWIZZLE_32B;
  case Swizzle::B64: return CU_TENSOR_MAP_SWIZZLE_64B;
  case Swizzle::B128: return CU_TENSOR_MAP_SWIZZLE_128B;
  }
  return CU_TENSOR_MAP_SWIZZLE_NONE;
}

CUtensorMapL2promotion toCuL2(L2Promotion p) {
  switch (p) {
  case L2Promotion::None: return CU_TENSOR_MAP_L2_PROMOTION_NONE;
  case L2Promotion::B64: return CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
  case L2Promotion::B128: return CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  case L2Promotion::B256: return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  }
  return CU_TENSOR_MAP_L2_PROMOTION_NONE;
}

} // namespace

static_assert(sizeof(CUtensorMap) == sizeof(ParamSlot), "a tensor map fills one slot");
static_assert(alignof(ParamSlot) >= alignof(CUtensorMap), "slots are aligned for tensor maps");

bool encodeTensorMap(const TensorMapRequest &req, LaunchPlan &plan, std::string &error) {
  CUtensorMap map;
  std::memset(&map, 0, sizeof(map));
  cuuint64_t dims[5], strides[4];
  cuuint32_t box[5], elementStrides[5];
  for (uint32_t i = 0; i < req.rank; ++i) {
    dims[i] = req.globalDims[i];
    box[i] = req.box[i];
    elementStrides[i] = req.elementStrides[i];
    if (i + 1 < req.rank)
      strides[i] = req.globalStridesBytes[i];
  }
  CUresult r = cuTensorMapEncodeTiled(
      &map, toCuDataType(req.elementType), req.rank, reinterpret_cast<void *>(req.globalAddress),
      dims, strides, box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, toCuSwizzle(req.swizzle),
      toCuL2(req.l2Promotion),
      req.oobFill == OobFill::NaN ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                                  : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::string shape;
    for (uint32_t i = 0; i < req.rank; ++i)
      shape += (i ? "," : "") + std::to_string(dims[i]);
    std::string boxes;
    for (uint32_t i = 0; i < req.rank; ++i)
      boxes += (i ? "," : "") + std::to_string(box[i]);
    error = describeCudaError(r, "cuTensorMapEncodeTiled") + " for parameter '" +
            req.paramName + "' (dims innermost first [" + shape + "], box [" + boxes + "])";
    return false;
  }
  std::memcpy(plan.params[req.slot].bytes, &map, sizeof(map));
  return true;
}

} // namespace fattn::runtime
