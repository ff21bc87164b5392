//===- DescriptionReader.h - Strict readers of description JSON -*- C++ -*-===//
//
// What the forward's and the backward's description parsers share: typed
// field readers that record the first error with its location, size names
// and grids. Internal to lib/Runtime.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_LIB_RUNTIME_DESCRIPTIONREADER_H
#define FATTN_LIB_RUNTIME_DESCRIPTIONREADER_H

#include "fattn/Runtime/Json.h"
#include "fattn/Runtime/KernelDescription.h"

#include <initializer_list>
#include <string>
#include <vector>

namespace fattn::runtime::detail {

using json::Kind;
using json::Value;

/// Reads typed fields out of one JSON object, recording the first error with
/// its location ("params[2].box").
class ObjectReader {
public:
  ObjectReader(const Value &object, std::string where, std::string &error)
      : object_(object), where_(std::move(where)), error_(error) {}

  bool fail(const std::string &message) {
    if (error_.empty())
      error_ = "kernel description: " + where_ + message;
    return false;
  }
  std::string at(const char *key) const { return where_ + key + ": "; }

  /// Every key must be one of `known`: a misspelt optional key must not be
  /// silently ignored.
  bool checkKeys(std::initializer_list<const char *> known) {
    for (const auto &[key, value] : object_.asObject()) {
      bool found = false;
      for (const char *k : known)
        found |= key == k;
      if (!found) {
        std::string list;
        for (const char *k : known)
          list += std::string(list.empty() ? "" : ", ") + k;
        return fail("unknown key \"" + key + "\" (known keys: " + list + ")");
      }
    }
    return true;
  }

  const Value *get(const char *key, Kind kind, bool required) {
    const Value *v = object_.find(key);
    if (!v) {
      if (required)
        fail("missing required key \"" + std::string(key) + "\"");
      return nullptr;
    }
    if (v->kind() != kind) {
      fail(std::string("\"") + key + "\" must be a " + json::kindName(kind) + ", found a " +
           json::kindName(v->kind()));
      return nullptr;
    }
    return v;
  }

  bool readString(const char *key, std::string &out, bool required = true) {
    const Value *v = get(key, Kind::String, required);
    if (v)
      out = v->asString();
    return v || (!required && error_.empty());
  }

  bool readBool(const char *key, bool &out, bool required = true) {
    const Value *v = get(key, Kind::Bool, required);
    if (v)
      out = v->asBool();
    return v || (!required && error_.empty());
  }

  bool readInt(const char *key, int64_t &out, int64_t lo, int64_t hi, bool required = true) {
    const Value *v = get(key, Kind::Number, required);
    if (!v)
      return !required && error_.empty();
    if (!v->isInteger())
      return fail(std::string("\"") + key + "\" must be an integer");
    if (v->asInteger() < lo || v->asInteger() > hi)
      return fail(std::string("\"") + key + "\" = " + std::to_string(v->asInteger()) +
                  " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    out = v->asInteger();
    return true;
  }

  bool readNumber(const char *key, double &out, bool required = true) {
    const Value *v = get(key, Kind::Number, required);
    if (v)
      out = v->asDouble();
    return v || (!required && error_.empty());
  }

  bool readUIntArray(const char *key, std::vector<uint32_t> &out, size_t minLen, size_t maxLen,
                     int64_t lo, int64_t hi, bool required = true) {
    const Value *v = get(key, Kind::Array, required);
    if (!v)
      return !required && error_.empty();
    const auto &a = v->asArray();
    if (a.size() < minLen || a.size() > maxLen)
      return fail(std::string("\"") + key + "\" must have " + std::to_string(minLen) +
                  (minLen == maxLen ? "" : " to " + std::to_string(maxLen)) + " entries, found " +
                  std::to_string(a.size()));
    out.clear();
    for (const Value &e : a) {
      if (!e.isInteger() || e.asInteger() < lo || e.asInteger() > hi)
        return fail(std::string("\"") + key + "\" entries must be integers in [" +
                    std::to_string(lo) + ", " + std::to_string(hi) + "]");
      out.push_back(uint32_t(e.asInteger()));
    }
    return true;
  }

  bool ok() const { return error_.empty(); }

private:
  const Value &object_;
  std::string where_;
  std::string &error_;
};

/// Parses `text` into `root`, which must be an object; false with `error`
/// ("kernel description: invalid JSON: ...") otherwise. Clears `error` first.
bool parseDescriptionRoot(std::string_view text, Value &root, std::string &error);

/// The size a grid dimension or a parameter names ("batch", "seq_q", ...).
bool lookupSize(std::string_view name, SizeName &size);

/// The "type" field of a parameter, one of `allowed` ("\"type\" = \"x\" is
/// not one of ptr, u32" otherwise).
bool readParamType(ObjectReader &r, std::initializer_list<ParamType> allowed, ParamType &out);

/// An element type field ("bf16"); an absent optional one leaves `out`.
bool readDType(ObjectReader &r, const char *key, DType &out, bool required);

/// "grid": 1 to 3 entries [size name, divisor], appended to `out`.
bool parseGridDims(const Value &grid, std::vector<GridDim> &out, ObjectReader &r);

/// "arch" is of the form sm_XY or sm_XYa.
bool checkArch(const std::string &arch, ObjectReader &r);

/// The rules that the forward's and the backward's descriptions share on
/// fields already read: "align_bytes" a power of two, "scale" positive and
/// finite, "softcap" finite and at least 0, "window_right" 0 where "causal".
bool checkAttentionFields(int64_t alignBytes, double scale, double softcap, bool causal,
                          int64_t windowRight, ObjectReader &r);

/// Appends `param` to `params` unless a parameter there has its name.
template <typename ParamSpecT>
bool appendUniqueParam(std::vector<ParamSpecT> &params, ParamSpecT param, ObjectReader &r) {
  for (const ParamSpecT &other : params)
    if (other.name == param.name)
      return r.fail("duplicate parameter name \"" + param.name + "\"");
  params.push_back(std::move(param));
  return true;
}

} // namespace fattn::runtime::detail

#endif // FATTN_LIB_RUNTIME_DESCRIPTIONREADER_H
