//===- Runtime.cpp - The C API: load descriptions, launch kernels ---------===//

#include "fattn-c/Runtime.h"

#include "CudaDriver.h"
#include "RuntimeSupport.h"
#include "fattn/Runtime/KernelDescription.h"
#include "fattn/Runtime/LaunchPlan.h"

#include <cuda.h>
#include <cstddef>
#include <cstring>
#include <vector>

using namespace fattn::runtime;

static_assert(sizeof(fattnTensor) == sizeof(TensorArg), "fattnTensor mirrors TensorArg");
static_assert(offsetof(fattnTensor, strides) == offsetof(TensorArg, strides), "same layout");
static_assert(int(FATTN_DTYPE_E5M2) == int(DType::E5M2), "same dtype codes");
static_assert(int(FATTN_TENSOR_LSE) == int(kLse), "same tensor order");
static_assert(int(FATTN_TENSOR_V_DESCALE) == int(kVDescale), "same tensor order");

struct fattnKernel_ {
  KernelDescription desc;
  std::string image;    // cubin (or fatbin/PTX when loaded from memory)
  std::string ptxImage; // the description's "ptx" fallback, if any
  DeviceModules modules;
  /// The "workspace" of kernels that have one (each launch leaves it as it
  /// found it: zeroed).
  StreamWorkspaces workspaces;

  std::string where() const { return " (kernel " + desc.entry + ", arch " + desc.arch + ")"; }

  /// Loads the module on `ordinal` on first use.
  fattnStatus moduleFor(int ordinal, DeviceModule *&out) {
    FunctionSpec function{desc.entry, desc.threads, desc.dynamicSmemBytes,
                          desc.hasCluster &&
                              desc.cluster[0] * desc.cluster[1] * desc.cluster[2] > 8};
    return modules.get(ordinal, image, ptxImage, {function}, where(), out);
  }
};

namespace {

/// The launch plan of fattnKernelGetLaunchConfig and fattnKernelGetTailPairs:
/// the tensors checked as a launch would, `numSMs` for "num_sms".
fattnStatus planWithoutGpu(fattnKernel kernel, const fattnTensor *tensors, int32_t numTensors,
                           uint32_t numSMs, LaunchPlan &plan) {
  std::string error;
  if (!buildLaunchPlan(kernel->desc, reinterpret_cast<const TensorArg *>(tensors), numTensors,
                       numSMs, plan, error))
    return fail(FATTN_STATUS_INVALID_ARGUMENT, error);
  return FATTN_STATUS_SUCCESS;
}

} // namespace

extern "C" {

const char *fattnGetLastError(void) { return lastErrorText(); }

int32_t fattnRuntimeAbiVersion(void) { return FATTN_RUNTIME_ABI_VERSION; }

fattnStatus fattnKernelLoadFile(const char *path, fattnKernel *kernel) {
  clearLastError();
  std::string json, image, ptx;
  if (fattnStatus s =
          readKernelFiles<KernelDescription>(path, parseKernelDescription, json, image, ptx))
    return s;
  return createHandle(json, std::move(image), std::move(ptx), parseKernelDescription, kernel);
}

fattnStatus fattnKernelLoadData(const char *json, size_t jsonSize, const void *image,
                                size_t imageSize, fattnKernel *kernel) {
  clearLastError();
  if (!json || !image)
    return fail(FATTN_STATUS_INVALID_ARGUMENT, "description or image pointer is null");
  return createHandle(std::string_view(json, jsonSize),
                      std::string(static_cast<const char *>(image), imageSize), "",
                      parseKernelDescription, kernel);
}

void fattnKernelDestroy(fattnKernel kernel) { delete kernel; }

const char *fattnKernelEntry(fattnKernel kernel) {
  return kernel ? kernel->desc.entry.c_str() : "";
}

int32_t fattnKernelHasLse(fattnKernel kernel) { return kernel && kernel->desc.hasLse; }

fattnStatus fattnKernelGetLaunchConfig(fattnKernel kernel, const fattnTensor *tensors,
                                       int32_t numTensors, uint32_t numSMs,
                                       fattnLaunchConfig *config) {
  clearLastError();
  if (!kernel || !config)
    return fail(FATTN_STATUS_INVALID_ARGUMENT, "kernel or config pointer is null");
  LaunchPlan plan;
  if (fattnStatus s = planWithoutGpu(kernel, tensors, numTensors, numSMs, plan))
    return s;
  for (int i = 0; i < 3; ++i) {
    config->grid[i] = plan.grid[i];
    config->block[i] = plan.block[i];
    config->cluster[i] = plan.cluster[i];
  }
  config->dynamic_smem_bytes = plan.dynamicSmemBytes;
  config->empty = plan.empty;
  return FATTN_STATUS_SUCCESS;
}

fattnStatus fattnKernelGetTailPairs(fattnKernel kernel, const fattnTensor *tensors,
                                    int32_t numTensors, uint32_t numSMs, uint32_t *tailPairs) {
  clearLastError();
  if (!kernel || !tailPairs)
    return fail(FATTN_STATUS_INVALID_ARGUMENT, "kernel or tail_pairs pointer is null");
  LaunchPlan plan;
  if (fattnStatus s = planWithoutGpu(kernel, tensors, numTensors, numSMs, plan))
    return s;
  *tailPairs = 0;
  for (size_t i = 0; i < plan.params.size(); ++i)
    if (kernel->desc.params[i].source == ParamSource::TailPairs)
      std::memcpy(tailPairs, plan.params[i].bytes, sizeof(*tailPairs));
  return FATTN_STATUS_SUCCESS;
}

int32_t fattnKernelRuntimeScalars(fattnKernel kernel) {
  return kernel ? int32_t(kernel->desc.runtimeScale) | int32_t(kernel->desc.runtimeSoftcap) << 1
                : 0;
}

fattnStatus fattnKernelLaunch(fattnKernel kernel, const fattnTensor *tensors, int32_t numTensors,
                              void *stream) {
  return fattnKernelLaunchWithScalars(kernel, tensors, numTensors, nullptr, stream);
}

fattnStatus fattnKernelLaunchWithScalars(fattnKernel kernel, const fattnTensor *tensors,
                                         int32_t numTensors, const fattnScalars *scalars,
                                         void *stream) {
  clearLastError();
  if (!kernel)
    return fail(FATTN_STATUS_INVALID_ARGUMENT, "kernel is null");
  const KernelDescription &desc = kernel->desc;
  const auto *args = reinterpret_cast<const TensorArg *>(tensors);
  std::string error;
  ProblemSizes sizes;
  if (!checkTensors(desc, args, numTensors, sizes, error))
    return fail(FATTN_STATUS_INVALID_ARGUMENT, error);
  if (!sizes.batch || !sizes.headsQ || !sizes.seqQ)
    return FATTN_STATUS_SUCCESS; // nothing to compute
  if (fattnStatus s = ensureInit())
    return s;

  int ordinal = 0;
  if (fattnStatus s = deviceOf(tensors[FATTN_TENSOR_Q].data, "q", ordinal))
    return s;
  for (int t = 1; t < numTensors; ++t) {
    if (t == FATTN_TENSOR_LSE && !desc.hasLse)
      continue; // the empty slot 4 of a kernel with descales
    int other = 0;
    if (fattnStatus s = deviceOf(tensors[t].data, tensorName(t), other))
      return s;
    if (other != ordinal)
      return fail(FATTN_STATUS_INVALID_ARGUMENT,
                  std::string("tensor '") + tensorName(t) + "' is on device " +
                      std::to_string(other) + " but 'q' is on device " +
                      std::to_string(ordinal));
  }
  DeviceModule *m = nullptr;
  if (fattnStatus s = kernel->moduleFor(ordinal, m))
    return s;

  sizes.numSMs = m->numSMs;
  LaunchPlan plan;
  LaunchScalars launchScalars;
  if (scalars)
    launchScalars = {scalars->scale, scalars->softcap};
  if (!planLaunch(desc, args, sizes, plan, error) ||
      !applyLaunchScalars(desc, scalars ? &launchScalars : nullptr, plan, error))
    return fail(FATTN_STATUS_INVALID_ARGUMENT, error);
  ScopedContext scope(m->context);
  if (!scope.ok())
    return fail(FATTN_STATUS_CUDA_ERROR, "cuCtxPushCurrent failed" + kernel->where());
  for (const TensorMapRequest &req : plan.tensorMaps)
    if (!encodeTensorMap(req, plan, error))
      return fail(FATTN_STATUS_CUDA_ERROR, error + kernel->where());
  if (plan.workspaceBytes) {
    CUdeviceptr workspace = 0;
    if (fattnStatus s = kernel->workspaces.get(ordinal, m->context, static_cast<CUstream>(stream),
                                               plan.workspaceBytes, /*zeroed=*/true,
                                               kernel->where(), workspace))
      return s;
    uint64_t address = workspace;
    std::memcpy(plan.params[plan.workspaceSlot].bytes, &address, sizeof(address));
  }

  std::vector<void *> params(plan.params.size());
  for (size_t i = 0; i < params.size(); ++i)
    params[i] = plan.params[i].bytes;
  CUlaunchAttribute attr;
  CUlaunchConfig config = {};
  config.gridDimX = plan.grid[0];
  config.gridDimY = plan.grid[1];
  config.gridDimZ = plan.grid[2];
  config.blockDimX = plan.block[0];
  config.blockDimY = plan.block[1];
  config.blockDimZ = plan.block[2];
  config.sharedMemBytes = plan.dynamicSmemBytes;
  config.hStream = static_cast<CUstream>(stream);
  if (plan.hasCluster) {
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = plan.cluster[0];
    attr.value.clusterDim.y = plan.cluster[1];
    attr.value.clusterDim.z = plan.cluster[2];
    config.attrs = &attr;
    config.numAttrs = 1;
  }
  CUresult r = cuLaunchKernelEx(&config, m->functions[0], params.data(), nullptr);
  if (r != CUDA_SUCCESS) {
    auto dims = [](const std::array<uint32_t, 3> &d) {
      return "(" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," +
             std::to_string(d[2]) + ")";
    };
    return fail(FATTN_STATUS_CUDA_ERROR,
                describeCudaError(r, "cuLaunchKernelEx") + " with grid " + dims(plan.grid) +
                    ", block " + dims(plan.block) + ", cluster " + dims(plan.cluster) +
                    ", dynamic smem " + std::to_string(plan.dynamicSmemBytes) +
                    kernel->where());
  }
  return FATTN_STATUS_SUCCESS;
}

} // extern "C"
