#include "k100/model/model_config.h"

#include <cmath>
#include <cstring>
#include <optional>

#include "k100/base/error.h"

namespace k100::model {

namespace {

struct ArchInfo {
  Architecture arch;
  const char* name;
  RopeType rope;
};

// llama.cpp's rope type per architecture (llama_model_rope_type): NORM for
// llama, NEOX for the qwen family.
constexpr ArchInfo kArchs[] = {
    {Architecture::Llama, "llama", RopeType::Norm},
    {Architecture::Qwen2, "qwen2", RopeType::Neox},
    {Architecture::Qwen3, "qwen3", RopeType::Neox},
    {Architecture::Qwen3Moe, "qwen3moe", RopeType::Neox},
    // llama.cpp: IMROPE for qwen35*, which with text positions is NeoX pairs
    // with some of them held still (ModelConfig::rope_pair_moves)
    {Architecture::Qwen35, "qwen35", RopeType::Neox},
    {Architecture::Qwen35Moe, "qwen35moe", RopeType::Neox},
    {Architecture::Qwen3Next, "qwen3next", RopeType::Neox},
};

class Keys {
 public:
  Keys(const quant::GgufFile& f, std::string arch) : f_(f), arch_(std::move(arch)) {}

  std::string key(const std::string& k) const { return arch_ + "." + k; }
  const quant::Value* find(const std::string& k) const { return f_.find(key(k)); }

  [[noreturn]] void fail(const std::string& k, const std::string& why) const {
    throw Error(f_.path() + ": metadata key '" + key(k) + "' " + why);
  }

  // A non-negative integer; an array whose entries are all equal counts as that value.
  int64_t integer(const std::string& k, std::optional<int64_t> fallback = std::nullopt, int64_t min = 1) const {
    const quant::Value* v = find(k);
    if (!v) {
      if (fallback) return *fallback;
      fail(k, "is missing (required for " + arch_ + " models)");
    }
    int64_t x = 0;
    try {
      if (v->is_array()) {
        const auto bytes = v->array_bytes();
        if (v->size() == 0) fail(k, "is an empty array");
        std::vector<int64_t> items;
        for (uint64_t i = 0; i < v->size(); ++i) {
          // integer arrays of 4 bytes (i32/u32) are what writers use
          if (v->array_type() != quant::ValueType::I32 && v->array_type() != quant::ValueType::U32)
            fail(k, "is an array of " + quant::value_type_name(v->array_type()) + ", expected integers");
          int32_t e;
          std::memcpy(&e, bytes.data() + 4 * i, 4);
          items.push_back(v->array_type() == quant::ValueType::U32 ? int64_t(uint32_t(e)) : int64_t(e));
        }
        for (int64_t e : items)
          if (e != items[0]) fail(k, "differs between layers, which is not supported");
        x = items[0];
      } else {
        x = v->as_i64();
      }
    } catch (const Error& e) {
      if (std::string(e.what()).find(key(k)) != std::string::npos) throw;
      fail(k, std::string("is not an integer: ") + e.what());
    }
    if (x < min) fail(k, "is " + std::to_string(x) + ", must be at least " + std::to_string(min));
    return x;
  }

  double number(const std::string& k, std::optional<double> fallback = std::nullopt) const {
    const quant::Value* v = find(k);
    if (!v) {
      if (fallback) return *fallback;
      fail(k, "is missing (required for " + arch_ + " models)");
    }
    try {
      return v->as_f64();
    } catch (const Error& e) {
      fail(k, std::string("is not a number: ") + e.what());
    }
  }

 private:
  const quant::GgufFile& f_;
  std::string arch_;
};

// The integers of an array key (i32/u32/bool entries), or nullopt when absent.
std::optional<std::vector<int64_t>> integer_array(const Keys& k, const std::string& key) {
  const quant::Value* v = k.find(key);
  if (!v) return std::nullopt;
  if (!v->is_array()) k.fail(key, "is not an array");
  const quant::ValueType t = v->array_type();
  const size_t width = t == quant::ValueType::Bool ? 1 : 4;
  if (t != quant::ValueType::I32 && t != quant::ValueType::U32 && t != quant::ValueType::Bool)
    k.fail(key, "is an array of " + quant::value_type_name(t) + ", expected integers");
  const auto bytes = v->array_bytes();
  std::vector<int64_t> out;
  for (uint64_t i = 0; i < v->size(); ++i) {
    if (width == 1) {
      out.push_back(bytes[i] ? 1 : 0);
      continue;
    }
    int32_t e;
    std::memcpy(&e, bytes.data() + 4 * i, 4);
    out.push_back(t == quant::ValueType::U32 ? int64_t(uint32_t(e)) : int64_t(e));
  }
  return out;
}

// The Gated DeltaNet / gated attention keys of qwen35, qwen35moe and qwen3next
// (the ones llama.cpp's loader reads for them).
void read_hybrid(const Keys& k, ModelConfig& c) {
  if (k.integer("nextn_predict_layers", int64_t(0), 0) > 0)
    k.fail("nextn_predict_layers", "is set: multi-token-prediction layers are not supported");
  c.ssm_conv = k.integer("ssm.conv_kernel");
  c.ssm_state = k.integer("ssm.state_size");
  c.ssm_k_heads = k.integer("ssm.group_count");
  c.ssm_v_heads = k.integer("ssm.time_step_rank");
  if (c.ssm_v_heads % c.ssm_k_heads)
    k.fail("ssm.time_step_rank", "(" + std::to_string(c.ssm_v_heads) + " value heads) is not a multiple of "
                                 "ssm.group_count (" + std::to_string(c.ssm_k_heads) + " key heads)");
  const int64_t inner = k.integer("ssm.inner_size");
  if (inner != c.ssm_v_dim())
    k.fail("ssm.inner_size", "is " + std::to_string(inner) + "; only value heads of ssm.state_size (" +
                                 std::to_string(c.ssm_v_heads) + " x " + std::to_string(c.ssm_state) + " = " +
                                 std::to_string(c.ssm_v_dim()) + ") are supported");
  c.ssm_tiled_heads = c.arch != Architecture::Qwen3Next;
  c.recurrent.assign(size_t(c.n_layer), false);
  if (auto layers = integer_array(k, "attention.recurrent_layers")) {
    if (int64_t(layers->size()) != c.n_layer)
      k.fail("attention.recurrent_layers", "has " + std::to_string(layers->size()) + " entries for " +
                                               std::to_string(c.n_layer) + " layers");
    for (int64_t i = 0; i < c.n_layer; ++i) c.recurrent[size_t(i)] = (*layers)[size_t(i)] != 0;
  } else {
    const int64_t interval = k.integer("full_attention_interval", 4);
    for (int64_t i = 0; i < c.n_layer; ++i) c.recurrent[size_t(i)] = (i + 1) % interval != 0;
  }
  // the attention scale is 1/sqrt(head_dim) whatever attention.scale says (llama.cpp does not read it here)
  if (c.arch != Architecture::Qwen3Next) {
    auto sections = integer_array(k, "rope.dimension_sections");
    if (!sections) k.fail("rope.dimension_sections", "is missing (required for " + c.arch_name + " models)");
    if (sections->size() < 3 || sections->size() > 4)
      k.fail("rope.dimension_sections", "has " + std::to_string(sections->size()) + " entries, expected 4");
    int64_t sum = 0;
    for (size_t i = 0; i < sections->size(); ++i) {
      if ((*sections)[i] < 0) k.fail("rope.dimension_sections", "has a negative entry");
      c.rope_sections[i] = (*sections)[i];
      sum += (*sections)[i];
    }
    if (sum == 0 || c.rope_sections[0] + c.rope_sections[1] + c.rope_sections[2] == 0)
      k.fail("rope.dimension_sections", "gives no section to the text positions");
    if (sum > c.n_rot / 2)
      k.fail("rope.dimension_sections", "adds up to " + std::to_string(sum) + ", more than the " +
                                            std::to_string(c.n_rot / 2) + " pairs rope.dimension_count turns");
    c.rope_multi = true;
  }
}

void check_experts(const Keys& k, const ModelConfig& c) {
  if (c.n_expert_used > c.n_expert)
    k.fail("expert_used_count", "(" + std::to_string(c.n_expert_used) + ") exceeds expert_count (" +
                                    std::to_string(c.n_expert) + ")");
}

}  // namespace

bool ModelConfig::rope_pair_moves(int64_t i) const {
  if (!rope_multi) return true;
  const int64_t* s = rope_sections;
  const int64_t sector = i % (s[0] + s[1] + s[2] + s[3]);
  // the interleaved sections: sector 3j + m belongs to section m while j < section m's size
  return (sector % 3 == 0 && sector < 3 * s[0]) || (sector % 3 == 1 && sector < 3 * s[1]) ||
         (sector % 3 == 2 && sector < 3 * s[2]);
}

const char* architecture_name(Architecture a) {
  for (const auto& i : kArchs)
    if (i.arch == a) return i.name;
  return "?";
}

std::vector<std::string> supported_architectures() {
  std::vector<std::string> out;
  for (const auto& i : kArchs) out.push_back(i.name);
  return out;
}

std::string ModelConfig::describe() const {
  std::string s = arch_name + ": " + std::to_string(n_layer) + " layers, embd " + std::to_string(n_embd) + ", " +
                  std::to_string(n_head) + " heads (" + std::to_string(n_head_kv) + " kv) of " +
                  std::to_string(head_dim);
  if (hybrid()) {
    int64_t n_rec = 0;
    for (bool r : recurrent) n_rec += r ? 1 : 0;
    s += " (" + std::to_string(n_rec) + " Gated DeltaNet: " + std::to_string(ssm_k_heads) + " key / " +
         std::to_string(ssm_v_heads) + " value heads of " + std::to_string(ssm_state) + ")";
  }
  if (moe())
    s += ", " + std::to_string(n_expert) + " experts (" + std::to_string(n_expert_used) + " used) of ffn " +
         std::to_string(n_ff_exp);
  else
    s += ", ffn " + std::to_string(n_ff);
  return s + ", vocab " + std::to_string(n_vocab);
}

ModelConfig ModelConfig::from_gguf(const quant::GgufFile& f) {
  ModelConfig c;
  const quant::Value* a = f.find("general.architecture");
  if (!a) throw Error(f.path() + ": metadata key 'general.architecture' is missing");
  if (a->type() != quant::ValueType::String)
    throw Error(f.path() + ": metadata key 'general.architecture' is not a string");
  c.arch_name = a->as_string();
  const ArchInfo* info = nullptr;
  for (const auto& i : kArchs)
    if (c.arch_name == i.name) info = &i;
  if (!info) {
    std::string list;
    for (const auto& n : supported_architectures()) list += (list.empty() ? "" : ", ") + n;
    throw Error(f.path() + ": architecture '" + c.arch_name + "' (general.architecture) is not supported; supported: " +
                list);
  }
  c.arch = info->arch;
  c.rope_type = info->rope;
  if (const quant::Value* n = f.find("general.name"); n && n->type() == quant::ValueType::String) c.name = n->as_string();

  const Keys k(f, c.arch_name);
  c.n_embd = k.integer("embedding_length");
  c.n_layer = k.integer("block_count");
  c.n_head = k.integer("attention.head_count");
  c.n_head_kv = k.integer("attention.head_count_kv", c.n_head);
  c.n_ctx_train = k.integer("context_length", 4096);
  if (c.n_head % c.n_head_kv)
    k.fail("attention.head_count_kv", "(" + std::to_string(c.n_head_kv) + ") does not divide attention.head_count (" +
                                          std::to_string(c.n_head) + ")");
  const int64_t default_hd = c.n_embd % c.n_head == 0 ? c.n_embd / c.n_head : 0;
  c.head_dim = k.integer("attention.key_length", default_hd ? std::optional<int64_t>(default_hd) : std::nullopt);
  if (k.integer("attention.value_length", c.head_dim) != c.head_dim)
    k.fail("attention.value_length", "differs from attention.key_length, which is not supported");
  c.n_rot = k.integer("rope.dimension_count", c.head_dim);
  if (c.n_rot > c.head_dim || c.n_rot % 2)
    k.fail("rope.dimension_count", "is " + std::to_string(c.n_rot) + "; it must be even and at most the head size " +
                                       std::to_string(c.head_dim));
  c.rope_freq_base = k.number("rope.freq_base", 10000.0);
  if (!(c.rope_freq_base > 0)) k.fail("rope.freq_base", "must be positive");
  if (const quant::Value* t = k.find("rope.scaling.type")) {
    const std::string type = t->type() == quant::ValueType::String ? t->as_string() : "?";
    if (type == "linear") {
      const double factor = k.number("rope.scaling.factor", 1.0);
      if (!(factor > 0)) k.fail("rope.scaling.factor", "must be positive");
      c.rope_freq_scale = 1.0 / factor;
    } else if (type != "none") {
      k.fail("rope.scaling.type", "is '" + type + "'; only 'none' and 'linear' are supported");
    }
  } else if (k.find("rope.scale_linear")) {
    const double factor = k.number("rope.scale_linear");
    if (!(factor > 0)) k.fail("rope.scale_linear", "must be positive");
    c.rope_freq_scale = 1.0 / factor;
  }
  c.rms_eps = float(k.number("attention.layer_norm_rms_epsilon"));
  if (!(c.rms_eps > 0)) k.fail("attention.layer_norm_rms_epsilon", "must be positive");
  c.n_vocab = k.integer("vocab_size", int64_t(0), 0);
  if (c.n_vocab == 0) {
    if (const quant::Value* toks = f.find("tokenizer.ggml.tokens"); toks && toks->is_array()) c.n_vocab = int64_t(toks->size());
    else if (const quant::TensorInfo* e = f.find_tensor("token_embd.weight"); e && e->dims.size() == 2)
      c.n_vocab = int64_t(e->dims[1]);
    else
      throw Error(f.path() + ": the vocabulary size is unknown (no '" + k.key("vocab_size") +
                  "', tokenizer.ggml.tokens or token_embd.weight)");
  }
  const bool hybrid =
      c.arch == Architecture::Qwen35 || c.arch == Architecture::Qwen35Moe || c.arch == Architecture::Qwen3Next;
  if (hybrid) read_hybrid(k, c);
  const bool shared_expert = c.arch == Architecture::Qwen35Moe || c.arch == Architecture::Qwen3Next;
  if (c.arch == Architecture::Qwen3Moe || shared_expert) {
    c.n_expert = k.integer("expert_count");
    c.n_expert_used = k.integer("expert_used_count");
    check_experts(k, c);
    c.n_ff = k.integer("feed_forward_length", int64_t(0), 0);
    c.n_ff_exp = k.integer("expert_feed_forward_length",
                           c.n_ff ? std::optional<int64_t>(c.n_ff / c.n_expert_used) : std::nullopt);
    if (shared_expert)
      c.n_ff_shexp = k.integer("expert_shared_feed_forward_length",
                               c.n_ff ? std::optional<int64_t>(c.n_ff) : std::nullopt);
    // softmax over all experts, the top k renormalised (qwen3moe's norm_topk_prob)
    c.expert_weights_norm = true;
  } else if (c.arch == Architecture::Llama && k.integer("expert_count", int64_t(0), 0) > 0) {
    // Mixtral-style experts stored as llama: every layer's FFN is routed, each
    // expert feed_forward_length wide; the weights are a softmax over the
    // selected experts' router logits (the full softmax renormalised)
    c.n_expert = k.integer("expert_count");
    c.n_expert_used = k.integer("expert_used_count");
    check_experts(k, c);
    c.n_ff_exp = k.integer("feed_forward_length");
    c.expert_weights_norm = true;
  } else {
    c.n_ff = k.integer("feed_forward_length");
  }
  return c;
}

}  // namespace k100::model
