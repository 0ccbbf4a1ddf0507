// The tokenizer without the oracle: the code point tables, lenient UTF-8,
// the byte-level alphabet, pre-tokenizer splits and small vocabularies whose
// ids follow by hand from the rules, decoding, errors, and round trips on
// the test vocabularies.
#include <gtest/gtest.h>

#include <algorithm>

#include "k100/base/error.h"
#include "k100/model/text_stream.h"
#include "k100/model/tokenizer.h"
#include "k100/quant/gguf_reader.h"
#include "k100/quant/gguf_writer.h"
#include "pre_tokenizer.h"
#include "test_vocabularies.h"
#include "tokenizer_state.h"
#include "unicode.h"

namespace k100::model {
namespace {

using namespace unicode;
using test::bpe_vocabulary;
using test::multilingual_text;
using test::random_text;
using test::spm_vocabulary;
using test::training_corpus;

TEST(UnicodeTables, ClassesAndWhitespace) {
  EXPECT_EQ(flags_of('a'), kLetter);
  EXPECT_EQ(flags_of('Z'), kLetter);
  EXPECT_EQ(flags_of('7'), kNumber);
  EXPECT_EQ(flags_of(' '), kSeparator | kWhitespace);
  EXPECT_EQ(flags_of('\t'), kControl | kWhitespace);
  EXPECT_EQ(flags_of('\n'), kControl | kWhitespace);
  EXPECT_EQ(flags_of(0x1F), kControl);  // not White_Space
  EXPECT_EQ(flags_of(0x85), kControl | kWhitespace);
  EXPECT_EQ(flags_of(0xA0), kSeparator | kWhitespace);
  EXPECT_EQ(flags_of(0x2028), kSeparator | kWhitespace);
  EXPECT_EQ(flags_of(0x3000), kSeparator | kWhitespace);
  EXPECT_EQ(flags_of('!'), kPunctuation);
  EXPECT_EQ(flags_of('$'), kSymbol);
  EXPECT_EQ(flags_of('`'), kSymbol);
  EXPECT_EQ(flags_of('_'), kPunctuation);
  EXPECT_EQ(flags_of(0x4E2D), kLetter);    // 中, inside a <First>..<Last> block
  EXPECT_EQ(flags_of(0x20000), kLetter);   // CJK extension B, another block
  EXPECT_EQ(flags_of(0xAC00), kLetter);    // Hangul syllable block
  EXPECT_EQ(flags_of(0x0301), kMark);
  EXPECT_EQ(flags_of(0x0663), kNumber);    // Arabic-Indic three
  EXPECT_EQ(flags_of(0x00BD), kNumber);    // ½
  EXPECT_EQ(flags_of(0x1F600), kSymbol);   // 😀
  EXPECT_EQ(flags_of(0x200D), kControl);   // zero width joiner (Cf)
  EXPECT_EQ(flags_of(0xE000), kControl);   // private use
  EXPECT_EQ(flags_of(0xD800), kControl);   // surrogate
  EXPECT_EQ(flags_of(0x0378), kUnassigned);
  EXPECT_EQ(flags_of(0x10FFFF), kUnassigned);
  EXPECT_EQ(flags_of(0x110000), kUnassigned);
  EXPECT_EQ(std::string(tables_version()).substr(0, 3), "15.");
}

TEST(UnicodeTables, Lowercase) {
  EXPECT_EQ(to_lower('A'), uint32_t('a'));
  EXPECT_EQ(to_lower('a'), uint32_t('a'));
  EXPECT_EQ(to_lower('1'), uint32_t('1'));
  EXPECT_EQ(to_lower(0xC4), 0xE4u);      // Ä -> ä
  EXPECT_EQ(to_lower(0x0416), 0x0436u);  // Ж -> ж
  EXPECT_EQ(to_lower(0x212A), uint32_t('k'));  // Kelvin sign
}

TEST(Utf8, LenientDecoding) {
  EXPECT_EQ(decode_lenient("a\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80"), (std::vector<uint32_t>{'a', 0xE9, 0x4E2D, 0x1F600}));
  // a stray continuation byte, a truncated sequence: one U+FFFD per byte
  EXPECT_EQ(decode_lenient("\x80x"), (std::vector<uint32_t>{kReplacement, 'x'}));
  EXPECT_EQ(decode_lenient("\xE4\xB8"), (std::vector<uint32_t>{kReplacement, kReplacement}));
  EXPECT_EQ(decode_lenient("\xE4" "ab"), (std::vector<uint32_t>{kReplacement, 'a', 'b'}));
  // overlong forms and surrogates are taken as they are
  EXPECT_EQ(decode_lenient(std::string("\xC0\x80", 2)), (std::vector<uint32_t>{0}));
  EXPECT_EQ(decode_lenient("\xED\xA0\x80"), (std::vector<uint32_t>{0xD800}));
  // past U+10FFFF, and bytes that start no sequence
  EXPECT_EQ(decode_lenient("\xF4\x90\x80\x80").size(), 4u);
  EXPECT_EQ(decode_lenient("\xF8\xFF"), (std::vector<uint32_t>{kReplacement, kReplacement}));
  std::string s;
  for (uint32_t cp : {0x41u, 0x7FFu, 0x800u, 0xFFFFu, 0x10000u, 0x10FFFFu}) append_utf8(s, cp);
  EXPECT_EQ(decode_lenient(s), (std::vector<uint32_t>{0x41, 0x7FF, 0x800, 0xFFFF, 0x10000, 0x10FFFF}));
}

TEST(Utf8, ByteLevelAlphabet) {
  std::vector<bool> seen(0x200, false);
  for (int b = 0; b < 256; ++b) {
    const uint32_t cp = byte_to_codepoint(uint8_t(b));
    ASSERT_LT(cp, 0x200u);
    EXPECT_FALSE(seen[cp]) << b;
    seen[cp] = true;
    EXPECT_EQ(codepoint_to_byte(cp), b);
    EXPECT_EQ(flags_of(cp) & kWhitespace, 0) << "byte " << b << " shows as a blank";
  }
  EXPECT_EQ(byte_to_codepoint('A'), uint32_t('A'));
  EXPECT_EQ(byte_to_codepoint(0xE9), 0xE9u);
  EXPECT_EQ(byte_to_codepoint(0), 0x100u);
  EXPECT_EQ(byte_to_codepoint(' '), 0x120u);   // Ġ
  EXPECT_EQ(byte_to_codepoint('\n'), 0x10Au);  // Ċ
  EXPECT_EQ(byte_to_codepoint(0xAD), 0x143u);  // the last one
  EXPECT_EQ(codepoint_to_byte(0x4E2D), -1);
}

std::vector<std::string> split(const std::string& pre, const std::string& text) {
  const std::vector<uint32_t> cps = decode_lenient(text);
  const std::vector<size_t> pieces = PreTokenizer::for_name(pre, "test").split(cps);
  std::vector<std::string> out;
  size_t at = 0;
  for (size_t n : pieces) {
    std::string w;
    for (size_t i = at; i < at + n; ++i) append_utf8(w, cps[i]);
    out.push_back(w);
    at += n;
  }
  EXPECT_EQ(at, cps.size()) << "the pieces do not cover the text";
  return out;
}

using Pieces = std::vector<std::string>;

TEST(PreTokenizer, Gpt2) {
  EXPECT_EQ(split("gpt-2", "Hello world's 123 !!  x"),
            (Pieces{"Hello", " world", "'s", " 123", " !!", " ", " x"}));
  // contractions are case-sensitive here; a trailing blank run is one word
  EXPECT_EQ(split("gpt-2", "I'M here\t\n"), (Pieces{"I", "'", "M", " here", "\t\n"}));
  EXPECT_EQ(split("gpt-2", "你好，世界"), (Pieces{"你好", "，", "世界"}));
  EXPECT_TRUE(split("gpt-2", "").empty());
}

TEST(PreTokenizer, Llama3) {
  EXPECT_EQ(split("llama-bpe", "I'M 12345 done\n\n  ok"),
            (Pieces{"I", "'M", " ", "123", "45", " done", "\n\n", " ", " ok"}));
  // one non-letter may lead a letter run; punctuation takes trailing newlines
  EXPECT_EQ(split("llama-bpe", "(word) ?!\n\nx"), (Pieces{"(word", ")", " ?!\n\n", "x"}));
}

TEST(PreTokenizer, Qwen2DigitsOneByOne) {
  EXPECT_EQ(split("qwen2", "I'M 12345 done"), (Pieces{"I", "'M", " ", "1", "2", "3", "4", "5", " done"}));
  // a combining mark does not continue a letter run, it leads the next one
  EXPECT_EQ(split("qwen2", "e\xCC\x81x"), (Pieces{"e", "\xCC\x81x"}));
  EXPECT_EQ(split("qwen35", "e\xCC\x81x"), (Pieces{"e\xCC\x81x"}));
}

TEST(PreTokenizer, DefaultChain) {
  // punctuation runs, then the GPT-2 words, then digit runs, then digit triples
  EXPECT_EQ(split("default", "a+b=c 12345 (x)"),
            (Pieces{"a", "+", "b", "=", "c", " ", "123", "45", " ", "(", "x", ")"}));
}

TEST(PreTokenizer, StarcoderAndLaguna) {
  EXPECT_EQ(split("starcoder", "ab12 c"), (Pieces{"ab", "1", "2", " c"}));
  EXPECT_EQ(split("laguna", "a\n\nb c"), (Pieces{"a", "\n\n", "b", " c"}));
  EXPECT_EQ(split("falcon", "x,1234"), (Pieces{"x", ",", "123", "4"}));
}

TEST(PreTokenizer, NamesAndErrors) {
  const auto ok = Tokenizer::supported_pre_tokenizers();
  for (const char* n : {"default", "gpt-2", "llama3", "llama-bpe", "qwen2", "qwen35", "starcoder", "falcon"})
    EXPECT_NE(std::find(ok.begin(), ok.end(), n), ok.end()) << n;
  try {
    PreTokenizer::for_name("no-such-pre", "f.gguf");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("f.gguf: unknown tokenizer.ggml.pre 'no-such-pre'"), std::string::npos)
        << e.what();
  }
  try {
    PreTokenizer::for_name("deepseek-v3", "f.gguf");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'deepseek-v3' is a known pre-tokenizer"), std::string::npos) << e.what();
  }
  const auto refused = Tokenizer::unsupported_pre_tokenizers();
  for (const std::string& n : refused) EXPECT_EQ(std::find(ok.begin(), ok.end(), n), ok.end()) << n;
}

// ---------------------------------------------------------------------------
// Small vocabularies with ids derived by hand.

VocabularyData tiny_spm() {
  VocabularyData v;
  v.source = "tiny-spm";
  v.model = "llama";
  auto add = [&](const std::string& t, TokenType type, float score) {
    v.tokens.push_back(t);
    v.token_types.push_back(int32_t(type));
    v.scores.push_back(score);
  };
  add("<unk>", TokenType::Unknown, 0);
  add("<s>", TokenType::Control, 0);
  add("</s>", TokenType::Control, 0);
  for (int b = 0; b < 256; ++b) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "<0x%02X>", b);
    add(hex, TokenType::Byte, 0);
  }
  // ids 259...
  const std::pair<const char*, float> pieces[] = {{"\xE2\x96\x81he", -1}, {"ll", -2}, {"o", -3}, {"\xE2\x96\x81", -4},
                                                  {"h", -5}, {"e", -5}, {"l", -5}, {"\xE2\x96\x81h", -6}, {"he", -3}};
  for (auto [t, s] : pieces) add(t, TokenType::Normal, s);
  add("<sep>", TokenType::UserDefined, 0);  // 268
  return v;
}

TEST(SentencePiece, MergesByScore) {
  Tokenizer t(tiny_spm());
  // ▁ h e l l o: "ll" (-2) first, then "he" (-3), then "▁he" (-1); "o" alone
  EXPECT_EQ(t.encode("hello"), (std::vector<TokenId>{1, 259, 260, 261}));
  EXPECT_EQ(t.encode("hello", {false, false}), (std::vector<TokenId>{259, 260, 261}));
  // "é" has no piece: its two bytes
  EXPECT_EQ(t.encode("h\xC3\xA9", {false, false}), (std::vector<TokenId>{266, 3 + 0xC3, 3 + 0xA9}));
  // user-defined tokens are split out even without parse_special, and a
  // space goes in front of the text after them
  EXPECT_EQ(t.encode("o<sep>o", {false, false}), (std::vector<TokenId>{262, 261, 268, 262, 261}));
  // control tokens only with parse_special
  EXPECT_EQ(t.encode("<s>", {false, true}), (std::vector<TokenId>{1}));
  EXPECT_NE(t.encode("<s>", {false, false}), (std::vector<TokenId>{1}));
  EXPECT_EQ(t.encode("", {true, false}), (std::vector<TokenId>{1}));
  EXPECT_TRUE(t.encode("", {false, false}).empty());
}

TEST(SentencePiece, Decode) {
  Tokenizer t(tiny_spm());
  const std::vector<TokenId> ids = {1, 259, 260, 261, 266, 3 + 0xC3, 3 + 0xA9};
  // the BOS prints nothing; the first space stays because the BOS came first
  EXPECT_EQ(t.decode(ids), " hello h\xC3\xA9");
  EXPECT_EQ(t.decode(ids, {true, false}), " hello h\xC3\xA9");
  EXPECT_EQ(t.decode(ids, {false, true}), "<s> hello h\xC3\xA9");
  // without a BOS the encoder's leading space is removed
  const std::vector<TokenId> no_bos(ids.begin() + 1, ids.end());
  EXPECT_EQ(t.decode(no_bos), "hello h\xC3\xA9");
  EXPECT_EQ(t.decode(t.encode("hello h\xC3\xA9", {false, false})), "hello h\xC3\xA9");
  EXPECT_EQ(t.token_to_piece(268), "<sep>");
  EXPECT_EQ(t.token_to_piece(1, false), "");
  EXPECT_THROW(t.decode(std::vector<TokenId>{9999}), Error);
  EXPECT_THROW(t.token_to_piece(-1), Error);
}

TEST(SentencePiece, TextStreamHoldsPartialCharacters) {
  Tokenizer t(tiny_spm());
  TextStream s(t);
  EXPECT_EQ(s.push(266), " h");
  EXPECT_EQ(s.push(3 + 0xC3), "");  // the first byte of é waits
  EXPECT_EQ(s.push(3 + 0xA9), "\xC3\xA9");
  EXPECT_EQ(s.push(3 + 0xE4), "");
  EXPECT_EQ(s.flush(), "\xE4");  // released as it is
  EXPECT_EQ(s.push(3 + 0x80), "\x80");  // a stray continuation byte cannot wait for anything
}

VocabularyData tiny_bpe(const std::string& pre) {
  VocabularyData v;
  v.source = "tiny-bpe";
  v.model = "gpt2";
  v.pre = pre;
  for (int b = 0; b < 256; ++b) {
    std::string ch;
    append_utf8(ch, byte_to_codepoint(uint8_t(b)));
    v.tokens.push_back(ch);
  }
  // ids 256...
  for (const char* t : {"he", "ll", "hell", "hello", "\xC4\xA0w", "or", "\xC4\xA0wor", "ld", "\xC4\xA0world"})
    v.tokens.push_back(t);
  v.tokens.push_back("<|endoftext|>");  // 265
  v.token_types.assign(v.tokens.size(), int32_t(TokenType::Normal));
  v.token_types.back() = int32_t(TokenType::Control);
  v.merges = {"l l", "h e", "he ll", "hell o", "\xC4\xA0 w", "o r", "\xC4\xA0w or", "l d", "\xC4\xA0wor ld"};
  v.bos = 265;
  v.eos = 265;
  return v;
}

TEST(BytePairGpt2, MergesByRank) {
  Tokenizer t(tiny_bpe("gpt-2"));
  EXPECT_EQ(t.kind(), VocabKind::BytePairGpt2);
  EXPECT_FALSE(t.add_bos());
  // "hello": l l (rank 0), h e (1), he ll (2), hell o (3); " world" the same way
  EXPECT_EQ(t.encode("hello world"), (std::vector<TokenId>{259, 264}));
  // "helo": h e only; the rest byte by byte
  EXPECT_EQ(t.encode("helo"), (std::vector<TokenId>{256, 'l', 'o'}));
  EXPECT_EQ(t.encode("a<|endoftext|>", {false, true}), (std::vector<TokenId>{'a', 265}));
  EXPECT_EQ(t.decode(t.encode("hello world")), "hello world");
  // the cleanup of this vocabulary removes the blank before "." but keeps it otherwise
  EXPECT_EQ(t.decode(t.encode("hello . world")), "hello. world");
  EXPECT_EQ(t.decode(std::vector<TokenId>{265, 259}), "hello");
  EXPECT_EQ(t.decode(std::vector<TokenId>{265, 259}, {false, true}), "<|endoftext|>hello");
}

TEST(BytePairGpt2, IgnoreMergesTakesWholeWords) {
  VocabularyData v = tiny_bpe("llama-bpe");
  v.tokens.push_back("hel");  // a token no merge builds
  v.token_types.push_back(int32_t(TokenType::Normal));
  Tokenizer t(v);
  EXPECT_TRUE(t.add_bos());  // the llama3 family's default
  EXPECT_EQ(t.encode("hel", {false, false}), (std::vector<TokenId>{266}));
  Tokenizer g(tiny_bpe("gpt-2"));
  EXPECT_EQ(g.encode("hel", {false, false}), (std::vector<TokenId>{256, 'l'}));
}

TEST(BytePairGpt2, InvalidUtf8ReadsAsReplacementCharacter) {
  Tokenizer t(tiny_bpe("qwen2"));
  // U+FFFD is EF BF BD, each shown as its byte-level character
  const std::vector<TokenId> ids = t.encode("\xFF", {false, false});
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(t.decode(ids), "\xEF\xBF\xBD");
}

TEST(Decode, CleanUpSpaces) {
  std::string s = "Hello , world . I 'm here ' ok ' fine , they 've 't";
  clean_up_spaces(s);
  EXPECT_EQ(s, "Hello, world. I'm here'ok'fine, they've 't");
  std::string q = "a ' ' b";  // the second quote no longer sees a blank before it
  clean_up_spaces(q);
  EXPECT_EQ(q, "a'' b");
  std::string e;
  clean_up_spaces(e);
  EXPECT_EQ(e, "");
}

TEST(Vocabulary, Errors) {
  VocabularyData v = tiny_bpe("gpt-2");
  v.model = "bert";
  try {
    Tokenizer t(v);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tiny-bpe: tokenizer.ggml.model 'bert' is not supported"), std::string::npos)
        << e.what();
  }
  v = tiny_bpe("gpt-2");
  v.tokens[257] = "he";  // id 256 is "he" already
  try {
    Tokenizer t(v);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("repeats token"), std::string::npos) << e.what();
  }
  VocabularyData s = tiny_spm();
  s.tokens[5] = "<0xZZ>";
  EXPECT_THROW(Tokenizer{s}, Error);
  s = tiny_spm();
  s.scores.pop_back();
  EXPECT_THROW(Tokenizer{s}, Error);
  // a vocabulary that asks for a BOS it does not have fails when encoding
  v = tiny_bpe("gpt-2");
  v.tokens.resize(11);
  v.token_types.resize(11);
  v.merges.clear();
  v.bos.reset();
  v.eos.reset();
  v.add_bos = true;
  Tokenizer nb(v);
  EXPECT_EQ(nb.bos(), kNoToken);  // the BPE default id 11 is outside this vocabulary
  EXPECT_THROW(nb.encode("a"), Error);
  // "a" is not in these eleven tokens: bytes without a token are skipped
  EXPECT_TRUE(nb.encode("a", {false, false}).empty());
}

TEST(Vocabulary, ReadFromGgufNamesTheKey) {
  const std::string path = test::temp_path("bad_vocab.gguf");
  auto expect_error = [&](quant::GgufWriter& w, const std::string& what) {
    w.write(path);
    try {
      Tokenizer::from_file(path);
      FAIL() << "accepted: " << what;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  using quant::Value;
  {
    quant::GgufWriter w;
    w.add("tokenizer.ggml.tokens", Value::string_array({"a", "b"}));
    expect_error(w, "tokenizer.ggml.model");
  }
  {
    quant::GgufWriter w;
    w.add("tokenizer.ggml.model", Value::string("llama"));
    w.add("tokenizer.ggml.tokens", Value::of(uint32_t(3)));
    expect_error(w, "tokenizer.ggml.tokens");
  }
  {
    quant::GgufWriter w;
    w.add("tokenizer.ggml.model", Value::string("llama"));
    w.add("tokenizer.ggml.tokens", Value::string_array({"a", "b"}));
    w.add("tokenizer.ggml.scores", Value::array<float>(std::vector<float>{1.0f}));
    expect_error(w, "tokenizer.ggml.scores: 1 scores for 2 tokens");
  }
  {
    quant::GgufWriter w;
    w.add("tokenizer.ggml.model", Value::string("gpt2"));
    w.add("tokenizer.ggml.tokens", Value::string_array({"a", "b"}));
    expect_error(w, "tokenizer.ggml.merges");
  }
  {
    quant::GgufWriter w;
    w.add("tokenizer.ggml.model", Value::string("llama"));
    w.add("tokenizer.ggml.tokens", Value::string_array({"a", "b"}));
    w.add("tokenizer.ggml.add_bos_token", Value::of(uint32_t(1)));
    expect_error(w, "tokenizer.ggml.add_bos_token");
  }
}

// ---------------------------------------------------------------------------
// The test vocabularies, without the oracle.

TEST(TestVocabularies, GgufRoundTripAndTextRoundTrip) {
  const std::string corpus = training_corpus(20000, 1);
  const VocabularyData spm = spm_vocabulary(corpus, 1500);
  const VocabularyData bpe = bpe_vocabulary(corpus, 600, "qwen2");
  const std::string sp = test::temp_path("rt_spm.gguf"), bp = test::temp_path("rt_bpe.gguf");
  test::write_vocabulary_gguf(spm, sp);
  test::write_vocabulary_gguf(bpe, bp);
  const Tokenizer ts = Tokenizer::from_file(sp), tb = Tokenizer::from_file(bp);
  const Tokenizer ds(spm), db(bpe);
  std::string text = multilingual_text();
  // user-defined tokens add a space after them (SentencePiece), so leave them out here
  for (const char* tag : {"<tool_call>", "</tool_call>", "<|im"})
    for (size_t p; (p = text.find(tag)) != std::string::npos;) text.erase(p, std::string(tag).size());
  EXPECT_EQ(ts.encode(text), ds.encode(text));
  EXPECT_EQ(tb.encode(text), db.encode(text));
  EXPECT_EQ(ts.decode(ts.encode(text, {false, false})), text);
  EXPECT_EQ(tb.decode(tb.encode(text)), text);
  // merges shorten the text: fewer ids than characters
  const size_t chars = unicode::decode_lenient(text).size();
  EXPECT_LT(tb.encode(text).size(), chars * 4 / 5);
  EXPECT_LT(ts.encode(text).size(), chars * 4 / 5);
  std::printf("multilingual text: %zu bytes, %zu characters, %zu SentencePiece ids, %zu BPE ids\n", text.size(), chars,
              ts.encode(text).size(), tb.encode(text).size());
  Rng rng(7);
  for (int i = 0; i < 300; ++i) {
    const std::string r = random_text(rng, 30, false);
    EXPECT_EQ(tb.decode(tb.encode(r, {false, false})), r) << i;
  }
}

}  // namespace
}  // namespace k100::model
