#include "k100/model/completion.h"

#include <chrono>

#include "k100/base/error.h"
#include "k100/model/stop_strings.h"
#include "k100/model/text_stream.h"

namespace k100::model {

const char* finish_reason_name(FinishReason r) {
  switch (r) {
    case FinishReason::EndOfGeneration:
    case FinishReason::StopString: return "stop";
    case FinishReason::Length:
    case FinishReason::ContextFull: return "length";
    case FinishReason::Cancelled: return "cancelled";
  }
  return "stop";
}

Completer::Completer(DecoderModel& model, const Tokenizer* tokenizer, ProfilingDevice* profiler)
    : model_(model), generator_(model, profiler) {
  if (tokenizer) tokenizer_.emplace(*tokenizer);
}

CompletionResult Completer::complete(std::span<const TokenId> prompt, const CompletionParams& params,
                                     const CompletionHooks& hooks) {
  if (prompt.empty()) throw Error("the prompt is empty");
  const int64_t room = model_.context() - int64_t(prompt.size());
  if (room < 0)
    throw Error("the prompt has " + std::to_string(prompt.size()) + " tokens; the context holds " +
                std::to_string(model_.context()));
  // the last token chosen is not run, so a full context still yields room + 1 tokens
  const int64_t limit = params.max_tokens < 0 ? room + 1 : params.max_tokens;

  CompletionResult r;
  Sampler sampler(params.sampler);
  for (TokenId t : prompt) sampler.accept(t);
  std::optional<TextStream> utf8;
  if (tokenizer_) utf8.emplace(*tokenizer_);
  StopStrings stops(params.stop, params.show_stop);
  bool cancelled = false, ended = false;
  auto release = [&](const std::string& text) {
    if (text.empty()) return;
    r.text += text;
    if (hooks.on_text && !hooks.on_text(text)) cancelled = true;
  };

  GenerationCallbacks cb;
  cb.choose = [&](std::span<const float> logits) {
    const auto t0 = std::chrono::steady_clock::now();
    const TokenId id = sampler.next(logits);
    r.sample_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return id;
  };
  if (hooks.on_logits) cb.on_logits = hooks.on_logits;
  cb.on_token = [&](int32_t id) {
    r.tokens.push_back(id);
    if (hooks.on_token) hooks.on_token(id);
    if (!params.ignore_eos && tokenizer_ && tokenizer_->is_end_of_generation(id)) {
      ended = true;
      return false;
    }
    if (utf8) release(stops.push(utf8->push(id)));
    if (stops.stopped() || cancelled) return false;
    if (hooks.cancelled && hooks.cancelled()) {
      cancelled = true;
      return false;
    }
    return true;
  };
  const bool cancelled_first = hooks.cancelled && hooks.cancelled();
  if (limit > 0 && !cancelled_first) {
    generator_.run(prompt, limit, cb);
    r.stats = generator_.stats();
  } else {
    cancelled = cancelled_first;
  }

  if (!stops.stopped() && utf8) release(stops.push(utf8->flush()));
  if (!stops.stopped()) release(stops.flush());
  if (stops.stopped()) {
    r.finish = FinishReason::StopString;
    r.stop = stops.matched();
  } else if (ended) {
    r.finish = FinishReason::EndOfGeneration;
  } else if (cancelled) {
    r.finish = FinishReason::Cancelled;
  } else if (int64_t(r.tokens.size()) >= limit && params.max_tokens >= 0) {
    r.finish = FinishReason::Length;
  } else {
    r.finish = FinishReason::ContextFull;
  }
  return r;
}

}  // namespace k100::model
