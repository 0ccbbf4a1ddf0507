// k100lc model: generating tokens with a DecoderModel.
//
// The prompt's passes are enqueued back to back with no sync between them
// (only the last one's logits are read); every generated token then costs
// one pass and one sync (the logits download), after which `choose` picks
// the next token on the host. Time is measured on the host clock around the
// passes; with a ProfilingDevice under the model, the device time of every
// launch adds up per kernel family.
//
// The generator remembers which tokens the model's KV cache holds (the last
// prompt and the tokens generated after it): a prompt that starts with them
// (the next turn of a chat, a repeated request) runs only its new tokens.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "k100/model/decoder.h"
#include "k100/model/profiling_device.h"

namespace k100::model {

struct GenerationStats {
  int64_t prompt_tokens = 0, generated = 0;
  int64_t reused_tokens = 0;   // prompt tokens whose KV rows were kept from the previous run
  double prompt_seconds = 0;   // enqueue + run of the prompt's passes (the tokens not reused), to its logits
  double decode_seconds = 0;   // the passes after the prompt's (each to its logits)
  int64_t decode_passes = 0;   // generated - 1: the first token comes from the prompt's pass
  uint64_t launches_per_token = 0;  // launches of one decode pass
  std::vector<ProfilingDevice::FamilyTime> families;  // device time per kernel family (decode passes)
  double tokens_per_second() const { return decode_seconds > 0 ? double(decode_passes) / decode_seconds : 0; }
};

struct GenerationCallbacks {
  // The next token from a row of logits (row i: the logits generated token i is chosen from).
  std::function<int32_t(std::span<const float> logits)> choose;
  // Called with each generated token; false stops.
  std::function<bool(int32_t token)> on_token;
  // Called with each logits row before choose (for --logits).
  std::function<void(std::span<const float> logits)> on_logits;
};

class Generator {
 public:
  // profiler: the ProfilingDevice the model was built on, or nullptr.
  Generator(DecoderModel& model, ProfilingDevice* profiler = nullptr) : model_(model), prof_(profiler) {}
  // Runs the prompt (at least one token; the part it shares with the cached
  // tokens is not run again) and generates up to n tokens (fewer when
  // on_token stops, or the context is full). Returns the generated ids.
  std::vector<int32_t> run(std::span<const int32_t> prompt, int64_t n, const GenerationCallbacks& cb);
  const GenerationStats& stats() const { return stats_; }
  // The tokens whose KV rows the model holds, in order.
  const std::vector<int32_t>& cached() const { return cached_; }
  // Forgets them (the next run starts from position 0).
  void forget() { cached_.clear(); }

 private:
  DecoderModel& model_;
  ProfilingDevice* prof_;
  GenerationStats stats_;
  std::vector<int32_t> cached_;
};

}  // namespace k100::model
