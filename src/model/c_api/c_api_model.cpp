// The C ABI of the GGUF decoder, the host sampler and the generate command (k100_model.h).
#include <cstring>
#include <span>

#include "c_api_handles.h"
#include "k100/model/decoder.h"
#include "k100/model/generate_command.h"
#include "k100/model/hf_model.h"
#include "k100/model/sampler.h"

#define K100M_API extern "C" __attribute__((visibility("default")))

using namespace k100;
using namespace k100::model;
using namespace k100::model::c_api;

namespace {

// A model keeps its file's mapping alive only while loading; the weights are on the device.
std::string config_json(const ModelConfig& c) {
  auto q = [](const std::string& s) {
    std::string o = "\"";
    for (char ch : s) {
      if (ch == '"' || ch == '\\') o += '\\';
      if (uint8_t(ch) >= 0x20) o += ch;
    }
    return o + "\"";
  };
  auto n = [](int64_t v) { return std::to_string(v); };
  return "{\"architecture\": " + q(c.arch_name) + ", \"name\": " + q(c.name) + ", \"n_vocab\": " + n(c.n_vocab) +
         ", \"n_ctx_train\": " + n(c.n_ctx_train) + ", \"n_embd\": " + n(c.n_embd) + ", \"n_layer\": " + n(c.n_layer) +
         ", \"n_ff\": " + n(c.n_ff) + ", \"n_head\": " + n(c.n_head) + ", \"n_head_kv\": " + n(c.n_head_kv) +
         ", \"head_dim\": " + n(c.head_dim) + ", \"n_rot\": " + n(c.n_rot) + ", \"rope_freq_base\": " +
         std::to_string(c.rope_freq_base) + ", \"rope_neox\": " + (c.rope_type == RopeType::Neox ? "true" : "false") +
         ", \"rms_eps\": " + std::to_string(c.rms_eps) + ", \"n_expert\": " + n(c.n_expert) +
         ", \"n_expert_used\": " + n(c.n_expert_used) + ", \"n_ff_exp\": " + n(c.n_ff_exp) + "}";
}

}  // namespace

K100M_API k100m_handle* k100m_model_load(const char* path, int64_t context, k100m_progress_fn progress, void* user) {
  return guarded_new("k100m_model_load", [&] {
    if (!path) throw Error("path is NULL");
    const ModelFiles f = ModelFiles::open(path);  // a GGUF file or a Hugging Face directory
    LoadOptions o;
    o.context = context;
    if (progress) o.progress = [progress, user](uint64_t d, uint64_t t) { progress(d, t, user); };
    return wrap(std::make_unique<DecoderModel>(engine_device(), f.config(), f.tensors(), o));
  });
}

K100M_API int k100m_model_config(k100m_handle* m, char* buf, size_t cap) {
  int len = -1;
  guarded("k100m_model_config", [&] {
    const std::string s = config_json(get<DecoderModel>(m, "model").config());
    if (buf && cap) {
      const size_t n = std::min(cap - 1, s.size());
      std::memcpy(buf, s.data(), n);
      buf[n] = 0;
    }
    len = int(s.size());
  });
  return len;
}

K100M_API int k100m_model_forward(k100m_handle* m, int32_t token, int64_t pos, uint64_t* logits) {
  return guarded("k100m_model_forward", [&] {
    const uint64_t p = get<DecoderModel>(m, "model").forward(token, pos);
    if (logits) *logits = p;
  });
}

K100M_API int k100m_model_logits(k100m_handle* m, float* out, int64_t n) {
  return guarded("k100m_model_logits", [&] {
    DecoderModel& d = get<DecoderModel>(m, "model");
    if (!out || n != d.config().n_vocab)
      throw Error("the logits buffer must hold n_vocab = " + std::to_string(d.config().n_vocab) + " floats");
    const auto l = d.logits();
    std::memcpy(out, l.data(), l.size() * 4);
  });
}

K100M_API int k100m_sample(const float* logits, int64_t rows, int64_t cols, float temperature, int32_t top_k,
                           float top_p, uint64_t seed, int64_t* out) {
  return guarded("k100m_sample", [&] {
    if (!logits || !out || rows < 0 || cols <= 0) throw Error("sample needs logits [rows][cols] and an output");
    Rng rng(seed);
    for (int64_t r = 0; r < rows; ++r) {
      const std::span<const float> row(logits + r * cols, size_t(cols));
      out[r] = temperature <= 0 ? Sampler::greedy(row) : Sampler::sample(row, temperature, top_k, top_p, rng);
    }
  });
}

K100M_API int k100m_generate_main(int argc, const char* const* argv) {
  if (argc < 1 || !argv) return 2;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i] ? argv[i] : "");
  return generate_main(argv[0] ? argv[0] : "generate", args, []() -> Device& { return engine_device(); });
}
