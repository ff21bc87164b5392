//===- DescriptionReader.cpp - Strict readers of description JSON ---------===//

#include "DescriptionReader.h"

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

} // namespace fattn::runtime::detail
