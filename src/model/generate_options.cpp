// The command line of `generate` (k100-generate, python3 -m k100lc_kernels
// generate): llama.cpp's flags, each value checked against its rule as it
// is read, through the option table every k100 tool uses.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "k100/base/error.h"
#include "k100/model/generate_command.h"
#include "k100/model/random_model.h"
#include "option_table.h"
#include "option_values.h"

namespace k100::model {

std::vector<int32_t> parse_token_list(const std::string& text) {
  std::vector<int32_t> ids;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    while (!item.empty() && item.front() == ' ') item.erase(0, 1);
    while (!item.empty() && item.back() == ' ') item.pop_back();
    size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(item, &used);
    } catch (...) {
      used = 0;
    }
    if (item.empty() || used != item.size() || v < 0 || v > INT32_MAX)
      throw Error("--tokens: '" + item + "' (item " + std::to_string(ids.size() + 1) + ") is not a token id");
    ids.push_back(int32_t(v));
    start = end + 1;
  }
  return ids;
}

namespace {

using Problem = tools::OptionTable::UsageProblem;

double number(const std::string& flag, const std::string& v) { return tools::number_value(flag, v); }
long long integer(const std::string& flag, const std::string& v) { return tools::integer_value(flag, v); }

// A sampling value, checked against its rule (sampler_rule_broken).
double sampling(const std::string& flag, const std::string& v, SamplerField field) {
  const double x = number(flag, v);
  const std::string rule = sampler_rule_broken(field, x);
  if (!rule.empty()) throw Problem{flag + " " + v + ": " + rule};
  return x;
}

bool kv_type_is_f16(const std::string& flag, const std::string& v) {
  if (v == "f16") return true;
  if (v == "f32") return false;
  throw Problem{flag + " " + v + ": the KV cache types are f32 and f16"};
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Problem{"-f " + path + ": " + std::strerror(errno)};
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

int generate_main(const std::string& program, const std::vector<std::string>& args,
                  const std::function<Device&()>& device) {
  GenerateRequest req;
  std::string write_path, arch = "llama", type = "f32";
  bool tied = false, have_tokens = false, have_prompt = false, have_n = false;
  std::optional<std::string> cache_k, cache_v;
  std::vector<std::string> positional;
  tools::OptionTable t(program, "generate text with a GGUF language model or a Hugging Face model directory on the "
                                "DCU or the emulator",
                       {program + " -m MODEL.gguf|DIR [-p TEXT | -f FILE | --tokens ID,ID,...] [-n N] [-c N] [sampling]",
                        program + " -m MODEL.gguf|DIR -cnv [-sys TEXT] [-p FIRST] [--chat-template NAME] < lines",
                        program + " --write-random-model FILE.gguf [--arch A] [--type T] [--tied]"});
  auto prompt_text = [&](const std::string& flag, const std::function<std::string()>& text) {
    if (have_prompt || have_tokens) throw Problem{flag + ": give one prompt (-p, -f or --tokens)"};
    have_prompt = true;
    req.prompt = text();
  };
  t.value({"-m", "--model"}, "FILE|DIR", "the GGUF model or a Hugging Face directory (config.json, safetensors, "
                                         "tokenizer.json); or give it as the first argument",
          [&](const std::string& v) { req.model_path = v; });
  t.value({"-p", "--prompt"}, "TEXT", "the prompt (chat: the first user message); control tokens are matched",
          [&](const std::string& v) { prompt_text("-p", [&] { return v; }); });
  t.value({"-f", "--file"}, "FILE", "the prompt from a file",
          [&](const std::string& v) { prompt_text("-f", [&] { return read_file(v); }); });
  t.value({"--tokens"}, "ID,ID,...", "the prompt as token ids", [&](const std::string& v) {
    if (have_prompt || have_tokens) throw Problem{"--tokens: give one prompt (-p, -f or --tokens)"};
    try {
      req.tokens = parse_token_list(v);
    } catch (const Error& e) {
      throw Problem{e.what()};
    }
    have_tokens = true;
  });
  t.value({"-n", "--n-predict"}, "N", "tokens to generate (per answer in a chat); -1: until the end of generation "
                                       "or a full context (default 32; chat: -1)",
          [&](const std::string& v) {
            req.n = integer("-n", v);
            have_n = true;
            if (req.n < -1) throw Problem{"-n " + v + ": must be -1 (no limit), 0 or more"};
          });
  t.value({"-c", "--ctx-size", "--ctx"}, "N",
          "tokens the KV cache holds; 0: the model's training context, at most 4096 (default: prompt + n; "
          "chat and -i: 0)",
          [&](const std::string& v) {
            req.context = integer("-c", v);
            if (req.context < 0) throw Problem{"-c " + v + ": must be 0 (the model's) or more"};
          });
  t.value({"-s", "--seed"}, "S", "random seed of the sampler; -1: a random one (default 0)", [&](const std::string& v) {
    const long long s = integer("-s", v);
    if (s < -1) throw Problem{"-s " + v + ": must be -1 (random) or 0 or more"};
    req.sampler.seed = s == -1 ? uint64_t(std::random_device{}()) << 32 | std::random_device{}() : uint64_t(s);
  });
  t.value({"--temp"}, "T", "temperature; 0 is greedy (default 0.8)", [&](const std::string& v) {
    req.sampler.temperature = float(sampling("--temp", v, SamplerField::Temperature));
  });
  t.value({"--top-k"}, "K", "keep the K most likely tokens, 0 = all (default 40)",
          [&](const std::string& v) { req.sampler.top_k = int32_t(sampling("--top-k", v, SamplerField::TopK)); });
  t.value({"--top-p"}, "P", "nucleus sampling mass in [0, 1] (default 0.95)",
          [&](const std::string& v) { req.sampler.top_p = float(sampling("--top-p", v, SamplerField::TopP)); });
  t.value({"--min-p"}, "P", "drop tokens less likely than P times the most likely, in [0, 1] (default 0.05)",
          [&](const std::string& v) { req.sampler.min_p = float(sampling("--min-p", v, SamplerField::MinP)); });
  t.value({"--repeat-penalty"}, "F", "divide the logits of recent tokens by F, > 0; 1 is off (default 1)",
          [&](const std::string& v) {
            req.sampler.repeat_penalty = float(sampling("--repeat-penalty", v, SamplerField::RepeatPenalty));
          });
  t.value({"--repeat-last-n"}, "N", "how many recent tokens the penalties see; 0 off, -1 all (default 64)",
          [&](const std::string& v) {
            req.sampler.repeat_last_n = int32_t(sampling("--repeat-last-n", v, SamplerField::RepeatLastN));
          });
  t.value({"--presence-penalty"}, "F", "lower the logit of every recent token by F (default 0)",
          [&](const std::string& v) {
            req.sampler.presence_penalty = float(sampling("--presence-penalty", v, SamplerField::PresencePenalty));
          });
  t.value({"--frequency-penalty"}, "F", "lower a recent token's logit by F per occurrence (default 0)",
          [&](const std::string& v) {
            req.sampler.frequency_penalty = float(sampling("--frequency-penalty", v, SamplerField::FrequencyPenalty));
          });
  t.value({"-r", "--reverse-prompt"}, "TEXT", "stop where TEXT appears (-i: then read the next line); repeatable",
          [&](const std::string& v) {
            if (v.empty()) throw Problem{"-r: the reverse prompt is empty"};
            req.reverse_prompts.push_back(v);
          });
  t.flag({"--ignore-eos"}, "keep generating after an end-of-generation token", [&] { req.ignore_eos = true; });
  t.flag({"--allow-unused"}, "skip (and list) tensors of the file the architecture does not use",
         [&] { req.allow_unused = true; });
  t.value({"--act"}, "A", "activations of 4-bit weights: a16, a8 or a4 (default: a16 for compressed-tensors INT4, "
                          "a8 for NVFP4 and RT4)",
          [&](const std::string& v) {
            try {
              req.w4_act = parse_w4_activations(v);
            } catch (const Error& e) {
              throw Problem{e.what()};
            }
          });
  t.value({"--rt4"}, "FILE.rt4", "an RT4 file (k100-rt4 convert) whose layers replace a directory's INT4 layers "
                                 "(default: DIR/model.rt4 when present)",
          [&](const std::string& v) { req.rt4_path = v; });
  t.value({"-sys", "--system-prompt"}, "TEXT", "the system message of a chat (without -cnv: one answer to -p)",
          [&](const std::string& v) { req.system_prompt = v; });
  t.flag({"-cnv", "--conversation"}, "chat: each line of standard input is a user message, rendered with the chat "
                                     "template",
         [&] { req.conversation = true; });
  t.flag({"-i", "--interactive"}, "continue the prompt, then append each line read and go on",
         [&] { req.interactive = true; });
  t.value({"--chat-template"}, "NAME", "the chat template (chatml, llama3, mistral-v7, gemma, phi3, deepseek3, ...); "
                                       "default: the model's (tokenizer.chat_template; a directory's "
                                       "tokenizer_config.json chat_template)",
          [&](const std::string& v) { req.chat_template = v; });
  t.value({"-ctk", "--cache-type-k"}, "T", "KV cache type, f32 or f16 (default f32)",
          [&](const std::string& v) { cache_k = v, req.kv_f16 = kv_type_is_f16("--cache-type-k", v); });
  t.value({"-ctv", "--cache-type-v"}, "T", "KV cache type, f32 or f16 (default f32); one type for K and V",
          [&](const std::string& v) { cache_v = v, req.kv_f16 = kv_type_is_f16("--cache-type-v", v); });
  t.flag({"--no-display-prompt"}, "do not print the prompt before the generated text",
         [&] { req.display_prompt = false; });
  t.flag({"--verbose-prompt"}, "print each prompt's tokens (id -> piece) on standard error",
         [&] { req.verbose_prompt = true; });
  t.value({"--logits"}, "FILE.npy", "write float32 [n, vocab]: row i holds the logits token i was chosen from",
          [&](const std::string& v) { req.logits_path = v; });
  t.flag({"--ids"}, "print the generated ids on standard error: 'ids: ...' (one line per answer)",
         [&] { req.print_ids = true; });
  t.value({"--write-random-model"}, "FILE.gguf", "write a small random-weight model (2 layers, dim 256) and exit",
          [&](const std::string& v) { write_path = v; });
  t.value({"--arch"}, "A", "architecture of the random model: llama, qwen2, qwen3, qwen3moe, mixtral (default llama)",
          [&](const std::string& v) { arch = v; });
  t.value({"--type"}, "T", "weight type of the random model (default f32; 'mixed': one block type per tensor)",
          [&](const std::string& v) { type = v; });
  t.flag({"--tied"}, "the random model has no output.weight (the head reads the token embedding)", [&] { tied = true; });
  t.epilog(
      "Generated text goes to standard output; the load progress, the timings and --ids to standard error.\n"
      "Chat (-cnv, -sys) renders the conversation with the model's chat template (a GGUF file's\n"
      "tokenizer.chat_template, a directory's tokenizer_config.json chat_template), recognised as\n"
      "llama.cpp recognises it, or with --chat-template NAME. Ctrl-C stops at the next token and prints the\n"
      "timings (exit status 130). K100_BACKEND=emu|hsa picks the device.\n"
      "Exit status: 0 success, 1 a model that cannot be loaded or run, 2 usage, 130 interrupted.\n");

  std::vector<std::string> argv_text = {program};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  const int rc = t.parse(int(argv.size()), argv.data(), [&](const std::string& a) { positional.push_back(a); });
  if (rc >= 0) return rc;

  if (!write_path.empty()) {
    try {
      RandomModelSpec spec;
      if (!set_random_model_field(spec, arch) || !set_random_model_field(spec, type))
        throw Error("--arch '" + arch + "' / --type '" + type + "': unknown architecture or tensor type");
      spec.tied = tied;
      write_random_model(write_path, spec);
      std::printf("wrote %s (%s, %s)\n", write_path.c_str(), arch.c_str(), random_model_type_name(spec).c_str());
      return 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", program.c_str(), e.what());
      return 1;
    }
  }
  if (req.model_path.empty() && !positional.empty()) {
    req.model_path = positional.front();
    positional.erase(positional.begin());
  }
  if (!positional.empty()) return t.usage_error("unexpected argument '" + positional.front() + "'");
  if (cache_k && cache_v && *cache_k != *cache_v)
    return t.usage_error("--cache-type-k " + *cache_k + " with --cache-type-v " + *cache_v +
                         ": the KV cache has one type for K and V; give both the same");
  if (req.model_path.empty()) return t.usage_error("give the model: -m MODEL.gguf (or a Hugging Face directory)");
  const bool chat = req.conversation || req.system_prompt;
  if (chat && have_tokens) return t.usage_error("--tokens: a chat (-cnv, -sys) is rendered from text messages");
  if (chat && req.interactive) return t.usage_error("-i and -cnv: give one of them (-cnv renders the chat template)");
  if (!chat && !req.interactive && !have_prompt && !have_tokens)
    return t.usage_error("give a prompt (-p TEXT, -f FILE or --tokens ID,...), or -cnv for a chat");
  if (chat && !have_n) req.n = -1;  // an answer ends at the end of the model's turn
  try {
    return run_generate(device(), req, stdin, stdout, stderr);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), e.what());
    return 1;
  }
}

}  // namespace k100::model
