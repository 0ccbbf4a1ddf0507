// Pre-tokenizers of byte-level BPE vocabularies: the split of a text into
// words before merges run, selected by the GGUF key tokenizer.ggml.pre.
//
// Each pre-tokenizer is a short list of split steps; every step refines the
// pieces of the one before it and never looks across a piece boundary. The
// steps are hand-written matchers for the few regular expressions GGUF
// vocabularies name, not a regex engine:
//  - the word rules of GPT-2 and of the Llama-3 / Qwen-2 family (contractions,
//    letter runs, digit groups, punctuation runs, whitespace runs), written
//    to split exactly as llama.cpp's tokenizer does, quirks included;
//  - runs of one character class, isolated from their surroundings (what a
//    `[class]+`, `class{1,3}` or `[0-9]{3}` expression does);
//  - runs of newlines versus the rest.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace k100::model {

// One split step.
struct SplitStep {
  enum class Kind {
    Gpt2Words,    // 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)
    Llama3Words,  // (?i:'s|...)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
    ClassRuns,    // isolate runs of `classes` (plus `ascii_extra`), min..max long
    Newlines,     // [^\n]+|[\n]+
  };
  Kind kind = Kind::Gpt2Words;
  // Llama3Words: digits per number group (3 for Llama 3, 1 for Qwen 2), and
  // whether combining marks join letter runs (Qwen 3.5).
  int digit_group = 3;
  bool letters_take_marks = false;
  // ClassRuns: the code point classes (unicode::CodepointFlag bits) that
  // match, ASCII characters that match besides them, and the run length
  // bounds (max 0 = unbounded).
  uint16_t classes = 0;
  std::string_view ascii_extra;
  size_t min_run = 1;
  size_t max_run = 0;
};

class PreTokenizer {
 public:
  // The pre-tokenizer a GGUF file names; k100::Error for a name this
  // implementation does not support (naming whether it is a known one).
  static const PreTokenizer& for_name(std::string_view name, const std::string& where);
  static std::vector<std::string> supported_names();
  static std::vector<std::string> unsupported_names();

  // Lengths, in code points, of the pieces `cps` splits into.
  std::vector<size_t> split(std::span<const uint32_t> cps) const;

  const std::string& name() const { return name_; }
  // Decoding removes the spaces of " ." and " 's" style sequences (the
  // cleanup llama.cpp applies for these vocabularies).
  bool clean_spaces() const { return clean_spaces_; }
  // A word that is itself a token is emitted whole, before any merge.
  bool ignore_merges() const { return ignore_merges_; }
  // The add_bos default of these vocabularies (the file's add_bos_token key
  // overrides it), and whether they have no BOS token unless the file names one.
  bool default_add_bos() const { return default_add_bos_; }
  bool no_default_bos() const { return no_default_bos_; }

  PreTokenizer(std::string name, std::vector<SplitStep> steps, bool clean_spaces, bool ignore_merges,
               bool default_add_bos, bool no_default_bos);

 private:
  std::string name_;
  std::vector<SplitStep> steps_;
  bool clean_spaces_;
  bool ignore_merges_;
  bool default_add_bos_;
  bool no_default_bos_;
};

}  // namespace k100::model
