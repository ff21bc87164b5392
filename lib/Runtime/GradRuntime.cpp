//===- GradRuntime.cpp - The C API of the backward's kernels --------------===//

#include "fattn-c/Runtime.h"

#include "CudaDriver.h"
#include "RuntimeSupport.h"
#include "fattn/Runtime/GradKernel.h"

#include <cstdio>
#include <cuda.h>
#include <vector>

using namespace fattn::runtime;

static_assert(int(FATTN_GRAD_TENSOR_DV) == int(kGradDV), "same tensor order");
static_assert(int(FATTN_GRAD_TENSOR_LSE) == int(kGradLse), "same tensor order");

struct fattnGradKernel_ {
  GradKernelDescription desc;
  std::string image, ptxImage;
  DeviceModules modules;
  /// The runtime's workspaces (launches that pass none).
  StreamWorkspaces workspaces;

  std::string where() const {
    return " (backward kernels " + desc.kernels.front().entry + "..., arch " + desc.arch + ")";
  }

  fattnStatus moduleFor(int ordinal, DeviceModule *&out) {
    std::vector<FunctionSpec> functions;
    for (const GradKernelLaunchSpec &k : desc.kernels)
      functions.push_back({k.entry, k.threads, k.dynamicSmemBytes, false});
    return modules.get(ordinal, image, ptxImage, functions, where(), out);
  }
};

extern "C" {

fattnStatus fattnGradKernelLoadFile(const char *path, fattnGradKernel *kernel) {
  clearLastError();
  std::string json, image, ptx;
  if (fattnStatus s = readKernelFiles<GradKernelDescription>(path, parseGradKernelDescription, json,
                                                             image, ptx))
    return s;
  return createHandle(json, std::move(image), std::move(ptx), parseGradKernelDescription, kernel);
}

fattnStatus fattnGradKernelLoadData(const char *json, size_t jsonSize, const void *image,
                                    size_t imageSize, fattnGradKernel *kernel) {
  clearLastError();
  if (!json || !image)
    return fail(FATTN_STATUS_INVALID_ARGUMENT, "description or image pointer is null");
  return createHandle(std::string_view(json, jsonSize),
                      std::string(static_cast<const char *>(image), imageSize), "",
                      parseGradKernelDescription, kernel);
}

void fattnGradKernelDestroy(fattnGradKernel kernel) { delete kernel; }

fattnStatus fattnGradKernelWorkspaceBytes(fattnGradKernel kernel, const fattnTensor *tensors,
                                          int32_t numTensors, uint64_t *bytes) {
  clearLastError();
  if (!kernel || !bytes)
    return fail(FATTN_STATUS_INVALID_ARGUMENT, "kernel or bytes pointer is null");
  GradLaunchPlan plan;
  std::string error;
  if (!buildGradLaunchPlan(kernel->desc, reinterpret_cast<const TensorArg *>(tensors), numTensors,
                           plan, error))
    return fail(FATTN_STATUS_INVALID_ARGUMENT, error);
  *bytes = plan.totalWorkspaceBytes;
  return FATTN_STATUS_SUCCESS;
}

fattnStatus fattnGradKernelLaunch(fattnGradKernel kernel, const fattnTensor *tensors,
                                  int32_t numTensors, uint64_t workspace, uint64_t workspaceBytes,
                                  void *stream) {
  clearLastError();
  if (!kernel)
    return fail(FATTN_STATUS_INVALID_ARGUMENT, "kernel is null");
  const GradKernelDescription &desc = kernel->desc;
  const auto *args = reinterpret_cast<const TensorArg *>(tensors);
  GradLaunchPlan plan;
  std::string error;
  if (!buildGradLaunchPlan(desc, args, numTensors, plan, error))
    return fail(FATTN_STATUS_INVALID_ARGUMENT, error);
  if (plan.empty)
    return FATTN_STATUS_SUCCESS;
  if (workspace && (workspaceBytes < plan.totalWorkspaceBytes || workspace % 256 != 0)) {
    char address[32];
    std::snprintf(address, sizeof(address), "0x%llx", (unsigned long long)workspace);
    return fail(FATTN_STATUS_INVALID_ARGUMENT,
                "the workspace of " + std::to_string(workspaceBytes) + " bytes at " + address +
                    " does not fit: the launch needs " + std::to_string(plan.totalWorkspaceBytes) +
                    " bytes, 256-byte aligned" + kernel->where());
  }
  if (fattnStatus s = ensureInit())
    return s;
  int ordinal = 0;
  if (fattnStatus s = deviceOf(tensors[FATTN_GRAD_TENSOR_Q].data, "q", ordinal))
    return s;
  for (int t = 1; t < kNumGradTensors; ++t) {
    int other = 0;
    if (fattnStatus s = deviceOf(tensors[t].data, gradTensorName(t), other))
      return s;
    if (other != ordinal)
      return fail(FATTN_STATUS_INVALID_ARGUMENT,
                  std::string("tensor '") + gradTensorName(t) + "' is on device " +
                      std::to_string(other) + " but 'q' is on device " + std::to_string(ordinal));
  }
  DeviceModule *m = nullptr;
  if (fattnStatus s = kernel->moduleFor(ordinal, m))
    return s;
  ScopedContext scope(m->context);
  if (!scope.ok())
    return fail(FATTN_STATUS_CUDA_ERROR, "cuCtxPushCurrent failed" + kernel->where());
  CUstream cuStream = static_cast<CUstream>(stream);
  if (!workspace) {
    CUdeviceptr cached = 0;
    if (fattnStatus s =
            kernel->workspaces.get(ordinal, m->context, cuStream, plan.totalWorkspaceBytes,
                                   /*zeroed=*/false, kernel->where(), cached))
      return s;
    workspace = cached;
  }
  setGradWorkspace(desc, workspace, plan);

  std::vector<void *> params(plan.params.size());
  for (size_t i = 0; i < params.size(); ++i)
    params[i] = plan.params[i].bytes;
  for (size_t i = 0; i < plan.launches.size(); ++i) {
    const GradLaunchPlan::Launch &l = plan.launches[i];
    CUresult r = cuLaunchKernel(m->functions[i], l.grid[0], l.grid[1], l.grid[2], l.threads, 1, 1,
                                l.dynamicSmemBytes, cuStream, params.data(), nullptr);
    if (r != CUDA_SUCCESS)
      return fail(FATTN_STATUS_CUDA_ERROR,
                  describeCudaError(r, "cuLaunchKernel") + " of " + desc.kernels[i].entry +
                      " with grid (" + std::to_string(l.grid[0]) + "," + std::to_string(l.grid[1]) +
                      "," + std::to_string(l.grid[2]) + "), block " + std::to_string(l.threads) +
                      ", dynamic smem " + std::to_string(l.dynamicSmemBytes) + kernel->where());
  }
  return FATTN_STATUS_SUCCESS;
}

} // extern "C"
