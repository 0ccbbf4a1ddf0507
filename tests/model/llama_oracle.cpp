#include "llama_oracle.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace k100::test {
namespace {

// The declarations of llama.h (node-llama-cpp 3.21.1, llama.cpp with ggml
// v0.4.0; the matching source ships in the package as a git bundle) that the
// oracle calls. struct llama_model_params is 80 bytes in this build; only
// vocab_only is changed from the defaults.
struct ModelParams {
  void* devices;
  const void* tensor_buft_overrides;
  int32_t n_gpu_layers;
  int32_t split_mode;
  int32_t load_mode;
  int32_t lazy_mode;
  int32_t main_gpu;
  const float* tensor_split;
  void* progress_callback;
  void* progress_callback_user_data;
  const void* kv_overrides;
  bool vocab_only;
  bool check_tensors;
  bool use_extra_bufts;
  bool no_host;
  bool no_alloc;
  bool load_mtp;
};
static_assert(sizeof(ModelParams) == 80, "llama_model_params of this build is 80 bytes");
static_assert(offsetof(ModelParams, vocab_only) == 72, "vocab_only follows the pointers");

struct TokenData {  // llama_token_data
  int32_t id;
  float logit;
  float p;
};
struct TokenDataArray {  // llama_token_data_array
  TokenData* data;
  size_t size;
  int64_t selected;
  bool sorted;
};

struct ChatMessage {  // llama_chat_message
  const char* role;
  const char* content;
};

using LogCallback = void (*)(int level, const char* text, void* user);

std::string& log_text() {
  static std::string s;
  return s;
}

void capture_log(int, const char* text, void*) {
  if (text) log_text() += text;
}

std::string bin_dir() {
  if (const char* p = std::getenv("K100_LLAMA_BIN_DIR"); p && *p) return p;
  return std::string(K100_BINARY_DIR) + "/oracles/llama/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64";
}

template <class F>
void resolve(void* h, const char* name, F* out, std::string* missing) {
  void* p = dlsym(h, name);
  if (!p) *missing += std::string(missing->empty() ? "" : ", ") + name;
  *out = reinterpret_cast<F>(p);
}

}  // namespace

struct LlamaOracle::Api {
  void (*load_all_from_path)(const char*);
  void (*log_set)(LogCallback, void*);
  ModelParams (*model_default_params)();
  void* (*model_load_from_file)(const char*, ModelParams);
  void (*model_free)(void*);
  const void* (*model_get_vocab)(const void*);
  int32_t (*vocab_n_tokens)(const void*);
  int32_t (*tokenize)(const void*, const char*, int32_t, int32_t*, int32_t, bool, bool);
  int32_t (*token_to_piece)(const void*, int32_t, char*, int32_t, int32_t, bool);
  int32_t (*detokenize)(const void*, const int32_t*, int32_t, char*, int32_t, bool, bool);
  uint32_t (*vocab_get_attr)(const void*, int32_t);
  bool (*vocab_is_eog)(const void*, int32_t);
  int32_t (*vocab_bos)(const void*);
  int32_t (*vocab_eos)(const void*);
  bool (*vocab_get_add_bos)(const void*);
  bool (*vocab_get_add_eos)(const void*);
  void* (*sampler_init_penalties)(int32_t, int32_t, float, float, float);
  void (*sampler_accept)(void*, int32_t);
  void (*sampler_apply)(void*, TokenDataArray*);
  void (*sampler_free)(void*);
  int32_t (*chat_apply_template)(const char*, const ChatMessage*, size_t, bool, char*, int32_t);
  int32_t (*chat_builtin_templates)(const char**, size_t);
};

bool llama_oracle_required() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

const LlamaOracle* LlamaOracle::get(std::string* why) {
  static std::once_flag once;
  static LlamaOracle* oracle = nullptr;
  static std::string reason;
  std::call_once(once, [] {
    const std::string dir = bin_dir();
    const std::string ggml = dir + "/libggml.v0.4.0.so", llama = dir + "/libllama.v0.4.0.so";
    void* hg = dlopen(ggml.c_str(), RTLD_NOW | RTLD_LOCAL);
    void* hl = hg ? dlopen(llama.c_str(), RTLD_NOW | RTLD_LOCAL) : nullptr;
    if (!hl) {
      reason = "llama oracle not installed (" + std::string(dlerror()) +
               "); scripts/install-llama-oracle.sh installs node-llama-cpp@3.21.1 from npm";
      return;
    }
    static Api api;
    std::string missing;
    resolve(hg, "ggml_backend_load_all_from_path", &api.load_all_from_path, &missing);
    resolve(hl, "llama_log_set", &api.log_set, &missing);
    resolve(hl, "llama_model_default_params", &api.model_default_params, &missing);
    resolve(hl, "llama_model_load_from_file", &api.model_load_from_file, &missing);
    resolve(hl, "llama_model_free", &api.model_free, &missing);
    resolve(hl, "llama_model_get_vocab", &api.model_get_vocab, &missing);
    resolve(hl, "llama_vocab_n_tokens", &api.vocab_n_tokens, &missing);
    resolve(hl, "llama_tokenize", &api.tokenize, &missing);
    resolve(hl, "llama_token_to_piece", &api.token_to_piece, &missing);
    resolve(hl, "llama_detokenize", &api.detokenize, &missing);
    resolve(hl, "llama_vocab_get_attr", &api.vocab_get_attr, &missing);
    resolve(hl, "llama_vocab_is_eog", &api.vocab_is_eog, &missing);
    resolve(hl, "llama_vocab_bos", &api.vocab_bos, &missing);
    resolve(hl, "llama_vocab_eos", &api.vocab_eos, &missing);
    resolve(hl, "llama_vocab_get_add_bos", &api.vocab_get_add_bos, &missing);
    resolve(hl, "llama_vocab_get_add_eos", &api.vocab_get_add_eos, &missing);
    resolve(hl, "llama_sampler_init_penalties", &api.sampler_init_penalties, &missing);
    resolve(hl, "llama_sampler_accept", &api.sampler_accept, &missing);
    resolve(hl, "llama_sampler_apply", &api.sampler_apply, &missing);
    resolve(hl, "llama_sampler_free", &api.sampler_free, &missing);
    resolve(hl, "llama_chat_apply_template", &api.chat_apply_template, &missing);
    resolve(hl, "llama_chat_builtin_templates", &api.chat_builtin_templates, &missing);
    if (!missing.empty()) {
      reason = llama + " lacks " + missing;
      return;
    }
    api.log_set(capture_log, nullptr);
    api.load_all_from_path(dir.c_str());
    oracle = new LlamaOracle();
    oracle->api_ = &api;
  });
  if (!oracle && why) *why = reason;
  return oracle;
}

const std::string& LlamaOracle::last_log() const { return log_text(); }

std::unique_ptr<LlamaOracle::Vocab> LlamaOracle::load_vocab(const std::string& path) const {
  log_text().clear();
  ModelParams p = api_->model_default_params();
  p.vocab_only = true;
  void* model = api_->model_load_from_file(path.c_str(), p);
  if (!model) return nullptr;
  return std::unique_ptr<Vocab>(new Vocab(this, model));
}

LlamaOracle::Vocab::~Vocab() { o_->api_->model_free(model_); }

const void* LlamaOracle::Vocab::vocab() const { return o_->api_->model_get_vocab(model_); }

int32_t LlamaOracle::Vocab::size() const { return o_->api_->vocab_n_tokens(vocab()); }

std::vector<int32_t> LlamaOracle::Vocab::tokenize(const std::string& text, bool add_special, bool parse_special) const {
  std::vector<int32_t> ids(text.size() + 8);
  int32_t n = o_->api_->tokenize(vocab(), text.data(), int32_t(text.size()), ids.data(), int32_t(ids.size()),
                                 add_special, parse_special);
  if (n < 0) {
    ids.resize(size_t(-n));
    n = o_->api_->tokenize(vocab(), text.data(), int32_t(text.size()), ids.data(), int32_t(ids.size()), add_special,
                           parse_special);
  }
  ids.resize(size_t(n));
  return ids;
}

std::string LlamaOracle::Vocab::token_to_piece(int32_t id, bool special) const {
  std::string buf(64, '\0');
  int32_t n = o_->api_->token_to_piece(vocab(), id, buf.data(), int32_t(buf.size()), 0, special);
  if (n < 0) {
    buf.resize(size_t(-n));
    n = o_->api_->token_to_piece(vocab(), id, buf.data(), int32_t(buf.size()), 0, special);
  }
  buf.resize(size_t(n));
  return buf;
}

std::string LlamaOracle::Vocab::detokenize(const std::vector<int32_t>& ids, bool remove_special,
                                           bool unparse_special) const {
  std::string buf(ids.size() * 8 + 16, '\0');
  int32_t n = o_->api_->detokenize(vocab(), ids.data(), int32_t(ids.size()), buf.data(), int32_t(buf.size()),
                                   remove_special, unparse_special);
  if (n < 0) {
    buf.assign(size_t(-n), '\0');
    n = o_->api_->detokenize(vocab(), ids.data(), int32_t(ids.size()), buf.data(), int32_t(buf.size()),
                             remove_special, unparse_special);
  }
  buf.resize(size_t(n));
  return buf;
}

uint32_t LlamaOracle::Vocab::attr(int32_t id) const { return o_->api_->vocab_get_attr(vocab(), id); }
bool LlamaOracle::Vocab::is_eog(int32_t id) const { return o_->api_->vocab_is_eog(vocab(), id); }
int32_t LlamaOracle::Vocab::bos() const { return o_->api_->vocab_bos(vocab()); }
int32_t LlamaOracle::Vocab::eos() const { return o_->api_->vocab_eos(vocab()); }
bool LlamaOracle::Vocab::add_bos() const { return o_->api_->vocab_get_add_bos(vocab()); }
bool LlamaOracle::Vocab::add_eos() const { return o_->api_->vocab_get_add_eos(vocab()); }

std::vector<float> LlamaOracle::penalties(int32_t last_n, float repeat, float freq, float present,
                                          const std::vector<int32_t>& history,
                                          const std::vector<float>& logits) const {
  void* s = api_->sampler_init_penalties(int32_t(logits.size()), last_n, repeat, freq, present);
  for (int32_t t : history) api_->sampler_accept(s, t);
  std::vector<TokenData> data(logits.size());
  for (size_t i = 0; i < logits.size(); ++i) data[i] = {int32_t(i), logits[i], 0.0f};
  TokenDataArray arr{data.data(), data.size(), -1, false};
  api_->sampler_apply(s, &arr);
  api_->sampler_free(s);
  std::vector<float> out(logits.size());
  for (size_t i = 0; i < arr.size; ++i) out[size_t(arr.data[i].id)] = arr.data[i].logit;
  return out;
}

std::optional<std::string> LlamaOracle::chat_apply_template(
    const std::string& tmpl, const std::vector<std::pair<std::string, std::string>>& messages,
    bool add_assistant) const {
  std::vector<ChatMessage> chat;
  for (const auto& [role, content] : messages) chat.push_back({role.c_str(), content.c_str()});
  std::string buf(256, '\0');
  int32_t n = api_->chat_apply_template(tmpl.c_str(), chat.data(), chat.size(), add_assistant, buf.data(),
                                        int32_t(buf.size()));
  if (n < 0) return std::nullopt;
  if (size_t(n) > buf.size()) {
    buf.assign(size_t(n), '\0');
    n = api_->chat_apply_template(tmpl.c_str(), chat.data(), chat.size(), add_assistant, buf.data(),
                                  int32_t(buf.size()));
  }
  buf.resize(size_t(n));
  return buf;
}

std::vector<std::string> LlamaOracle::chat_builtin_templates() const {
  const int32_t n = api_->chat_builtin_templates(nullptr, 0);
  std::vector<const char*> names(size_t(std::max(n, 0)));
  api_->chat_builtin_templates(names.data(), names.size());
  return std::vector<std::string>(names.begin(), names.end());
}

}  // namespace k100::test
