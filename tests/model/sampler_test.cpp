// The sampler without the oracle: the generator against the published
// algorithms, greedy, temperature, top-k, top-p, seeds, penalties, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>

#include "k100/base/error.h"
#include "k100/model/sampler.h"

namespace k100::model {
namespace {

// SplitMix64 and xoshiro256** written out again from their papers, in another
// shape (state in an array walked by index), to check the generator.
struct ReferenceRng {
  uint64_t s[4];
  explicit ReferenceRng(uint64_t seed) {
    uint64_t x = seed;
    for (int i = 0; i < 4; ++i) {
      x += 0x9E3779B97F4A7C15ull;
      uint64_t z = x;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      s[i] = z ^ (z >> 31);
    }
  }
  uint64_t next() {
    const uint64_t m = s[1] * 5;
    const uint64_t out = ((m << 7) | (m >> 57)) * 9;
    const uint64_t t = s[1] << 17;
    uint64_t n[4] = {s[0] ^ s[3] ^ s[1], s[1] ^ s[2] ^ s[0], s[2] ^ s[0] ^ t, s[3] ^ s[1]};
    n[3] = (n[3] << 45) | (n[3] >> 19);
    for (int i = 0; i < 4; ++i) s[i] = n[i];
    return out;
  }
};

TEST(Rng, MatchesTheReferenceAlgorithms) {
  // SplitMix64's first output for seed 0, as published with the algorithm
  ReferenceRng zero(0);
  EXPECT_EQ(zero.s[0], 0xE220A8397B1DCDAFull);
  for (uint64_t seed : {0ull, 1ull, 42ull, 0xFFFFFFFFFFFFFFFFull}) {
    Rng r(seed);
    ReferenceRng ref(seed);
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(r.next(), ref.next()) << "seed " << seed << " draw " << i;
  }
}

TEST(Rng, UniformIsInUnitInterval) {
  Rng r(3);
  double sum = 0;
  for (int i = 0; i < 100000; ++i) {
    const double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / 100000, 0.5, 0.01);
}

TEST(Sampler, Greedy) {
  EXPECT_EQ(Sampler::greedy(std::vector<float>{0.1f, 3.0f, -2.0f, 3.0f}), 1);  // first of equal maxima
  const float ninf = -std::numeric_limits<float>::infinity();
  EXPECT_EQ(Sampler::greedy(std::vector<float>{ninf, ninf, -1e30f}), 2);
  EXPECT_THROW(Sampler::greedy(std::vector<float>{}), Error);
  EXPECT_THROW(Sampler::greedy(std::vector<float>{1.0f, std::nanf("")}), Error);
  Rng rng(1);
  // temperature <= 0 is greedy whatever the other settings
  for (float t : {0.0f, -1.0f})
    EXPECT_EQ(Sampler::sample(std::vector<float>{1, 5, 2}, t, 0, 0.5f, rng), 1);
}

// Draw frequencies, `n` draws.
std::map<int64_t, double> frequencies(const std::vector<float>& logits, float temperature, int top_k, float top_p,
                                      uint64_t seed, int n) {
  Rng rng(seed);
  std::map<int64_t, double> f;
  for (int i = 0; i < n; ++i) f[Sampler::sample(logits, temperature, top_k, top_p, rng)] += 1.0 / n;
  return f;
}

std::vector<double> softmax(const std::vector<float>& logits, double temperature) {
  std::vector<double> p;
  double m = -1e300, sum = 0;
  for (float v : logits) m = std::max(m, double(v) / temperature);
  for (float v : logits) p.push_back(std::exp(double(v) / temperature - m)), sum += p.back();
  for (double& x : p) x /= sum;
  return p;
}

TEST(Sampler, TemperatureFollowsTheSoftmax) {
  const std::vector<float> logits = {1.0f, 2.0f, 0.5f, -1.0f, 1.5f};
  for (float t : {0.5f, 1.0f, 2.0f}) {
    const auto p = softmax(logits, t);
    auto f = frequencies(logits, t, 0, 1.0f, 11, 40000);
    for (size_t i = 0; i < logits.size(); ++i) EXPECT_NEAR(f[int64_t(i)], p[i], 0.01) << "temperature " << t << " id " << i;
  }
}

TEST(Sampler, TopK) {
  const std::vector<float> logits = {0.0f, 3.0f, 1.0f, 2.0f, 2.5f};
  auto f = frequencies(logits, 1.0f, 2, 1.0f, 5, 20000);
  EXPECT_EQ(f.size(), 2u);  // only ids 1 and 4
  const double p1 = std::exp(3.0) / (std::exp(3.0) + std::exp(2.5));
  EXPECT_NEAR(f[1], p1, 0.01);
  EXPECT_NEAR(f[4], 1 - p1, 0.01);
  // top_k = 1 is greedy; ties with the k-th value stay in
  Rng rng(9);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(Sampler::sample(logits, 5.0f, 1, 1.0f, rng), 1);
  auto tied = frequencies({1.0f, 1.0f, 0.0f, 1.0f}, 1.0f, 1, 1.0f, 2, 3000);
  EXPECT_EQ(tied.size(), 3u);
  EXPECT_EQ(tied.count(2), 0u);
  // top_k >= vocabulary size is off
  EXPECT_EQ(frequencies(logits, 1.0f, 5, 1.0f, 5, 2000).size(), 5u);
}

TEST(Sampler, TopP) {
  // probabilities 0.5, 0.3, 0.15, 0.05
  const std::vector<float> logits = {std::log(0.5f), std::log(0.3f), std::log(0.15f), std::log(0.05f)};
  // cumulative 0.5, 0.8 stay (<= 0.85); 0.95 and 1.0 go
  auto f = frequencies(logits, 1.0f, 0, 0.85f, 21, 30000);
  EXPECT_EQ(f.size(), 2u);
  EXPECT_NEAR(f[0], 0.5 / 0.8, 0.01);
  EXPECT_NEAR(f[1], 0.3 / 0.8, 0.01);
  // the first entry always stays, even beyond top_p
  auto g = frequencies(logits, 1.0f, 0, 0.1f, 21, 1000);
  EXPECT_EQ(g.size(), 1u);
  EXPECT_EQ(g.count(0), 1u);
  // order is by value, not by id
  auto h = frequencies({std::log(0.05f), std::log(0.15f), std::log(0.3f), std::log(0.5f)}, 1.0f, 0, 0.85f, 21, 3000);
  EXPECT_EQ(h.size(), 2u);
  EXPECT_EQ(h.count(3) + h.count(2), 2u);
}

TEST(Sampler, SeedsAreDeterministic) {
  const std::vector<float> logits = {0.3f, 0.1f, 0.2f, 0.25f, 0.15f, 0.0f, 0.05f};
  auto run = [&](uint64_t seed) {
    Sampler s({.temperature = 1.0f, .top_k = 0, .top_p = 1.0f, .seed = seed});
    std::vector<TokenId> out;
    for (int i = 0; i < 64; ++i) out.push_back(s.next(logits));
    return out;
  };
  EXPECT_EQ(run(1), run(1));
  EXPECT_NE(run(1), run(2));
  Sampler s({.seed = 4});
  std::vector<TokenId> a, b;
  for (int i = 0; i < 16; ++i) a.push_back(s.next(logits));
  s.reset();
  for (int i = 0; i < 16; ++i) b.push_back(s.next(logits));
  EXPECT_EQ(a, b);
}

TEST(Sampler, RepetitionPenalty) {
  std::vector<float> l = {2.0f, -1.0f, 1.0f, 0.5f};
  const std::vector<TokenId> recent = {0, 1, 1, 7};  // id 7 is outside the row
  Sampler::apply_penalties(l, recent, 2.0f, 0.25f, 0.5f);
  // positive logits are divided, the others multiplied; then count * 0.25 + 0.5 off
  EXPECT_FLOAT_EQ(l[0], 2.0f / 2 - 0.25f - 0.5f);
  EXPECT_FLOAT_EQ(l[1], -1.0f * 2 - 0.5f - 0.5f);
  EXPECT_FLOAT_EQ(l[2], 1.0f);
  EXPECT_FLOAT_EQ(l[3], 0.5f);

  // greedy with a penalty: the repeated best token loses to the runner-up
  const std::vector<float> logits = {2.0f, 1.9f, 0.0f};
  Sampler s({.temperature = 0.0f, .repeat_penalty = 1.5f, .repeat_last_n = 4});
  EXPECT_EQ(s.next(logits), 0);
  EXPECT_EQ(s.next(logits), 1);  // 0 was seen: 2.0 / 1.5 < 1.9
  EXPECT_EQ(s.next(logits), 0);  // both seen: 1.33 > 1.27
  // the window: once 0 falls out of the last 4 tokens it is not penalised
  Sampler w({.temperature = 0.0f, .repeat_penalty = 1.5f, .repeat_last_n = 4});
  w.accept(0);
  EXPECT_EQ(w.next(logits), 1);
  for (int i = 0; i < 4; ++i) w.accept(2);
  EXPECT_EQ(w.next(logits), 0);
  // repeat_last_n = 0 switches it off
  Sampler off({.temperature = 0.0f, .repeat_penalty = 1.5f, .repeat_last_n = 0});
  off.accept(0);
  EXPECT_EQ(off.next(logits), 0);
}

TEST(Sampler, Errors) {
  EXPECT_THROW(Sampler({.temperature = std::nanf("")}), Error);
  EXPECT_THROW(Sampler({.top_k = -1}), Error);
  EXPECT_THROW(Sampler({.repeat_penalty = 0.0f}), Error);
  EXPECT_THROW(Sampler({.repeat_last_n = -2}), Error);
  Rng rng(0);
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_THROW(Sampler::sample(std::vector<float>{1.0f, inf}, 1.0f, 0, 1.0f, rng), Error);
  EXPECT_THROW(Sampler::sample(std::vector<float>{-inf, -inf}, 1.0f, 0, 1.0f, rng), Error);
  EXPECT_THROW(Sampler::sample(std::vector<float>{1.0f}, 1.0f, -3, 1.0f, rng), Error);
  try {
    Sampler::sample(std::vector<float>{1.0f, 2.0f, std::nanf("")}, 1.0f, 0, 1.0f, rng);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("logit 2 is NaN"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace k100::model
