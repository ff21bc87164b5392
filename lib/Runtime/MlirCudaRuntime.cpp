//===- MlirCudaRuntime.cpp - upstream MLIR's mgpu* entry points on CUDA ---===//
//
// libfattn_mlir_cuda_runtime.so: the C entry points that upstream MLIR's
// gpu-to-llvm lowering and gpu.binary's module loading call (mgpuModuleLoad,
// mgpuLaunchKernel, mgpuStreamCreate, ...), with upstream's signatures, plus
// mgpuTensorMapEncodeTiled, which the host code of fattn's host-launch
// pipelines calls (--fattn-gpu-launch). Debian's MLIR packages ship no
// libmlir_cuda_runtime.so; this library stands in for it (docs/EMBEDDING.md).
//
// Like upstream's, the calls have no error results: a failing driver call is
// reported on stderr, naming the call and the driver's error.
//
// Every call runs in the primary context of the default device (device 0, or
// the one mgpuSetDefaultDevice chose), which it makes current for the call:
// the context that PyTorch and fattn's runtime use too. Streams are created
// blocking (ordered with the legacy default stream, on which code that knows
// nothing of them enqueues its work).
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "fattn/Runtime/CuTensorMapABI.h"
#include "fattn/Runtime/TensorMapCheck.h"

#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>

#define FATTN_MGPU_EXPORT extern "C" __attribute__((visibility("default")))

using namespace fattn::runtime;
namespace cu = fattn::cu_abi;

// The values the compiler emits without cuda.h (CuTensorMapABI.h).
static_assert(cu::kDataTypeUInt8 == CU_TENSOR_MAP_DATA_TYPE_UINT8, "CUtensorMapDataType");
static_assert(cu::kDataTypeFloat16 == CU_TENSOR_MAP_DATA_TYPE_FLOAT16, "CUtensorMapDataType");
static_assert(cu::kDataTypeFloat32 == CU_TENSOR_MAP_DATA_TYPE_FLOAT32, "CUtensorMapDataType");
static_assert(cu::kDataTypeBFloat16 == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, "CUtensorMapDataType");
static_assert(cu::kInterleaveNone == CU_TENSOR_MAP_INTERLEAVE_NONE, "CUtensorMapInterleave");
static_assert(cu::kSwizzleNone == CU_TENSOR_MAP_SWIZZLE_NONE, "CUtensorMapSwizzle");
static_assert(cu::kSwizzle32B == CU_TENSOR_MAP_SWIZZLE_32B, "CUtensorMapSwizzle");
static_assert(cu::kSwizzle64B == CU_TENSOR_MAP_SWIZZLE_64B, "CUtensorMapSwizzle");
static_assert(cu::kSwizzle128B == CU_TENSOR_MAP_SWIZZLE_128B, "CUtensorMapSwizzle");
static_assert(cu::kL2PromotionNone == CU_TENSOR_MAP_L2_PROMOTION_NONE, "CUtensorMapL2promotion");
static_assert(cu::kL2Promotion64B == CU_TENSOR_MAP_L2_PROMOTION_L2_64B, "CUtensorMapL2promotion");
static_assert(cu::kL2Promotion128B == CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
              "CUtensorMapL2promotion");
static_assert(cu::kL2Promotion256B == CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
              "CUtensorMapL2promotion");
static_assert(cu::kOobFillNone == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, "CUtensorMapFloatOOBfill");
static_assert(cu::kOobFillNaNRequestZeroFMA ==
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA,
              "CUtensorMapFloatOOBfill");
static_assert(sizeof(CUtensorMap) == cu::kTensorMapBytes, "CUtensorMap");

namespace {

/// Reports a failed driver call; true on success.
bool ok(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return true;
  std::fprintf(stderr, "fattn mgpu runtime: %s\n", describeCudaError(result, call).c_str());
  return false;
}

int defaultDevice = 0;
std::mutex contextsMutex;

/// The primary context of the default device, retained once per device.
CUcontext primaryContext() {
  static CUcontext contexts[64] = {};
  std::lock_guard<std::mutex> lock(contextsMutex);
  int ordinal = defaultDevice;
  if (ordinal < 0 || ordinal >= 64)
    return nullptr;
  if (!contexts[ordinal]) {
    CUdevice device;
    if (!ok(cuInit(0), "cuInit") || !ok(cuDeviceGet(&device, ordinal), "cuDeviceGet") ||
        !ok(cuDevicePrimaryCtxRetain(&contexts[ordinal], device), "cuDevicePrimaryCtxRetain"))
      return nullptr;
  }
  return contexts[ordinal];
}

/// The default device's primary context, current for a scope.
class DefaultContext : public ScopedContext {
public:
  DefaultContext() : ScopedContext(primaryContext()) {}
};

uint32_t tensorMapElementBytes(CUtensorMapDataType type) {
  switch (type) {
  case CU_TENSOR_MAP_DATA_TYPE_UINT8: return 1;
  case CU_TENSOR_MAP_DATA_TYPE_UINT16:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
  case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16: return 2;
  case CU_TENSOR_MAP_DATA_TYPE_UINT64:
  case CU_TENSOR_MAP_DATA_TYPE_INT64:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT64: return 8;
  default: return 4;
  }
}

uint32_t swizzleSpanBytes(CUtensorMapSwizzle swizzle) {
  switch (swizzle) {
  case CU_TENSOR_MAP_SWIZZLE_32B: return 32;
  case CU_TENSOR_MAP_SWIZZLE_64B: return 64;
  case CU_TENSOR_MAP_SWIZZLE_128B: return 128;
  default: return 0;
  }
}

/// Kernels may use more than 48 KiB of dynamic shared memory only once they
/// opt in.
void allowSharedMemory(CUfunction function, int32_t smem) {
  if (smem > 48 * 1024)
    ok(cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem),
       "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
}

} // namespace

FATTN_MGPU_EXPORT void mgpuSetDefaultDevice(int32_t device) { defaultDevice = device; }

FATTN_MGPU_EXPORT CUmodule mgpuModuleLoad(void *data, size_t /*size*/) {
  DefaultContext context;
  CUmodule module = nullptr;
  ok(cuModuleLoadData(&module, data), "cuModuleLoadData");
  return module;
}

/// PTX, compiled by the driver at the given optimization level.
FATTN_MGPU_EXPORT CUmodule mgpuModuleLoadJIT(void *data, int optLevel) {
  DefaultContext context;
  CUmodule module = nullptr;
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  ok(cuModuleLoadDataEx(&module, data, 1, options, values), "cuModuleLoadDataEx (PTX)");
  return module;
}

FATTN_MGPU_EXPORT void mgpuModuleUnload(CUmodule module) {
  if (!module)
    return;
  // The host code unloads its modules from a global destructor; when the
  // driver has shut down before it (at process exit), the modules are gone
  // with it and there is nothing to report.
  CUresult result = cuModuleUnload(module);
  if (result != CUDA_ERROR_DEINITIALIZED)
    ok(result, "cuModuleUnload");
}

FATTN_MGPU_EXPORT CUfunction mgpuModuleGetFunction(CUmodule module, const char *name) {
  CUfunction function = nullptr;
  if (!module) {
    std::fprintf(stderr, "fattn mgpu runtime: kernel '%s' of a module that did not load\n", name);
    return nullptr;
  }
  if (!ok(cuModuleGetFunction(&function, module, name), "cuModuleGetFunction"))
    std::fprintf(stderr, "fattn mgpu runtime: no kernel '%s'\n", name);
  return function;
}

FATTN_MGPU_EXPORT void mgpuLaunchKernel(CUfunction function, intptr_t gridX, intptr_t gridY,
                                        intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                                        intptr_t blockZ, int32_t smem, CUstream stream,
                                        void **params, void **extra, size_t /*paramsCount*/) {
  if (!function)
    return;
  DefaultContext context;
  allowSharedMemory(function, smem);
  ok(cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY, blockZ, smem, stream, params,
                    extra),
     "cuLaunchKernel");
}

FATTN_MGPU_EXPORT void mgpuLaunchClusterKernel(CUfunction function, intptr_t clusterX,
                                               intptr_t clusterY, intptr_t clusterZ,
                                               intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                                               intptr_t blockX, intptr_t blockY,
                                               intptr_t blockZ, int32_t smem, CUstream stream,
                                               void **params, void **extra) {
  if (!function)
    return;
  DefaultContext context;
  allowSharedMemory(function, smem);
  CUlaunchAttribute attribute;
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = unsigned(clusterX);
  attribute.value.clusterDim.y = unsigned(clusterY);
  attribute.value.clusterDim.z = unsigned(clusterZ);
  CUlaunchConfig config = {};
  config.gridDimX = unsigned(gridX);
  config.gridDimY = unsigned(gridY);
  config.gridDimZ = unsigned(gridZ);
  config.blockDimX = unsigned(blockX);
  config.blockDimY = unsigned(blockY);
  config.blockDimZ = unsigned(blockZ);
  config.sharedMemBytes = unsigned(smem);
  config.hStream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  ok(cuLaunchKernelEx(&config, function, params, extra), "cuLaunchKernelEx (cluster)");
}

FATTN_MGPU_EXPORT CUstream mgpuStreamCreate() {
  DefaultContext context;
  CUstream stream = nullptr;
  ok(cuStreamCreate(&stream, CU_STREAM_DEFAULT), "cuStreamCreate");
  return stream;
}

FATTN_MGPU_EXPORT void mgpuStreamDestroy(CUstream stream) {
  ok(cuStreamDestroy(stream), "cuStreamDestroy");
}

FATTN_MGPU_EXPORT void mgpuStreamSynchronize(CUstream stream) {
  ok(cuStreamSynchronize(stream), "cuStreamSynchronize");
}

FATTN_MGPU_EXPORT void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  ok(cuStreamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
}

FATTN_MGPU_EXPORT CUevent mgpuEventCreate() {
  DefaultContext context;
  CUevent event = nullptr;
  ok(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  return event;
}

FATTN_MGPU_EXPORT void mgpuEventDestroy(CUevent event) {
  ok(cuEventDestroy(event), "cuEventDestroy");
}

FATTN_MGPU_EXPORT void mgpuEventSynchronize(CUevent event) {
  ok(cuEventSynchronize(event), "cuEventSynchronize");
}

FATTN_MGPU_EXPORT void mgpuEventRecord(CUevent event, CUstream stream) {
  ok(cuEventRecord(event, stream), "cuEventRecord");
}

/// Device memory (`isHostShared`: managed memory, visible to the host).
FATTN_MGPU_EXPORT void *mgpuMemAlloc(uint64_t bytes, CUstream /*stream*/, bool isHostShared) {
  DefaultContext context;
  CUdeviceptr pointer = 0;
  if (bytes == 0)
    return nullptr;
  if (isHostShared)
    ok(cuMemAllocManaged(&pointer, bytes, CU_MEM_ATTACH_GLOBAL), "cuMemAllocManaged");
  else
    ok(cuMemAlloc(&pointer, bytes), "cuMemAlloc");
  return reinterpret_cast<void *>(pointer);
}

FATTN_MGPU_EXPORT void mgpuMemFree(void *pointer, CUstream /*stream*/) {
  if (pointer)
    ok(cuMemFree(reinterpret_cast<CUdeviceptr>(pointer)), "cuMemFree");
}

FATTN_MGPU_EXPORT void mgpuMemcpy(void *dst, void *src, size_t bytes, CUstream stream) {
  ok(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), bytes,
                   stream),
     "cuMemcpyAsync");
}

FATTN_MGPU_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count,
                                    CUstream stream) {
  ok(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count, stream),
     "cuMemsetD32Async");
}

FATTN_MGPU_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                                    CUstream stream) {
  ok(cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value, count, stream),
     "cuMemsetD16Async");
}

/// cuTensorMapEncodeTiled into `tensorMap` (host memory, 64-byte aligned),
/// with the rule the arguments break named on stderr when it fails.
FATTN_MGPU_EXPORT void mgpuTensorMapEncodeTiled(
    CUtensorMap *tensorMap, CUtensorMapDataType dataType, cuuint32_t rank, void *address,
    const cuuint64_t *dims, const cuuint64_t *stridesBytes, const cuuint32_t *box,
    const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
    CUtensorMapFloatOOBfill oobFill) {
  CUresult result = cuTensorMapEncodeTiled(tensorMap, dataType, rank, address, dims, stridesBytes,
                                           box, elementStrides, interleave, swizzle, l2Promotion,
                                           oobFill);
  if (result == CUDA_SUCCESS)
    return;
  TiledTensorMapArgs args;
  args.rank = rank;
  args.address = reinterpret_cast<uint64_t>(address);
  args.dims = dims;
  args.stridesBytes = stridesBytes;
  args.box = box;
  args.elementStrides = elementStrides;
  args.elementBytes = tensorMapElementBytes(dataType);
  args.swizzleBytes = swizzleSpanBytes(swizzle);
  std::string problem = tiledTensorMapProblem(args);
  std::fprintf(stderr, "fattn mgpu runtime: %s for %s%s%s\n",
               describeCudaError(result, "cuTensorMapEncodeTiled").c_str(),
               describeTiledTensorMap(args).c_str(), problem.empty() ? "" : ": ",
               problem.c_str());
}
