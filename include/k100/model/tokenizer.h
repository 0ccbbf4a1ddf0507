// k100lc model: the tokenizer of a GGUF vocabulary (text <-> token ids).
//
// Two vocabulary kinds, chosen by tokenizer.ggml.model:
//  - "llama": SentencePiece-style. Spaces become U+2581, a space is put in
//    front of the text (and after every special token) when add_space_prefix
//    is on, adjacent pieces merge by highest score, and what no piece covers
//    falls back to the byte tokens <0x00>..<0xFF>.
//  - "gpt2": GPT-2 byte-level BPE. The text is split into words by the
//    pre-tokenizer tokenizer.ggml.pre names, each word's UTF-8 bytes are
//    spelled in the byte-level alphabet, and merges apply by rank.
// Control, user-defined and unknown tokens are matched in the text first
// (control and unknown ones only with parse_special; user-defined ones
// always), longest first. The ids are those llama.cpp's tokenizer gives for
// the same file and text; docs/TOKENIZER.md lists the pre-tokenizers
// supported and the few places where behaviour is defined differently.
//
// A Tokenizer is immutable once built and cheap to copy (shared state), so
// one can serve several threads.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "k100/model/vocabulary.h"

namespace k100::model {

enum class VocabKind { SentencePiece, BytePairGpt2 };

struct EncodeOptions {
  bool add_special = true;     // add BOS / EOS as the vocabulary asks (add_bos_token, add_eos_token)
  bool parse_special = false;  // match control tokens such as "<|im_start|>" in the text
};

struct DecodeOptions {
  bool remove_special = false;   // drop a leading BOS and a trailing EOS the vocabulary adds
  bool unparse_special = false;  // print control and unknown tokens (otherwise they print nothing)
};

class Tokenizer {
 public:
  // k100::Error naming the source and the key for an unsupported model or
  // pre-tokenizer, a duplicate token, an unparseable byte token.
  explicit Tokenizer(VocabularyData data);
  static Tokenizer from_gguf(const quant::GgufFile& file);
  static Tokenizer from_file(const std::string& path);

  // Text to ids. Invalid UTF-8 is accepted (SentencePiece: the bytes fall
  // back to byte tokens; BPE: each stray byte reads as U+FFFD).
  std::vector<TokenId> encode(std::string_view text, EncodeOptions options = {}) const;
  // Ids to text: pieces concatenated, byte tokens reassembled into UTF-8
  // (bytes that form no valid sequence are kept as they are). k100::Error
  // naming the position for an id outside the vocabulary.
  std::string decode(std::span<const TokenId> ids, DecodeOptions options = {}) const;
  // The bytes one token prints as (special: also control and unknown tokens).
  std::string token_to_piece(TokenId id, bool special = true) const;

  VocabKind kind() const;
  // The pre-tokenizer in use ("" for SentencePiece vocabularies).
  const std::string& pre_tokenizer() const;
  size_t size() const;  // number of tokens
  const std::string& token_text(TokenId id) const;  // as stored in the file
  float token_score(TokenId id) const;
  TokenType token_type(TokenId id) const;  // as stored in the file
  // Effective attributes: control also covers end-of-generation texts such
  // as "<|im_end|>" that a file marks as normal (they are matched as special
  // tokens and hidden in output, as llama.cpp does).
  bool is_control(TokenId id) const;
  bool is_byte(TokenId id) const;
  // Ends generation: EOS, EOT, EOM and the end-of-turn texts docs/TOKENIZER.md lists.
  bool is_end_of_generation(TokenId id) const;
  std::vector<TokenId> end_of_generation_ids() const;
  // The id of a token text, kNoToken when the vocabulary has none.
  TokenId find(std::string_view text) const;

  TokenId bos() const;  // kNoToken when there is none
  TokenId eos() const;
  TokenId unknown() const;
  TokenId padding() const;
  bool add_bos() const;
  bool add_eos() const;
  bool add_space_prefix() const;

  // Pre-tokenizer names accepted in tokenizer.ggml.pre, and the names
  // llama.cpp knows that this implementation refuses.
  static std::vector<std::string> supported_pre_tokenizers();
  static std::vector<std::string> unsupported_pre_tokenizers();
  // The Unicode version of the character tables ("15.0.0").
  static const char* unicode_version();

  struct State;  // the built vocabulary (src/model/tokenizer/tokenizer_state.h)

 private:
  std::shared_ptr<const State> s_;
};

}  // namespace k100::model
