// k100lc model: the `generate` command of k100-generate and of
// `python3 -m k100lc_kernels generate` (one implementation: both front ends
// pass their arguments to generate_main).
//
// The flags are llama.cpp's (llama-cli / llama-simple-chat): -m, -p, -f, -n
// (-1: until the end of generation or a full context), -c, -s, --temp,
// --top-k, --top-p, --min-p, the repetition penalties, -r, --ignore-eos,
// -sys, -cnv, -i, --chat-template, --cache-type-k/-v, --no-display-prompt,
// --verbose-prompt; each value is checked against its rule when parsed.
// The model is a GGUF file or a Hugging Face directory (ModelFiles,
// hf_model.h); --allow-unused skips the tensors its architecture does not use.
//
// Three ways to run:
//  - a prompt (-p, -f or --tokens) is continued, the prompt printed first;
//  - chat (-cnv, or -sys): the conversation is rendered with the model's chat
//    template (tokenizer.chat_template of a GGUF file, chat_template of a
//    directory's tokenizer_config.json, or --chat-template NAME), -p is the
//    first user message, then each line of standard input is one (-cnv; with
//    -sys alone there is one answer); every answer ends at the model's end of
//    turn;
//  - interactive (-i): the prompt is continued, then each line read is
//    appended as it is and generation goes on.
// Generated text goes to standard output only (whole UTF-8 characters); the
// load progress, the timings (as llama.cpp prints them) and with --ids the
// generated ids ("ids: 17 4 99") go to standard error. Ctrl-C stops at the
// next token, prints the timings and exits with 130.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "k100/model/w4_weight.h"

#include "k100/model/device.h"
#include "k100/model/sampler.h"

namespace k100::model {

struct GenerateRequest {
  std::string model_path;
  std::optional<std::string> prompt;  // text (-p, -f), or
  std::vector<int32_t> tokens;        // ids (--tokens)
  int64_t n = 32;                     // tokens per answer; -1: until the end of generation or a full context
  int64_t context = -1;               // -c; 0: the model's training context (at most 4096); -1: not given
  SamplerParams sampler{.temperature = 0.8f, .top_k = 40, .top_p = 0.95f, .min_p = 0.05f, .seed = 0};
  std::vector<std::string> reverse_prompts;  // -r: stop (and in -i, read the next line) where one appears
  bool ignore_eos = false;
  bool allow_unused = false;  // skip (and list) tensors the architecture does not use instead of stopping
  W4Activations w4_act = W4Activations::Default;  // --act a16|a8|a4: the activations of 4-bit weights
  std::string rt4_path;                           // --rt4 FILE: an RT4 file for a directory's INT4 layers
  std::optional<std::string> system_prompt;  // -sys
  bool conversation = false;                 // -cnv
  bool interactive = false;                  // -i
  std::string chat_template;                 // --chat-template NAME ("": the model's)
  bool kv_f16 = false;                       // --cache-type-k/-v f16
  bool display_prompt = true;
  bool verbose_prompt = false;  // the prompt's ids and pieces on standard error
  std::string logits_path;
  bool print_ids = false;
};

// "17,4,99" -> ids; k100::Error naming the bad item.
std::vector<int32_t> parse_token_list(const std::string& text);

// The whole command: `args` without the program name (`program` names it
// in messages and --help). `device` is called once the arguments are valid.
// Returns the exit status: 0, 1 (a model that cannot be loaded or run; the
// message names the file, key or tensor), 2 (usage), 130 (interrupted).
int generate_main(const std::string& program, const std::vector<std::string>& args,
                  const std::function<Device&()>& device);

// Runs a parsed request on `dev`, reading chat lines from `in`; returns the
// exit status (0, 1 after printing the error to err, 130 interrupted).
int run_generate(Device& dev, const GenerateRequest& r, std::FILE* in, std::FILE* out, std::FILE* err);

}  // namespace k100::model
