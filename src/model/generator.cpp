#include "k100/model/generator.h"

#include <chrono>

#include "k100/base/error.h"

namespace k100::model {

namespace {
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

std::vector<int32_t> Generator::run(std::span<const int32_t> prompt, int64_t n, const GenerationCallbacks& cb) {
  if (prompt.empty()) throw Error("generation needs at least one prompt token");
  if (!cb.choose) throw Error("generation needs a way to choose tokens");
  if (int64_t(prompt.size()) > model_.context())
    throw Error("the prompt has " + std::to_string(prompt.size()) + " tokens; the context holds " +
                std::to_string(model_.context()));
  stats_ = GenerationStats{};
  // Keep the KV rows of the longest common prefix; at least the last prompt
  // token runs again, for its logits.
  size_t keep = 0;
  while (keep < cached_.size() && keep + 1 < prompt.size() && cached_[keep] == prompt[keep]) ++keep;
  // a recurrent state (hybrid models) holds every cached token: it continues only from all of them
  if (keep < cached_.size() && !model_.rewinds()) keep = 0;
  stats_.reused_tokens = int64_t(keep);
  stats_.prompt_tokens = int64_t(prompt.size() - keep);
  cached_.resize(keep);  // what stays valid if a pass fails
  if (keep == 0) model_.reset();
  else model_.set_position(int64_t(keep));
  double t0 = now();
  for (size_t i = keep; i < prompt.size(); ++i) model_.forward(prompt[i], int64_t(i));
  std::vector<float> logits = model_.logits();
  stats_.prompt_seconds = now() - t0;
  cached_.assign(prompt.begin(), prompt.end());

  std::vector<int32_t> out;
  int64_t pos = int64_t(prompt.size());
  if (prof_) {
    prof_->reset();
    prof_->set_timing(true);
  }
  while (int64_t(out.size()) < n) {
    if (cb.on_logits) cb.on_logits(logits);
    const int32_t tok = cb.choose(logits);
    out.push_back(tok);
    ++stats_.generated;
    if (cb.on_token && !cb.on_token(tok)) break;
    if (int64_t(out.size()) >= n || pos >= model_.context()) break;
    const double t = now();
    if (prof_) prof_->restart_clock();
    const uint64_t before = prof_ ? prof_->launches() : 0;
    model_.forward(tok, pos++);
    cached_.push_back(tok);
    if (prof_) stats_.launches_per_token = prof_->launches() - before;
    logits = model_.logits();
    stats_.decode_seconds += now() - t;
    ++stats_.decode_passes;
  }
  if (prof_) {
    prof_->collect();
    stats_.families = prof_->family_times();
    prof_->set_timing(false);
  }
  return out;
}

}  // namespace k100::model
