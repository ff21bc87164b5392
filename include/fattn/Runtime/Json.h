//===- Json.h - A small, strict JSON parser -------------------------------===//
//
// The runtime reads kernel descriptions written by fattn-compile. It may not
// depend on LLVM (the GPU machine has no libLLVM), so it carries its own
// parser. "Strict" means RFC 8259 and nothing more: no comments, no trailing
// commas, no NaN/Infinity, no duplicate object keys, no bytes after the value.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_RUNTIME_JSON_H
#define FATTN_RUNTIME_JSON_H

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fattn::json {

class Value;
using Array = std::vector<Value>;
// std::map keeps keys sorted, which gives deterministic error messages.
using Object = std::map<std::string, Value, std::less<>>;

enum class Kind { Null, Bool, Number, String, Array, Object };

/// Returns "null", "bool", ... for error messages.
const char *kindName(Kind kind);

/// A parsed JSON value. Numbers keep their double value and, when the literal
/// was an integer that fits, an exact int64 (sizes and byte counts must not
/// pass through a double).
class Value {
public:
  Value() = default;
  static Value makeBool(bool b);
  static Value makeNumber(double d, bool isInteger, int64_t integer);
  static Value makeString(std::string s);
  static Value makeArray(Array a);
  static Value makeObject(Object o);

  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Kind::Null; }
  bool asBool() const { return bool_; }
  double asDouble() const { return number_; }
  bool isInteger() const { return kind_ == Kind::Number && isInteger_; }
  int64_t asInteger() const { return integer_; }
  const std::string &asString() const { return string_; }
  const Array &asArray() const { return *array_; }
  const Object &asObject() const { return *object_; }

  /// Object member lookup; nullptr when absent or when this is no object.
  const Value *find(std::string_view key) const;

private:
  Kind kind_ = Kind::Null;
  bool bool_ = false;
  bool isInteger_ = false;
  double number_ = 0.0;
  int64_t integer_ = 0;
  std::string string_;
  // shared_ptr keeps Value copyable without deep copies of large trees.
  std::shared_ptr<const Array> array_;
  std::shared_ptr<const Object> object_;
};

/// Parses `text`. On failure returns false and sets `error` to a message with
/// the line and column, e.g. "line 3, column 14: expected ',' or '}'".
bool parse(std::string_view text, Value &result, std::string &error);

} // namespace fattn::json

#endif // FATTN_RUNTIME_JSON_H
