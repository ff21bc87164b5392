//===- KernelDescription.cpp - Parse and check a kernel description -------===//

#include "fattn/Runtime/KernelDescription.h"

#include "DescriptionReader.h"

#include <cmath>
#include <initializer_list>
#include <set>

namespace fattn::runtime {

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F16: return "f16";
  case DType::BF16: return "bf16";
  case DType::F32: return "f32";
  case DType::E4M3: return "e4m3";
  case DType::E5M2: return "e5m2";
  }
  return "?";
}

bool parseDType(std::string_view name, DType &dtype) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (name == dtypeName(DType(i))) {
      dtype = DType(i);
      return true;
    }
  }
  return false;
}

uint32_t dtypeBytes(DType dtype) {
  switch (dtype) {
  case DType::F16:
  case DType::BF16: return 2;
  case DType::F32: return 4;
  case DType::E4M3:
  case DType::E5M2: return 1;
  }
  return 0;
}

const char *tensorName(int tensor) {
  static const char *names[] = {"q", "k", "v", "o", "lse", "q_descale", "k_descale",
                                "v_descale"};
  return tensor >= 0 && tensor < kNumTensors ? names[tensor] : "?";
}

const char *sizeName(SizeName size) {
  switch (size) {
  case SizeName::Batch: return "batch";
  case SizeName::HeadsQ: return "heads_q";
  case SizeName::HeadsKV: return "heads_kv";
  case SizeName::SeqQ: return "seq_q";
  case SizeName::SeqK: return "seq_k";
  case SizeName::NumSMs: return "num_sms";
  }
  return "?";
}

const char *paramTypeName(ParamType type) {
  switch (type) {
  case ParamType::Ptr: return "ptr";
  case ParamType::U32: return "u32";
  case ParamType::U64: return "u64";
  case ParamType::F32: return "f32";
  case ParamType::TensorMap: return "tensormap";
  }
  return "?";
}

namespace {

using namespace detail;

bool lookupTensor(std::string_view name, int &tensor) {
  for (int t = 0; t < kNumTensors; ++t) {
    if (name == tensorName(t)) {
      tensor = t;
      return true;
    }
  }
  return false;
}

bool hasScalarParam(const KernelDescription &desc, ScalarName name) {
  for (const ParamSpec &p : desc.params)
    if (p.source == ParamSource::Scalar && p.scalar == name)
      return true;
  return false;
}

/// "runtime_scalars": ["scale"?, "softcap"?], each once, each read by a
/// parameter (`scale` or `scale_log2`; `softcap`).
bool parseRuntimeScalars(KernelDescription &desc, ObjectReader &r) {
  const Value *list = r.get("runtime_scalars", Kind::Array, false);
  if (!list)
    return r.ok();
  for (const Value &e : list->asArray()) {
    bool scale = e.kind() == Kind::String && e.asString() == "scale";
    bool softcap = e.kind() == Kind::String && e.asString() == "softcap";
    if (!scale && !softcap)
      return r.fail("\"runtime_scalars\" entries must be \"scale\" or \"softcap\"");
    bool &flag = scale ? desc.runtimeScale : desc.runtimeSoftcap;
    if (flag)
      return r.fail("\"runtime_scalars\" lists \"" + e.asString() + "\" twice");
    flag = true;
  }
  if (desc.runtimeScale && !hasScalarParam(desc, ScalarName::Scale) &&
      !hasScalarParam(desc, ScalarName::ScaleLog2))
    return r.fail("\"runtime_scalars\" lists \"scale\" but \"params\" has no \"scale\" "
                  "or \"scale_log2\"");
  if (desc.runtimeSoftcap && !hasScalarParam(desc, ScalarName::Softcap))
    return r.fail("\"runtime_scalars\" lists \"softcap\" but \"params\" has no \"softcap\"");
  return true;
}

template <typename Enum>
bool readEnum(ObjectReader &r, const char *key, Enum &out,
              std::initializer_list<std::pair<const char *, Enum>> choices) {
  std::string name;
  if (!r.readString(key, name, /*required=*/false))
    return false;
  if (name.empty())
    return true; // absent: keep the default
  std::string list;
  for (const auto &[n, e] : choices) {
    if (name == n) {
      out = e;
      return true;
    }
    list += std::string(list.empty() ? "" : ", ") + n;
  }
  return r.fail(std::string("\"") + key + "\" = \"" + name + "\" is not one of " + list);
}

/// Maps a parameter name to the value the runtime fills in (KERNEL-ABI.md).
bool resolveParamName(ParamSpec &p, const KernelDescription &desc, ObjectReader &r) {
  auto typeIs = [&](std::initializer_list<ParamType> allowed) {
    for (ParamType t : allowed)
      if (p.type == t)
        return true;
    return r.fail("parameter \"" + p.name + "\" cannot have type \"" + paramTypeName(p.type) +
                  "\"");
  };
  int tensor;
  SizeName size;
  if (p.type == ParamType::TensorMap) {
    p.source = ParamSource::TensorMap;
    return true;
  }
  if (p.name == "tail_pairs") {
    p.source = ParamSource::TailPairs;
    if (!desc.hasWorkOrder)
      return r.fail("parameter \"tail_pairs\" is present but there is no \"work_order\" key");
    return typeIs({ParamType::U32});
  }
  if (p.name == "workspace") {
    p.source = ParamSource::Workspace;
    if (!desc.workspaceBytesPerCta)
      return r.fail("parameter \"workspace\" is present but there is no "
                    "\"workspace_bytes_per_cta\" key");
    return typeIs({ParamType::Ptr});
  }
  if (lookupTensor(p.name, tensor)) {
    p.source = ParamSource::Pointer;
    p.tensor = tensor;
    if (tensor == kLse && !desc.hasLse)
      return r.fail("parameter \"lse\" is present but \"has_lse\" is false");
    if (isDescaleTensor(tensor) && !desc.hasDescale)
      return r.fail("parameter \"" + p.name + "\" is present but there is no \"descale\" key");
    return typeIs({ParamType::Ptr});
  }
  if (lookupSize(p.name, size)) {
    p.source = ParamSource::Size;
    p.size = size;
    return typeIs({ParamType::U32, ParamType::U64});
  }
  // <tensor>_stride_<b|h|s>; a descale's dims are [batch, heads, block].
  static const char *dims[] = {"b", "h", "s"};
  static const char *descaleDims[] = {"b", "h", "blk"};
  for (int t = 0; t < kNumTensors; ++t) {
    for (int d = 0; d < 3; ++d) {
      if (t == kLse && d == 2)
        continue; // the seq stride of lse must be 1, so it is no parameter
      const char *dim = isDescaleTensor(t) ? descaleDims[d] : dims[d];
      if (p.name == std::string(tensorName(t)) + "_stride_" + dim) {
        if (t == kLse && !desc.hasLse)
          return r.fail("parameter \"" + p.name + "\" is present but \"has_lse\" is false");
        if (isDescaleTensor(t) && !desc.hasDescale)
          return r.fail("parameter \"" + p.name + "\" is present but there is no \"descale\" key");
        p.source = ParamSource::Stride;
        p.tensor = t;
        p.dim = d;
        return typeIs({ParamType::U32, ParamType::U64});
      }
    }
  }
  static const std::pair<const char *, ScalarName> scalars[] = {
      {"scale", ScalarName::Scale},
      {"scale_log2", ScalarName::ScaleLog2},
      {"rescale_margin", ScalarName::RescaleMargin},
      {"softcap", ScalarName::Softcap}};
  for (const auto &[n, s] : scalars) {
    if (p.name == n) {
      p.source = ParamSource::Scalar;
      p.scalar = s;
      return typeIs({ParamType::F32});
    }
  }
  return r.fail("unknown parameter name \"" + p.name +
                "\" (the runtime fills q, k, v, o, lse, q_descale, k_descale, v_descale, batch, "
                "heads_q, heads_kv, seq_q, seq_k, num_sms, <tensor>_stride_<b|h|s>, "
                "<q|k|v>_descale_stride_<b|h|blk>, scale, scale_log2, softcap, and tensormaps)");
}

bool parseTensorMap(ParamSpec &p, const KernelDescription &desc, ObjectReader &r) {
  TensorMapSpec &tm = p.tensorMap;
  std::string tensor;
  if (!r.readString("tensor", tensor))
    return false;
  if (!lookupTensor(tensor, tm.tensor) || isDescaleTensor(tm.tensor))
    return r.fail("\"tensor\" = \"" + tensor + "\" is not one of q, k, v, o, lse");
  if (tm.tensor == kLse && !desc.hasLse)
    return r.fail("tensormap of \"lse\" but \"has_lse\" is false");
  size_t rank = tm.tensor == kLse ? 3 : 4;
  if (!readDType(r, "element_type", tm.elementType, /*required=*/true))
    return false;
  DType tensorType = tm.tensor == kLse ? DType::F32
                     : tm.tensor == kO ? desc.outDtype
                                       : desc.dtype;
  if (dtypeBytes(tm.elementType) != dtypeBytes(tensorType))
    return r.fail(std::string("\"element_type\" = \"") + dtypeName(tm.elementType) +
                  "\" has a different size than the tensor's element type " +
                  dtypeName(tensorType));
  if (!r.readUIntArray("box", tm.box, rank, rank, 1, 256))
    return false;
  if (!r.readUIntArray("element_strides", tm.elementStrides, rank, rank, 1, 8, false))
    return false;
  if (tm.elementStrides.empty())
    tm.elementStrides.assign(rank, 1);
  if (!readEnum(r, "swizzle", tm.swizzle,
                {{"none", Swizzle::None}, {"32B", Swizzle::B32}, {"64B", Swizzle::B64},
                 {"128B", Swizzle::B128}}) ||
      !readEnum(r, "l2_promotion", tm.l2Promotion,
                {{"none", L2Promotion::None}, {"64B", L2Promotion::B64},
                 {"128B", L2Promotion::B128}, {"256B", L2Promotion::B256}}) ||
      !readEnum(r, "oob_fill", tm.oobFill, {{"zero", OobFill::Zero}, {"nan", OobFill::NaN}}))
    return false;
  // Constraints of cuTensorMapEncodeTiled that do not depend on the tensor.
  uint32_t innerBytes = tm.box.back() * dtypeBytes(tm.elementType);
  if (innerBytes % 16 != 0)
    return r.fail("the innermost box dim spans " + std::to_string(innerBytes) +
                  " bytes; TMA needs a multiple of 16");
  uint32_t span = tm.swizzle == Swizzle::B32   ? 32
                  : tm.swizzle == Swizzle::B64 ? 64
                  : tm.swizzle == Swizzle::B128 ? 128
                                                : 0;
  if (span && innerBytes > span)
    return r.fail("the innermost box dim spans " + std::to_string(innerBytes) +
                  " bytes, more than the swizzle span of " + std::to_string(span));
  if (tm.oobFill == OobFill::NaN && tm.elementType != DType::F16 &&
      tm.elementType != DType::BF16 && tm.elementType != DType::F32)
    return r.fail("\"oob_fill\" = \"nan\" needs a floating-point element type of 2 or 4 bytes");
  return true;
}

bool parseParam(const Value &v, size_t index, KernelDescription &desc, std::string &error) {
  std::string where = "params[" + std::to_string(index) + "]: ";
  ObjectReader r(v, where, error);
  if (v.kind() != Kind::Object)
    return r.fail("must be an object");
  ParamSpec p;
  if (!r.readString("name", p.name) ||
      !readParamType(r, {ParamType::Ptr, ParamType::U32, ParamType::U64, ParamType::F32,
                         ParamType::TensorMap},
                     p.type))
    return false;
  if (p.type == ParamType::TensorMap) {
    if (!r.checkKeys({"name", "type", "tensor", "element_type", "box", "element_strides",
                      "swizzle", "l2_promotion", "oob_fill"}) ||
        !parseTensorMap(p, desc, r))
      return false;
  } else if (!r.checkKeys({"name", "type"})) {
    return false;
  }
  if (!resolveParamName(p, desc, r))
    return false;
  return appendUniqueParam(desc.params, std::move(p), r);
}

/// Whether a parameter of `desc` takes its value from `source`.
bool hasParamFrom(const KernelDescription &desc, ParamSource source) {
  for (const ParamSpec &p : desc.params)
    if (p.source == source)
      return true;
  return false;
}

/// "work_order": {"ctas_per_pair": n >= 1, "reverse_q_tiles": bool}, only
/// for masked attention (whose items differ in length).
bool parseWorkOrder(const Value &order, KernelDescription &desc, std::string &error) {
  ObjectReader r(order, "\"work_order\": ", error);
  if (order.kind() != Kind::Object)
    return r.fail("must be an object");
  if (!r.checkKeys({"ctas_per_pair", "reverse_q_tiles"}) ||
      !r.readInt("ctas_per_pair", desc.ctasPerPair, 1, 1024) ||
      !r.readBool("reverse_q_tiles", desc.reverseQTiles))
    return false;
  if (desc.windowLeft < 0 && desc.windowRight < 0)
    return r.fail("needs a mask (\"causal\" or a window): without one every work item is "
                  "as long as the others");
  desc.hasWorkOrder = true;
  return true;
}

/// "descale": {"q": {"rank": 0|2|3, "block": N}, "k": {...}, "v": {...}};
/// "block" is given exactly for rank 3.
bool parseDescale(const Value &descale, KernelDescription &desc, std::string &error) {
  ObjectReader r(descale, "\"descale\": ", error);
  if (descale.kind() != Kind::Object)
    return r.fail("must be an object");
  if (!r.checkKeys({"q", "k", "v"}))
    return false;
  if (desc.dtype != DType::E4M3 && desc.dtype != DType::E5M2)
    return r.fail(std::string("descale factors need an fp8 \"dtype\" (e4m3, e5m2), found ") +
                  dtypeName(desc.dtype));
  static const char *names[] = {"q", "k", "v"};
  for (int i = 0; i < 3; ++i) {
    const Value *entry = r.get(names[i], Kind::Object, /*required=*/true);
    if (!entry)
      return false;
    ObjectReader e(*entry, std::string("\"descale\".") + names[i] + ": ", error);
    int64_t rank = 0, block = 0;
    if (!e.checkKeys({"rank", "block"}) || !e.readInt("rank", rank, 0, 3) ||
        !e.readInt("block", block, 1, INT32_MAX, /*required=*/false))
      return false;
    if (rank == 1)
      return e.fail("\"rank\" must be 0 (per tensor), 2 ([batch, heads_kv]) or 3 ([batch, "
                    "heads, blocks]), found 1");
    if ((rank == 3) != (block != 0))
      return e.fail(rank == 3 ? "a rank-3 (per block) descale needs \"block\""
                              : "\"block\" is only for a rank-3 (per block) descale");
    desc.descale[i] = DescaleSpec{int(rank), block};
  }
  desc.hasDescale = true;
  return true;
}

/// "value_layout": only the e4m3 kernels whose P V wgmma reads V^T straight
/// from TMA take V pre-transposed. The key's absence means the default layout,
/// so an empty or unknown name is an error rather than a silent default.
bool parseValueLayout(const Value &root, KernelDescription &desc, ObjectReader &r) {
  if (!root.find("value_layout"))
    return true;
  std::string name;
  if (!r.readString("value_layout", name))
    return false;
  if (name != kTransposedWgmmaE4M3K32)
    return r.fail("\"value_layout\" = \"" + name + "\" is not one of " +
                  kTransposedWgmmaE4M3K32 +
                  " (omit the key for V as [batch, heads_kv, seq_k, head_dim_v])");
  if (desc.dtype != DType::E4M3)
    return r.fail(std::string("\"value_layout\" = \"") + kTransposedWgmmaE4M3K32 +
                  "\" needs \"dtype\" e4m3, found " + dtypeName(desc.dtype));
  desc.valueLayout = ValueLayout::TransposedWgmmaE4M3K32;
  return true;
}

/// A description with "descale" must let the kernel read all three factors:
/// a kernel that ignored the caller's factors would compute a wrong result.
bool checkDescalePointers(const KernelDescription &desc, std::string &error) {
  for (int t = kQDescale; t <= kVDescale; ++t) {
    bool found = false;
    for (const ParamSpec &p : desc.params)
      found |= p.source == ParamSource::Pointer && p.tensor == t;
    if (!found) {
      error = std::string("kernel description: \"descale\" is present but \"params\" has no \"") +
              tensorName(t) + "\" pointer";
      return false;
    }
  }
  return true;
}

} // namespace

bool parseKernelDescription(std::string_view text, KernelDescription &desc, std::string &error) {
  desc = KernelDescription();
  json::Value root;
  if (!parseDescriptionRoot(text, root, error))
    return false;
  ObjectReader r(root, "", error);
  if (root.find("kind"))
    return r.fail("\"kind\" is a key of the backward's descriptions (load "
                  "\"attention_grad\" kernels with fattnGradKernelLoadFile); a forward "
                  "description has none");
  if (!r.checkKeys({"version", "arch", "entry", "cubin", "ptx", "dtype", "out_dtype",
                    "head_dim_qk", "head_dim_v", "scale", "causal", "window_left",
                    "window_right", "softcap", "has_lse", "block_m", "block_n", "threads",
                    "dynamic_smem_bytes", "grid", "cluster", "align_bytes", "descale",
                    "value_layout", "workspace_bytes_per_cta", "work_order", "params",
                    "runtime_scalars", "meta"}))
    return false;

  int64_t version = 0, headQK = 0, headV = 0, blockM = 0, blockN = 0, threads = 0, smem = 0;
  int64_t align = 16, workspace = 0;
  if (!r.readInt("version", version, 1, 1))
    return false;
  desc.version = int(version);
  if (!r.readString("arch", desc.arch) || !r.readString("entry", desc.entry) ||
      !r.readString("cubin", desc.cubin) || !r.readString("ptx", desc.ptx, false))
    return false;
  if (!checkArch(desc.arch, r))
    return false;
  if (desc.entry.empty() || desc.cubin.empty())
    return r.fail("\"entry\" and \"cubin\" must not be empty");
  if (!readDType(r, "dtype", desc.dtype, true))
    return false;
  desc.outDtype = desc.dtype;
  if (!readDType(r, "out_dtype", desc.outDtype, false) || !parseValueLayout(root, desc, r))
    return false;
  if (!r.readInt("head_dim_qk", headQK, 1, 1024) || !r.readInt("head_dim_v", headV, 1, 1024) ||
      !r.readNumber("scale", desc.scale) || !r.readBool("causal", desc.causal) ||
      !r.readInt("window_left", desc.windowLeft, -1, INT64_MAX) ||
      !r.readInt("window_right", desc.windowRight, -1, INT64_MAX) ||
      !r.readNumber("softcap", desc.softcap) || !r.readBool("has_lse", desc.hasLse) ||
      !r.readInt("block_m", blockM, 1, 1 << 16) || !r.readInt("block_n", blockN, 1, 1 << 16) ||
      !r.readInt("threads", threads, 1, 1024) ||
      !r.readInt("dynamic_smem_bytes", smem, 0, INT32_MAX) ||
      !r.readInt("align_bytes", align, 1, 256, false) ||
      !r.readInt("workspace_bytes_per_cta", workspace, 1, INT32_MAX, false))
    return false;
  desc.workspaceBytesPerCta = uint64_t(workspace);
  desc.headDimQK = headQK;
  desc.headDimV = headV;
  desc.blockM = blockM;
  desc.blockN = blockN;
  desc.threads = uint32_t(threads);
  desc.dynamicSmemBytes = uint32_t(smem);
  desc.alignBytes = uint32_t(align);
  if (!checkAttentionFields(align, desc.scale, desc.softcap, desc.causal, desc.windowRight, r))
    return false;

  const Value *grid = r.get("grid", Kind::Array, true);
  if (!grid || !parseGridDims(*grid, desc.grid, r))
    return false;
  std::vector<uint32_t> cluster;
  if (!r.readUIntArray("cluster", cluster, 3, 3, 1, 16, false))
    return false;
  if (!cluster.empty()) {
    desc.hasCluster = true;
    for (int i = 0; i < 3; ++i)
      desc.cluster[i] = cluster[i];
  }
  const Value *meta = root.find("meta");
  if (meta && meta->kind() != Kind::Object)
    return r.fail("\"meta\" must be an object");
  if (meta) {
    ObjectReader m(*meta, "\"meta\": ", error);
    if (!m.readNumber("rescale_threshold", desc.rescaleThreshold, false))
      return false;
    if (!(desc.rescaleThreshold >= 0.0 && std::isfinite(desc.rescaleThreshold)))
      return m.fail("\"rescale_threshold\" must be a finite number >= 0");
  }

  if (const Value *descale = root.find("descale"))
    if (!parseDescale(*descale, desc, error))
      return false;
  if (const Value *order = root.find("work_order"))
    if (!parseWorkOrder(*order, desc, error))
      return false;

  const Value *params = r.get("params", Kind::Array, true);
  if (!params)
    return false;
  for (size_t i = 0; i < params->asArray().size(); ++i)
    if (!parseParam(params->asArray()[i], i, desc, error))
      return false;
  if (!parseRuntimeScalars(desc, r))
    return false;
  if (hasScalarParam(desc, ScalarName::RescaleMargin) && desc.rescaleThreshold == 0.0)
    return r.fail("\"params\" has \"rescale_margin\" but \"meta\" has no positive "
                  "\"rescale_threshold\" to derive it from");
  if (desc.hasWorkOrder && !hasParamFrom(desc, ParamSource::TailPairs))
    return r.fail("\"work_order\" is present but \"params\" has no \"tail_pairs\"");
  if (desc.workspaceBytesPerCta && !hasParamFrom(desc, ParamSource::Workspace))
    return r.fail("\"workspace_bytes_per_cta\" is present but \"params\" has no "
                  "\"workspace\" pointer");
  return !desc.hasDescale || checkDescalePointers(desc, error);
}

double scalarParamValue(const KernelDescription &desc, ScalarName name, double scale,
                        double softcap) {
  switch (name) {
  case ScalarName::Scale:
    return scale;
  case ScalarName::ScaleLog2:
    return scale * M_LOG2E;
  case ScalarName::RescaleMargin:
    return desc.rescaleThreshold / (scale * M_LOG2E);
  case ScalarName::Softcap:
    return softcap;
  }
  return 0.0;
}

} // namespace fattn::runtime
