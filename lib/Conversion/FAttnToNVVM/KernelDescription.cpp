//===- KernelDescription.cpp - a kernel's description as JSON -------------===//

#include "fattn/Conversion/FAttnToNVVM/KernelDescription.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fattn;
namespace json = llvm::json;

static json::Object tensorMapJSON(const TensorMapDescription &map,
                                  const std::string &name) {
  json::Object o{
      {"name", name},
      {"type", "tensormap"},
      {"tensor", map.tensor},
      {"element_type", map.elementType},
      {"box", json::Array{map.box[0], map.box[1], map.box[2], map.box[3]}},
      {"element_strides", json::Array{1, 1, 1, 1}},
      {"swizzle", map.swizzle},
  };
  if (!map.l2Promotion.empty())
    o["l2_promotion"] = map.l2Promotion;
  if (!map.oobFill.empty())
    o["oob_fill"] = map.oobFill;
  return o;
}

static json::Object metaJSON(const KernelMetaDescription &meta) {
  json::Object o;
  if (meta.stages)
    o["stages"] = *meta.stages;
  if (!meta.compiler.empty())
    o["compiler"] = meta.compiler;
  if (meta.rowSumsMma)
    o["row_sums"] = "mma";
  if (meta.linearExp2Offset) {
    o["exp2"] = "linear";
    o["exp2_offset"] = *meta.linearExp2Offset;
  }
  if (meta.rescaleThreshold)
    o["rescale_threshold"] = *meta.rescaleThreshold;
  if (meta.narrowTail)
    o["narrow_tail"] = *meta.narrowTail;
  return o;
}

json::Object mlir::fattn::toJSON(const KernelDescription &d) {
  json::Array params;
  for (const KernelParamDescription &p : d.params)
    params.push_back(p.tensorMap
                         ? tensorMapJSON(*p.tensorMap, p.name)
                         : json::Object{{"name", p.name}, {"type", p.type}});
  json::Array grid;
  for (const auto &[size, divisor] : d.grid)
    grid.push_back(json::Array{size, divisor});
  json::Object o{
      {"version", 1},
      {"arch", d.arch},
      {"entry", d.entry},
      {"cubin", d.cubin},
      {"dtype", d.dtype},
      {"head_dim_qk", d.headDimQK},
      {"head_dim_v", d.headDimV},
      {"scale", d.scale},
      {"causal", d.causal},
      {"window_left", d.windowLeft},
      {"window_right", d.windowRight},
      {"softcap", d.softcap},
      {"has_lse", d.hasLse},
      {"block_m", d.blockM},
      {"block_n", d.blockN},
      {"threads", d.threads},
      {"dynamic_smem_bytes", d.dynamicSmemBytes},
      {"grid", std::move(grid)},
      {"params", std::move(params)},
  };
  if (!d.runtimeScalars.empty())
    o["runtime_scalars"] = json::Array(d.runtimeScalars);
  if (!d.ptx.empty())
    o["ptx"] = d.ptx;
  if (!d.outDtype.empty())
    o["out_dtype"] = d.outDtype;
  if (d.alignBytes)
    o["align_bytes"] = *d.alignBytes;
  if (d.descales) {
    json::Object descales;
    for (auto [tensor, descale] :
         llvm::zip(std::array<const char *, 3>{"q", "k", "v"}, *d.descales)) {
      json::Object form{{"rank", descale.rank}};
      if (descale.rank == 3)
        form["block"] = descale.block;
      descales[tensor] = std::move(form);
    }
    o["descale"] = std::move(descales);
  }
  if (!d.valueLayout.empty())
    o["value_layout"] = d.valueLayout;
  if (d.workOrder)
    o["work_order"] =
        json::Object{{"ctas_per_pair", d.workOrder->ctasPerPair},
                     {"reverse_q_tiles", d.workOrder->reverseQTiles}};
  if (d.workspaceBytesPerCta)
    o["workspace_bytes_per_cta"] = *d.workspaceBytesPerCta;
  if (!d.meta.empty())
    o["meta"] = metaJSON(d.meta);
  return o;
}

KernelDescription mlir::fattn::describeSM80Kernel(DictionaryAttr info,
                                                  StringRef entry) {
  auto i64 = [&](StringRef name) {
    return info.getAs<IntegerAttr>(name).getInt();
  };
  auto f64 = [&](StringRef name) {
    return info.getAs<FloatAttr>(name).getValueAsDouble();
  };
  KernelDescription d;
  d.arch = "sm_80";
  d.entry = entry.str();
  d.cubin = d.entry + ".cubin";
  d.dtype = info.getAs<StringAttr>("dtype").getValue().str();
  auto flag = [&](StringRef name) {
    auto attr = info.getAs<BoolAttr>(name);
    return attr && attr.getValue();
  };
  bool dynamicScale = flag("dynamic_scale");
  // V's head dim, where it differs from Q's and K's.
  d.headDimQK = i64("head_dim");
  d.headDimV = info.get("head_dim_v") ? i64("head_dim_v") : d.headDimQK;
  d.scale = dynamicScale ? 1.0 / std::sqrt(static_cast<double>(d.headDimQK))
                         : f64("scale");
  d.softcap = f64("softcap");
  d.causal = i64("window_right") == 0;
  d.windowLeft = i64("window_left");
  d.windowRight = i64("window_right");
  d.hasLse = info.getAs<BoolAttr>("has_lse").getValue();
  d.blockM = i64("block_m");
  d.blockN = i64("block_n");
  d.threads = i64("threads");
  d.dynamicSmemBytes = i64("dynamic_smem_bytes");
  d.alignBytes = 16;
  d.grid = {{"seq_q", d.blockM}, {"heads_q", 1}, {"batch", 1}};
  for (const char *p : {"q", "k", "v", "o"})
    d.addParam(p, "ptr");
  if (d.hasLse)
    d.addParam("lse", "ptr");
  for (const char *p : {"batch", "heads_q", "heads_kv", "seq_q", "seq_k"})
    d.addParam(p, "u32");
  for (StringRef t : {"q", "k", "v", "o"})
    for (StringRef s : {"b", "h", "s"})
      d.addParam((t + "_stride_" + s).str(), "u64");
  if (d.hasLse) {
    d.addParam("lse_stride_b", "u64");
    d.addParam("lse_stride_h", "u64");
  }
  // Without a softcap a runtime scale comes as `scale_log2`.
  bool dynamicSoftcap = flag("dynamic_softcap");
  d.addRuntimeScalars(dynamicScale, dynamicSoftcap,
                      /*scaleAsLog2=*/!dynamicSoftcap && d.softcap == 0.0);
  d.meta.stages = i64("stages");
  return d;
}
