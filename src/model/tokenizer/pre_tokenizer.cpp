#include "pre_tokenizer.h"

#include <algorithm>
#include <map>

#include "k100/base/error.h"
#include "unicode.h"

namespace k100::model {
namespace {

using namespace unicode;

constexpr uint32_t kOutside = 0xFFFFFFFF;  // a position past the piece

// A piece [begin, end) of the code points being split, with the helpers the
// word rules need: code points and flags read as "outside" past the end.
class Piece {
 public:
  Piece(std::span<const uint32_t> cps, size_t begin, size_t end, std::vector<size_t>& out)
      : cps_(cps), end_(end), last_cut_(begin), out_(out) {}

  uint32_t at(size_t i) const { return i < end_ ? cps_[i] : kOutside; }
  uint16_t flags(size_t i) const { return i < end_ ? flags_of(cps_[i]) : 0; }
  size_t end() const { return end_; }
  // Ends the current word at `pos` (nothing when it would be empty).
  void cut(size_t pos) {
    if (pos > last_cut_) out_.push_back(pos - last_cut_);
    last_cut_ = pos;
  }

 private:
  std::span<const uint32_t> cps_;
  size_t end_;
  size_t last_cut_;
  std::vector<size_t>& out_;
};

bool is_cr_or_lf(uint32_t c) { return c == '\r' || c == '\n'; }

// The English contractions 's 't 'm 'd 're 've 'll at `pos`: their length, or 0.
// `fold` compares case-insensitively (the Llama-3 family).
size_t contraction_at(const Piece& p, size_t pos, bool fold) {
  if (p.at(pos) != '\'' || pos + 1 >= p.end()) return 0;
  auto low = [&](size_t i) { return fold ? to_lower(p.at(i)) : p.at(i); };
  const uint32_t a = low(pos + 1);
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if (pos + 2 >= p.end()) return 0;
  const uint32_t b = low(pos + 2);
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  return 0;
}

// Whitespace at `pos`: how many code points the run has, and one past its last
// CR or LF (0 when it has none).
struct WhitespaceRun {
  size_t length = 0;
  size_t past_last_newline = 0;
};
WhitespaceRun whitespace_at(const Piece& p, size_t pos) {
  WhitespaceRun r;
  while (p.flags(pos + r.length) & kWhitespace) {
    if (is_cr_or_lf(p.at(pos + r.length))) r.past_last_newline = pos + r.length + 1;
    ++r.length;
  }
  return r;
}

// The end of the word that starts with whitespace (or with nothing matched):
// \s+(?!\S) leaves the last blank for the next word, a run at the end of the
// piece is taken whole, and a character no rule matched stands alone.
size_t whitespace_word_end(const Piece& p, size_t pos, const WhitespaceRun& ws) {
  if (ws.length > 1 && p.at(pos + ws.length) != kOutside) return pos + ws.length - 1;
  if (ws.length > 0) return pos + ws.length;
  return pos + 1;
}

void split_gpt2(Piece& p, size_t pos) {
  while (pos < p.end()) {
    if (size_t n = contraction_at(p, pos, false)) {
      pos += n;
      p.cut(pos);
      continue;
    }
    const uint32_t c = p.at(pos);
    // an optional leading space, then a run of letters, of digits, or of
    // anything else that is not whitespace
    const uint16_t head = c == ' ' ? p.flags(pos + 1) : p.flags(pos);
    const uint16_t run_classes[] = {kLetter, kNumber};
    bool done = false;
    for (uint16_t cls : run_classes) {
      if (head & cls) {
        pos += (c == ' ');
        while (p.flags(pos) & cls) ++pos;
        p.cut(pos);
        done = true;
        break;
      }
    }
    if (done) continue;
    auto is_other = [](uint16_t f) { return f != 0 && !(f & (kWhitespace | kLetter | kNumber)); };
    if (is_other(head)) {
      pos += (c == ' ');
      while (is_other(p.flags(pos))) ++pos;
      p.cut(pos);
      continue;
    }
    pos = whitespace_word_end(p, pos, whitespace_at(p, pos));
    p.cut(pos);
  }
}

void split_llama3(Piece& p, size_t pos, const SplitStep& step) {
  const uint16_t word = step.letters_take_marks ? uint16_t(kLetter | kMark) : uint16_t(kLetter);
  const uint16_t not_other = word | kWhitespace | kNumber;
  while (pos < p.end()) {
    if (size_t n = contraction_at(p, pos, true)) {
      pos += n;
      p.cut(pos);
      continue;
    }
    const uint32_t c = p.at(pos);
    const uint16_t f = p.flags(pos);
    // [^\r\n\p{L}\p{N}]?\p{L}+ : one code point of any other kind may lead
    if (!is_cr_or_lf(c) && !(f & kNumber) && ((f & word) || (p.flags(pos + 1) & word))) {
      ++pos;
      while (p.flags(pos) & word) ++pos;
      p.cut(pos);
      continue;
    }
    // \p{N}{1,digit_group}
    if (f & kNumber) {
      size_t group_start = pos;
      while (p.flags(pos) & kNumber) {
        ++pos;
        if (pos - group_start >= size_t(step.digit_group)) {
          p.cut(pos);
          group_start = pos;
        }
      }
      p.cut(pos);
      continue;
    }
    // ' ?[^\s\p{L}\p{N}]+[\r\n]*' (the guard tests the code point itself,
    // so a lone trailing space ends up here as a word of its own)
    const uint16_t head = c == ' ' ? p.flags(pos + 1) : f;
    if (!(head & not_other) && f != 0) {
      pos += (c == ' ');
      while (p.flags(pos) != 0 && !(p.flags(pos) & not_other)) ++pos;
      while (is_cr_or_lf(p.at(pos))) ++pos;
      p.cut(pos);
      continue;
    }
    // \s*[\r\n]+ , then \s+(?!\S) , \s+
    const WhitespaceRun ws = whitespace_at(p, pos);
    pos = ws.past_last_newline > 0 ? ws.past_last_newline : whitespace_word_end(p, pos, ws);
    p.cut(pos);
  }
}

bool class_matches(const SplitStep& step, uint32_t cp) {
  if (flags_of(cp) & step.classes) return true;
  return cp < 128 && step.ascii_extra.find(char(cp)) != std::string_view::npos;
}

// Leftmost runs of the class, each as long as possible up to max_run;
// stretches in between (and runs shorter than min_run) stay pieces of their own.
void split_class_runs(Piece& p, std::span<const uint32_t> cps, size_t pos, const SplitStep& step) {
  while (pos < p.end()) {
    size_t run = 0;
    while (pos + run < p.end() && (step.max_run == 0 || run < step.max_run) && class_matches(step, cps[pos + run])) ++run;
    if (run == 0 || run < step.min_run) {
      ++pos;
      continue;
    }
    p.cut(pos);
    pos += run;
    p.cut(pos);
  }
  p.cut(p.end());
}

void split_newlines(Piece& p, size_t pos) {
  while (pos < p.end()) {
    const bool newline = p.at(pos) == '\n';
    while (pos < p.end() && (p.at(pos) == '\n') == newline) ++pos;
    p.cut(pos);
  }
}

// ---------------------------------------------------------------------------
// The vocabularies' pre-tokenizer names.

SplitStep gpt2_words() { return {}; }
SplitStep llama3_words(int digit_group, bool marks = false) {
  SplitStep s;
  s.kind = SplitStep::Kind::Llama3Words;
  s.digit_group = digit_group;
  s.letters_take_marks = marks;
  return s;
}
SplitStep class_runs(uint16_t classes, std::string_view ascii, size_t min_run, size_t max_run) {
  SplitStep s;
  s.kind = SplitStep::Kind::ClassRuns;
  s.classes = classes;
  s.ascii_extra = ascii;
  s.min_run = min_run;
  s.max_run = max_run;
  return s;
}
SplitStep newlines() {
  SplitStep s;
  s.kind = SplitStep::Kind::Newlines;
  return s;
}
// [\p{P}\$\+<=>\^~\|]+ (Falcon's adds the backtick)
SplitStep punctuation_runs(bool backtick = false) {
  return class_runs(kPunctuation, backtick ? "$+<=>^~|`" : "$+<=>^~|", 1, 0);
}
// [0-9][0-9][0-9]
SplitStep ascii_digit_triples() { return class_runs(0, "0123456789", 3, 3); }

struct Family {
  std::vector<std::string> names;
  std::vector<SplitStep> steps;
  bool clean_spaces;
  bool ignore_merges = false;
  bool default_add_bos = false;
  bool no_default_bos = false;
};

const std::vector<Family>& families() {
  static const std::vector<Family> f = {
      {{"default"}, {punctuation_runs(), gpt2_words(), class_runs(kNumber, "", 1, 0), ascii_digit_triples()}, true},
      {{"gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum",
        "modern-bert", "jina-v1-en", "jina-v2-code", "roberta-bpe", "mpt", "olmo", "jais", "exaone4"},
       {gpt2_words()}, true},
      {{"trillion", "granite-docling"}, {gpt2_words()}, false},
      {{"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "jina-v5-nano"},
       {llama3_words(3)}, true, true, true},
      {{"dbrx", "smaug-bpe"}, {llama3_words(3)}, true},
      {{"glm4", "chatglm-bpe"}, {llama3_words(3)}, true, false, false, true},
      {{"qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "hunyuan", "solar-open", "grok-2"}, {llama3_words(1)}, false},
      {{"stablelm2", "megrez"}, {llama3_words(1)}, true},
      {{"qwen35"}, {llama3_words(1, true)}, false},
      {{"laguna"}, {newlines(), llama3_words(1)}, false},
      {{"starcoder", "refact", "codeshell", "exaone", "minerva-7b", "mellum2"},
       {class_runs(kNumber, "", 1, 1), gpt2_words()}, true},
      {{"command-r", "smollm"}, {class_runs(kNumber, "", 1, 1), gpt2_words()}, false},
      {{"falcon"}, {punctuation_runs(true), gpt2_words(), ascii_digit_triples()}, true},
  };
  return f;
}

// Names llama.cpp knows whose splits need a general regular expression
// (lookarounds, possessive or nested quantifiers), SentencePiece-style BPE or
// a script-specific scanner; they are refused by name.
const std::vector<std::string>& known_unsupported() {
  static const std::vector<std::string> n = {
      "deepseek-llm", "deepseek-coder", "deepseek-v3", "youtu", "jais-2", "gemma4", "granite-embed-multi-311m",
      "sarvam-moe", "whitespace", "poro-chat", "viking", "tekken", "bloom", "gpt3-finnish", "exaone-moe",
      "chameleon", "gpt-4o", "llama4", "kanana2", "talkie", "granite-embed-multi-97m", "tiny_aya", "cohere2moe",
      "superbpe", "bailingmoe", "bailingmoe2", "llada-moe", "seed-coder", "hunyuan-dense", "joyai-llm", "kimi-k2",
      "afmoe", "minimax-m2", "minicpm5"};
  return n;
}

const std::map<std::string, PreTokenizer, std::less<>>& registry() {
  static const auto r = [] {
    std::map<std::string, PreTokenizer, std::less<>> m;
    for (const Family& f : families())
      for (const std::string& n : f.names)
        m.emplace(n, PreTokenizer(n, f.steps, f.clean_spaces, f.ignore_merges, f.default_add_bos, f.no_default_bos));
    return m;
  }();
  return r;
}

}  // namespace

PreTokenizer::PreTokenizer(std::string name, std::vector<SplitStep> steps, bool clean_spaces, bool ignore_merges,
                           bool default_add_bos, bool no_default_bos)
    : name_(std::move(name)),
      steps_(std::move(steps)),
      clean_spaces_(clean_spaces),
      ignore_merges_(ignore_merges),
      default_add_bos_(default_add_bos),
      no_default_bos_(no_default_bos) {}

const PreTokenizer& PreTokenizer::for_name(std::string_view name, const std::string& where) {
  const auto& r = registry();
  if (auto it = r.find(name); it != r.end()) return it->second;
  const auto& k = known_unsupported();
  if (std::find(k.begin(), k.end(), name) != k.end())
    throw Error(where + ": tokenizer.ggml.pre '" + std::string(name) +
                "' is a known pre-tokenizer that this tokenizer does not implement (docs/TOKENIZER.md lists the "
                "supported ones)");
  throw Error(where + ": unknown tokenizer.ggml.pre '" + std::string(name) + "'");
}

std::vector<std::string> PreTokenizer::supported_names() {
  std::vector<std::string> out;
  for (const auto& [n, p] : registry()) out.push_back(n);
  return out;
}

std::vector<std::string> PreTokenizer::unsupported_names() {
  std::vector<std::string> out = known_unsupported();
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<size_t> PreTokenizer::split(std::span<const uint32_t> cps) const {
  std::vector<size_t> pieces;
  if (!cps.empty()) pieces.push_back(cps.size());
  for (const SplitStep& step : steps_) {
    std::vector<size_t> next;
    next.reserve(pieces.size() * 2);
    size_t begin = 0;
    for (size_t len : pieces) {
      Piece p(cps, begin, begin + len, next);
      switch (step.kind) {
        case SplitStep::Kind::Gpt2Words: split_gpt2(p, begin); break;
        case SplitStep::Kind::Llama3Words: split_llama3(p, begin, step); break;
        case SplitStep::Kind::ClassRuns: split_class_runs(p, cps, begin, step); break;
        case SplitStep::Kind::Newlines: split_newlines(p, begin); break;
      }
      begin += len;
    }
    pieces = std::move(next);
  }
  return pieces;
}

}  // namespace k100::model
