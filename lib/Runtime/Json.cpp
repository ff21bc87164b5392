//===- Json.cpp - A small, strict JSON parser -----------------------------===//

#include "fattn/Runtime/Json.h"

#include <charconv>

namespace fattn::json {

const char *kindName(Kind kind) {
  switch (kind) {
  case Kind::Null: return "null";
  case Kind::Bool: return "bool";
  case Kind::Number: return "number";
  case Kind::String: return "string";
  case Kind::Array: return "array";
  case Kind::Object: return "object";
  }
  return "?";
}

Value Value::makeBool(bool b) {
  Value v;
  v.kind_ = Kind::Bool;
  v.bool_ = b;
  return v;
}
Value Value::makeNumber(double d, bool isInteger, int64_t integer) {
  Value v;
  v.kind_ = Kind::Number;
  v.number_ = d;
  v.isInteger_ = isInteger;
  v.integer_ = integer;
  return v;
}
Value Value::makeString(std::string s) {
  Value v;
  v.kind_ = Kind::String;
  v.string_ = std::move(s);
  return v;
}
Value Value::makeArray(Array a) {
  Value v;
  v.kind_ = Kind::Array;
  v.array_ = std::make_shared<const Array>(std::move(a));
  return v;
}
Value Value::makeObject(Object o) {
  Value v;
  v.kind_ = Kind::Object;
  v.object_ = std::make_shared<const Object>(std::move(o));
  return v;
}

const Value *Value::find(std::string_view key) const {
  if (kind_ != Kind::Object)
    return nullptr;
  auto it = object_->find(key);
  return it == object_->end() ? nullptr : &it->second;
}

namespace {

// Kernel descriptions are flat; the limit only stops stack exhaustion on
// hostile input.
constexpr int kMaxDepth = 64;

class Parser {
public:
  explicit Parser(std::string_view text) : text_(text) {}

  bool parseDocument(Value &result, std::string &error) {
    skipWhitespace();
    bool ok = parseValue(result, 0);
    if (ok) {
      skipWhitespace();
      if (!atEnd())
        ok = fail("unexpected characters after the JSON value");
    }
    if (!ok)
      error = error_;
    return ok;
  }

private:
  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;

  bool fail(const std::string &message) {
    if (!error_.empty())
      return false; // keep the innermost (first) message
    size_t line = 1, column = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    error_ = "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " +
             message;
    return false;
  }

  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }

  void skipWhitespace() {
    while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
      ++pos_;
  }

  bool expectLiteral(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word)
      return fail("invalid literal (expected '" + std::string(word) + "')");
    pos_ += word.size();
    return true;
  }

  bool parseValue(Value &out, int depth) {
    if (depth > kMaxDepth)
      return fail("nesting deeper than " + std::to_string(kMaxDepth));
    if (atEnd())
      return fail("unexpected end of input, expected a value");
    switch (peek()) {
    case '{': return parseObject(out, depth);
    case '[': return parseArray(out, depth);
    case '"': {
      std::string s;
      if (!parseString(s))
        return false;
      out = Value::makeString(std::move(s));
      return true;
    }
    case 't':
      out = Value::makeBool(true);
      return expectLiteral("true");
    case 'f':
      out = Value::makeBool(false);
      return expectLiteral("false");
    case 'n':
      out = Value();
      return expectLiteral("null");
    default:
      if (peek() == '-' || (peek() >= '0' && peek() <= '9'))
        return parseNumber(out);
      return fail(std::string("unexpected character '") + peek() + "'");
    }
  }

  bool parseObject(Value &out, int depth) {
    ++pos_; // '{'
    Object object;
    skipWhitespace();
    if (peek() == '}') {
      ++pos_;
      out = Value::makeObject(std::move(object));
      return true;
    }
    while (true) {
      skipWhitespace();
      if (peek() != '"')
        return fail("expected a string key");
      size_t keyPos = pos_;
      std::string key;
      if (!parseString(key))
        return false;
      skipWhitespace();
      if (peek() != ':')
        return fail("expected ':' after object key");
      ++pos_;
      skipWhitespace();
      Value member;
      if (!parseValue(member, depth + 1))
        return false;
      if (!object.emplace(key, std::move(member)).second) {
        pos_ = keyPos;
        return fail("duplicate key \"" + key + "\"");
      }
      skipWhitespace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == '}') {
        ++pos_;
        out = Value::makeObject(std::move(object));
        return true;
      }
      return fail("expected ',' or '}' in object");
    }
  }

  bool parseArray(Value &out, int depth) {
    ++pos_; // '['
    Array array;
    skipWhitespace();
    if (peek() == ']') {
      ++pos_;
      out = Value::makeArray(std::move(array));
      return true;
    }
    while (true) {
      skipWhitespace();
      Value element;
      if (!parseValue(element, depth + 1))
        return false;
      array.push_back(std::move(element));
      skipWhitespace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        out = Value::makeArray(std::move(array));
        return true;
      }
      return fail("expected ',' or ']' in array");
    }
  }

  bool parseHex4(uint32_t &code) {
    code = 0;
    for (int i = 0; i < 4; ++i, ++pos_) {
      char c = peek();
      code <<= 4;
      if (c >= '0' && c <= '9')
        code |= uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f')
        code |= uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        code |= uint32_t(c - 'A' + 10);
      else
        return fail("invalid \\u escape (expected 4 hex digits)");
    }
    return true;
  }

  static void appendUtf8(std::string &s, uint32_t cp) {
    if (cp < 0x80) {
      s += char(cp);
    } else if (cp < 0x800) {
      s += char(0xC0 | (cp >> 6));
      s += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      s += char(0xE0 | (cp >> 12));
      s += char(0x80 | ((cp >> 6) & 0x3F));
      s += char(0x80 | (cp & 0x3F));
    } else {
      s += char(0xF0 | (cp >> 18));
      s += char(0x80 | ((cp >> 12) & 0x3F));
      s += char(0x80 | ((cp >> 6) & 0x3F));
      s += char(0x80 | (cp & 0x3F));
    }
  }

  bool parseString(std::string &out) {
    ++pos_; // opening quote
    while (true) {
      if (atEnd())
        return fail("unterminated string");
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("control character in string (must be escaped)");
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      ++pos_;
      char e = peek();
      ++pos_;
      switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        uint32_t cp;
        if (!parseHex4(cp))
          return false;
        if (cp >= 0xD800 && cp <= 0xDBFF) { // high surrogate: a low one must follow
          uint32_t low;
          if (text_.substr(pos_, 2) != "\\u")
            return fail("unpaired UTF-16 surrogate in \\u escape");
          pos_ += 2;
          if (!parseHex4(low))
            return false;
          if (low < 0xDC00 || low > 0xDFFF)
            return fail("unpaired UTF-16 surrogate in \\u escape");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return fail("unpaired UTF-16 surrogate in \\u escape");
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        --pos_;
        return fail("invalid escape in string");
      }
    }
  }

  bool parseNumber(Value &out) {
    size_t start = pos_;
    bool isInteger = true;
    if (peek() == '-')
      ++pos_;
    if (peek() == '0') {
      ++pos_;
      if (peek() >= '0' && peek() <= '9')
        return fail("leading zeros are not allowed in numbers");
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9')
        ++pos_;
    } else {
      return fail("invalid number");
    }
    if (peek() == '.') {
      isInteger = false;
      ++pos_;
      if (!(peek() >= '0' && peek() <= '9'))
        return fail("expected a digit after '.'");
      while (peek() >= '0' && peek() <= '9')
        ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      isInteger = false;
      ++pos_;
      if (peek() == '+' || peek() == '-')
        ++pos_;
      if (!(peek() >= '0' && peek() <= '9'))
        return fail("expected a digit in the exponent");
      while (peek() >= '0' && peek() <= '9')
        ++pos_;
    }
    // from_chars, unlike strtod, ignores the C locale (a host program may
    // have set a decimal comma).
    const char *first = text_.data() + start, *last = text_.data() + pos_;
    double d = 0.0;
    auto [end, ec] = std::from_chars(first, last, d);
    if (ec != std::errc() || end != last) {
      pos_ = start;
      return fail("number out of range: " + std::string(first, last));
    }
    int64_t integer = 0;
    if (isInteger) {
      auto [intEnd, intEc] = std::from_chars(first, last, integer);
      if (intEc != std::errc() || intEnd != last)
        isInteger = false; // still a valid JSON number, just not an exact int64
    }
    out = Value::makeNumber(d, isInteger, integer);
    return true;
  }
};

} // namespace

bool parse(std::string_view text, Value &result, std::string &error) {
  Parser parser(text);
  return parser.parseDocument(result, error);
}

} // namespace fattn::json
