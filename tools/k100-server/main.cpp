// k100-server: an OpenAI-compatible HTTP server for a GGUF language model or
// a Hugging Face model directory on the default device (a K100_LC, or the
// emulator), with llama-server's flags.
//
//   k100-server -m MODEL.gguf|DIR [--host 127.0.0.1] [--port 8080] [-c N] [-n N] [--chat-template NAME]
//   curl http://127.0.0.1:8080/v1/chat/completions -H 'Content-Type: application/json'
//        -d '{"messages": [{"role": "user", "content": "Hello"}], "max_tokens": 32}'   (one line)
//
// Endpoints and errors: openai_routes.h. Requests take turns on the one
// model (generation_queue.h); a prompt that starts like the previous one
// reuses its KV cache rows. Ctrl-C or SIGTERM stops the server.
//
// Exit status: 0 stopped by a signal, 1 a model that cannot be loaded or an
// address that cannot be bound, 2 usage.
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <optional>
#include <thread>

#include "generation_queue.h"
#include "k100/base/error.h"
#include "k100/model/decoder.h"
#include "k100/model/device.h"
#include "k100/model/hf_model.h"
#include "k100/model/w4_weight.h"
#include "k100/runtime/runtime.h"
#include "openai_routes.h"
#include "option_table.h"
#include "option_values.h"

namespace {

using Problem = k100::tools::OptionTable::UsageProblem;

long long integer(const std::string& flag, const std::string& v, long long min, const std::string& rule) {
  const long long x = k100::tools::integer_value(flag, v);
  if (x < min) throw Problem{flag + " " + v + ": " + rule};
  return x;
}

// "m" of "dir/m.gguf", "Qwen3-0.6B" of "models/Qwen3-0.6B/".
std::string stem(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  std::string name = path.substr(path.find_last_of('/') + 1);
  if (name.size() > 5 && name.ends_with(".gguf")) name.resize(name.size() - 5);
  return name;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace k100;
  std::string model_path, host = "127.0.0.1", alias, chat_template, rt4_path;
  k100::model::W4Activations w4_act = k100::model::W4Activations::Default;
  long long port = 8080, context = 0, n_predict = -1, seed = 0;
  bool kv_f16 = false, allow_unused = false;
  tools::OptionTable t("k100-server", "serve a GGUF language model or a Hugging Face model directory over HTTP with an "
                                      "OpenAI-compatible API",
                       {"k100-server -m MODEL.gguf|DIR [--host H] [--port N] [-c N] [-n N] [--chat-template NAME] [--act A] "
                        "[--rt4 FILE]"});
  t.value({"-m", "--model"}, "FILE|DIR", "the GGUF model or a Hugging Face directory (config.json, safetensors, "
                                         "tokenizer.json)",
          [&](const std::string& v) { model_path = v; });
  t.value({"--host"}, "H", "address to listen on (default 127.0.0.1)", [&](const std::string& v) { host = v; });
  t.value({"--port"}, "N", "port to listen on; 0 picks a free one (default 8080)", [&](const std::string& v) {
    port = integer("--port", v, 0, "must be in [0, 65535]");
    if (port > 65535) throw Problem{"--port " + v + ": must be in [0, 65535]"};
  });
  t.value({"-c", "--ctx-size"}, "N", "tokens the KV cache holds; 0: the model's training context, at most 4096 "
                                     "(default 0)",
          [&](const std::string& v) { context = integer("-c", v, 0, "must be 0 (the model's) or more"); });
  t.value({"-n", "--n-predict"}, "N", "tokens per answer when a request gives no max_tokens; -1: until the end of "
                                      "generation or a full context (default -1)",
          [&](const std::string& v) { n_predict = integer("-n", v, -1, "must be -1 (no limit), 0 or more"); });
  t.value({"-s", "--seed"}, "S", "sampling seed when a request gives none (default 0)",
          [&](const std::string& v) { seed = integer("-s", v, 0, "must be 0 or more"); });
  t.value({"--chat-template"}, "NAME", "the chat template (default: the model's tokenizer.chat_template; a "
                                       "directory's tokenizer_config.json chat_template)",
          [&](const std::string& v) { chat_template = v; });
  t.value({"-a", "--alias"}, "NAME",
          "the model's name in /v1/models and responses (default: the file's stem or the directory's name)",
          [&](const std::string& v) { alias = v; });
  auto kv = [&](const std::string& flag, const std::string& v) {
    if (v != "f32" && v != "f16") throw Problem{flag + " " + v + ": the KV cache types are f32 and f16"};
    kv_f16 = v == "f16";
  };
  t.value({"-ctk", "--cache-type-k"}, "T", "KV cache type, f32 or f16 (one type for K and V; default f32)",
          [&](const std::string& v) { kv("--cache-type-k", v); });
  t.value({"-ctv", "--cache-type-v"}, "T", "the same as --cache-type-k", [&](const std::string& v) {
    kv("--cache-type-v", v);
  });
  t.flag({"--allow-unused"}, "skip (and list) tensors of the model its architecture does not use",
         [&] { allow_unused = true; });
  t.value({"--act"}, "A", "activations of 4-bit weights: a16, a8 or a4 (default: a16 for compressed-tensors INT4, "
                          "a8 for NVFP4 and RT4)",
          [&](const std::string& v) {
            try {
              w4_act = model::parse_w4_activations(v);
            } catch (const Error& e) {
              throw Problem{e.what()};
            }
          });
  t.value({"--rt4"}, "FILE.rt4", "an RT4 file (k100-rt4 convert) whose layers replace a directory's INT4 layers "
                                 "(default: DIR/model.rt4 when present)",
          [&](const std::string& v) { rt4_path = v; });
  t.epilog(
      "Endpoints: GET /health, GET /v1/models, POST /v1/completions, POST /v1/chat/completions (OpenAI request\n"
      "and response shapes; \"stream\": true answers with server-sent events). Requests are queued and run one\n"
      "at a time; bad requests get a 4xx status and a JSON error naming the field. The log goes to standard\n"
      "error. K100_BACKEND=emu|hsa picks the device.\n"
      "Exit status: 0 stopped by SIGINT or SIGTERM, 1 a model or address that cannot be used, 2 usage.\n");
  std::vector<std::string> positional;
  const int rc = t.parse(argc, argv, [&](const std::string& a) { positional.push_back(a); });
  if (rc >= 0) return rc;
  if (model_path.empty() && positional.size() == 1) model_path = positional.front();
  else if (!positional.empty()) return t.usage_error("unexpected argument '" + positional.front() + "'");
  if (model_path.empty()) return t.usage_error("give the model: -m MODEL.gguf (or a Hugging Face directory)");

  // SIGINT and SIGTERM go to one thread that stops the server; the others
  // (HTTP, generation) inherit the blocked mask. A client gone mid-write is
  // an error return, not a signal.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  try {
    runtime::Runtime rt;
    model::RuntimeDevice dev(rt);
    const model::ModelFiles files = model::ModelFiles::open(model_path, rt4_path);  // a GGUF file or a Hugging Face directory
    const model::Tokenizer tokenizer = files.tokenizer();
    model::LoadOptions lo;
    lo.context = context;
    lo.kv_f16 = kv_f16;
    lo.allow_unused = allow_unused;
    lo.w4_act = w4_act;
    model::DecoderModel decoder(dev, files.config(), files.tensors(), lo);
    if (const auto& skipped = decoder.skipped_tensors(); !skipped.empty()) {
      std::string list;
      for (const auto& name : skipped) list += " " + name;
      std::fprintf(stderr, "k100-server: skipped %zu unused tensor%s:%s\n", skipped.size(),
                   skipped.size() == 1 ? "" : "s", list.c_str());
    }

    server::ServedModel served;
    served.id = alias.empty() ? stem(model_path) : alias;
    served.tokenizer = &tokenizer;
    served.context = decoder.context();
    served.default_max_tokens = n_predict;
    served.default_seed = uint64_t(seed);
    try {
      served.chat_template.emplace(model::ChatTemplate::for_model(files.chat_template_source(), chat_template));
    } catch (const Error& e) {
      if (!chat_template.empty()) throw;  // a name given and refused
      served.chat_template_problem = std::string(e.what()) + " (restart k100-server with it)";
      std::fprintf(stderr, "k100-server: warning: no chat template, /v1/chat/completions is refused: %s\n", e.what());
    }
    std::fprintf(stderr, "k100-server: %s on %s, context %lld%s\n", decoder.config().describe().c_str(),
                 dev.backend().c_str(), (long long)served.context,
                 served.chat_template ? (", chat template " + served.chat_template->name()).c_str() : "");
    if (const std::string wf = files.weight_format(); !wf.empty())
      std::fprintf(stderr, "k100-server: weights: %s, activations %s\n", wf.c_str(),
                   model::w4_activations_name(decoder.w4_activations()));
    if (kv_f16 && decoder.kv_element_bytes() != 2)
      std::fprintf(stderr, "k100-server: warning: this model's attention has no f16 KV cache path; the cache is f32\n");

    model::Completer completer(decoder, &tokenizer);
    server::GenerationQueue queue(completer);
    httplib::Server http;
    http.set_payload_max_length(16u << 20);
    server::add_openai_routes(http, served, queue);
    const int bound = port == 0 ? http.bind_to_any_port(host) : (http.bind_to_port(host, int(port)) ? int(port) : -1);
    if (bound < 0) throw Error("cannot listen on " + host + ":" + std::to_string(port));
    std::fprintf(stderr, "k100-server: listening on http://%s:%d\n", host.c_str(), bound);
    std::fflush(stderr);

    std::atomic<bool> signalled{false};
    std::thread stopper([&] {
      int sig = 0;
      sigwait(&stop_signals, &sig);
      if (signalled.exchange(true)) return;  // woken by main after listen ended on its own
      std::fprintf(stderr, "k100-server: %s, stopping\n", sig == SIGINT ? "interrupted" : "terminated");
      http.stop();
    });
    const bool listened = http.listen_after_bind();
    if (!signalled.exchange(true)) pthread_kill(stopper.native_handle(), SIGTERM);
    stopper.join();
    if (!listened) throw Error("the server stopped listening on " + host + ":" + std::to_string(bound));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "k100-server: %s\n", e.what());
    return 1;
  }
}
