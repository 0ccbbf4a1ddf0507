// Vocabularies for the tokenizer tests, made from a corpus by the tests
// themselves: a SentencePiece-style vocabulary (<unk>, <s>, </s>, the 256
// byte tokens, special tokens, then frequent pieces with scores) and a
// byte-level BPE vocabulary learned by a small BPE trainer (the 256
// byte-level characters, the merged tokens, special tokens). Both are written
// as GGUF files with the project's GgufWriter, with enough llama
// architecture keys that libllama loads them with vocab_only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "k100/model/sampler.h"
#include "k100/model/vocabulary.h"

namespace k100::test {

// A text in English, Russian, Chinese, Japanese, Arabic, Hindi, Korean and
// Greek with emoji, digits, whitespace runs, contractions, combining marks
// and special-token markup.
std::string multilingual_text();

// A training corpus of about `bytes` bytes: the multilingual sentences,
// recombined, plus invented words and numbers (deterministic for a seed).
std::string training_corpus(size_t bytes, uint64_t seed);

// Special tokens both vocabularies carry after their regular tokens: control
// tokens, user-defined ones, an unused and an undefined one, and
// "<|eot_id|>" typed normal (which both tokenizers treat as control because
// of its text).
struct SpecialToken {
  std::string text;
  model::TokenType type;
};
std::vector<SpecialToken> special_tokens();

model::VocabularyData spm_vocabulary(const std::string& corpus, size_t n_pieces);
model::VocabularyData bpe_vocabulary(const std::string& corpus, size_t n_merges, const std::string& pre);

// The vocabulary as a llama-architecture GGUF file.
void write_vocabulary_gguf(const model::VocabularyData& v, const std::string& path);

// Random text for differential runs: fragments of many scripts, whitespace
// of every kind, digits, punctuation, special-token texts (whole and cut),
// random assigned code points, and with `invalid_utf8` stray bytes.
std::string random_text(model::Rng& rng, size_t max_units, bool invalid_utf8);

// A file in the test's temporary directory.
std::string temp_path(const std::string& name);

}  // namespace k100::test
