//===- DescriptionReader.cpp - Strict readers of description JSON ---------===//

#include "DescriptionReader.h"

#include <cmath>

namespace fattn::runtime::detail {

bool parseDescriptionRoot(std::string_view text, Value &root, std::string &error) {
  error.clear();
  std::string jsonError;
  if (!json::parse(text, root, jsonError)) {
    error = "kernel description: invalid JSON: " + jsonError;
    return false;
  }
  if (root.kind() != Kind::Object) {
    error = "kernel description: the top level must be an object";
    return false;
  }
  return true;
}

bool lookupSize(std::string_view name, SizeName &size) {
  for (SizeName s : {SizeName::Batch, SizeName::HeadsQ, SizeName::HeadsKV, SizeName::SeqQ,
                     SizeName::SeqK, SizeName::NumSMs}) {
    if (name == sizeName(s)) {
      size = s;
      return true;
    }
  }
  return false;
}

bool readParamType(ObjectReader &r, std::initializer_list<ParamType> allowed, ParamType &out) {
  std::string type;
  if (!r.readString("type", type))
    return false;
  std::string names;
  for (ParamType t : allowed) {
    if (type == paramTypeName(t)) {
      out = t;
      return true;
    }
    names += std::string(names.empty() ? "" : ", ") + paramTypeName(t);
  }
  return r.fail("\"type\" = \"" + type + "\" is not one of " + names);
}

bool readDType(ObjectReader &r, const char *key, DType &out, bool required) {
  std::string name;
  if (!r.readString(key, name, required))
    return false;
  if (name.empty() && !required)
    return true;
  if (!parseDType(name, out))
    return r.fail(std::string("\"") + key + "\" = \"" + name +
                  "\" is not an element type (f16, bf16, f32, e4m3, e5m2)");
  return true;
}

bool parseGridDims(const Value &grid, std::vector<GridDim> &out, ObjectReader &r) {
  const auto &dims = grid.asArray();
  if (dims.empty() || dims.size() > 3)
    return r.fail("\"grid\" must have 1 to 3 entries, found " + std::to_string(dims.size()));
  for (size_t i = 0; i < dims.size(); ++i) {
    const Value &d = dims[i];
    std::string at = "\"grid\"[" + std::to_string(i) + "]";
    if (d.kind() != Kind::Array || d.asArray().size() != 2 ||
        d.asArray()[0].kind() != Kind::String || !d.asArray()[1].isInteger())
      return r.fail(at + " must be [size name, divisor]");
    GridDim g;
    if (!lookupSize(d.asArray()[0].asString(), g.size))
      return r.fail(at + ": \"" + d.asArray()[0].asString() +
                    "\" is not one of batch, heads_q, heads_kv, seq_q, seq_k, num_sms");
    int64_t divisor = d.asArray()[1].asInteger();
    if (divisor < 1 || divisor > (int64_t(1) << 31))
      return r.fail(at + ": the divisor must be in [1, 2^31]");
    g.divisor = uint32_t(divisor);
    out.push_back(g);
  }
  return true;
}

bool checkArch(const std::string &arch, ObjectReader &r) {
  if (arch.rfind("sm_", 0) != 0 || arch.size() < 5)
    return r.fail("\"arch\" = \"" + arch + "\" is not of the form sm_XY or sm_XYa");
  return true;
}

bool checkAttentionFields(int64_t alignBytes, double scale, double softcap, bool causal,
                          int64_t windowRight, ObjectReader &r) {
  if (alignBytes & (alignBytes - 1))
    return r.fail("\"align_bytes\" must be a power of two");
  if (!(scale > 0.0) || !std::isfinite(scale))
    return r.fail("\"scale\" must be a positive finite number");
  if (!(softcap >= 0.0) || !std::isfinite(softcap))
    return r.fail("\"softcap\" must be a finite number >= 0");
  if (causal && windowRight != 0)
    return r.fail("\"causal\" is true, so \"window_right\" must be 0");
  return true;
}

} // namespace fattn::runtime::detail
