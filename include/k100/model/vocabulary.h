// k100lc model: running GGUF language models. This module turns a GGUF file
// into something that generates text: the tokenizer (text <-> token ids,
// from the file's tokenizer.ggml.* metadata), the sampler (logits -> the next
// token), and the model layers and loader built on the kernels.
//
// This header holds a vocabulary as a GGUF file stores it: the token strings,
// scores and types, the BPE merges and the special-token ids and flags, read
// from the metadata without interpretation. `Tokenizer` (tokenizer.h) is
// built from it; tests and tools can also fill one in directly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace k100::quant {
class GgufFile;
}

namespace k100::model {

using TokenId = int32_t;
inline constexpr TokenId kNoToken = -1;

// tokenizer.ggml.token_type codes.
enum class TokenType : int32_t {
  Undefined = 0,
  Normal = 1,
  Unknown = 2,
  Control = 3,
  UserDefined = 4,
  Unused = 5,
  Byte = 6,
};

struct VocabularyData {
  std::string source;  // the file (or other origin) named in error messages

  std::string model;               // tokenizer.ggml.model: "llama" (SentencePiece) or "gpt2" (byte-level BPE)
  std::optional<std::string> pre;  // tokenizer.ggml.pre (absent: "default")
  std::vector<std::string> tokens;      // tokenizer.ggml.tokens
  std::vector<float> scores;            // tokenizer.ggml.scores (empty: all 0)
  std::vector<int32_t> token_types;     // tokenizer.ggml.token_type (empty: all Normal)
  std::vector<std::string> merges;      // tokenizer.ggml.merges, "left right", rank = index

  // tokenizer.ggml.<name>_token_id, when the key is present
  std::optional<uint32_t> bos, eos, eot, eom, unknown, padding;
  // tokenizer.ggml.add_bos_token, add_eos_token, add_space_prefix
  std::optional<bool> add_bos, add_eos, add_space_prefix;
  // More ids that end generation (a Hugging Face generation_config.json's
  // eos_token_id list); ids past the vocabulary are ignored.
  std::vector<uint32_t> end_of_generation;
};

// The tokenizer.ggml.* keys of a GGUF file. k100::Error naming the file and
// key when one is missing (model, tokens) or has the wrong type, or when the
// scores or token types are fewer than the tokens.
VocabularyData read_vocabulary(const quant::GgufFile& file);

}  // namespace k100::model
