// k100lc codeobj: the code-object metadata document as a generic tree.
//
// The NT_AMDGPU_METADATA note holds a MessagePack document (amdhsa.version,
// amdhsa.target, amdhsa.kernels, ...). MetaNode keeps all of it, including keys
// this toolkit does not know (e.g. the vendor's `.fp64_status`), so objects
// round-trip unchanged. Maps keep their keys sorted by byte value, as LLVM
// writes them. This header also converts the tree to and from MessagePack
// (msgpack-cxx), parses the YAML of `.amdgpu_metadata` blocks with llvm-mc's
// scalar typing, and prints YAML the way `llvm-readelf -n` does.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace k100::codeobj {

class MetaNode {
 public:
  enum class Kind : uint8_t { Nil, Bool, Int, UInt, Float, String, Binary, Array, Map };
  using Array = std::vector<MetaNode>;
  using Map = std::vector<std::pair<std::string, MetaNode>>;  // sorted by key

  MetaNode() = default;  // Nil
  static MetaNode boolean(bool v);
  static MetaNode integer(int64_t v);    // Int
  static MetaNode uinteger(uint64_t v);  // UInt
  static MetaNode real(double v);
  static MetaNode string(std::string v);
  static MetaNode binary(std::string bytes);
  static MetaNode array(Array items = {});
  static MetaNode map();

  Kind kind() const { return kind_; }
  bool is_nil() const { return kind_ == Kind::Nil; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_integer() const { return kind_ == Kind::Int || kind_ == Kind::UInt; }
  bool is_string() const { return kind_ == Kind::String; }
  bool is_array() const { return kind_ == Kind::Array; }
  bool is_map() const { return kind_ == Kind::Map; }

  // Accessors throw k100::Error when the kind does not match (or the integer does not fit).
  bool as_bool() const;
  int64_t as_int() const;
  uint64_t as_uint() const;
  double as_float() const;
  const std::string& as_string() const;  // String or Binary
  const Array& items() const;
  Array& items();
  const Map& entries() const;

  // Map access. find() returns nullptr when the key is absent or this is not a map.
  const MetaNode* find(std::string_view key) const;
  MetaNode* find(std::string_view key);
  // Inserts (keeping the order) or replaces; a Nil node becomes a map first.
  MetaNode& set(std::string_view key, MetaNode value);
  // Returns the value for key, inserting Nil if absent; a Nil node becomes a map first.
  MetaNode& operator[](std::string_view key);
  bool erase(std::string_view key);

  // Array append; a Nil node becomes an array first.
  void push_back(MetaNode value);
  size_t size() const;  // elements of an array or map, 0 otherwise

  // Structural equality; Int and UInt compare by numeric value (MessagePack has no
  // signedness for non-negative numbers, so a round trip may change the kind).
  friend bool operator==(const MetaNode& a, const MetaNode& b);

  static std::string_view kind_name(Kind k);

 private:
  Kind kind_ = Kind::Nil;
  bool b_ = false;
  int64_t i_ = 0;
  uint64_t u_ = 0;
  double f_ = 0;
  std::string s_;
  Array arr_;
  Map map_;
};

// MessagePack encoding with sorted map keys and the smallest integer/string encodings,
// byte-identical to what LLVM writes for the same document.
std::vector<uint8_t> encode_msgpack(const MetaNode& node);

// Decodes one MessagePack document. Throws k100::Error naming `origin` for malformed or
// truncated data, non-string map keys, duplicate keys, nesting deeper than 64 and
// trailing bytes.
MetaNode decode_msgpack(std::span<const uint8_t> bytes, std::string_view origin);

// Parses the YAML of an `.amdgpu_metadata` block as llvm-mc does: untagged scalars are
// typed by content (quoting does not matter): integers (decimal, 0x, 0b, 0o, leading-0
// octal; unsigned first, then signed), booleans (y/n/yes/no/on/off/true/false in the usual
// capitalisations), floats (llvm-mc 14/15 store them as nil), else strings; "!str", "!int",
// "!bool", "!float", "!nil" tags force a type; an empty value is an empty array.
// `first_line` is the line of the YAML's first line in `origin` (for messages).
// Throws k100::Error with origin:line:col for syntax errors and ill-typed tagged scalars.
MetaNode parse_metadata_yaml(std::string_view text, std::string_view origin,
                             uint32_t first_line = 1);

// YAML text of the document, "---\n" ... "...\n", formatted like llvm-readelf -n.
std::string to_yaml(const MetaNode& node);

}  // namespace k100::codeobj
