#include "k100/model/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "k100/base/error.h"

namespace k100::model {
namespace {

void check_row(std::span<const float> logits, bool allow_infinity) {
  if (logits.empty()) throw Error("sampler: the logits row is empty");
  for (size_t i = 0; i < logits.size(); ++i) {
    const float v = logits[i];
    if (std::isnan(v)) throw Error("sampler: logit " + std::to_string(i) + " is NaN");
    if (!allow_infinity && v == std::numeric_limits<float>::infinity())
      throw Error("sampler: logit " + std::to_string(i) + " is +inf");
  }
}

}  // namespace

std::string sampler_rule_broken(SamplerField field, double v) {
  if (std::isnan(v)) return "must be a number";
  switch (field) {
    case SamplerField::Temperature:
      return v >= 0 && std::isfinite(v) ? "" : "must be 0 (greedy) or more";
    case SamplerField::TopK:
      return v >= 0 && v <= double(INT32_MAX) ? "" : "must be 0 (all tokens) or more";
    case SamplerField::TopP:
    case SamplerField::MinP:
      return v >= 0 && v <= 1 ? "" : "must be in [0, 1]";
    case SamplerField::RepeatPenalty:
      return v > 0 && std::isfinite(v) ? "" : "must be more than 0 (1 is off)";
    case SamplerField::RepeatLastN:
      return v >= -1 && v <= double(INT32_MAX) ? "" : "must be -1 (the whole history), 0 (off) or more";
    case SamplerField::FrequencyPenalty:
    case SamplerField::PresencePenalty:
      return std::isfinite(v) ? "" : "must be a finite number";
  }
  return "";
}

Sampler::Sampler(SamplerParams params) : params_(params), rng_(params.seed) {
  if (std::isnan(params.temperature)) throw Error("sampler: temperature is NaN");
  if (std::isnan(params.top_p)) throw Error("sampler: top_p is NaN");
  if (std::isnan(params.min_p)) throw Error("sampler: min_p is NaN");
  if (params.top_k < 0) throw Error("sampler: top_k " + std::to_string(params.top_k) + " is negative");
  if (!(params.repeat_penalty > 0.0f))
    throw Error("sampler: repeat_penalty " + std::to_string(params.repeat_penalty) + " must be > 0");
  if (!std::isfinite(params.frequency_penalty) || !std::isfinite(params.presence_penalty))
    throw Error("sampler: frequency_penalty and presence_penalty must be finite");
  if (params.repeat_last_n < -1)
    throw Error("sampler: repeat_last_n " + std::to_string(params.repeat_last_n) + " must be -1 (all), 0 (off) or more");
}

int64_t Sampler::greedy(std::span<const float> logits) {
  check_row(logits, true);
  return std::max_element(logits.begin(), logits.end()) - logits.begin();  // first of equal maxima
}

int64_t Sampler::sample(std::span<const float> logits, float temperature, int32_t top_k, float top_p, Rng& rng,
                        float min_p) {
  if (std::isnan(temperature)) throw Error("sampler: temperature is NaN");
  if (std::isnan(top_p)) throw Error("sampler: top_p is NaN");
  if (std::isnan(min_p)) throw Error("sampler: min_p is NaN");
  if (top_k < 0) throw Error("sampler: top_k " + std::to_string(top_k) + " is negative");
  if (temperature <= 0.0f) return greedy(logits);
  check_row(logits, false);
  const size_t n = logits.size();
  constexpr double kMasked = -std::numeric_limits<double>::infinity();

  std::vector<double> z(n);
  for (size_t i = 0; i < n; ++i) z[i] = double(logits[i]) / double(temperature);
  const double top = *std::max_element(z.begin(), z.end());
  if (top == kMasked) throw Error("sampler: every logit is -inf");

  // top-k: everything below the k-th largest value goes (ties with it stay)
  if (top_k > 0 && size_t(top_k) < n) {
    std::vector<double> sorted = z;
    std::nth_element(sorted.begin(), sorted.begin() + (top_k - 1), sorted.end(), std::greater<>());
    const double kth = sorted[top_k - 1];
    for (double& v : z)
      if (v < kth) v = kMasked;
  }

  // unnormalised probabilities relative to the largest logit
  std::vector<double> p(n);
  for (size_t i = 0; i < n; ++i) p[i] = z[i] == kMasked ? 0.0 : std::exp(z[i] - top);

  // nucleus: in descending order (ties by index), drop the entries whose
  // cumulative probability exceeds top_p, except the first
  if (top_p < 1.0f) {
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return z[a] > z[b]; });
    const double total = std::accumulate(p.begin(), p.end(), 0.0);
    double cumulative = 0.0;
    for (size_t r = 0; r < n; ++r) {
      const size_t i = order[r];
      cumulative += p[i] / total;
      if (r > 0 && cumulative > double(top_p)) p[i] = 0.0;
    }
  }

  // min-p: relative to the largest probability (1 here: p is relative to the top logit)
  if (min_p > 0.0f)
    for (double& v : p)
      if (v < double(min_p)) v = 0.0;

  // the draw: the first index whose cumulative probability exceeds u
  const double total = std::accumulate(p.begin(), p.end(), 0.0);
  const double u = rng.uniform() * total;
  double cumulative = 0.0;
  int64_t last = -1;
  for (size_t i = 0; i < n; ++i) {
    if (p[i] == 0.0) continue;
    cumulative += p[i];
    last = int64_t(i);
    if (cumulative > u) return last;
  }
  return last;  // u within rounding of the total
}

void Sampler::apply_penalties(std::span<float> logits, std::span<const TokenId> recent, float repeat_penalty,
                              float frequency_penalty, float presence_penalty) {
  std::unordered_map<TokenId, int> count;
  for (TokenId id : recent)
    if (id >= 0 && size_t(id) < logits.size()) ++count[id];
  for (const auto& [id, c] : count) {
    float& v = logits[id];
    if (v <= 0.0f) v *= repeat_penalty;
    else v /= repeat_penalty;
    v -= float(c) * frequency_penalty + float(c > 0) * presence_penalty;
  }
}

TokenId Sampler::next(std::span<const float> logits) {
  std::vector<float> row(logits.begin(), logits.end());
  const bool penalised = params_.repeat_last_n != 0 &&
                         (params_.repeat_penalty != 1.0f || params_.frequency_penalty != 0.0f ||
                          params_.presence_penalty != 0.0f);
  if (penalised) {
    const std::vector<TokenId> recent(recent_.begin(), recent_.end());
    apply_penalties(row, recent, params_.repeat_penalty, params_.frequency_penalty, params_.presence_penalty);
  }
  const TokenId id = TokenId(sample(row, params_.temperature, params_.top_k, params_.top_p, rng_, params_.min_p));
  accept(id);
  return id;
}

void Sampler::accept(TokenId id) {
  if (params_.repeat_last_n == 0) return;
  recent_.push_back(id);
  if (params_.repeat_last_n > 0 && recent_.size() > size_t(params_.repeat_last_n)) recent_.pop_front();
}

void Sampler::reset() {
  recent_.clear();
  rng_ = Rng(params_.seed);
}

}  // namespace k100::model
