// config.json and generation_config.json of Hugging Face model directories:
// the architecture and hyper-parameters as a ModelConfig (the same one
// from_gguf fills), everything the decoder would run differently refused by
// key.
#include <cmath>

#include "k100/base/error.h"
#include "k100/model/hf_model.h"
#include "k100/quant/compressed_tensors.h"
#include "k100/quant/json_document.h"

namespace k100::model {

namespace {

using quant::Json;
using quant::JsonObject;

struct HfArch {
  const char* name;  // config.json "architectures"
  Architecture arch;
  const char* gguf;  // the GGUF architecture it loads as
};
constexpr HfArch kArchs[] = {
    {"LlamaForCausalLM", Architecture::Llama, "llama"},     {"MistralForCausalLM", Architecture::Llama, "llama"},
    {"MixtralForCausalLM", Architecture::Llama, "llama"},   {"Qwen2ForCausalLM", Architecture::Qwen2, "qwen2"},
    {"Qwen3ForCausalLM", Architecture::Qwen3, "qwen3"},     {"Qwen3MoeForCausalLM", Architecture::Qwen3Moe, "qwen3moe"},
};

int64_t positive(const JsonObject& o, const char* key, std::optional<int64_t> fallback = std::nullopt) {
  const auto v = o.optional_integer(key);
  if (!v) {
    if (fallback) return *fallback;
    o.fail(key, "is missing");
  }
  if (*v < 1) o.fail(key, "is " + std::to_string(*v) + ", must be at least 1");
  return *v;
}

// An id or a list of ids (bos_token_id / eos_token_id).
std::vector<int64_t> ids(const JsonObject& o, const char* key) {
  const Json* v = o.find(key);
  if (!v) return {};
  if (v->is_array()) return o.integers(key);
  return {o.integer(key)};
}

// The llama3 RoPE scaling: a divisor per frequency j < n_rot/2 (llama.cpp's
// rope_freqs.weight): 1 for short wavelengths, `factor` for long ones, a
// smooth blend between.
std::vector<float> llama3_factors(const JsonObject& rs, const ModelConfig& c) {
  const double factor = rs.number("factor"), low = rs.number("low_freq_factor"), high = rs.number("high_freq_factor");
  const double old_ctx = double(rs.integer("original_max_position_embeddings"));
  if (!(factor > 0) || !(low > 0) || !(high > low)) rs.fail("factor", "and the frequency factors are not consistent");
  const double low_wavelen = old_ctx / low, high_wavelen = old_ctx / high;
  std::vector<float> out;
  for (int64_t j = 0; j < c.n_rot / 2; ++j) {
    const double freq = 1.0 / std::pow(c.rope_freq_base, double(2 * j) / double(c.n_rot));
    const double wavelen = 2 * M_PI / freq;
    double divisor = 1.0;
    if (wavelen > low_wavelen) {
      divisor = factor;
    } else if (wavelen >= high_wavelen) {
      const double smooth = (old_ctx / wavelen - low) / (high - low);
      divisor = 1.0 / ((1 - smooth) / factor + smooth);
    }
    out.push_back(float(divisor));
  }
  return out;
}

}  // namespace

std::vector<std::string> supported_hf_architectures() {
  std::vector<std::string> out;
  for (const auto& a : kArchs) out.push_back(a.name);
  return out;
}

HfConfig read_hf_config(const std::string& path) {
  const Json doc = quant::read_json_file(path);
  const JsonObject o(doc, path);
  HfConfig h;
  const std::vector<std::string> archs = o.strings("architectures");
  if (archs.size() != 1) o.fail("architectures", "lists " + std::to_string(archs.size()) + " architectures, expected one");
  h.architecture = archs[0];
  const HfArch* info = nullptr;
  for (const auto& a : kArchs)
    if (h.architecture == a.name) info = &a;
  if (!info) {
    std::string list;
    for (const auto& n : supported_hf_architectures()) list += (list.empty() ? "" : ", ") + n;
    o.fail("architectures", "names '" + h.architecture + "', which is not supported (supported: " + list + ")");
  }
  // compressed-tensors INT4 and NVFP4; other schemes refused by key
  if (const auto q = o.optional_object("quantization_config")) h.quantization = quant::read_quantization_config(*q);

  ModelConfig& c = h.model;
  c.arch = info->arch;
  c.arch_name = info->gguf;
  c.rope_type = RopeType::Neox;  // Hugging Face pairs j with j + n_rot/2, Llama included
  c.name = o.optional_string("_name_or_path").value_or("");
  if (const auto act = o.optional_string("hidden_act"); act && *act != "silu")
    o.fail("hidden_act", "is '" + *act + "'; the decoder's FFN is SwiGLU ('silu')");
  c.n_embd = positive(o, "hidden_size");
  c.n_layer = positive(o, "num_hidden_layers");
  c.n_head = positive(o, "num_attention_heads");
  c.n_head_kv = positive(o, "num_key_value_heads", c.n_head);
  if (c.n_head % c.n_head_kv)
    o.fail("num_key_value_heads", "(" + std::to_string(c.n_head_kv) + ") does not divide num_attention_heads (" +
                                      std::to_string(c.n_head) + ")");
  const int64_t default_hd = c.n_embd % c.n_head == 0 ? c.n_embd / c.n_head : 0;
  c.head_dim = positive(o, "head_dim", default_hd ? std::optional<int64_t>(default_hd) : std::nullopt);
  c.n_rot = c.head_dim;
  if (const auto f = o.optional_number("partial_rotary_factor"); f && *f != 1.0)
    o.fail("partial_rotary_factor", "is " + std::to_string(*f) + "; only full rotary embeddings are supported");
  c.n_ctx_train = positive(o, "max_position_embeddings", 4096);
  c.n_vocab = positive(o, "vocab_size");
  c.rms_eps = float(o.number("rms_norm_eps"));
  if (!(c.rms_eps > 0)) o.fail("rms_norm_eps", "must be positive");
  c.rope_freq_base = o.optional_number("rope_theta").value_or(10000.0);
  if (!(c.rope_freq_base > 0)) o.fail("rope_theta", "must be positive");
  if (const auto rs = o.optional_object("rope_scaling")) {
    const std::string type = rs->has("rope_type") ? rs->string("rope_type") : rs->string("type");
    if (type == "linear") {
      const double factor = rs->number("factor");
      if (!(factor > 0)) rs->fail("factor", "must be positive");
      c.rope_freq_scale = 1.0 / factor;
    } else if (type == "llama3" && c.arch == Architecture::Llama) {
      h.rope_freq_factors = llama3_factors(*rs, c);
    } else if (type != "default") {
      rs->fail("rope_type", "is '" + type + "'; supported: default, linear, llama3 (Llama)");
    }
  }
  for (const char* k : {"use_sliding_window"})
    if (o.optional_boolean(k).value_or(false)) o.fail(k, "is true; sliding-window attention is not supported");
  if (c.arch == Architecture::Llama && o.has("sliding_window"))
    o.fail("sliding_window", "is set; sliding-window attention is not supported");
  h.tie_word_embeddings = o.optional_boolean("tie_word_embeddings").value_or(false);
  if (const auto id = ids(o, "bos_token_id"); !id.empty()) h.bos_token_id = id[0];
  h.eos_token_ids = ids(o, "eos_token_id");

  if (c.arch == Architecture::Qwen3Moe) {
    c.n_expert = positive(o, "num_experts");
    c.n_expert_used = positive(o, "num_experts_per_tok");
    c.n_ff_exp = positive(o, "moe_intermediate_size");
    c.n_ff = 0;
    c.expert_weights_norm = o.optional_boolean("norm_topk_prob").value_or(true);
    if (o.optional_integer("decoder_sparse_step").value_or(1) != 1)
      o.fail("decoder_sparse_step", "is not 1; every layer must be a MoE layer");
    if (o.has("mlp_only_layers") && !o.integers("mlp_only_layers").empty())
      o.fail("mlp_only_layers", "is not empty; every layer must be a MoE layer");
  } else if (h.architecture == "MixtralForCausalLM") {
    c.n_expert = positive(o, "num_local_experts");
    c.n_expert_used = positive(o, "num_experts_per_tok");
    c.n_ff_exp = positive(o, "intermediate_size");
    c.expert_weights_norm = true;
  } else {
    c.n_ff = positive(o, "intermediate_size");
  }
  if (c.n_expert_used > c.n_expert)
    o.fail("num_experts_per_tok", "(" + std::to_string(c.n_expert_used) + ") exceeds the number of experts (" +
                                      std::to_string(c.n_expert) + ")");
  return h;
}

HfGenerationConfig read_generation_config(const std::string& path) {
  const Json doc = quant::read_json_file(path);
  const JsonObject o(doc, path);
  HfGenerationConfig g;
  if (const auto id = ids(o, "bos_token_id"); !id.empty()) g.bos_token_id = id[0];
  g.eos_token_ids = ids(o, "eos_token_id");
  g.temperature = o.optional_number("temperature");
  g.top_p = o.optional_number("top_p");
  g.top_k = o.optional_integer("top_k");
  return g;
}

}  // namespace k100::model
