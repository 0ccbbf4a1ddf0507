// The weights of a Hugging Face directory as a TensorSource: the GGUF
// loader asks for llama.cpp's tensor names, this source answers with the
// safetensors tensor of the matching Hugging Face key (its shape reversed
// into GGUF order, its bytes in the mapping), stacks per-expert matrices
// into the [experts][rows][cols] tensors the loader takes, and supplies
// llama3 RoPE factors as rope_freqs.weight. A quantised linear layer (the
// compressed-tensors tensors <prefix>.weight_packed, ..., or an RT4 file's
// <prefix>.weight) is answered as a placeholder tensor of the layer's shape
// whose 4-bit matrix w4() gives.
#include <algorithm>
#include <deque>
#include <filesystem>
#include <map>
#include <regex>

#include "k100/base/error.h"
#include "k100/model/hf_model.h"
#include "k100/model/tokenizer_json.h"
#include "k100/quant/json_document.h"
#include "k100/quant/nvfp4.h"
#include "k100/quant/rt4.h"
#include "k100/quant/safetensors_checkpoint.h"

namespace k100::model {

namespace fs = std::filesystem;
using quant::SafetensorsCheckpoint;
using quant::TensorInfo;

namespace {

// GGUF tensor names inside a layer -> the Hugging Face key's tail.
struct LayerName {
  const char* gguf;
  const char* hf;
};
constexpr LayerName kLayerNames[] = {
    {"attn_norm.weight", "input_layernorm.weight"},
    {"attn_q.weight", "self_attn.q_proj.weight"},
    {"attn_k.weight", "self_attn.k_proj.weight"},
    {"attn_v.weight", "self_attn.v_proj.weight"},
    {"attn_q.bias", "self_attn.q_proj.bias"},
    {"attn_k.bias", "self_attn.k_proj.bias"},
    {"attn_v.bias", "self_attn.v_proj.bias"},
    {"attn_output.weight", "self_attn.o_proj.weight"},
    {"attn_output.bias", "self_attn.o_proj.bias"},
    {"attn_q_norm.weight", "self_attn.q_norm.weight"},
    {"attn_k_norm.weight", "self_attn.k_norm.weight"},
    {"ffn_norm.weight", "post_attention_layernorm.weight"},
    {"ffn_gate.weight", "mlp.gate_proj.weight"},
    {"ffn_up.weight", "mlp.up_proj.weight"},
    {"ffn_down.weight", "mlp.down_proj.weight"},
    {"ffn_gate.bias", "mlp.gate_proj.bias"},
    {"ffn_up.bias", "mlp.up_proj.bias"},
    {"ffn_down.bias", "mlp.down_proj.bias"},
};

// Where the experts of a MoE layer live: Qwen3-MoE's mlp.experts.E.{gate,up,down}_proj,
// Mixtral's block_sparse_moe.experts.E.{w1,w3,w2}.
struct ExpertNames {
  const char* router;
  const char* stem;  // before the expert index
  const char* gate;
  const char* up;
  const char* down;
};
constexpr ExpertNames kQwenExperts{"mlp.gate.weight", "mlp.experts.", "gate_proj.weight", "up_proj.weight",
                                   "down_proj.weight"};
constexpr ExpertNames kMixtralExperts{"block_sparse_moe.gate.weight", "block_sparse_moe.experts.", "w1.weight",
                                      "w3.weight", "w2.weight"};

std::string hf_shape(const std::vector<uint64_t>& gguf_dims) {
  return quant::format_shape(std::vector<uint64_t>(gguf_dims.rbegin(), gguf_dims.rend()));
}

// The tensors of one compressed-tensors layer <prefix>: <prefix> + these.
constexpr const char* kQuantisedTails[] = {".weight_packed", ".weight_scale", ".weight_shape", ".weight_global_scale",
                                           ".input_global_scale"};

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

class HfTensorSource final : public TensorSource {
 public:
  HfTensorSource(SafetensorsCheckpoint ckpt, const HfConfig& cfg, std::optional<quant::Rt4File> rt4)
      : ckpt_(std::move(ckpt)),
        cfg_(cfg),
        experts_(cfg.architecture == "MixtralForCausalLM" ? kMixtralExperts : kQwenExperts),
        rt4_(std::move(rt4)) {}

  const W4Weight* w4(const TensorInfo& t) const override {
    for (const auto& [name, m] : made_)
      if (&m.info == &t) return m.w4 ? &*m.w4 : nullptr;
    return nullptr;
  }

  const std::string& origin() const override { return ckpt_.origin(); }
  uint64_t total_bytes() const override { return ckpt_.total_bytes(); }

  const TensorInfo* tensor(const std::string& name, const std::vector<uint64_t>& expected, bool required) const override {
    if (auto it = made_.find(name); it != made_.end()) return &it->second.info;
    if (name == "rope_freqs.weight") return rope_factors();
    int64_t layer = -1;
    std::string tail;
    const std::string hf = hf_key(name, &layer, &tail);
    if (layer >= 0 && (tail == "ffn_gate_exps.weight" || tail == "ffn_up_exps.weight" || tail == "ffn_down_exps.weight"))
      return stacked(name, layer, tail, expected);
    if (hf.empty()) return nullptr;  // no Hugging Face form (the fused QKV)
    if (const TensorInfo* q = quantised(name, hf)) return q;
    const SafetensorsCheckpoint::Entry* e = ckpt_.find(hf);
    if (!e) {
      if (name == "output.weight" && !cfg_.tie_word_embeddings)
        throw Error(origin() + ": tensor 'lm_head.weight' (the output head, " + hf_shape(expected) +
                    ") is missing and config.json's tie_word_embeddings is not true");
      if (required)
        throw Error(origin() + ": tensor '" + hf + "' (" + name + ", " + hf_shape(expected) + ") is missing");
      return nullptr;
    }
    return &remember(name, plain(*e), ckpt_.bytes(*e));
  }

  std::span<const uint8_t> bytes(const TensorInfo& t) const override {
    for (const auto& [name, m] : made_)
      if (&m.info == &t) return m.owned.empty() ? m.bytes : std::span<const uint8_t>(m.owned);
    return {};
  }

  // Every key of the checkpoint, the experts' collapsed into their stack's
  // name, a quantised layer's tensors into <prefix>.weight.
  std::vector<std::string> names() const override {
    std::vector<std::string> out;
    for (const auto& e : ckpt_.tensors()) {
      const std::string stack = stack_name_of(e.tensor->name);
      const std::string layer = quantised_layer_of(e.tensor->name);
      const std::string& n = !stack.empty() ? stack : !layer.empty() ? layer : e.tensor->name;
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
    return out;
  }

 private:
  struct Made {
    TensorInfo info;
    std::span<const uint8_t> bytes;
    std::vector<uint8_t> owned;
    std::optional<W4Weight> w4;
  };

  // "<prefix>.weight" for a tensor of a quantised layer (its .weight_packed
  // present), else "".
  std::string quantised_layer_of(const std::string& key) const {
    for (const char* tail : kQuantisedTails)
      if (ends_with(key, tail)) {
        const std::string prefix = key.substr(0, key.size() - std::string_view(tail).size());
        return ckpt_.find(prefix + ".weight_packed") ? prefix + ".weight" : "";
      }
    return "";
  }

  // The 4-bit layer `hf` (a ".weight" key): from the RT4 file, else the
  // checkpoint's compressed-tensors tensors; nullptr when it is neither.
  const TensorInfo* quantised(const std::string& gguf, const std::string& hf) const {
    if (!ends_with(hf, ".weight")) return nullptr;
    const std::string prefix = hf.substr(0, hf.size() - 7);
    W4Weight w;
    w.key = hf;
    if (const quant::Rt4Tensor* t = rt4_ ? rt4_->find(hf) : nullptr) {
      w.kind = W4Kind::Rt4;
      w.key = rt4_->path() + ": " + hf;
      w.matrix = rt4_->matrix(*t);
    } else if (ckpt_.find(prefix + ".weight_packed")) {
      if (!cfg_.quantization)
        throw Error(origin() + ": tensor '" + prefix + ".weight_packed' is quantised, but config.json has no "
                    "quantization_config saying how");
      if (cfg_.quantization->scheme == quant::CompressedTensorsScheme::Nvfp4) {
        w.kind = W4Kind::Nvfp4;
        w.matrix = quant::find_nvfp4_layer(ckpt_, prefix).matrix;
      } else {
        w.kind = W4Kind::CompressedInt4;
        w.matrix = quant::find_int4_layer(ckpt_, prefix).matrix;
      }
    } else {
      return nullptr;
    }
    TensorInfo i;
    i.name = hf;
    i.type = quant::TensorType::I8;  // a placeholder: w4() gives the matrix
    i.dims = {uint64_t(w.matrix.k), uint64_t(w.matrix.n)};
    i.elements = uint64_t(w.matrix.n) * uint64_t(w.matrix.k);
    i.size = w.matrix.code_bytes() + w.matrix.scale_bytes();
    Made& m = made_[gguf];
    m.info = std::move(i);
    m.w4 = std::move(w);
    return &m.info;
  }

  // The Hugging Face key of a GGUF name ("" when it has none).
  std::string hf_key(const std::string& name, int64_t* layer, std::string* tail) const {
    if (name == "token_embd.weight") return "model.embed_tokens.weight";
    if (name == "output_norm.weight") return "model.norm.weight";
    if (name == "output.weight") return "lm_head.weight";
    if (name.rfind("blk.", 0) != 0) return "";
    const size_t dot = name.find('.', 4);
    if (dot == std::string::npos) return "";
    *layer = std::stoll(name.substr(4, dot - 4));
    *tail = name.substr(dot + 1);
    const std::string prefix = "model.layers." + std::to_string(*layer) + ".";
    if (*tail == "ffn_gate_inp.weight") return prefix + experts_.router;
    for (const LayerName& l : kLayerNames)
      if (*tail == l.gguf) return prefix + l.hf;
    return "";
  }

  TensorInfo plain(const SafetensorsCheckpoint::Entry& e) const {
    const quant::SafetensorsTensor& t = *e.tensor;
    const auto& info = quant::dtype_info(t.dtype);
    if (t.dtype != quant::SafetensorsDtype::BF16 && t.dtype != quant::SafetensorsDtype::F16 &&
        t.dtype != quant::SafetensorsDtype::F32)
      throw Error(origin() + ": tensor '" + t.name + "' has dtype " + info.name +
                  "; unquantised weights must be BF16, F16 or F32");
    TensorInfo i;
    i.name = t.name;
    i.type = *info.tensor_type;
    i.dims = quant::gguf_dims(t);
    i.elements = t.elements;
    i.size = t.size();
    i.file_offset = t.file_offset;
    return i;
  }

  const TensorInfo& remember(const std::string& gguf, TensorInfo info, std::span<const uint8_t> bytes,
                             std::vector<uint8_t> owned = {}) const {
    Made& m = made_[gguf];
    m.info = std::move(info);
    m.bytes = bytes;
    m.owned = std::move(owned);
    return m.info;
  }

  const TensorInfo* rope_factors() const {
    if (cfg_.rope_freq_factors.empty()) return nullptr;
    const auto& f = cfg_.rope_freq_factors;
    TensorInfo i;
    i.name = "rope_freqs.weight";  // from config.json rope_scaling (llama3)
    i.type = quant::TensorType::F32;
    i.dims = {uint64_t(f.size())};
    i.elements = f.size();
    i.size = f.size() * 4;
    const auto* p = reinterpret_cast<const uint8_t*>(f.data());
    return &remember("rope_freqs.weight", i, {}, std::vector<uint8_t>(p, p + i.size));
  }

  std::string expert_key(int64_t layer, int64_t e, const char* which) const {
    return "model.layers." + std::to_string(layer) + "." + experts_.stem + std::to_string(e) + "." + which;
  }

  // "model.layers.3.mlp.experts.*.gate_proj.weight" for an expert key, else "".
  std::string stack_name_of(const std::string& key) const {
    static const std::regex qwen(R"(^(model\.layers\.\d+\.mlp\.experts\.)\d+(\.(gate_proj|up_proj|down_proj)\.weight)$)");
    static const std::regex mixtral(R"(^(model\.layers\.\d+\.block_sparse_moe\.experts\.)\d+(\.(w1|w2|w3)\.weight)$)");
    std::smatch m;
    if (std::regex_match(key, m, qwen) || std::regex_match(key, m, mixtral)) return m[1].str() + "*" + m[2].str();
    return "";
  }

  // One [experts][rows][cols] tensor from the experts' matrices, copied
  // back to back (all of one dtype and shape, exactly n_expert of them).
  const TensorInfo* stacked(const std::string& name, int64_t layer, const std::string& tail,
                            const std::vector<uint64_t>& expected) const {
    const char* which = tail == "ffn_gate_exps.weight" ? experts_.gate : tail == "ffn_up_exps.weight" ? experts_.up
                                                                                                    : experts_.down;
    const std::string stack = stack_name_of(expert_key(layer, 0, which));
    const int64_t X = cfg_.model.n_expert;
    int64_t present = 0;
    for (const auto& e : ckpt_.tensors())
      if (stack_name_of(e.tensor->name) == stack) ++present;
    if (present != X)
      throw Error(origin() + ": " + std::to_string(present) + " tensors match '" + stack + "', expected one per expert (" +
                  std::to_string(X) + ")");
    std::vector<uint8_t> owned;
    TensorInfo first;
    for (int64_t e = 0; e < X; ++e) {
      const std::string key = expert_key(layer, e, which);
      const SafetensorsCheckpoint::Entry* entry = ckpt_.find(key);
      if (!entry && ckpt_.find(key.substr(0, key.size() - 7) + ".weight_packed"))
        throw Error(origin() + ": '" + key + "' is quantised; quantised expert weights are not supported "
                    "(4-bit weights run in dense layers only)");
      if (!entry)
        throw Error(origin() + ": tensor '" + key + "' (expert " + std::to_string(e) + " of " + name + ") is missing");
      const TensorInfo t = plain(*entry);
      if (e == 0) first = t;
      else if (t.type != first.type || t.dims != first.dims)
        throw Error(origin() + ": tensor '" + key + "' is " + entry->tensor->describe() + ", unlike expert 0's " +
                    ckpt_.at(expert_key(layer, 0, which)).tensor->describe());
      const auto b = ckpt_.bytes(*entry);
      owned.insert(owned.end(), b.begin(), b.end());
    }
    TensorInfo s = first;
    s.name = stack;
    s.dims.push_back(uint64_t(X));
    s.elements *= uint64_t(X);
    s.size = owned.size();
    if (s.dims != expected)
      throw Error(origin() + ": the experts '" + stack + "' are " + hf_shape(first.dims) + " each, expected " +
                  hf_shape(std::vector<uint64_t>(expected.begin(), expected.end() - 1)));
    return &remember(name, s, {}, std::move(owned));
  }

  SafetensorsCheckpoint ckpt_;
  const HfConfig& cfg_;
  ExpertNames experts_;
  std::optional<quant::Rt4File> rt4_;
  mutable std::map<std::string, Made> made_;
};

}  // namespace

struct HfModelDirectory::State {
  std::string path, rt4;
  HfConfig cfg;
  HfGenerationConfig gen;
  std::unique_ptr<HfTensorSource> source;
};

bool HfModelDirectory::is_model_directory(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) && fs::exists(fs::path(path) / "config.json", ec);
}

HfModelDirectory HfModelDirectory::open(const std::string& dir, const std::string& rt4) {
  auto s = std::make_unique<State>();
  s->path = dir;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(dir + ": not a directory");
  const fs::path d(dir);
  if (!fs::exists(d / "config.json", ec)) throw Error(dir + ": no config.json (not a Hugging Face model directory)");
  s->cfg = read_hf_config((d / "config.json").string());
  if (fs::exists(d / "generation_config.json", ec)) s->gen = read_generation_config((d / "generation_config.json").string());
  // an RT4 file named, else model.rt4 beside the checkpoint
  std::optional<quant::Rt4File> rt4_file;
  if (!rt4.empty()) s->rt4 = rt4;
  else if (fs::exists(d / "model.rt4", ec)) s->rt4 = (d / "model.rt4").string();
  if (!s->rt4.empty()) rt4_file.emplace(quant::Rt4File::open(s->rt4));
  s->source = std::make_unique<HfTensorSource>(quant::SafetensorsCheckpoint::open(dir), s->cfg, std::move(rt4_file));
  return HfModelDirectory(std::move(s));
}

HfModelDirectory::HfModelDirectory(std::unique_ptr<State> s) : s_(std::move(s)) {}
HfModelDirectory::HfModelDirectory(HfModelDirectory&&) noexcept = default;
HfModelDirectory& HfModelDirectory::operator=(HfModelDirectory&&) noexcept = default;
HfModelDirectory::~HfModelDirectory() = default;

const std::string& HfModelDirectory::path() const { return s_->path; }
const std::string& HfModelDirectory::rt4_path() const { return s_->rt4; }
const HfConfig& HfModelDirectory::hf_config() const { return s_->cfg; }
const HfGenerationConfig& HfModelDirectory::generation() const { return s_->gen; }
const TensorSource& HfModelDirectory::tensors() const { return *s_->source; }

Tokenizer HfModelDirectory::tokenizer() const {
  const fs::path file = fs::path(s_->path) / "tokenizer.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) throw Error(s_->path + ": no tokenizer.json");
  VocabularyData v = read_tokenizer_json(file.string(), {.vocab_size = s_->cfg.model.n_vocab, .tokenizer_config = ""});
  const auto in_range = [&](int64_t id) { return id >= 0 && id < s_->cfg.model.n_vocab; };
  // tokenizer_config.json named them, else config.json / generation_config.json
  const std::optional<int64_t> bos = s_->cfg.bos_token_id ? s_->cfg.bos_token_id : s_->gen.bos_token_id;
  if (!v.bos && bos && in_range(*bos)) v.bos = uint32_t(*bos);
  std::vector<int64_t> eos = s_->gen.eos_token_ids;
  eos.insert(eos.end(), s_->cfg.eos_token_ids.begin(), s_->cfg.eos_token_ids.end());
  if (!v.eos && !eos.empty() && in_range(eos[0])) v.eos = uint32_t(eos[0]);
  for (int64_t id : eos)
    if (in_range(id)) v.end_of_generation.push_back(uint32_t(id));
  return Tokenizer(std::move(v));
}

ChatTemplateSource HfModelDirectory::chat_template_source() const {
  const fs::path file = fs::path(s_->path) / "tokenizer_config.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) return {s_->path, "tokenizer_config.json (where a chat_template is kept)", std::nullopt};
  ChatTemplateSource source{file.string(), "chat_template", std::nullopt};
  const quant::Json doc = quant::read_json_file(source.file);
  const quant::JsonObject top(doc, source.file);
  const quant::Json* v = top.find("chat_template");
  if (!v) return source;
  if (v->is_string()) {
    source.text = v->get<std::string>();
    return source;
  }
  // transformers' named templates: [{"name": "default", "template": "..."}, {"name": "tool_use", ...}]
  if (!v->is_array()) top.fail("chat_template", std::string("is ") + quant::json_kind(*v) +
                                                    ", expected a string or a list of {name, template}");
  std::string names;
  for (size_t i = 0; i < v->size(); ++i) {
    const quant::JsonObject entry((*v)[i], source.file, "chat_template[" + std::to_string(i) + "]");
    const std::string name = entry.string("name");
    if (name == "default") {
      source.key = "chat_template 'default'";
      source.text = entry.string("template");
      return source;
    }
    names += (names.empty() ? "'" : ", '") + name + "'";
  }
  top.fail("chat_template", "lists the templates " + (names.empty() ? std::string("(none)") : names) +
                                " but none named 'default'; give --chat-template NAME");
}

struct ModelFiles::State {
  std::string path;
  std::optional<HfModelDirectory> hf;
  std::optional<quant::GgufFile> gguf;
  ModelConfig cfg;
  std::unique_ptr<GgufTensorSource> gguf_source;
};

ModelFiles ModelFiles::open(const std::string& path, const std::string& rt4) {
  auto s = std::make_unique<State>();
  s->path = path;
  std::error_code ec;
  if (!fs::is_directory(path, ec) && !rt4.empty())
    throw Error(rt4 + ": an RT4 file goes with a Hugging Face model directory, not with the GGUF file " + path);
  if (fs::is_directory(path, ec)) {
    s->hf.emplace(HfModelDirectory::open(path, rt4));
    s->cfg = s->hf->config();
  } else {
    s->gguf.emplace(quant::GgufFile::open(path));
    s->cfg = ModelConfig::from_gguf(*s->gguf);
    s->gguf_source = std::make_unique<GgufTensorSource>(*s->gguf);
  }
  return ModelFiles(std::move(s));
}

ModelFiles::ModelFiles(std::unique_ptr<State> s) : s_(std::move(s)) {}
ModelFiles::ModelFiles(ModelFiles&&) noexcept = default;
ModelFiles& ModelFiles::operator=(ModelFiles&&) noexcept = default;
ModelFiles::~ModelFiles() = default;

const std::string& ModelFiles::path() const { return s_->path; }
const ModelConfig& ModelFiles::config() const { return s_->cfg; }
const TensorSource& ModelFiles::tensors() const {
  return s_->hf ? s_->hf->tensors() : static_cast<const TensorSource&>(*s_->gguf_source);
}
std::string ModelFiles::weight_format() const {
  if (!s_->hf) return "";
  std::string out;
  if (const auto& q = s_->hf->hf_config().quantization) out = quant::scheme_name(q->scheme);
  if (!s_->hf->rt4_path().empty()) out += (out.empty() ? "" : ", ") + std::string("RT4 file ") + s_->hf->rt4_path();
  return out;
}

Tokenizer ModelFiles::tokenizer() const { return s_->hf ? s_->hf->tokenizer() : Tokenizer::from_gguf(*s_->gguf); }
ChatTemplateSource ModelFiles::chat_template_source() const {
  return s_->hf ? s_->hf->chat_template_source() : ChatTemplate::source_of(*s_->gguf);
}

}  // namespace k100::model
