//===- RuntimeSupport.h - What the forward's and backward's C API share ---===//
//
// The thread's last error, files, devices and modules in primary contexts.
// Internal to lib/Runtime.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_LIB_RUNTIME_RUNTIMESUPPORT_H
#define FATTN_LIB_RUNTIME_RUNTIMESUPPORT_H

#include "fattn-c/Runtime.h"

#include <cuda.h>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fattn::runtime {

/// Records `message` as the thread's last error and returns `status`.
fattnStatus fail(fattnStatus status, std::string message);
void clearLastError();
const char *lastErrorText();

bool readFile(const std::string &path, std::string &out);
/// `file` relative to the folder of `descriptionPath` (absolute paths stay).
std::string siblingPath(const std::string &descriptionPath, const std::string &file);

/// Reads the description at `path` (parsed by `parse` into a Desc with
/// `cubin` and `ptx` fields: its JSON text and the cubin and optional PTX it
/// names, relative to its folder.
template <typename Desc>
fattnStatus readKernelFiles(const char *path,
                            bool (*parse)(std::string_view, Desc &, std::string &),
                            std::string &json, std::string &image, std::string &ptx) {
  if (!path)
    return fail(FATTN_STATUS_INVALID_ARGUMENT, "description path is null");
  if (!readFile(path, json))
    return fail(FATTN_STATUS_IO_ERROR, std::string("cannot read kernel description ") + path);
  Desc desc;
  std::string error;
  if (!parse(json, desc, error))
    return fail(FATTN_STATUS_INVALID_DESCRIPTION, std::string(path) + ": " + error);
  std::string cubinPath = siblingPath(path, desc.cubin);
  if (!readFile(cubinPath, image))
    return fail(FATTN_STATUS_IO_ERROR, "cannot read cubin " + cubinPath + " named by " + path);
  if (!desc.ptx.empty()) {
    std::string ptxPath = siblingPath(path, desc.ptx);
    if (!readFile(ptxPath, ptx))
      return fail(FATTN_STATUS_IO_ERROR, "cannot read PTX " + ptxPath + " named by " + path);
  }
  return FATTN_STATUS_SUCCESS;
}

/// Checks that `image` is not empty and NUL-terminates it and a non-empty
/// `ptx` (cuModuleLoadData reads PTX as a C string); `where` ends the error.
fattnStatus terminateImages(std::string &image, std::string &ptx, const std::string &where);

fattnStatus ensureInit();
/// The device that owns the memory at `data` (a tensor named `name`).
fattnStatus deviceOf(uint64_t data, const char *name, int &ordinal);

/// A kernel of a module, with what its launches need set up.
struct FunctionSpec {
  std::string entry;
  uint32_t threads = 0;
  uint32_t dynamicSmemBytes = 0;
  bool nonPortableCluster = false; // a cluster of more than 8 CTAs
};

/// A module loaded into one device's primary context.
struct DeviceModule {
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUmodule module = nullptr;
  std::vector<CUfunction> functions; // as the FunctionSpecs
  uint32_t numSMs = 0;
};

/// Loads `image` (or, where the driver refuses it, `ptx`) into the primary
/// context of device `ordinal`, looks up every function and raises its
/// dynamic shared memory limit; `where` ends each error message. On failure
/// nothing stays loaded or retained.
fattnStatus loadDeviceModule(const std::string &image, const std::string &ptx, int ordinal,
                             const std::vector<FunctionSpec> &functions, const std::string &where,
                             DeviceModule &m);
/// Unloads the module and releases the context (errors ignored: at process
/// exit the driver may already be gone).
void unloadDeviceModule(DeviceModule &m);

/// The modules of one kernel image, one per device, loaded on first use.
/// Thread-safe; unloads them when destroyed.
class DeviceModules {
public:
  DeviceModules() = default;
  DeviceModules(const DeviceModules &) = delete;
  DeviceModules &operator=(const DeviceModules &) = delete;
  ~DeviceModules();

  /// The module of device `ordinal`, loaded (loadDeviceModule) if new.
  fattnStatus get(int ordinal, const std::string &image, const std::string &ptx,
                  const std::vector<FunctionSpec> &functions, const std::string &where,
                  DeviceModule *&out);

private:
  std::mutex mutex_;
  std::map<int, DeviceModule> modules_;
};

/// Scratch buffers per (device, stream): launches on one stream run in
/// order and may share one; launches on different streams may overlap and
/// get their own. Thread-safe; frees them when destroyed.
class StreamWorkspaces {
public:
  StreamWorkspaces() = default;
  StreamWorkspaces(const StreamWorkspaces &) = delete;
  StreamWorkspaces &operator=(const StreamWorkspaces &) = delete;
  ~StreamWorkspaces();

  /// A buffer of at least `bytes` for launches on `stream` of device
  /// `ordinal` (`context`, current): a smaller one is freed after the stream
  /// synchronizes (earlier launches may still use it); a new one is zeroed
  /// on `stream` when `zeroed`.
  fattnStatus get(int ordinal, CUcontext context, CUstream stream, uint64_t bytes, bool zeroed,
                  const std::string &where, CUdeviceptr &out);

private:
  struct Buffer {
    CUcontext context = nullptr;
    CUdeviceptr ptr = 0;
    uint64_t bytes = 0;
  };
  std::mutex mutex_;
  std::map<std::pair<int, CUstream>, Buffer> buffers_;
};

/// A new kernel handle `Handle` (with `desc`, `image`, `ptxImage` and
/// `where()`) from a description's JSON text, read by `parse`, and its
/// images.
template <typename Handle, typename Desc>
fattnStatus createHandle(std::string_view json, std::string image, std::string ptx,
                         bool (*parse)(std::string_view, Desc &, std::string &), Handle **out) {
  if (!out)
    return fail(FATTN_STATUS_INVALID_ARGUMENT, "kernel output pointer is null");
  *out = nullptr;
  auto handle = std::make_unique<Handle>();
  std::string error;
  if (!parse(json, handle->desc, error))
    return fail(FATTN_STATUS_INVALID_DESCRIPTION, error);
  if (fattnStatus s = terminateImages(image, ptx, handle->where()))
    return s;
  handle->image = std::move(image);
  handle->ptxImage = std::move(ptx);
  *out = handle.release();
  return FATTN_STATUS_SUCCESS;
}

} // namespace fattn::runtime

#endif // FATTN_LIB_RUNTIME_RUNTIMESUPPORT_H
