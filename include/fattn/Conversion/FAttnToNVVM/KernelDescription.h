//===- KernelDescription.h - a kernel's description as JSON -----*- C++ -*-===//
//
// The description that the runtime and the Python package read beside each
// kernel (docs/KERNEL-ABI.md): entry, semantics, tiles, launch shape and
// parameters, tensor maps included. Both targets fill a KernelDescription and
// turn it into JSON with toJSON, so that the two cannot drift in form.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_CONVERSION_FATTNTONVVM_KERNELDESCRIPTION_H
#define FATTN_CONVERSION_FATTNTONVVM_KERNELDESCRIPTION_H

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::fattn {

/// The tensor map of a "tensormap" parameter (a CUtensorMap the runtime
/// encodes for one of the kernel's tensors).
struct TensorMapDescription {
  /// The tensor it maps: "q", "k", "v" or "o".
  std::string tensor;
  std::string elementType;
  /// Elements per copy, [1, 1, rows, columns] over (batch, head, row, column).
  std::array<int64_t, 4> box = {1, 1, 0, 0};
  std::string swizzle = "128B";
  /// Empty: not stated (the runtime's default).
  std::string l2Promotion, oobFill;
};

/// One kernel parameter, in order.
struct KernelParamDescription {
  std::string name;
  /// "ptr", "u32", "u64" or "tensormap".
  std::string type;
  /// With type "tensormap".
  std::optional<TensorMapDescription> tensorMap;
};

/// How the kernel reads one tensor's descale factors.
struct DescaleDescription {
  /// 0 per tensor, 2 per (batch, KV head), 3 per block of `block` rows.
  int64_t rank = 0;
  int64_t block = 0;
};

/// Information for whoever models the kernel's numerics or reproduces its
/// build; the runtime ignores it. Unset fields are left out.
struct KernelMetaDescription {
  std::optional<int64_t> stages;
  std::string compiler;
  /// l sums P as the P V wgmma reads it ("row_sums": "mma").
  bool rowSumsMma = false;
  /// P's e4m3 bytes from a linear 2^x with this offset.
  std::optional<double> linearExp2Offset;
  std::optional<double> rescaleThreshold;
  std::optional<int64_t> narrowTail;

  bool empty() const {
    return !stages && compiler.empty() && !rowSumsMma && !linearExp2Offset &&
           !rescaleThreshold && !narrowTail;
  }
};

/// A kernel's description (docs/KERNEL-ABI.md). Optional keys are left out
/// where unset or empty.
struct KernelDescription {
  std::string arch, entry;
  /// The files beside the description; an empty `ptx` names none.
  std::string cubin, ptx;
  /// Of Q, K and V; `outDtype` of O where it differs (empty: the same).
  std::string dtype, outDtype;
  int64_t headDimQK = 0, headDimV = 0;
  double scale = 1.0, softcap = 0.0;
  /// The scalars that the caller passes at each launch (`scale`,
  /// `softcap`), each also a parameter of that name: for those, `scale` is
  /// the default (1/sqrt(head_dim_qk)) and `softcap` 0 (none to default to).
  std::vector<std::string> runtimeScalars;
  bool causal = false;
  int64_t windowLeft = -1, windowRight = -1;
  bool hasLse = false;
  int64_t blockM = 0, blockN = 0, threads = 0, dynamicSmemBytes = 0;
  std::optional<int64_t> alignBytes;
  /// The grid, one (size parameter, divisor) per dimension: the dimension
  /// is ceil(parameter / divisor).
  std::vector<std::pair<std::string, int64_t>> grid;
  std::vector<KernelParamDescription> params;
  /// Of Q, K and V (FP8 kernels with descales).
  std::optional<std::array<DescaleDescription, 3>> descales;
  std::string valueLayout;
  /// The work order of persistent kernels with a `tail_pairs` parameter.
  struct WorkOrder {
    int64_t ctasPerPair = 1;
    bool reverseQTiles = true;
  };
  std::optional<WorkOrder> workOrder;
  std::optional<int64_t> workspaceBytesPerCta;
  KernelMetaDescription meta;

  /// Appends a parameter of a scalar or pointer type.
  void addParam(std::string name, std::string type) {
    params.push_back({std::move(name), std::move(type), std::nullopt});
  }
  /// Appends the runtime scalars' parameters (f32, the scale then the
  /// softcap): the last parameters of a kernel. The scale's parameter is
  /// `scale`, or with `scaleAsLog2` `scale_log2`, scale·log2(e), then with
  /// `rescaleMargin` `rescale_margin`, meta.rescaleThreshold / scale·log2(e)
  /// (both computed by the launch).
  void addRuntimeScalars(bool scale, bool softcap, bool scaleAsLog2 = false,
                         bool rescaleMargin = false) {
    if (scale) {
      addParam(scaleAsLog2 ? "scale_log2" : "scale", "f32");
      if (rescaleMargin)
        addParam("rescale_margin", "f32");
      runtimeScalars.push_back("scale");
    }
    if (softcap) {
      addParam("softcap", "f32");
      runtimeScalars.push_back("softcap");
    }
  }
  /// Appends the "tensormap" parameter `<map.tensor>_map`.
  void addTensorMap(TensorMapDescription map) {
    std::string name = map.tensor + "_map";
    params.push_back({std::move(name), "tensormap", std::move(map)});
  }
};

/// The description as the JSON object of docs/KERNEL-ABI.md.
llvm::json::Object toJSON(const KernelDescription &description);

/// The description of the sm_80 kernel `entry` from the `fattn.kernel`
/// dictionary its builder attaches (FAttnToNVVM.h): semantics, tiles, launch
/// shape and parameters; no file names and no meta but the stages.
KernelDescription describeSM80Kernel(mlir::DictionaryAttr info,
                                     llvm::StringRef entry);

} // namespace mlir::fattn

#endif // FATTN_CONVERSION_FATTNTONVVM_KERNELDESCRIPTION_H
