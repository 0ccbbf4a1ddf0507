// tokenizer.json against llama.cpp: byte-level BPE vocabularies learned by
// the tests from a multilingual corpus, written once as a Hugging Face
// tokenizer.json (+ tokenizer_config.json) by this file and once as a GGUF
// vocabulary with the same tokens, types, merges and pre-tokenizer; the
// tokenizer k100lc builds from the tokenizer.json must give the ids and the
// text libllama gives from the GGUF, for a multilingual text and random
// strings, with and without special tokens.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "k100/base/error.h"
#include "k100/model/tokenizer.h"
#include "k100/model/tokenizer_json.h"
#include "llama_oracle.h"
#include "test_vocabularies.h"

namespace k100::model {
namespace {

// The split expressions as tokenizer.json files of these families spell them.
const char* split_regex(const std::string& pre) {
  if (pre == "llama-bpe")
    return R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
  return R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
}

// Writes `v` as DIR/tokenizer.json and DIR/tokenizer_config.json, the way
// Hugging Face tokenizers stores such a vocabulary: control tokens are
// special added tokens, user-defined ones non-special added tokens, the rest
// the BPE vocabulary; a BOS the vocabulary adds is a TemplateProcessing step.
void write_tokenizer_json(const VocabularyData& v, const std::string& dir, bool merges_as_pairs) {
  using nlohmann::ordered_json;
  ordered_json vocab = ordered_json::object(), added = ordered_json::array(), merges = ordered_json::array();
  for (size_t i = 0; i < v.tokens.size(); ++i) {
    const auto type = TokenType(v.token_types[i]);
    if (type == TokenType::Control || type == TokenType::UserDefined)
      added.push_back({{"id", i}, {"content", v.tokens[i]}, {"single_word", false}, {"lstrip", false},
                       {"rstrip", false}, {"normalized", type != TokenType::Control},
                       {"special", type == TokenType::Control}});
    else
      vocab[v.tokens[i]] = i;
  }
  for (const std::string& m : v.merges) {
    const size_t at = m.find(' ', 1);
    if (merges_as_pairs) merges.push_back({m.substr(0, at), m.substr(at + 1)});
    else merges.push_back(m);
  }
  ordered_json pre;
  if (*v.pre == "gpt-2") {
    pre = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}};
  } else {
    pre = {{"type", "Sequence"},
           {"pretokenizers",
            {{{"type", "Split"}, {"pattern", {{"Regex", split_regex(*v.pre)}}}, {"behavior", "Isolated"}, {"invert", false}},
             {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", false}, {"use_regex", false}}}}};
  }
  ordered_json post = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", false}, {"use_regex", false}};
  if (v.add_bos.value_or(false)) {
    const std::string bos = v.tokens[*v.bos];
    post = {{"type", "TemplateProcessing"},
            {"single", {{{"SpecialToken", {{"id", bos}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
            {"pair", ordered_json::array()},
            {"special_tokens", {{bos, {{"id", bos}, {"ids", {*v.bos}}, {"tokens", {bos}}}}}}};
  }
  const ordered_json doc = {
      {"version", "1.0"}, {"truncation", nullptr}, {"padding", nullptr}, {"added_tokens", added},
      {"normalizer", *v.pre == "qwen2" ? ordered_json({{"type", "NFC"}}) : ordered_json(nullptr)},
      {"pre_tokenizer", pre}, {"post_processor", post},
      {"decoder", {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", true}, {"use_regex", true}}},
      {"model",
       {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr}, {"continuing_subword_prefix", nullptr},
        {"end_of_word_suffix", nullptr}, {"fuse_unk", false}, {"byte_fallback", false},
        {"ignore_merges", *v.pre == "llama-bpe"}, {"vocab", vocab}, {"merges", merges}}}};
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/tokenizer.json") << doc.dump(2);
  const ordered_json config = {{"bos_token", v.tokens[*v.bos]},
                               {"eos_token", {{"content", v.tokens[*v.eos]}, {"special", true}}},
                               {"add_bos_token", v.add_bos.value_or(false)},
                               {"add_eos_token", false},
                               {"clean_up_tokenization_spaces", false}};
  std::ofstream(dir + "/tokenizer_config.json") << config.dump(2);
}

class TokenizerJsonVsLlama : public ::testing::TestWithParam<std::string> {};

TEST_P(TokenizerJsonVsLlama, MultilingualAndRandomText) {
  K100_REQUIRE_LLAMA(oracle);
  const std::string pre = GetParam();
  static const std::string corpus = test::training_corpus(40000, 2024);
  VocabularyData v = test::bpe_vocabulary(corpus, 800, pre);
  // tokenizer.json has no unused or undefined tokens: those become normal ones on both sides
  for (int32_t& t : v.token_types)
    if (t == int32_t(TokenType::Unused) || t == int32_t(TokenType::Undefined)) t = int32_t(TokenType::Normal);
  v.add_bos = pre == "llama-bpe";
  v.add_eos = false;
  const std::string dir = test::temp_path("tokenizer_json_" + pre), gguf = dir + ".gguf";
  write_tokenizer_json(v, dir, pre == "qwen2");
  test::write_vocabulary_gguf(v, gguf);

  const Tokenizer ours(read_tokenizer_json(dir + "/tokenizer.json"));
  const auto theirs = oracle->load_vocab(gguf);
  ASSERT_TRUE(theirs) << oracle->last_log();
  ASSERT_EQ(int32_t(ours.size()), theirs->size());
  EXPECT_EQ(ours.pre_tokenizer(), pre);
  EXPECT_EQ(ours.bos(), theirs->bos());
  EXPECT_EQ(ours.eos(), theirs->eos());
  EXPECT_EQ(ours.add_bos(), theirs->add_bos());
  std::vector<std::string> texts = {test::multilingual_text()};
  Rng rng(17);
  for (int i = 0; i < 300; ++i) texts.push_back(test::random_text(rng, 40, false));
  int bad = 0;
  size_t compared = 0;
  for (const std::string& text : texts)
    for (bool add : {false, true})
      for (bool parse : {false, true}) {
        const std::vector<TokenId> a = ours.encode(text, {add, parse});
        const std::vector<int32_t> b = theirs->tokenize(text, add, parse);
        ++compared;
        if (a != b && ++bad <= 5) ADD_FAILURE() << pre << " add=" << add << " parse=" << parse << " text: " << text;
        if (a == b && ours.decode(a) != theirs->detokenize(b, false, false) && ++bad <= 5)
          ADD_FAILURE() << pre << " decode differs for: " << text;
      }
  EXPECT_EQ(bad, 0) << "of " << compared << " encodings";
  // the multilingual text is more than bytes: merges applied
  EXPECT_LT(ours.encode(test::multilingual_text(), {false, false}).size(), test::multilingual_text().size() / 2);
}

INSTANTIATE_TEST_SUITE_P(Families, TokenizerJsonVsLlama, ::testing::Values("llama-bpe", "qwen2", "gpt-2"),
                         [](const auto& i) {
                           std::string n = i.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

// What the reader refuses, by key.
TEST(TokenizerJson, OtherRulesAreRefusedByName) {
  static const std::string corpus = test::training_corpus(4000, 5);
  VocabularyData v = test::bpe_vocabulary(corpus, 50, "qwen2");
  for (int32_t& t : v.token_types)
    if (t == int32_t(TokenType::Unused) || t == int32_t(TokenType::Undefined)) t = int32_t(TokenType::Normal);
  const std::string dir = test::temp_path("tokenizer_json_refused");
  write_tokenizer_json(v, dir, false);
  const std::string path = dir + "/tokenizer.json";
  std::string text;
  {
    std::ifstream f(path);
    text.assign(std::istreambuf_iterator<char>(f), {});
  }
  const auto refused = [&](const std::string& from, const std::string& to, const std::string& key) {
    std::string t = text;
    const size_t at = t.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    t.replace(at, from.size(), to);
    std::ofstream(path) << t;
    try {
      read_tokenizer_json(path);
      ADD_FAILURE() << "accepted " << to;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  refused(R"("type": "BPE")", R"("type": "Unigram")", "'model.type'");
  refused(R"("byte_fallback": false)", R"("byte_fallback": true)", "'model.byte_fallback'");
  refused(R"("type": "NFC")", R"("type": "NFKC")", "'normalizer.type'");
  refused(R"(\p{N}|)", R"(\p{N}{1,2}|)", "'pre_tokenizer.pretokenizers[0].pattern.Regex'");
  refused(R"("ignore_merges": false)", R"("ignore_merges": true)", "'model.ignore_merges'");
  std::ofstream(path) << text;
  EXPECT_NO_THROW(read_tokenizer_json(path));
  EXPECT_THROW(read_tokenizer_json(path, {.vocab_size = 10, .tokenizer_config = ""}), Error);  // fewer than it has
}

}  // namespace
}  // namespace k100::model
