// k100lc model: completing a prompt with a loaded model, as text.
//
// The engine behind k100-generate's turns and k100-server's requests: the
// Generator (with its reuse of the cached prompt prefix), a Sampler per
// completion (the prompt counts for the repetition penalties), a TextStream
// (text is released in whole UTF-8 characters) and StopStrings (the text
// that could begin a stop string is held back until it is known not to).
//
//   Completer c(model, tokenizer, &profiler);
//   CompletionParams p{.max_tokens = 64, .stop = {"\nUser:"}};
//   CompletionResult r = c.complete(tokenizer.encode(prompt), p,
//                                   {.on_text = [](const std::string& t) { std::fputs(t.c_str(), stdout); return true; }});
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "k100/model/generator.h"
#include "k100/model/sampler.h"
#include "k100/model/tokenizer.h"

namespace k100::model {

struct CompletionParams {
  int64_t max_tokens = -1;  // -1: until the context is full
  SamplerParams sampler{.temperature = 0.8f, .top_k = 40, .top_p = 0.95f, .seed = 0};
  std::vector<std::string> stop;  // stop strings
  bool show_stop = false;         // the matched stop string is part of the text (a reverse prompt)
  bool ignore_eos = false;        // go on after an end-of-generation token
};

enum class FinishReason {
  EndOfGeneration,  // the model ended its turn (EOS, EOT, ...)
  StopString,       // a stop string appeared
  Length,           // max_tokens were generated
  ContextFull,      // the KV cache is full
  Cancelled,        // on_text returned false, or cancelled() true
};
// "stop", "stop", "length", "length", "cancelled": OpenAI's finish_reason.
const char* finish_reason_name(FinishReason r);

struct CompletionResult {
  std::string text;              // the text released (stop strings cut or kept as asked)
  std::vector<TokenId> tokens;   // the generated ids, an end-of-generation token included
  FinishReason finish = FinishReason::Length;
  std::string stop;              // the stop string that appeared
  GenerationStats stats;         // of the generator (prompt, decode passes, device time)
  double sample_seconds = 0;     // choosing the tokens on the host
};

struct CompletionHooks {
  // Each piece of text as it is released; false cancels.
  std::function<bool(const std::string& text)> on_text;
  // Polled before each token is generated; true cancels (Ctrl-C, a client gone).
  std::function<bool()> cancelled;
  // Each row of logits a token is chosen from (--logits).
  std::function<void(std::span<const float> logits)> on_logits;
  // Each generated id, before its text.
  std::function<void(TokenId id)> on_token;
};

class Completer {
 public:
  // profiler: the ProfilingDevice the model was built on, or nullptr.
  // Without a tokenizer (a file whose vocabulary cannot be read, run on token
  // ids) there is no text and no end-of-generation token.
  Completer(DecoderModel& model, const Tokenizer* tokenizer, ProfilingDevice* profiler = nullptr);
  // k100::Error for an empty prompt, or one longer than the context.
  CompletionResult complete(std::span<const TokenId> prompt, const CompletionParams& params,
                            const CompletionHooks& hooks = {});
  DecoderModel& model() { return model_; }
  Generator& generator() { return generator_; }

 private:
  DecoderModel& model_;
  std::optional<Tokenizer> tokenizer_;
  Generator generator_;
};

}  // namespace k100::model
