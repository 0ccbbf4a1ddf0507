// The tokenizer against llama.cpp's (libllama through dlopen): vocabularies
// made by the tests, written with GgufWriter, loaded by both; the same ids
// for a multilingual text and for random strings, the same pieces and
// decoded text, the same special-token attributes.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <memory>

#include "k100/base/error.h"
#include "k100/model/tokenizer.h"
#include "llama_oracle.h"
#include "test_vocabularies.h"

namespace k100::model {
namespace {

using test::LlamaOracle;

constexpr uint32_t kLlamaAttrControl = 1u << 3;

// Everything the two tokenizers say about one file.
class Pair {
 public:
  Pair(const LlamaOracle& o, const VocabularyData& v, const std::string& name) : path_(test::temp_path(name + ".gguf")) {
    test::write_vocabulary_gguf(v, path_);
    ours_ = std::make_unique<Tokenizer>(Tokenizer::from_file(path_));
    theirs_ = o.load_vocab(path_);
    if (!theirs_) ADD_FAILURE() << "libllama refused " << path_ << ":\n" << o.last_log();
  }
  bool ok() const { return theirs_ != nullptr; }
  const Tokenizer& ours() const { return *ours_; }
  const LlamaOracle::Vocab& theirs() const { return *theirs_; }

  // Same ids for every option combination, and the same decoded text for
  // every decode option; returns the number of mismatches (each reported).
  int compare_text(const std::string& text, const std::string& what, int max_reports = 5) const {
    int bad = 0;
    for (bool add : {false, true}) {
      for (bool parse : {false, true}) {
        const std::vector<TokenId> a = ours_->encode(text, {add, parse});
        const std::vector<int32_t> b = theirs_->tokenize(text, add, parse);
        if (a != b) {
          if (++bad <= max_reports)
            ADD_FAILURE() << what << " add_special=" << add << " parse_special=" << parse << "\n text: "
                          << escaped(text) << "\n ours:   " << ids(a) << "\n llama:  " << ids(b);
          continue;
        }
        for (bool remove : {false, true}) {
          for (bool unparse : {false, true}) {
            const std::string da = ours_->decode(a, {remove, unparse});
            const std::string db = theirs_->detokenize(b, remove, unparse);
            if (da != db && ++bad <= max_reports)
              ADD_FAILURE() << what << " decode remove_special=" << remove << " unparse_special=" << unparse
                            << "\n ids: " << ids(a) << "\n ours:  " << escaped(da) << "\n llama: " << escaped(db);
          }
        }
      }
    }
    return bad;
  }

  void compare_vocabulary() const {
    ASSERT_EQ(int32_t(ours_->size()), theirs_->size());
    EXPECT_EQ(ours_->bos(), theirs_->bos());
    EXPECT_EQ(ours_->eos(), theirs_->eos());
    EXPECT_EQ(ours_->add_bos(), theirs_->add_bos());
    EXPECT_EQ(ours_->add_eos(), theirs_->add_eos());
    int bad = 0;
    for (TokenId id = 0; id < TokenId(ours_->size()) && bad < 10; ++id) {
      for (bool special : {false, true}) {
        if (ours_->token_to_piece(id, special) != theirs_->token_to_piece(id, special)) {
          ++bad;
          ADD_FAILURE() << "piece of " << id << " special=" << special << ": ours "
                        << escaped(ours_->token_to_piece(id, special)) << ", llama "
                        << escaped(theirs_->token_to_piece(id, special));
        }
      }
      if (ours_->is_control(id) != bool(theirs_->attr(id) & kLlamaAttrControl)) {
        ++bad;
        ADD_FAILURE() << "control attribute of " << id << " (" << escaped(ours_->token_text(id)) << ")";
      }
      if (ours_->is_end_of_generation(id) != theirs_->is_eog(id)) {
        ++bad;
        ADD_FAILURE() << "end-of-generation of " << id << " (" << escaped(ours_->token_text(id)) << ")";
      }
    }
  }

  static std::string ids(const std::vector<int32_t>& v) {
    std::string s;
    for (int32_t x : v) s += std::to_string(x) + " ";
    return s;
  }
  static std::string escaped(const std::string& t) {
    std::string s;
    for (unsigned char c : t) {
      if (c >= 0x20 && c < 0x7F && c != '\\') {
        s += char(c);
      } else {
        char b[8];
        std::snprintf(b, sizeof b, "\\x%02X", c);
        s += b;
      }
    }
    return s;
  }

 private:
  std::string path_;
  std::unique_ptr<Tokenizer> ours_;
  std::unique_ptr<LlamaOracle::Vocab> theirs_;
};

const std::string& corpus() {
  static const std::string c = test::training_corpus(40000, 2024);
  return c;
}

// Random strings through both tokenizers; fails after the first few mismatches.
void fuzz(const Pair& p, uint64_t seed, int n, bool invalid_utf8) {
  Rng rng(seed);
  int bad = 0;
  for (int i = 0; i < n && bad < 5; ++i) {
    const std::string t = test::random_text(rng, 40, invalid_utf8);
    bad += p.compare_text(t, "random text " + std::to_string(i), 5 - bad);
  }
}

TEST(TokenizerVsLlama, SentencePiece) {
  K100_REQUIRE_LLAMA(oracle);
  const VocabularyData v = test::spm_vocabulary(corpus(), 2000);
  Pair p(*oracle, v, "spm");
  ASSERT_TRUE(p.ok());
  p.compare_vocabulary();
  EXPECT_EQ(p.compare_text(test::multilingual_text(), "multilingual text"), 0);
  // it really is tokenized: some pieces longer than one character, byte fallback used
  const std::vector<TokenId> ids = p.ours().encode(test::multilingual_text());
  EXPECT_LT(ids.size(), test::multilingual_text().size() / 2);
  EXPECT_TRUE(std::any_of(ids.begin(), ids.end(), [&](TokenId id) { return p.ours().is_byte(id); }));
  // and decodes back, for text without user-defined tokens (a space is put
  // in front of the text after each of them)
  std::string plain = test::multilingual_text();
  for (const char* tag : {"<tool_call>", "</tool_call>", "<|im"})
    for (size_t at; (at = plain.find(tag)) != std::string::npos;) plain.erase(at, std::string(tag).size());
  const std::vector<TokenId> plain_ids = p.ours().encode(plain, {false, false});
  EXPECT_EQ(p.ours().decode(plain_ids), plain);
  EXPECT_EQ(p.theirs().detokenize(plain_ids, false, false), plain);
  for (const char* s : {"", " ", "  ", "a", " a", "\n", "<s>", "</s>", "<unk>", "<s><s>", "x<|im_start|>y", "<tool_call>",
                        "\xE2\x96\x81", "\xE4" "ab", "\xFF\xFE", "\xC0\x80"})
    EXPECT_EQ(p.compare_text(s, "short text"), 0);
  fuzz(p, 1, 1500, true);
}

TEST(TokenizerVsLlama, SentencePieceWithoutSpacePrefixOrBos) {
  K100_REQUIRE_LLAMA(oracle);
  VocabularyData v = test::spm_vocabulary(corpus(), 800);
  v.add_space_prefix = false;
  v.add_bos = false;
  v.add_eos = true;
  Pair p(*oracle, v, "spm_noprefix");
  ASSERT_TRUE(p.ok());
  p.compare_vocabulary();
  EXPECT_EQ(p.compare_text(test::multilingual_text(), "multilingual text"), 0);
  fuzz(p, 2, 400, true);
}

TEST(TokenizerVsLlama, SentencePieceLarge) {
  K100_REQUIRE_LLAMA(oracle);
  const VocabularyData v = test::spm_vocabulary(test::training_corpus(120000, 77), 8000);
  Pair p(*oracle, v, "spm_large");
  ASSERT_TRUE(p.ok());
  EXPECT_GT(p.ours().size(), 6000u);
  EXPECT_EQ(p.compare_text(test::multilingual_text(), "multilingual text"), 0);
  fuzz(p, 3, 500, true);
}

// Every supported pre-tokenizer family, on one learned BPE vocabulary.
class BpeVsLlama : public ::testing::TestWithParam<std::string> {};

TEST_P(BpeVsLlama, MultilingualAndRandomText) {
  K100_REQUIRE_LLAMA(oracle);
  const VocabularyData v = test::bpe_vocabulary(corpus(), 800, GetParam());
  std::string name = "bpe_" + GetParam();
  for (char& c : name)
    if (c == '.') c = '_';
  Pair p(*oracle, v, name);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.ours().pre_tokenizer(), GetParam());
  p.compare_vocabulary();
  EXPECT_EQ(p.compare_text(test::multilingual_text(), "multilingual text"), 0);
  const std::vector<TokenId> ids = p.ours().encode(test::multilingual_text());
  EXPECT_LT(ids.size(), test::multilingual_text().size() / 2);
  // and decodes back (these pre-tokenizers do no space cleanup)
  static const std::set<std::string> no_cleanup = {"qwen2", "qwen35", "command-r", "laguna", "trillion"};
  if (no_cleanup.count(GetParam())) {
    EXPECT_EQ(p.ours().decode(ids), test::multilingual_text());
    EXPECT_EQ(p.theirs().detokenize(ids, false, true), test::multilingual_text());
  }
  for (const char* s : {"", " ", "\n", "  \n ", "'s", "'S", "x'LL", "123456789", "a,b. c ? d !", " ' ", " 's", " ' ' x", "a ' 's b", "x ' ' ' y", "it 're 've 'll 't",
                        "a.\n\nb", "(x)\r\n\r\n  y", "\t\n \n", "<|eot_id|>",
                        "<|im_start|><|im_end|>", "\xFF", "\xED\xA0\x80", "\xC0\x80", "\xE2\x80\xA8\xC2\x85"})
    EXPECT_EQ(p.compare_text(s, "short text"), 0);
  fuzz(p, 10, 600, true);
}

INSTANTIATE_TEST_SUITE_P(PreTokenizers, BpeVsLlama,
                         ::testing::Values("default", "gpt-2", "llama-bpe", "dbrx", "glm4", "qwen2", "stablelm2", "qwen35",
                                           "starcoder", "command-r", "falcon", "laguna", "trillion"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (!std::isalnum(uint8_t(c))) c = '_';
                           return n;
                         });

TEST(TokenizerVsLlama, BpeLargeVocabulary) {
  K100_REQUIRE_LLAMA(oracle);
  const VocabularyData v = test::bpe_vocabulary(test::training_corpus(100000, 99), 3000, "llama-bpe");
  ASSERT_GE(v.merges.size(), 3000u);
  Pair p(*oracle, v, "bpe_large");
  ASSERT_TRUE(p.ok());
  p.compare_vocabulary();
  EXPECT_EQ(p.compare_text(test::multilingual_text(), "multilingual text"), 0);
  fuzz(p, 11, 800, true);
}

TEST(TokenizerVsLlama, BpeDefaultsWithoutKeys) {
  K100_REQUIRE_LLAMA(oracle);
  // no pre-tokenizer key, no BOS/EOS ids, no add_bos: the defaults of both
  VocabularyData v = test::bpe_vocabulary(corpus(), 300, "default");
  v.pre.reset();
  v.bos.reset();
  v.eos.reset();
  v.add_bos.reset();
  v.add_eos.reset();
  Pair p(*oracle, v, "bpe_defaults");
  ASSERT_TRUE(p.ok());
  p.compare_vocabulary();
  EXPECT_EQ(p.compare_text(test::multilingual_text(), "multilingual text"), 0);
}

TEST(TokenizerVsLlama, BpeMergesWhoseResultIsNoToken) {
  K100_REQUIRE_LLAMA(oracle);
  // drop the tokens some merges make: such a symbol falls back to the
  // one-byte tokens of its bytes
  VocabularyData v = test::bpe_vocabulary(corpus(), 400, "qwen2");
  size_t dropped = 0;
  for (size_t i = 10; i < v.merges.size() && dropped < 40; i += 9) {
    const std::string merged = v.merges[i].substr(0, v.merges[i].find(' ')) + v.merges[i].substr(v.merges[i].find(' ') + 1);
    auto it = std::find(v.tokens.begin(), v.tokens.end(), merged);
    if (it == v.tokens.end() || it - v.tokens.begin() < 256) continue;
    v.token_types.erase(v.token_types.begin() + (it - v.tokens.begin()));
    v.scores.erase(v.scores.begin() + (it - v.tokens.begin()));
    v.tokens.erase(it);
    ++dropped;
  }
  ASSERT_GT(dropped, 20u);
  // the special ids moved down with the tokens
  v.bos = uint32_t(std::find(v.tokens.begin(), v.tokens.end(), "<|endoftext|>") - v.tokens.begin());
  v.eos = uint32_t(std::find(v.tokens.begin(), v.tokens.end(), "<|im_end|>") - v.tokens.begin());
  Pair p(*oracle, v, "bpe_dropped");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.compare_text(test::multilingual_text(), "multilingual text"), 0);
  fuzz(p, 12, 400, true);
}

TEST(TokenizerVsLlama, BothRefuseAnUnknownPreTokenizer) {
  K100_REQUIRE_LLAMA(oracle);
  VocabularyData v = test::bpe_vocabulary(corpus(), 100, "no-such-pre-tokenizer");
  const std::string path = test::temp_path("bpe_unknown.gguf");
  test::write_vocabulary_gguf(v, path);
  EXPECT_EQ(oracle->load_vocab(path), nullptr);
  try {
    Tokenizer::from_file(path);
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": unknown tokenizer.ggml.pre 'no-such-pre-tokenizer'"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace k100::model
