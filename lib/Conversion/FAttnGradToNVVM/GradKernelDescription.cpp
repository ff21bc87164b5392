//===- GradKernelDescription.cpp - the backward's kernel description ------===//
//
// One JSON description for the three kernels of a backward function
// (docs/KERNEL-ABI.md, "Backward"): the configuration, the parameter list
// they share, the workspaces the caller allocates (f32, and the u32 dQ
// counters of deterministic kernels), and each kernel's entry, grid and
// shared memory in launch order.
//
//===----------------------------------------------------------------------===//

#include "GradKernelBuilder.h"

#include "fattn/Conversion/FAttnGradToNVVM/FAttnGradToNVVM.h"

using namespace mlir;
using namespace mlir::fattn;
using namespace mlir::fattn::sm80grad;
namespace json = llvm::json;

json::Object mlir::fattn::describeGradKernels(
    ArrayRef<std::pair<std::string, DictionaryAttr>> kernels, StringRef name,
    StringRef arch) {
  DictionaryAttr info = kernels.front().second;
  auto i64 = [](DictionaryAttr dict, StringRef key) {
    return dict.getAs<IntegerAttr>(key).getInt();
  };
  json::Array params;
  auto param = [&](std::string paramName, StringRef type) {
    params.push_back(
        json::Object{{"name", std::move(paramName)}, {"type", type}});
  };
  for (int64_t t = 0; t < kNumGradTensors; ++t)
    param(gradTensorName(static_cast<GradTensor>(t)).str(), "ptr");
  for (const char *size : {"batch", "heads_q", "heads_kv", "seq_q", "seq_k"})
    param(size, "u32");
  for (GradTensor t : kStridedTensors)
    for (const char *dim : {"b", "h", "s"})
      param((gradTensorName(t) + "_stride_" + dim).str(), "u64");
  param("lse_stride_b", "u64");
  param("lse_stride_h", "u64");
  bool deterministic = info.contains("deterministic");
  if (deterministic)
    param("dq_semaphore", "ptr");

  json::Array launches;
  for (const auto &[entry, kernel] : kernels) {
    bool perKVTile = kernel.getAs<StringAttr>("role").getValue() == "main";
    json::Array grid{json::Array{perKVTile ? "seq_k" : "seq_q",
                                 perKVTile ? i64(kernel, "block_n")
                                           : i64(kernel, "block_m")},
                     json::Array{perKVTile ? "heads_kv" : "heads_q", 1},
                     json::Array{"batch", 1}};
    launches.push_back(json::Object{
        {"role", kernel.getAs<StringAttr>("role").getValue()},
        {"entry", entry},
        {"grid", std::move(grid)},
        {"threads", i64(kernel, "threads")},
        {"dynamic_smem_bytes", i64(kernel, "dynamic_smem_bytes")},
    });
  }
  int64_t headDim = i64(info, "head_dim");
  json::Array workspaces{
      json::Object{{"name", "delta"},
                   {"dtype", "f32"},
                   {"shape", json::Array{"batch", "heads_q", "seq_q"}}},
      json::Object{
          {"name", "dq_accum"},
          {"dtype", "f32"},
          {"shape", json::Array{"batch", "heads_q", "seq_q", headDim}}}};
  // One counter per query row; the kernels use each Q tile's first.
  if (deterministic)
    workspaces.push_back(
        json::Object{{"name", "dq_semaphore"},
                     {"dtype", "u32"},
                     {"shape", json::Array{"batch", "heads_q", "seq_q"}}});
  json::Object description{
      {"version", 1},
      {"kind", "attention_grad"},
      {"arch", arch},
      {"cubin", (name + ".cubin").str()},
      {"ptx", (name + ".ptx").str()},
      {"dtype", info.getAs<StringAttr>("dtype").getValue()},
      {"head_dim", headDim},
      {"scale", info.getAs<FloatAttr>("scale").getValueAsDouble()},
      {"causal",
       i64(info, "window_right") == 0 && i64(info, "window_left") == -1},
      {"window_left", i64(info, "window_left")},
      {"window_right", i64(info, "window_right")},
      {"softcap", info.getAs<FloatAttr>("softcap").getValueAsDouble()},
      {"block_m", i64(info, "block_m")},
      {"block_n", i64(info, "block_n")},
      {"align_bytes", 16},
      {"params", std::move(params)},
      {"workspaces", std::move(workspaces)},
      {"kernels", std::move(launches)},
  };
  if (deterministic)
    description["deterministic"] = true;
  return description;
}
