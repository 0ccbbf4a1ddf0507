#include "test_vocabularies.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <queue>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include <unistd.h>

#include <gtest/gtest.h>

#include "k100/quant/gguf_writer.h"

namespace k100::test {
namespace {

using model::Rng;
using model::TokenType;
using model::VocabularyData;
using quant::GgufWriter;
using quant::Value;

// UTF-8 of a code point, written out here so that the test data does not
// depend on the code under test.
std::string utf8_of(uint32_t cp) {
  std::string out;
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
  return out;
}

const std::vector<std::string>& sentences() {
  static const std::vector<std::string> s = {
      "The quick brown fox jumps over the lazy dog.",
      "It's a test: don't stop, we'll see what they're doing; I'M sure YOU'VE heard.",
      "Prices rose 3.5% to $1,234.56 on 2024-03-15 at 10:45 (UTC+8).",
      "Hello, world! How are you today? Fine, thanks...",
      "Добрый день! Съешь же ещё этих мягких французских булок, да выпей чаю.",
      "Москва — столица России; население 13 миллионов человек.",
      "你好，世界！我们今天学习分词器的工作原理。",
      "北京是中国的首都，有三千多年的历史。",
      "こんにちは、世界。カタカナとひらがなと漢字を混ぜて書きます。",
      "東京タワーは１９５８年に完成しました。",
      "مرحبا بالعالم! هذا اختبار للنص العربي مع أرقام ١٢٣.",
      "नमस्ते दुनिया, यह एक परीक्षण है।",
      "안녕하세요 세계, 토크나이저 테스트입니다.",
      "Γειά σου κόσμε, αυτό είναι ένα τεστ.",
      "Emoji: 😀 👍🏽 👨‍👩‍👧‍👦 🇩🇪 ❤️ 🚀✨",
      "Ünïcödé çömbíning: e\xCC\x81 a\xCC\x80 o\xCC\x88 ﬁ ① ½ ² Ⅻ ℃",
      "def f(x):\n    return x ** 2  # square\n",
      "for (int i = 0; i < n; ++i) { sum += a[i]; }",
  };
  return s;
}

}  // namespace

std::string multilingual_text() {
  std::string t;
  for (const std::string& s : sentences()) t += s + "\n";
  t += "tabs\t\tand   spaces    and\r\nnewlines\n\n\n  trailing   \n";
  t += "digits 1234567890 0 00 12 123 1234\n";
  t += "<s> special </s> <|im_start|>user\nhi there<|im_end|>\n<|im_start|>assistant<tool_call>x</tool_call><|eot_id|>";
  t += "\xE3\x80\x80ideographic space, no-break\xC2\xA0space, line\xE2\x80\xA8separator\n";
  return t;
}

std::string training_corpus(size_t bytes, uint64_t seed) {
  Rng rng(seed);
  static const char* syllables[] = {"ka", "to", "ri", "mon", "sa", "le", "qu", "in", "ing", "er", "the", "an",
                                    "ста", "но", "ви", "ка", "中", "国", "人", "大", "の", "に", "ます", "ال",
                                    "ب", "ن", "क", "है", "한", "국"};
  // alphabets (first code point, size) for invented words; letters are drawn
  // with a skew towards the start, so that letter pairs repeat
  static const std::pair<uint32_t, uint32_t> scripts[] = {
      {'a', 26}, {0x430, 32}, {0x3B1, 25}, {0x5D0, 27}, {0x3041, 80}, {0x4E00, 400}, {0xAC00, 300}, {0x905, 40}};
  std::string c;
  while (c.size() < bytes) {
    const uint64_t r = rng.next() % 10;
    if (r < 4) {
      c += sentences()[rng.next() % sentences().size()];
    } else if (r < 6) {
      const size_t n = 1 + rng.next() % 4;
      for (size_t i = 0; i < n; ++i) c += syllables[rng.next() % std::size(syllables)];
    } else if (r < 9) {
      const auto& [first, size] = scripts[rng.next() % std::size(scripts)];
      const size_t n = 2 + rng.next() % 6;
      for (size_t i = 0; i < n; ++i) {
        const uint32_t k = uint32_t(std::min(rng.next() % size, rng.next() % size));
        c += utf8_of(first + k);
      }
    } else {
      c += std::to_string(rng.next() % 100000);
    }
    c += (rng.next() % 7 == 0) ? "\n" : " ";
  }
  return c;
}

std::vector<SpecialToken> special_tokens() {
  return {
      {"<|im_start|>", TokenType::Control},
      {"<|im_end|>", TokenType::Control},
      {"<|endoftext|>", TokenType::Control},
      {"<tool_call>", TokenType::UserDefined},
      {"</tool_call>", TokenType::UserDefined},
      {"<|im", TokenType::UserDefined},  // inside "<|im_start|>": the longer one must win
      {"<|unused_1|>", TokenType::Control},
      {"<unused0>", TokenType::Unused},
      {"<undefined0>", TokenType::Undefined},
      {"<|eot_id|>", TokenType::Normal},
  };
}

namespace {

// UTF-8 code point boundaries of a valid string.
std::vector<std::string> characters(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    const uint8_t b = uint8_t(s[i]);
    const size_t n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

void add_token(VocabularyData& v, std::set<std::string>& seen, const std::string& text, TokenType type, float score) {
  if (!seen.insert(text).second) return;
  v.tokens.push_back(text);
  v.token_types.push_back(int32_t(type));
  v.scores.push_back(score);
}

void add_specials(VocabularyData& v, std::set<std::string>& seen) {
  for (const SpecialToken& t : special_tokens()) add_token(v, seen, t.text, t.type, 0.0f);
}

}  // namespace

VocabularyData spm_vocabulary(const std::string& corpus, size_t n_pieces) {
  VocabularyData v;
  v.model = "llama";
  std::set<std::string> seen;
  add_token(v, seen, "<unk>", TokenType::Unknown, 0.0f);
  add_token(v, seen, "<s>", TokenType::Control, 0.0f);
  add_token(v, seen, "</s>", TokenType::Control, 0.0f);
  for (int b = 0; b < 256; ++b) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "<0x%02X>", b);
    add_token(v, seen, hex, TokenType::Byte, 0.0f);
  }
  add_specials(v, seen);

  // Pieces: substrings of up to 6 characters of the space-escaped lines,
  // the most frequent (weighted by length) first; rare characters are left
  // to the byte tokens.
  std::map<std::string, int> count;
  size_t start = 0;
  while (start < corpus.size()) {
    size_t end = corpus.find('\n', start);
    if (end == std::string::npos) end = corpus.size();
    std::string line = "\xE2\x96\x81";
    for (char ch : corpus.substr(start, end - start)) line += ch == ' ' ? std::string("\xE2\x96\x81") : std::string(1, ch);
    const std::vector<std::string> chars = characters(line);
    for (size_t i = 0; i < chars.size(); ++i) {
      std::string piece;
      for (size_t k = i; k < chars.size() && k < i + 6; ++k) {
        if (uint8_t(chars[k][0]) < 0x20) break;  // control characters stay bytes
        piece += chars[k];
        ++count[piece];
      }
    }
    start = end + 1;
  }
  // every character seen three times gets a piece; then the longer pieces
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto& [piece, c] : count) {
    const size_t len = characters(piece).size();
    if (c < 2 || (len == 1 && c < 3)) continue;
    ranked.push_back({len == 1 ? -1e9 - c : -double(c) * std::sqrt(double(len)), piece});
  }
  std::sort(ranked.begin(), ranked.end());
  for (size_t i = 0; i < ranked.size() && v.tokens.size() < 259 + special_tokens().size() + n_pieces; ++i) {
    const std::string& piece = ranked[i].second;
    // longer and more frequent pieces score higher; scores on a quarter
    // grid, so that equal scores occur and ties are exercised
    const double raw = std::log(double(count[piece])) + 0.5 * double(characters(piece).size());
    add_token(v, seen, piece, TokenType::Normal, float(std::round(raw * 4.0) / 4.0 - 30.0));
  }
  v.bos = 1;
  v.eos = 2;
  v.unknown = 0;
  v.add_bos = true;
  v.add_eos = false;
  return v;
}

namespace {

// Byte-level alphabet of GPT-2: printable Latin-1 bytes as themselves, the
// other bytes from U+0100 on (written out here independently of the product).
std::string byte_level(uint8_t b) {
  auto printable = [](int x) { return (x >= 0x21 && x <= 0x7E) || (x >= 0xA1 && x <= 0xAC) || (x >= 0xAE && x <= 0xFF); };
  uint32_t cp = b;
  if (!printable(b)) {
    uint32_t next = 0x100;
    for (int x = 0; x < b; ++x)
      if (!printable(x)) ++next;
    cp = next;
  }
  std::string out;
  if (cp < 0x80) {
    out += char(cp);
  } else {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  }
  return out;
}

// A BPE trainer. Its words are pieces of 1 to 16 characters cut from the
// corpus at random, so merges also span spaces, newlines, digits and
// punctuation: any difference in how a pre-tokenizer splits then shows in
// the ids. The most frequent adjacent pair (the smallest pair of ids on
// equal counts) merges; counts are kept up to date incrementally.
class BpeTrainer {
 public:
  explicit BpeTrainer(const std::string& corpus) {
    for (int b = 0; b < 256; ++b) intern(byte_level(uint8_t(b)));
    std::map<std::string, int64_t> words;
    const std::vector<std::string> chars = characters(corpus);
    Rng rng(corpus.size());
    for (size_t i = 0; i < chars.size();) {
      const size_t n = std::min<size_t>(1 + rng.next() % 16, chars.size() - i);
      std::string w;
      for (size_t k = 0; k < n; ++k)
        for (char ch : chars[i + k]) w += byte_level(uint8_t(ch));
      ++words[w];
      i += n;
    }
    for (const auto& [text, c] : words) {
      Word word{{}, c};
      for (const std::string& ch : characters(text)) word.sym.push_back(id_.at(ch));
      words_.push_back(std::move(word));
    }
    for (size_t i = 0; i < words_.size(); ++i) count_word(i, +1);
  }

  std::vector<std::string> train(size_t n_merges) {
    std::vector<std::string> merges;
    while (merges.size() < n_merges && !heap_.empty()) {
      const auto [c, key] = heap_.top();
      heap_.pop();
      auto it = pair_count_.find(key);
      if (it == pair_count_.end() || it->second != c) continue;  // stale
      if (c < 2) break;
      const int a = int(key >> 32), b = int(key & 0xFFFFFFFF);
      merges.push_back(text_[a] + " " + text_[b]);
      const int ab = intern(text_[a] + text_[b]);
      std::vector<size_t> ws = where_[key];
      std::sort(ws.begin(), ws.end());
      ws.erase(std::unique(ws.begin(), ws.end()), ws.end());
      for (size_t wi : ws) {
        count_word(wi, -1);
        std::vector<int>& s = words_[wi].sym;
        std::vector<int> out;
        for (size_t i = 0; i < s.size(); ++i) {
          if (i + 1 < s.size() && s[i] == a && s[i + 1] == b) {
            out.push_back(ab);
            ++i;
          } else {
            out.push_back(s[i]);
          }
        }
        s = std::move(out);
        count_word(wi, +1);
      }
    }
    return merges;
  }

  const std::vector<std::string>& tokens() const { return text_; }

 private:
  struct Word {
    std::vector<int> sym;
    int64_t count;
  };
  using Key = uint64_t;
  static Key key_of(int a, int b) { return (uint64_t(uint32_t(a)) << 32) | uint32_t(b); }

  int intern(const std::string& t) {
    auto [it, fresh] = id_.emplace(t, int(text_.size()));
    if (fresh) text_.push_back(t);
    return it->second;
  }

  void count_word(size_t wi, int sign) {
    const Word& w = words_[wi];
    for (size_t i = 0; i + 1 < w.sym.size(); ++i) {
      const Key k = key_of(w.sym[i], w.sym[i + 1]);
      int64_t& c = pair_count_[k];
      c += sign * w.count;
      if (sign > 0) where_[k].push_back(wi);
      if (c > 0) heap_.push({c, k});  // older entries of the pair go stale
    }
  }

  struct Order {  // largest count first, then the smallest pair
    bool operator()(const std::pair<int64_t, Key>& x, const std::pair<int64_t, Key>& y) const {
      return x.first < y.first || (x.first == y.first && x.second > y.second);
    }
  };

  std::vector<Word> words_;
  std::vector<std::string> text_;
  std::unordered_map<std::string, int> id_;
  std::unordered_map<Key, int64_t> pair_count_;
  std::unordered_map<Key, std::vector<size_t>> where_;
  std::priority_queue<std::pair<int64_t, Key>, std::vector<std::pair<int64_t, Key>>, Order> heap_;
};

}  // namespace

VocabularyData bpe_vocabulary(const std::string& corpus, size_t n_merges, const std::string& pre) {
  BpeTrainer trainer(corpus);
  VocabularyData v;
  v.model = "gpt2";
  v.pre = pre;
  v.merges = trainer.train(n_merges);
  std::set<std::string> seen;
  for (const std::string& t : trainer.tokens()) add_token(v, seen, t, TokenType::Normal, 0.0f);
  add_specials(v, seen);
  const auto id = [&](const std::string& t) {
    return uint32_t(std::find(v.tokens.begin(), v.tokens.end(), t) - v.tokens.begin());
  };
  v.bos = id("<|endoftext|>");
  v.eos = id("<|im_end|>");
  v.add_eos = false;
  return v;
}

void write_vocabulary_gguf(const VocabularyData& v, const std::string& path) {
  GgufWriter w;
  w.add("general.architecture", Value::string("llama"));
  w.add("general.name", Value::string("tokenizer test"));
  w.add("llama.vocab_size", Value::of(uint32_t(v.tokens.size())));
  w.add("llama.context_length", Value::of(uint32_t(256)));
  w.add("llama.embedding_length", Value::of(uint32_t(64)));
  w.add("llama.block_count", Value::of(uint32_t(1)));
  w.add("llama.feed_forward_length", Value::of(uint32_t(128)));
  w.add("llama.attention.head_count", Value::of(uint32_t(1)));
  w.add("llama.attention.head_count_kv", Value::of(uint32_t(1)));
  w.add("llama.rope.dimension_count", Value::of(uint32_t(64)));
  w.add("llama.rope.freq_base", Value::of(10000.0f));
  w.add("llama.attention.layer_norm_rms_epsilon", Value::of(1e-5f));
  w.add("tokenizer.ggml.model", Value::string(v.model));
  if (v.pre) w.add("tokenizer.ggml.pre", Value::string(*v.pre));
  w.add("tokenizer.ggml.tokens", Value::string_array(v.tokens));
  if (!v.scores.empty()) w.add("tokenizer.ggml.scores", Value::array<float>(v.scores));
  if (!v.token_types.empty()) w.add("tokenizer.ggml.token_type", Value::array<int32_t>(v.token_types));
  if (v.model == "gpt2") w.add("tokenizer.ggml.merges", Value::string_array(v.merges));
  auto id = [&](const char* key, const std::optional<uint32_t>& x) {
    if (x) w.add(key, Value::of(*x));
  };
  id("tokenizer.ggml.bos_token_id", v.bos);
  id("tokenizer.ggml.eos_token_id", v.eos);
  id("tokenizer.ggml.unknown_token_id", v.unknown);
  id("tokenizer.ggml.padding_token_id", v.padding);
  auto flag = [&](const char* key, const std::optional<bool>& x) {
    if (x) w.add(key, Value::of(*x));
  };
  flag("tokenizer.ggml.add_bos_token", v.add_bos);
  flag("tokenizer.ggml.add_eos_token", v.add_eos);
  flag("tokenizer.ggml.add_space_prefix", v.add_space_prefix);
  w.write(path);
}

namespace {

// Code points assigned in UnicodeData.txt (surrogates left out), for random
// text; empty when the file is not there.
const std::vector<std::pair<uint32_t, uint32_t>>& assigned_ranges() {
  static const auto r = [] {
    std::vector<std::pair<uint32_t, uint32_t>> out;
    std::ifstream f(std::string(K100_UNICODE_DATA_DIR) + "/UnicodeData.txt");
    std::string line;
    uint32_t first = 0;
    while (std::getline(f, line)) {
      const size_t a = line.find(';'), b = line.find(';', a + 1), c = line.find(';', b + 1);
      if (c == std::string::npos) continue;
      const uint32_t cp = uint32_t(std::stoul(line.substr(0, a), nullptr, 16));
      const std::string name = line.substr(a + 1, b - a - 1), cat = line.substr(b + 1, c - b - 1);
      if (name.find(", First>") != std::string::npos) {
        first = cp;
        continue;
      }
      const uint32_t lo = name.find(", Last>") != std::string::npos ? first : cp;
      if (cat == "Cs") continue;
      if (!out.empty() && out.back().second + 1 == lo) out.back().second = cp;
      else out.push_back({lo, cp});
    }
    return out;
  }();
  return r;
}


}  // namespace

std::string random_text(Rng& rng, size_t max_units, bool invalid_utf8) {
  static const char* fragments[] = {
      " ", "  ", "   ", "\t", "\n", "\r\n", "\n\n", "\r", "\v", "\f", "\xC2\xA0", "\xE3\x80\x80", "\xE2\x80\xA8",
      "\xC2\x85", "the", " the", "The", "ing", "'s", "'S", "'t", "'re", "'LL", "'ve", "'m", "'d", "'x", "'", "don't",
      "0", "7", "12", "123", "4567", "3.14", "1,000", "١٢٣", "①", "½", ".", ",", "!", "?", "...", "$", "+", "<", "=",
      ">", "^", "~", "|", "`", "#", "@", "(", ")", "[", "]", "{", "}", "_", "-", "/", "\\", "\"", ";", ":", "*", "&",
      "%", "中", "国人", "你好", "。", "，", "日本語", "カタカナ", "ひらがな", "Привет", "мир", "Ёж", "مرحبا", "ب",
      "नमस्ते", "한국어", "Ελλάδα", "😀", "👍🏽", "👨‍👩‍👧", "🇩🇪", "❤️", "e\xCC\x81", "\xCC\x81", "\xCC\x88", "ﬁ",
      "<s>", "</s>", "<unk>", "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<tool_call>", "</tool_call>",
      "<|eot_id|>", "<|unused_1|>", "<unused0>", "<undefined0>", "<|im_", "end|>", "<|", "|>", "<0x41>", "\xE2\x96\x81", "\xC4\xA0", "Ġ",
  };
  static const char* invalid[] = {"\x80", "\xBF", "\xC0\x80", "\xC1", "\xC3", "\xE0\x80", "\xE4\xB8", "\xED\xA0\x80",
                                  "\xF0\x9F", "\xF0\x9F\x98", "\xF8", "\xFE", "\xFF", "\xE2\x96"};
  const auto& ranges = assigned_ranges();
  std::string t;
  const size_t units = rng.next() % (max_units + 1);
  for (size_t u = 0; u < units; ++u) {
    const uint64_t r = rng.next() % 100;
    if (r < 70) {
      t += fragments[rng.next() % std::size(fragments)];
    } else if (r < 80) {
      t += char('a' + rng.next() % 26);
    } else if (r < 90 && !ranges.empty()) {
      const auto& [lo, hi] = ranges[rng.next() % ranges.size()];
      t += utf8_of(lo + uint32_t(rng.next() % (hi - lo + 1)));
    } else if (invalid_utf8) {
      t += invalid[rng.next() % std::size(invalid)];
    } else {
      t += char('A' + rng.next() % 26);
    }
  }
  return t;
}

namespace {

// one directory per process: tests run in parallel, from several build trees
std::filesystem::path temp_dir() {
  return std::filesystem::temp_directory_path() / ("k100_tokenizer_tests_" + std::to_string(::getpid()));
}

// removes the directory when the test program ends
class TempCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(temp_dir(), ec);
  }
};
[[maybe_unused]] ::testing::Environment* const kTempCleanup = ::testing::AddGlobalTestEnvironment(new TempCleanup);

}  // namespace

std::string temp_path(const std::string& name) {
  std::filesystem::create_directories(temp_dir());
  return (temp_dir() / name).string();
}

}  // namespace k100::test
