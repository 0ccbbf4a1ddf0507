// Completer on a random model on the default device: a prompt that extends
// the cached tokens runs only its new tokens and gives the ids a fresh model
// gives; stop strings, the token limit, a full context and cancelling end a
// completion with the reason named.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "k100/model/completion.h"
#include "k100/model/decoder.h"
#include "k100/model/random_model.h"
#include "k100/runtime/runtime.h"

namespace k100::model {
namespace {

namespace fs = std::filesystem;

Device& device() {
  static runtime::Runtime rt;
  static RuntimeDevice dev(rt);
  return dev;
}

const std::string& qwen_model() {
  static const std::string path = [] {
    const fs::path p = fs::temp_directory_path() / ("k100_completion_test_" + std::to_string(::getpid()) + ".gguf");
    RandomModelSpec spec;
    spec.arch = Architecture::Qwen3;
    write_random_model(p.string(), spec);
    return p.string();
  }();
  return path;
}

CompletionParams greedy(int64_t n) {
  CompletionParams p;
  p.max_tokens = n;
  p.sampler.temperature = 0;
  p.ignore_eos = true;
  return p;
}

TEST(Completion, ExtendedPromptReusesTheCacheAndMatchesAFreshRun) {
  const quant::GgufFile f = quant::GgufFile::open(qwen_model());
  const Tokenizer tok = Tokenizer::from_gguf(f);
  DecoderModel m(device(), f, LoadOptions{.context = 64, .progress = {}});
  Completer c(m, &tok);
  const std::vector<TokenId> first = {300, 301, 302, 303};
  const CompletionResult a = c.complete(first, greedy(5));
  ASSERT_EQ(a.tokens.size(), 5u);
  EXPECT_EQ(a.finish, FinishReason::Length);
  EXPECT_EQ(a.stats.reused_tokens, 0);

  // the next turn: the first prompt, three of its answers, two new tokens
  std::vector<TokenId> next = first;
  next.insert(next.end(), a.tokens.begin(), a.tokens.begin() + 3);
  next.insert(next.end(), {310, 311});
  const CompletionResult b = c.complete(next, greedy(4));
  EXPECT_EQ(b.stats.reused_tokens, 4 + 3);
  EXPECT_EQ(b.stats.prompt_tokens, 2);

  DecoderModel fresh_model(device(), f, LoadOptions{.context = 64, .progress = {}});
  Completer fresh(fresh_model, &tok);
  const CompletionResult want = fresh.complete(next, greedy(4));
  EXPECT_EQ(want.stats.reused_tokens, 0);
  EXPECT_EQ(b.tokens, want.tokens);
  EXPECT_EQ(b.text, want.text);

  // a prompt that diverges early keeps only the common start
  const CompletionResult d = c.complete(std::vector<TokenId>{300, 305, 306}, greedy(1));
  EXPECT_EQ(d.stats.reused_tokens, 1);
  // the same prompt again runs its last token only
  const CompletionResult e = c.complete(std::vector<TokenId>{300, 305, 306}, greedy(1));
  EXPECT_EQ(e.stats.reused_tokens, 2);
  EXPECT_EQ(e.tokens, d.tokens);
}

TEST(Completion, EndsWithTheReasonNamed) {
  const quant::GgufFile f = quant::GgufFile::open(qwen_model());
  const Tokenizer tok = Tokenizer::from_gguf(f);
  DecoderModel m(device(), f, LoadOptions{.context = 12, .progress = {}});
  Completer c(m, &tok);
  const std::vector<TokenId> prompt = {300, 301, 302};
  const CompletionResult all = c.complete(prompt, greedy(-1));
  EXPECT_EQ(all.finish, FinishReason::ContextFull);
  EXPECT_EQ(all.tokens.size(), 12u - 3u + 1u);  // the last one chosen is not run
  ASSERT_GE(all.text.size(), 4u);

  // a stop string from the middle of that text: cut (OpenAI) or shown (reverse prompt)
  const std::string stop = all.text.substr(all.text.size() / 2, 2);
  CompletionParams p = greedy(-1);
  p.stop = {stop};
  const CompletionResult cut = c.complete(prompt, p);
  EXPECT_EQ(cut.finish, FinishReason::StopString);
  EXPECT_EQ(cut.stop, stop);
  EXPECT_EQ(cut.text, all.text.substr(0, all.text.find(stop)));
  p.show_stop = true;
  const CompletionResult shown = c.complete(prompt, p);
  EXPECT_EQ(shown.text, all.text.substr(0, all.text.find(stop) + stop.size()));

  const CompletionResult none = c.complete(prompt, greedy(0));
  EXPECT_EQ(none.finish, FinishReason::Length);
  EXPECT_TRUE(none.tokens.empty());

  int polled = 0;
  CompletionHooks h;
  h.cancelled = [&] { return ++polled > 3; };
  const CompletionResult stopped = c.complete(prompt, greedy(-1), h);
  EXPECT_EQ(stopped.finish, FinishReason::Cancelled);
  EXPECT_EQ(stopped.tokens.size(), 3u);  // polled before the run, then after each token
  EXPECT_THROW(c.complete(std::vector<TokenId>(13, 300), greedy(1)), Error);
}

}  // namespace
}  // namespace k100::model
