//===- RuntimeSupport.cpp - What the forward's and backward's C API share -===//

#include "RuntimeSupport.h"

#include "CudaDriver.h"

#include <fstream>
#include <sstream>

namespace fattn::runtime {

namespace {
thread_local std::string lastError;
} // namespace

fattnStatus fail(fattnStatus status, std::string message) {
  lastError = std::move(message);
  return status;
}

void clearLastError() { lastError.clear(); }

const char *lastErrorText() { return lastError.c_str(); }

bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return bool(in) || in.eof();
}

std::string siblingPath(const std::string &descriptionPath, const std::string &file) {
  if (!file.empty() && file[0] == '/')
    return file;
  size_t slash = descriptionPath.find_last_of('/');
  return slash == std::string::npos ? file : descriptionPath.substr(0, slash + 1) + file;
}

fattnStatus terminateImages(std::string &image, std::string &ptx, const std::string &where) {
  if (image.empty())
    return fail(FATTN_STATUS_INVALID_ARGUMENT, "the kernel image is empty" + where);
  image.push_back('\0');
  if (!ptx.empty())
    ptx.push_back('\0');
  return FATTN_STATUS_SUCCESS;
}

fattnStatus ensureInit() {
  static CUresult result = cuInit(0);
  if (result != CUDA_SUCCESS)
    return fail(FATTN_STATUS_CUDA_ERROR, describeCudaError(result, "cuInit"));
  return FATTN_STATUS_SUCCESS;
}

fattnStatus deviceOf(uint64_t data, const char *name, int &ordinal) {
  int value = -1;
  CUresult r =
      cuPointerGetAttribute(&value, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CUdeviceptr(data));
  if (r != CUDA_SUCCESS)
    return fail(FATTN_STATUS_INVALID_ARGUMENT,
                std::string("tensor '") + name + "': data pointer is not device memory: " +
                    describeCudaError(r, "cuPointerGetAttribute(DEVICE_ORDINAL)"));
  ordinal = value;
  return FATTN_STATUS_SUCCESS;
}

namespace {

fattnStatus loadFunctions(const std::string &image, const std::string &ptx, int ordinal,
                          const std::vector<FunctionSpec> &functions, const std::string &where,
                          DeviceModule &m) {
  CUresult r;
  if ((r = cuDeviceGet(&m.device, ordinal)) != CUDA_SUCCESS)
    return fail(FATTN_STATUS_CUDA_ERROR, describeCudaError(r, "cuDeviceGet") + where);
  if ((r = cuDevicePrimaryCtxRetain(&m.context, m.device)) != CUDA_SUCCESS) {
    m.context = nullptr;
    return fail(FATTN_STATUS_CUDA_ERROR, describeCudaError(r, "cuDevicePrimaryCtxRetain") + where);
  }
  ScopedContext scope(m.context);
  if (!scope.ok())
    return fail(FATTN_STATUS_CUDA_ERROR, "cuCtxPushCurrent failed" + where);
  int major = 0, minor = 0, sms = 0, smemOptin = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, m.device);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, m.device);
  cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, m.device);
  cuDeviceGetAttribute(&smemOptin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, m.device);
  m.numSMs = uint32_t(sms);
  std::string device = " on device " + std::to_string(ordinal) + " (compute capability " +
                       std::to_string(major) + "." + std::to_string(minor) + ")";

  r = cuModuleLoadData(&m.module, image.data());
  // A cubin runs only on its own major architecture; PTX is JIT-compiled for any newer one.
  if (r != CUDA_SUCCESS && !ptx.empty())
    r = cuModuleLoadData(&m.module, ptx.data());
  if (r != CUDA_SUCCESS) {
    m.module = nullptr;
    return fail(FATTN_STATUS_CUDA_ERROR, describeCudaError(r, "cuModuleLoadData") + where + device);
  }
  for (const FunctionSpec &f : functions) {
    CUfunction function = nullptr;
    if ((r = cuModuleGetFunction(&function, m.module, f.entry.c_str())) != CUDA_SUCCESS)
      return fail(FATTN_STATUS_CUDA_ERROR, describeCudaError(r, "cuModuleGetFunction") +
                                               ": no entry \"" + f.entry + "\" in the cubin" +
                                               where);
    if (f.dynamicSmemBytes > uint32_t(smemOptin))
      return fail(FATTN_STATUS_CUDA_ERROR,
                  "the kernel " + f.entry + " needs " + std::to_string(f.dynamicSmemBytes) +
                      " bytes of dynamic shared memory, the device allows " +
                      std::to_string(smemOptin) + where + device);
    if ((r = cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                int(f.dynamicSmemBytes))) != CUDA_SUCCESS)
      return fail(FATTN_STATUS_CUDA_ERROR,
                  describeCudaError(r, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES = " +
                                           std::to_string(f.dynamicSmemBytes) + ")") +
                      where);
    if (f.nonPortableCluster &&
        (r = cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                                1)) != CUDA_SUCCESS)
      return fail(FATTN_STATUS_CUDA_ERROR,
                  describeCudaError(r, "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)") +
                      where);
    int maxThreads = 0;
    cuFuncGetAttribute(&maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function);
    if (maxThreads > 0 && f.threads > uint32_t(maxThreads))
      return fail(FATTN_STATUS_CUDA_ERROR, "the description asks for " + std::to_string(f.threads) +
                                               " threads for " + f.entry +
                                               ", the compiled kernel allows at most " +
                                               std::to_string(maxThreads) + where);
    m.functions.push_back(function);
  }
  return FATTN_STATUS_SUCCESS;
}

} // namespace

fattnStatus loadDeviceModule(const std::string &image, const std::string &ptx, int ordinal,
                             const std::vector<FunctionSpec> &functions, const std::string &where,
                             DeviceModule &m) {
  m = DeviceModule();
  fattnStatus status = loadFunctions(image, ptx, ordinal, functions, where, m);
  if (status != FATTN_STATUS_SUCCESS) {
    // Undo the partial load so that a later call can try again.
    unloadDeviceModule(m);
    m = DeviceModule();
  }
  return status;
}

void unloadDeviceModule(DeviceModule &m) {
  if (m.module) {
    ScopedContext scope(m.context);
    if (scope.ok())
      cuModuleUnload(m.module);
  }
  if (m.context)
    cuDevicePrimaryCtxRelease(m.device);
}

DeviceModules::~DeviceModules() {
  for (auto &[ordinal, m] : modules_)
    unloadDeviceModule(m);
}

fattnStatus DeviceModules::get(int ordinal, const std::string &image, const std::string &ptx,
                               const std::vector<FunctionSpec> &functions, const std::string &where,
                               DeviceModule *&out) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = modules_.find(ordinal);
  if (it == modules_.end()) {
    DeviceModule m;
    if (fattnStatus s = loadDeviceModule(image, ptx, ordinal, functions, where, m))
      return s;
    it = modules_.emplace(ordinal, m).first;
  }
  out = &it->second;
  return FATTN_STATUS_SUCCESS;
}

StreamWorkspaces::~StreamWorkspaces() {
  for (auto &[key, b] : buffers_) {
    ScopedContext scope(b.context);
    if (scope.ok())
      cuMemFree(b.ptr);
  }
}

fattnStatus StreamWorkspaces::get(int ordinal, CUcontext context, CUstream stream, uint64_t bytes,
                                  bool zeroed, const std::string &where, CUdeviceptr &out) {
  std::lock_guard<std::mutex> lock(mutex_);
  Buffer &b = buffers_[{ordinal, stream}];
  if (b.bytes < bytes) {
    CUresult r;
    if (b.ptr) {
      if ((r = cuStreamSynchronize(stream)) != CUDA_SUCCESS)
        return fail(FATTN_STATUS_CUDA_ERROR, describeCudaError(r, "cuStreamSynchronize") + where);
      cuMemFree(b.ptr);
      b = Buffer();
    }
    CUdeviceptr ptr = 0;
    if ((r = cuMemAlloc(&ptr, bytes)) != CUDA_SUCCESS)
      return fail(
          FATTN_STATUS_CUDA_ERROR,
          describeCudaError(r, "cuMemAlloc(workspace of " + std::to_string(bytes) + " bytes)") +
              where);
    // Kept only once zeroed: a later launch must never find it dirty.
    if (zeroed && (r = cuMemsetD8Async(ptr, 0, bytes, stream)) != CUDA_SUCCESS) {
      cuMemFree(ptr);
      return fail(FATTN_STATUS_CUDA_ERROR, describeCudaError(r, "cuMemsetD8Async") + where);
    }
    b = {context, ptr, bytes};
  }
  out = b.ptr;
  return FATTN_STATUS_SUCCESS;
}

} // namespace fattn::runtime
