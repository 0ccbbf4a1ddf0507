// k100-generate: run a GGUF language model on the default device (a
// K100_LC, or the emulator) and stream the text it generates.
//
//   k100-generate MODEL.gguf (--prompt TEXT | --tokens ID,ID,...) [-n N] [--temp T] [--top-k K]
//                 [--top-p P] [--seed S] [--logits FILE.npy] [--ids]
//   k100-generate --write-random-model FILE.gguf [--arch A] [--type T]
//
// Exit status: 0 success, 1 a model that cannot be loaded or run (the message
// names the file, key or tensor), 2 usage.
#include <cstdio>
#include <string>

#include "k100/base/error.h"
#include "k100/model/device.h"
#include "k100/model/generate_command.h"
#include "k100/model/random_model.h"
#include "k100/runtime/runtime.h"
#include "option_table.h"

namespace {

float number(const std::string& flag, const std::string& v) {
  size_t used = 0;
  float f = 0;
  try {
    f = std::stof(v, &used);
  } catch (...) {
    used = 0;
  }
  if (used != v.size() || v.empty()) throw k100::Error(flag + ": '" + v + "' is not a number");
  return f;
}

long long integer(const std::string& flag, const std::string& v) {
  size_t used = 0;
  long long x = 0;
  try {
    x = std::stoll(v, &used);
  } catch (...) {
    used = 0;
  }
  if (used != v.size() || v.empty()) throw k100::Error(flag + ": '" + v + "' is not an integer");
  return x;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace k100;
  model::GenerateRequest req;
  std::string write_path, arch = "llama", type = "f32";
  bool tied = false;
  std::vector<std::string> positional;
  bool have_tokens = false;
  tools::OptionTable t("k100-generate", "generate text with a GGUF language model on the DCU or the emulator",
                       {"k100-generate MODEL.gguf (--prompt TEXT | --tokens ID,ID,...) [-n N] [--temp T] [--top-k K] "
                        "[--top-p P] [--seed S] [--logits FILE.npy] [--ids]",
                        "k100-generate --write-random-model FILE.gguf [--arch llama|qwen2|qwen3|qwen3moe|mixtral] "
                        "[--type f32|f16|q8_0|q4_K|...|mixed] [--tied]"});
  try {
    t.value({"--prompt", "-p"}, "TEXT", "the text to continue (encoded with the model's tokenizer)",
            [&](const std::string& v) { req.prompt = v; });
    t.value({"--tokens"}, "ID,ID,...", "the prompt as token ids", [&](const std::string& v) {
      req.tokens = model::parse_token_list(v);
      have_tokens = true;
    });
    t.value({"-n", "--n-predict"}, "N", "tokens to generate (default 32)",
            [&](const std::string& v) { req.n = integer("-n", v); });
    t.value({"--temp"}, "T", "temperature; 0 is greedy (default 0.8)",
            [&](const std::string& v) { req.sampler.temperature = number("--temp", v); });
    t.value({"--top-k"}, "K", "keep the K most likely tokens, 0 = all (default 40)",
            [&](const std::string& v) { req.sampler.top_k = int32_t(integer("--top-k", v)); });
    t.value({"--top-p"}, "P", "nucleus sampling mass (default 0.95)",
            [&](const std::string& v) { req.sampler.top_p = number("--top-p", v); });
    t.value({"--seed"}, "S", "random seed of the sampler (default 0)",
            [&](const std::string& v) { req.sampler.seed = uint64_t(integer("--seed", v)); });
    t.value({"--logits"}, "FILE.npy", "write float32 [n, vocab]: row i holds the logits token i was chosen from",
            [&](const std::string& v) { req.logits_path = v; });
    t.flag({"--ids"}, "print the generated ids on a last line 'ids: ...'", [&] { req.print_ids = true; });
    t.flag({"--ignore-eos"}, "keep generating after an end-of-generation token", [&] { req.ignore_eos = true; });
    t.value({"--ctx"}, "N", "KV cache length (default: prompt + n)",
            [&](const std::string& v) { req.context = integer("--ctx", v); });
    t.flag({"--allow-unused"}, "skip (and list) tensors of the file the architecture does not use",
           [&] { req.allow_unused = true; });
    t.value({"--write-random-model"}, "FILE.gguf", "write a small random-weight model (2 layers, dim 256) and exit",
            [&](const std::string& v) { write_path = v; });
    t.value({"--arch"}, "A", "architecture of the random model (default llama)", [&](const std::string& v) { arch = v; });
    t.value({"--type"}, "T", "weight type of the random model (default f32; 'mixed': one block type per tensor)",
            [&](const std::string& v) { type = v; });
    t.flag({"--tied"}, "the random model has no output.weight (the head reads the token embedding)", [&] { tied = true; });
    t.epilog("Text streams to standard output as it is generated, then the speed and the device time per kernel\n"
             "family; the load progress goes to standard error. K100_BACKEND=emu|hsa picks the device.\n");
    const int rc = t.parse(argc, argv, [&](const std::string& a) { positional.push_back(a); });
    if (rc >= 0) return rc;
  } catch (const Error& e) {
    std::fprintf(stderr, "k100-generate: %s\n", e.what());
    return 2;
  }
  try {
    if (!write_path.empty()) {
      model::RandomModelSpec spec;
      if (!model::set_random_model_field(spec, arch) || !model::set_random_model_field(spec, type))
        throw Error("--arch '" + arch + "' / --type '" + type + "': unknown architecture or tensor type");
      spec.tied = tied;
      model::write_random_model(write_path, spec);
      std::printf("wrote %s (%s, %s)\n", write_path.c_str(), arch.c_str(), model::random_model_type_name(spec).c_str());
      return 0;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "k100-generate: %s\n", e.what());
    return 1;
  }
  if (positional.size() != 1 || (req.prompt.has_value() == have_tokens)) {
    std::fprintf(stderr, "k100-generate: give one MODEL.gguf and either --prompt or --tokens (see --help)\n");
    return 2;
  }
  req.model_path = positional[0];
  try {
    runtime::Runtime rt;
    model::RuntimeDevice dev(rt);
    return model::run_generate(dev, req, stdout, stderr);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "k100-generate: %s\n", e.what());
    return 1;
  }
}
