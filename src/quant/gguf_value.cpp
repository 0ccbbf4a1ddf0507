#include "k100/quant/gguf_value.h"

#include <cstdio>

#include "k100/base/error.h"

namespace k100::quant {
namespace {

constexpr const char* kNames[] = {"u8",  "i8",   "u16",    "i16",   "u32", "i32", "f32",
                                  "bool", "string", "array", "u64", "i64", "f64"};

bool is_integer(ValueType t) {
  switch (t) {
    case ValueType::U8: case ValueType::I8: case ValueType::U16: case ValueType::I16:
    case ValueType::U32: case ValueType::I32: case ValueType::U64: case ValueType::I64:
      return true;
    default:
      return false;
  }
}

bool is_signed(ValueType t) {
  return t == ValueType::I8 || t == ValueType::I16 || t == ValueType::I32 || t == ValueType::I64;
}

// The scalar at `p` of type t as a signed 64-bit value (unsigned 64-bit
// values above INT64_MAX wrap; callers check).
int64_t load_integer(ValueType t, const uint8_t* p) {
  switch (t) {
    case ValueType::U8: return p[0];
    case ValueType::I8: return int8_t(p[0]);
    case ValueType::U16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case ValueType::I16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case ValueType::U32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    case ValueType::I32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    default: { int64_t v; std::memcpy(&v, p, 8); return v; }
  }
}

std::string format_scalar(ValueType t, const uint8_t* p) {
  char buf[64];
  switch (t) {
    case ValueType::Bool: return p[0] ? "true" : "false";
    case ValueType::F32: { float v; std::memcpy(&v, p, 4); std::snprintf(buf, sizeof buf, "%.9g", double(v)); return buf; }
    case ValueType::F64: { double v; std::memcpy(&v, p, 8); std::snprintf(buf, sizeof buf, "%.17g", v); return buf; }
    case ValueType::U64: { uint64_t v; std::memcpy(&v, p, 8); return std::to_string(v); }
    default: return std::to_string(load_integer(t, p));
  }
}

std::string quoted(const std::string& s, size_t max_chars = 200) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size() && i < max_chars; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') out += '\\', out += char(c);
    else if (c == '\n') out += "\\n";
    else if (c < 0x20 || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else out += char(c);
  }
  if (s.size() > max_chars) out += "...";
  return out + "\"";
}

}  // namespace

std::string value_type_name(uint32_t code) {
  return code < std::size(kNames) ? kNames[code] : "type " + std::to_string(code);
}

size_t value_type_size(ValueType t) {
  switch (t) {
    case ValueType::U8: case ValueType::I8: case ValueType::Bool: return 1;
    case ValueType::U16: case ValueType::I16: return 2;
    case ValueType::U32: case ValueType::I32: case ValueType::F32: return 4;
    case ValueType::U64: case ValueType::I64: case ValueType::F64: return 8;
    default: return 0;
  }
}

Value Value::string(std::string s) {
  Value r;
  r.type_ = ValueType::String;
  r.str_ = std::move(s);
  return r;
}

Value Value::string_array(std::vector<std::string> items) {
  Value r;
  r.type_ = ValueType::Array;
  r.elem_ = ValueType::String;
  r.count_ = items.size();
  r.strings_ = std::move(items);
  return r;
}

Value Value::array_of(std::vector<Value> items) {
  for (size_t i = 0; i < items.size(); ++i)
    if (!items[i].is_array())
      throw Error("array of arrays: item " + std::to_string(i) + " is a " + value_type_name(items[i].type()));
  Value r;
  r.type_ = ValueType::Array;
  r.elem_ = ValueType::Array;
  r.count_ = items.size();
  r.items_ = std::move(items);
  return r;
}

Value Value::raw_array(ValueType elem, uint64_t count, std::vector<uint8_t> bytes) {
  const size_t size = value_type_size(elem);
  if (size == 0) throw Error("raw array: " + value_type_name(elem) + " elements have no fixed size");
  if (bytes.size() / size != count || bytes.size() % size != 0)
    throw Error("raw array: " + std::to_string(bytes.size()) + " bytes do not hold " + std::to_string(count) +
                " " + value_type_name(elem) + " elements");
  Value r;
  r.type_ = ValueType::Array;
  r.elem_ = elem;
  r.count_ = count;
  r.raw_ = std::move(bytes);
  return r;
}

void Value::expect_scalar(ValueType want) const {
  if (type_ != want)
    throw Error("metadata value is " + value_type_name(type_) + ", not " + value_type_name(want));
}

void Value::expect_array_of(ValueType want) const {
  if (type_ != ValueType::Array || elem_ != want)
    throw Error("metadata value is " +
                (type_ == ValueType::Array ? "an array of " + value_type_name(elem_) : value_type_name(type_)) +
                ", not an array of " + value_type_name(want));
}

uint64_t Value::as_u64() const {
  if (!is_integer(type_)) throw Error("metadata value is " + value_type_name(type_) + ", not an integer");
  const int64_t v = load_integer(type_, reinterpret_cast<const uint8_t*>(&bits_));
  if (is_signed(type_) && v < 0) throw Error("metadata value " + std::to_string(v) + " is negative");
  return type_ == ValueType::U64 ? bits_ : uint64_t(v);
}

int64_t Value::as_i64() const {
  if (!is_integer(type_)) throw Error("metadata value is " + value_type_name(type_) + ", not an integer");
  if (type_ == ValueType::U64 && bits_ > uint64_t(INT64_MAX))
    throw Error("metadata value " + std::to_string(bits_) + " does not fit in int64");
  return load_integer(type_, reinterpret_cast<const uint8_t*>(&bits_));
}

double Value::as_f64() const {
  if (type_ == ValueType::F32) return double(get<float>());
  if (type_ == ValueType::F64) return get<double>();
  if (type_ == ValueType::U64) return double(bits_);
  if (is_integer(type_)) return double(load_integer(type_, reinterpret_cast<const uint8_t*>(&bits_)));
  throw Error("metadata value is " + value_type_name(type_) + ", not a number");
}

const std::string& Value::as_string() const {
  expect_scalar(ValueType::String);
  return str_;
}

std::span<const uint8_t> Value::scalar_bytes() const {
  const size_t n = value_type_size(type_);
  if (n == 0) throw Error("metadata value is " + value_type_name(type_) + ", not a fixed-size scalar");
  return {reinterpret_cast<const uint8_t*>(&bits_), n};
}

ValueType Value::array_type() const {
  if (!is_array()) throw Error("metadata value is " + value_type_name(type_) + ", not an array");
  return elem_;
}

uint64_t Value::size() const {
  array_type();
  return count_;
}

std::span<const uint8_t> Value::array_bytes() const {
  if (!is_array() || value_type_size(elem_) == 0)
    throw Error("metadata value is not an array of fixed-size elements");
  return raw_;
}

const std::vector<std::string>& Value::strings() const {
  expect_array_of(ValueType::String);
  return strings_;
}

const std::vector<Value>& Value::items() const {
  expect_array_of(ValueType::Array);
  return items_;
}

std::string Value::to_string(size_t max_items) const {
  if (type_ == ValueType::String) return quoted(str_);
  if (!is_array()) return format_scalar(type_, reinterpret_cast<const uint8_t*>(&bits_));
  std::string out = "[" + value_type_name(elem_) + " x " + std::to_string(count_);
  const uint64_t shown = std::min<uint64_t>(count_, max_items);
  for (uint64_t i = 0; i < shown; ++i) {
    out += i ? ", " : ": ";
    if (elem_ == ValueType::String) out += quoted(strings_[i], 60);
    else if (elem_ == ValueType::Array) out += items_[i].to_string(max_items);
    else out += format_scalar(elem_, raw_.data() + i * value_type_size(elem_));
  }
  if (shown < count_) out += ", ...";
  return out + "]";
}

bool Value::operator==(const Value& o) const {
  if (type_ != o.type_) return false;
  if (type_ == ValueType::String) return str_ == o.str_;
  if (!is_array()) return bits_ == o.bits_;
  return elem_ == o.elem_ && count_ == o.count_ && raw_ == o.raw_ && strings_ == o.strings_ && items_ == o.items_;
}

}  // namespace k100::quant
