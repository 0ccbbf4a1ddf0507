// k100lc model: choosing the next token from a row of logits (host side).
//
// Sampler::greedy and Sampler::sample are the static functions of the
// Python API (spec PYTHON_API.md 7.14): temperature <= 0 is greedy; otherwise
// the logits are divided by the temperature, everything below the k-th
// largest is masked when 0 < top_k < vocab, nucleus filtering keeps, in
// descending order, the entries whose cumulative probability does not
// exceed top_p (always the first), min-p filtering keeps the entries whose
// probability is at least min_p times the largest one, and one index is drawn
// from the softmax of what is left (top-p and min-p see the probabilities
// after the temperature; llama.cpp applies the temperature after them, so a
// temperature other than 1 filters differently). A Sampler object adds the
// repetition penalties of llama.cpp
// (penalty_repeat / penalty_freq / penalty_present over the last N tokens)
// and remembers the tokens it has seen.
//
// Random numbers come from Rng, a documented generator (xoshiro256** seeded
// through SplitMix64), so a seed gives the same tokens on every machine.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <unordered_map>

#include "k100/model/vocabulary.h"

namespace k100::model {

// xoshiro256** (Blackman and Vigna, 2018), its four state words filled from
// the seed by SplitMix64 (Steele, Lea, Flood, 2014). uniform() takes the top
// 53 bits of next(): a double in [0, 1).
class Rng {
 public:
  explicit Rng(uint64_t seed = 0);
  uint64_t next();
  double uniform();

 private:
  uint64_t s_[4];
};

struct SamplerParams {
  float temperature = 1.0f;  // <= 0: greedy
  int32_t top_k = 0;         // 0 or >= vocabulary size: off
  float top_p = 1.0f;        // >= 1: off
  float min_p = 0.0f;        // <= 0: off
  uint64_t seed = 0;
  // Over the last repeat_last_n tokens seen (0: off, -1: all of them), a
  // token that occurred c times has its logit divided by repeat_penalty when
  // positive, multiplied when not, then lowered by
  // c * frequency_penalty + presence_penalty.
  float repeat_penalty = 1.0f;
  float frequency_penalty = 0.0f;
  float presence_penalty = 0.0f;
  int32_t repeat_last_n = 64;
};

// The parameters a front end checks, each against one rule.
enum class SamplerField { Temperature, TopK, TopP, MinP, RepeatPenalty, RepeatLastN, FrequencyPenalty, PresencePenalty };
// The rule `value` breaks for `field` ("must be in [0, 1]"), or "" when it
// keeps it: temperature >= 0 (0 is greedy), top_k >= 0 (0 is off), top_p
// and min_p in [0, 1], repeat_penalty > 0 (1 is off), repeat_last_n >= -1
// (-1 is the whole history, 0 is off), the other penalties finite.
std::string sampler_rule_broken(SamplerField field, double value);

class Sampler {
 public:
  // k100::Error naming the parameter for a NaN temperature, top_p or min_p,
  // a negative top_k, a repeat_penalty <= 0, a repeat_last_n below -1.
  explicit Sampler(SamplerParams params = {});

  // The index of the largest logit (the first one on ties). k100::Error for
  // an empty row or a NaN.
  static int64_t greedy(std::span<const float> logits);
  // One draw as described above. k100::Error naming the index of a NaN or
  // +inf logit, or for a row that is all -inf.
  static int64_t sample(std::span<const float> logits, float temperature, int32_t top_k, float top_p, Rng& rng,
                        float min_p = 0.0f);
  // The penalties in place, for the tokens in `recent` (ids outside the row
  // are ignored).
  static void apply_penalties(std::span<float> logits, std::span<const TokenId> recent, float repeat_penalty,
                              float frequency_penalty, float presence_penalty);

  // Penalties over the remembered tokens, then greedy or a draw; the chosen
  // token is remembered.
  TokenId next(std::span<const float> logits);
  // Remembers a token without sampling (the prompt, forced tokens).
  void accept(TokenId id);
  // Forgets the tokens and restarts the generator from the seed.
  void reset();

  const SamplerParams& params() const { return params_; }

 private:
  SamplerParams params_;
  Rng rng_;
  std::deque<TokenId> recent_;
};

}  // namespace k100::model
