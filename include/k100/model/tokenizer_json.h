// k100lc model: Hugging Face tokenizer.json files read into the vocabulary
// the project's tokenizer runs (byte-level BPE, tokenizer.ggml.model "gpt2").
//
// What is read: model.vocab and model.merges (strings "a b" or pairs),
// added_tokens (special ones become control tokens, the others
// user-defined), the pre-tokenizer (the GPT-2 ByteLevel split, or a Split
// by the Llama-3 or the Qwen-2 expression followed by ByteLevel, mapped onto
// the pre-tokenizers "gpt-2", "llama-bpe" and "qwen2", whose rules are the
// same), and from the post-processor whether a BOS/EOS is added. Beside it,
// tokenizer_config.json names bos_token / eos_token and add_bos_token /
// add_eos_token. Anything with other rules (another model type, a
// SentencePiece-style BPE with byte fallback, another split expression, a
// normalizer other than NFC, a prefix space) is a k100::Error naming the
// file and the key rather than tokenizing differently.
#pragma once

#include <cstdint>
#include <string>

#include "k100/model/vocabulary.h"

namespace k100::model {

struct TokenizerJsonOptions {
  // Pad the token list with unused "[PAD<i>]" tokens to this many (the
  // model's vocabulary); 0: as many as the file has. Fewer than the file
  // has is an error.
  int64_t vocab_size = 0;
  // tokenizer_config.json; "" looks beside tokenizer.json (absent is fine).
  std::string tokenizer_config;
};

VocabularyData read_tokenizer_json(const std::string& path, const TokenizerJsonOptions& options = {});

}  // namespace k100::model
