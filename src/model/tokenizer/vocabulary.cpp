#include "k100/model/vocabulary.h"

#include "k100/base/error.h"
#include "k100/quant/gguf_reader.h"

namespace k100::model {
namespace {

using quant::GgufFile;
using quant::Value;
using quant::ValueType;

// Runs `read` on the key's value, prefixing any error with the file and key.
template <class F>
auto with_key(const GgufFile& file, const char* key, F&& read) {
  const Value& value = file.at(key);  // names the file and key when absent
  try {
    return read(value);
  } catch (const Error& e) {
    throw Error(file.path() + ": " + key + ": " + e.what());
  }
}

std::optional<uint32_t> optional_id(const GgufFile& file, const char* key) {
  if (!file.find(key)) return std::nullopt;
  return with_key(file, key, [&](const Value& v) {
    const uint64_t id = v.as_u64();
    if (id > UINT32_MAX) throw Error("token id " + std::to_string(id) + " does not fit in u32");
    return uint32_t(id);
  });
}

std::optional<bool> optional_flag(const GgufFile& file, const char* key) {
  if (!file.find(key)) return std::nullopt;
  return with_key(file, key, [](const Value& v) { return v.get<bool>(); });
}

}  // namespace

VocabularyData read_vocabulary(const GgufFile& file) {
  VocabularyData d;
  d.source = file.path();
  d.model = with_key(file, "tokenizer.ggml.model", [](const Value& v) { return v.as_string(); });
  if (file.find("tokenizer.ggml.pre"))
    d.pre = with_key(file, "tokenizer.ggml.pre", [](const Value& v) { return v.as_string(); });
  d.tokens = with_key(file, "tokenizer.ggml.tokens", [](const Value& v) { return v.strings(); });
  const size_t n = d.tokens.size();

  if (file.find("tokenizer.ggml.scores")) {
    d.scores = with_key(file, "tokenizer.ggml.scores", [&](const Value& v) {
      std::vector<float> s;
      // i32 scores are accepted too and read as floats
      if (v.is_array() && v.array_type() == ValueType::I32) {
        for (int32_t x : v.to_vector<int32_t>()) s.push_back(float(x));
      } else {
        s = v.to_vector<float>();
      }
      if (s.size() < n)
        throw Error(std::to_string(s.size()) + " scores for " + std::to_string(n) + " tokens");
      s.resize(n);
      return s;
    });
  }
  if (file.find("tokenizer.ggml.token_type")) {
    d.token_types = with_key(file, "tokenizer.ggml.token_type", [&](const Value& v) {
      std::vector<int32_t> t = v.to_vector<int32_t>();
      if (t.size() < n)
        throw Error(std::to_string(t.size()) + " token types for " + std::to_string(n) + " tokens");
      t.resize(n);
      return t;
    });
  }
  // byte-level BPE cannot work without its merges (an empty list is allowed)
  if (d.model == "gpt2" && !file.find("tokenizer.ggml.merges"))
    throw Error(file.path() + ": no metadata key 'tokenizer.ggml.merges' (needed by tokenizer.ggml.model \"gpt2\")");
  if (file.find("tokenizer.ggml.merges"))
    d.merges = with_key(file, "tokenizer.ggml.merges", [](const Value& v) { return v.strings(); });

  d.bos = optional_id(file, "tokenizer.ggml.bos_token_id");
  d.eos = optional_id(file, "tokenizer.ggml.eos_token_id");
  d.eot = optional_id(file, "tokenizer.ggml.eot_token_id");
  d.eom = optional_id(file, "tokenizer.ggml.eom_token_id");
  d.unknown = optional_id(file, "tokenizer.ggml.unknown_token_id");
  d.padding = optional_id(file, "tokenizer.ggml.padding_token_id");
  d.add_bos = optional_flag(file, "tokenizer.ggml.add_bos_token");
  d.add_eos = optional_flag(file, "tokenizer.ggml.add_eos_token");
  d.add_space_prefix = optional_flag(file, "tokenizer.ggml.add_space_prefix");
  return d;
}

}  // namespace k100::model
