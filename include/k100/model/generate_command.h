// k100lc model: the `generate` command of k100-generate and of
// `python3 -m k100lc_kernels generate` (one implementation, two front ends
// that parse the same flags into a GenerateRequest).
//
// Loads the GGUF model with a progress bar (on `err`), encodes the prompt with
// the file's tokenizer (or takes token ids), generates up to n tokens
// streaming their text to `out` as they come (stopping at an end-of-
// generation token unless ignore_eos), then prints the speed, the device
// time per kernel family, and with print_ids a last line "ids: 17 4 99 ...".
// temperature 0 is greedy; logits_path writes float32 [n, vocab] (row i: the
// logits generated token i was chosen from).
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "k100/model/device.h"
#include "k100/model/sampler.h"

namespace k100::model {

struct GenerateRequest {
  std::string model_path;
  std::optional<std::string> prompt;  // text, or
  std::vector<int32_t> tokens;        // ids (used when prompt is empty)
  int64_t n = 32;
  SamplerParams sampler{.temperature = 0.8f, .top_k = 40, .top_p = 0.95f, .seed = 0};
  std::string logits_path;
  bool print_ids = false;
  bool ignore_eos = false;
  int64_t context = 0;  // 0: enough for the prompt and n tokens (at most the training context)
  bool allow_unused = false;  // skip (and list) tensors the architecture does not use instead of stopping
};

// "17,4,99" -> ids; k100::Error naming the bad item.
std::vector<int32_t> parse_token_list(const std::string& text);

// The command's flags, for help texts: {"--prompt TEXT", "the text to continue"}, ...
std::vector<std::pair<std::string, std::string>> generate_flags();

// Runs the command on `dev`; returns the exit status (0, or 1 after printing
// the error to err).
int run_generate(Device& dev, const GenerateRequest& r, std::FILE* out, std::FILE* err);

}  // namespace k100::model
