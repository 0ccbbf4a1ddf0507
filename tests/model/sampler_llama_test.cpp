// The repetition penalties against llama.cpp's penalties sampler: the same
// logits after the same history, bit for bit.
#include <gtest/gtest.h>

#include <cstring>

#include "k100/model/sampler.h"
#include "llama_oracle.h"

namespace k100::model {
namespace {

TEST(SamplerVsLlama, Penalties) {
  K100_REQUIRE_LLAMA(oracle);
  Rng rng(5);
  const int n_vocab = 300;
  struct Case {
    int32_t last_n;
    float repeat, freq, present;
  };
  // frequency and presence values are exact in binary, so no rounding order matters
  const Case cases[] = {{64, 1.1f, 0.0f, 0.0f}, {8, 1.5f, 0.0f, 0.0f}, {64, 1.3f, 0.5f, 0.25f},
                        {16, 0.9f, 0.125f, 1.0f}, {1, 2.0f, 0.0f, 0.0f}, {0, 1.5f, 0.0f, 0.0f}};
  for (const Case& c : cases) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<float> logits(n_vocab);
      for (float& l : logits) l = float(rng.uniform() * 20.0 - 10.0);
      std::vector<TokenId> history(rng.next() % 100);
      for (TokenId& t : history) t = TokenId(rng.next() % 40);  // a small range, so tokens repeat
      // what our Sampler remembers: the last `last_n` tokens
      std::vector<TokenId> window;
      if (c.last_n > 0) {
        const size_t from = history.size() > size_t(c.last_n) ? history.size() - size_t(c.last_n) : 0;
        window.assign(history.begin() + long(from), history.end());
      }
      std::vector<float> ours = logits;
      Sampler::apply_penalties(ours, window, c.repeat, c.freq, c.present);
      const std::vector<float> theirs = oracle->penalties(c.last_n, c.repeat, c.freq, c.present, history, logits);
      ASSERT_EQ(ours.size(), theirs.size());
      for (int i = 0; i < n_vocab; ++i)
        ASSERT_EQ(std::memcmp(&ours[i], &theirs[i], sizeof(float)), 0)
            << "last_n " << c.last_n << " repeat " << c.repeat << " id " << i << ": ours " << ours[i] << ", llama "
            << theirs[i];
    }
  }
}

// The Sampler object keeps the same window as llama.cpp's sampler: greedy
// choices after penalties agree step by step.
TEST(SamplerVsLlama, PenaltyWindowInGreedyDecoding) {
  K100_REQUIRE_LLAMA(oracle);
  Rng rng(8);
  const int n_vocab = 50;
  Sampler s({.temperature = 0.0f, .repeat_penalty = 1.4f, .frequency_penalty = 0.25f, .repeat_last_n = 6});
  std::vector<int32_t> history;
  for (int step = 0; step < 200; ++step) {
    std::vector<float> logits(n_vocab);
    for (float& l : logits) l = float(rng.uniform() * 4.0);
    const TokenId ours = s.next(logits);
    const std::vector<float> pen = oracle->penalties(6, 1.4f, 0.25f, 0.0f, history, logits);
    const TokenId theirs = TokenId(Sampler::greedy(pen));
    ASSERT_EQ(ours, theirs) << "step " << step;
    history.push_back(theirs);
  }
}

}  // namespace
}  // namespace k100::model
