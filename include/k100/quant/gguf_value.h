// k100lc quant: a typed GGUF metadata value (one scalar, one string, or an
// array of any value type, arrays nested in arrays included).
//
// Values own their data, so they outlive the file they were read from and
// the same type feeds the writer. Numeric and bool arrays keep their raw
// little-endian bytes (a 256k-entry score array is one allocation); string
// arrays keep a vector of strings; nested arrays keep a vector of values.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace k100::quant {

// The GGUF value type codes, as stored in the file.
enum class ValueType : uint32_t {
  U8 = 0,
  I8 = 1,
  U16 = 2,
  I16 = 3,
  U32 = 4,
  I32 = 5,
  F32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  U64 = 10,
  I64 = 11,
  F64 = 12,
};

// "u32", "string", "array", ...; "type 13" for an undefined code.
std::string value_type_name(uint32_t code);
inline std::string value_type_name(ValueType t) { return value_type_name(uint32_t(t)); }

// Bytes of one element of a fixed-size type (0 for string and array).
size_t value_type_size(ValueType t);

class Value {
 public:
  Value() = default;  // a u8 zero

  // Scalars: the C++ type picks the GGUF type (uint32_t -> u32, float -> f32,
  // bool -> bool, ...).
  template <class T>
    requires std::is_arithmetic_v<T>
  static Value of(T v) {
    Value r;
    r.type_ = scalar_type_of<T>();
    std::memcpy(&r.bits_, &v, sizeof v);
    return r;
  }
  static Value string(std::string s);

  // Arrays of numbers or bools from a span, of strings, of values (nested).
  template <class T>
    requires std::is_arithmetic_v<T>
  static Value array(std::span<const T> items) {
    Value r;
    r.type_ = ValueType::Array;
    r.elem_ = scalar_type_of<T>();
    r.count_ = items.size();
    r.raw_.resize(items.size_bytes());
    if (!items.empty()) std::memcpy(r.raw_.data(), items.data(), items.size_bytes());
    return r;
  }
  static Value string_array(std::vector<std::string> items);
  static Value array_of(std::vector<Value> items);  // nested: each item is an array
  // An array of a fixed-size type from its raw little-endian bytes.
  static Value raw_array(ValueType elem, uint64_t count, std::vector<uint8_t> bytes);

  ValueType type() const { return type_; }
  bool is_array() const { return type_ == ValueType::Array; }

  // Scalar access. The checked getters throw k100::Error naming the actual
  // type when it is not the one asked for; the widening ones accept any
  // integer (as_u64 rejects negative values) or any number (as_f64).
  template <class T>
    requires std::is_arithmetic_v<T>
  T get() const {
    expect_scalar(scalar_type_of<T>());
    T v;
    std::memcpy(&v, &bits_, sizeof v);
    return v;
  }
  uint64_t as_u64() const;
  int64_t as_i64() const;
  double as_f64() const;
  const std::string& as_string() const;
  // The scalar's bytes (1, 2, 4 or 8 of them, little-endian).
  std::span<const uint8_t> scalar_bytes() const;

  // Array access.
  ValueType array_type() const;  // element type
  uint64_t size() const;         // element count
  std::span<const uint8_t> array_bytes() const;  // fixed-size element types
  const std::vector<std::string>& strings() const;
  const std::vector<Value>& items() const;  // nested arrays
  template <class T>
    requires std::is_arithmetic_v<T>
  std::vector<T> to_vector() const {
    expect_array_of(scalar_type_of<T>());
    std::vector<T> out(count_);
    if (count_) std::memcpy(out.data(), raw_.data(), raw_.size());
    return out;
  }

  // A short human-readable rendering ("42", "\"llama\"", "[u32 x 3: 1, 2, 3]"),
  // arrays shortened after `max_items` elements.
  std::string to_string(size_t max_items = 8) const;

  bool operator==(const Value& o) const;

 private:
  template <class T>
  static constexpr ValueType scalar_type_of() {
    if constexpr (std::is_same_v<T, bool>) return ValueType::Bool;
    else if constexpr (std::is_same_v<T, float>) return ValueType::F32;
    else if constexpr (std::is_same_v<T, double>) return ValueType::F64;
    else if constexpr (std::is_integral_v<T> && sizeof(T) == 1) return std::is_signed_v<T> ? ValueType::I8 : ValueType::U8;
    else if constexpr (std::is_integral_v<T> && sizeof(T) == 2) return std::is_signed_v<T> ? ValueType::I16 : ValueType::U16;
    else if constexpr (std::is_integral_v<T> && sizeof(T) == 4) return std::is_signed_v<T> ? ValueType::I32 : ValueType::U32;
    else {
      static_assert(std::is_integral_v<T> && sizeof(T) == 8, "no GGUF type for this C++ type");
      return std::is_signed_v<T> ? ValueType::I64 : ValueType::U64;
    }
  }
  void expect_scalar(ValueType want) const;
  void expect_array_of(ValueType want) const;

  ValueType type_ = ValueType::U8;
  ValueType elem_ = ValueType::U8;  // arrays only
  uint64_t bits_ = 0;               // scalars: the value's bytes
  uint64_t count_ = 0;              // arrays only
  std::string str_;
  std::vector<uint8_t> raw_;
  std::vector<std::string> strings_;
  std::vector<Value> items_;
};

// One metadata entry, in file order.
struct KeyValue {
  std::string key;
  Value value;
};

}  // namespace k100::quant
