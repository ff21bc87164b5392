//===- CudaDriver.h - Driver-API helpers of the runtime -------------------===//

#ifndef FATTN_LIB_RUNTIME_CUDADRIVER_H
#define FATTN_LIB_RUNTIME_CUDADRIVER_H

#include "fattn/Runtime/LaunchPlan.h"

#include <cuda.h>
#include <string>

namespace fattn::runtime {

/// "cuModuleLoadData failed: CUDA_ERROR_NO_BINARY_FOR_GPU (no kernel image is
/// available for execution on the device)".
std::string describeCudaError(CUresult result, const std::string &call);

/// Encodes one tensor map into plan.params[req.slot].
bool encodeTensorMap(const TensorMapRequest &req, LaunchPlan &plan, std::string &error);

/// Makes a context current for a scope and restores the previous one.
class ScopedContext {
public:
  explicit ScopedContext(CUcontext ctx) : pushed_(cuCtxPushCurrent(ctx) == CUDA_SUCCESS) {}
  ~ScopedContext() {
    CUcontext ignored;
    if (pushed_)
      cuCtxPopCurrent(&ignored);
  }
  bool ok() const { return pushed_; }
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;

private:
  bool pushed_;
};

} // namespace fattn::runtime

#endif // FATTN_LIB_RUNTIME_CUDADRIVER_H
