// k100lc quant: JSON documents of the safetensors world (a safetensors
// header, model.safetensors.index.json, an .rt4.json manifest, and for the
// model module config.json, tokenizer.json, generation_config.json).
//
// Parsing is strict where a lenient reader would guess: a syntax error is a
// k100::Error naming the file and the byte offset, and a key repeated inside
// one object is an error too (JSON leaves it undefined which value counts).
// Objects hold their keys sorted by name (a std::map: a tokenizer.json
// vocabulary of 150,000 keys parses in linear-logarithmic time, which a
// file-order object, searched linearly on every insert, does not). The small
// accessors below name the
// file and the key path in every message, so a wrong type or a missing key
// reads "config.json: 'num_attention_heads' is a string, expected an integer".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace k100::quant {

using Json = nlohmann::json;

// Parses `text`; `where` names it in messages (a path, or a path and a part).
Json parse_json(std::string_view text, const std::string& where);
// Reads and parses a whole file (k100::Error when it cannot be read).
Json read_json_file(const std::string& path);

// "string", "integer", "number", "object", ... for messages.
const char* json_kind(const Json& v);

// Accessors of one object's members. `where` names the document, `path` the
// object inside it ("" at the top, "quantization_config" below it ...).
class JsonObject {
 public:
  // k100::Error unless v is an object.
  JsonObject(const Json& v, std::string where, std::string path = "");

  const Json* find(std::string_view key) const;  // nullptr when absent (or null)
  bool has(std::string_view key) const { return find(key) != nullptr; }
  const Json& at(std::string_view key) const;     // k100::Error when absent
  JsonObject object(std::string_view key) const;
  std::optional<JsonObject> optional_object(std::string_view key) const;

  std::string string(std::string_view key) const;
  std::optional<std::string> optional_string(std::string_view key) const;
  int64_t integer(std::string_view key) const;
  std::optional<int64_t> optional_integer(std::string_view key) const;
  double number(std::string_view key) const;
  std::optional<double> optional_number(std::string_view key) const;
  bool boolean(std::string_view key) const;
  std::optional<bool> optional_boolean(std::string_view key) const;
  std::vector<int64_t> integers(std::string_view key) const;  // an array of integers
  std::vector<std::string> strings(std::string_view key) const;

  // "'key'" or "'path.key'" as messages quote it.
  std::string name(std::string_view key) const;
  [[noreturn]] void fail(std::string_view key, const std::string& why) const;
  const std::string& where() const { return where_; }
  const std::string& path() const { return path_; }
  const Json& json() const { return v_; }

 private:
  const Json& v_;
  std::string where_, path_;
};

// The value of an integer JSON number (k100::Error naming `what` for a
// fraction, a non-number or a value outside int64).
int64_t json_integer(const Json& v, const std::string& what);

}  // namespace k100::quant
