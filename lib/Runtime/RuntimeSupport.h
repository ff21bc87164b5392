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
#include <string>
#include <string_view>
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

} // namespace fattn::runtime

#endif // FATTN_LIB_RUNTIME_RUNTIMESUPPORT_H
