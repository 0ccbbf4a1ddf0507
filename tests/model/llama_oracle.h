// libllama (llama.cpp, from the npm package node-llama-cpp, installed by
// scripts/install-llama-oracle.sh into <build>/oracles/llama) as a test
// oracle for the model module, reached through dlopen. K100_LLAMA_BIN_DIR
// overrides the directory of the libraries. The product never links it.
//
// Tests call K100_REQUIRE_LLAMA(var): without the library the test is
// skipped with the reason, except under CI=true, where it fails.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace k100::test {

class LlamaOracle {
 public:
  // The loaded oracle, or nullptr with the reason in *why.
  static const LlamaOracle* get(std::string* why);

  // A vocabulary loaded by llama_model_load_from_file with vocab_only.
  class Vocab {
   public:
    ~Vocab();
    Vocab(const Vocab&) = delete;
    Vocab& operator=(const Vocab&) = delete;

    int32_t size() const;
    std::vector<int32_t> tokenize(const std::string& text, bool add_special, bool parse_special) const;
    std::string token_to_piece(int32_t id, bool special) const;
    std::string detokenize(const std::vector<int32_t>& ids, bool remove_special, bool unparse_special) const;
    uint32_t attr(int32_t id) const;  // llama_token_attr bits
    bool is_eog(int32_t id) const;
    int32_t bos() const;
    int32_t eos() const;
    bool add_bos() const;
    bool add_eos() const;

   private:
    friend class LlamaOracle;
    Vocab(const LlamaOracle* o, void* model) : o_(o), model_(model) {}
    const void* vocab() const;
    const LlamaOracle* o_;
    void* model_;
  };
  // nullptr when libllama refuses the file (its log then says why; see
  // last_log()).
  std::unique_ptr<Vocab> load_vocab(const std::string& gguf_path) const;
  // What libllama logged while loading the last file.
  const std::string& last_log() const;

  // llama.cpp's penalties sampler (llama_sampler_init_penalties): accepts
  // `history` in order, then applies itself to `logits` (ids 0..n-1).
  std::vector<float> penalties(int32_t last_n, float repeat, float freq, float present,
                               const std::vector<int32_t>& history, const std::vector<float>& logits) const;

  // llama_chat_apply_template: `tmpl` is a built-in name or a Jinja text
  // (recognised by its strings); messages are {role, content}. nullopt when
  // llama.cpp refuses the template.
  std::optional<std::string> chat_apply_template(const std::string& tmpl,
                                                 const std::vector<std::pair<std::string, std::string>>& messages,
                                                 bool add_assistant) const;
  // llama_chat_builtin_templates: the names it renders.
  std::vector<std::string> chat_builtin_templates() const;

  struct Api;  // the resolved symbols

 private:
  LlamaOracle() = default;
  const Api* api_ = nullptr;
};

// True under CI=true: a missing oracle is then a failure, not a skip.
bool llama_oracle_required();

}  // namespace k100::test

#define K100_REQUIRE_LLAMA(var)                                                                  \
  std::string var##_why;                                                                         \
  const ::k100::test::LlamaOracle* var = ::k100::test::LlamaOracle::get(&var##_why);             \
  if (!var) {                                                                                    \
    if (::k100::test::llama_oracle_required()) FAIL() << "CI=true and the llama oracle is missing: " << var##_why; \
    GTEST_SKIP() << var##_why;                                                                   \
  }
