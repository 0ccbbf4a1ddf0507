#include "k100/model/random_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "k100/base/error.h"
#include "k100/quant/gguf_writer.h"

namespace k100::model {

using quant::TensorType;
using quant::Value;

namespace {

// Text the vocabularies are learned from (merges of its most frequent pairs).
constexpr const char* kCorpus =
    "the quick brown fox jumps over the lazy dog. a model reads the text and writes the next word. "
    "every kernel runs on the device and the host waits for the result. she said that they would come "
    "back in the morning, but the train was late and the station was cold. numbers like 12 and 345 "
    "appear in tables; letters and words appear in sentences. what is the time? it is half past nine. "
    "there are many ways to learn: reading, writing, listening and speaking. the weather is fine today "
    "and the children play in the park near the river. one two three four five six seven eight nine ten. "
    "a small language model with random weights still produces tokens; the tests compare them with another "
    "implementation, step by step, logit by logit. quantized blocks hold scales and codes, decoded on the fly. "
    "good morning, how are you? very well, thank you, and you? the library opens at eight and closes at six.";

// The merges a byte-pair learner makes on the corpus split into words, each
// word a list of symbols (UTF-8 strings), most frequent pair first (ties by
// text), at most `count` of them. Applied to the words as learned.
std::vector<std::pair<std::string, std::string>> learn_merges(std::vector<std::vector<std::string>> words, size_t count) {
  std::vector<std::pair<std::string, std::string>> merges;
  std::set<std::string> made;  // a text two merges reach is a token once
  for (const auto& w : words) made.insert(w.begin(), w.end());
  while (merges.size() < count) {
    std::map<std::pair<std::string, std::string>, int> freq;
    for (const auto& w : words)
      for (size_t i = 0; i + 1 < w.size(); ++i) ++freq[{w[i], w[i + 1]}];
    if (freq.empty()) break;
    auto best = freq.begin();
    for (auto it = freq.begin(); it != freq.end(); ++it)
      if (it->second > best->second) best = it;
    const auto pair = best->first;
    if (made.insert(pair.first + pair.second).second) merges.push_back(pair);
    for (auto& w : words) {
      std::vector<std::string> out;
      for (size_t i = 0; i < w.size(); ++i) {
        if (i + 1 < w.size() && w[i] == pair.first && w[i + 1] == pair.second) {
          out.push_back(pair.first + pair.second);
          ++i;
        } else {
          out.push_back(w[i]);
        }
      }
      w = std::move(out);
    }
  }
  return merges;
}

std::string utf8(uint32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += char(cp);
  } else if (cp < 0x800) {
    s += char(0xc0 | (cp >> 6));
    s += char(0x80 | (cp & 0x3f));
  } else {
    s += char(0xe0 | (cp >> 12));
    s += char(0x80 | ((cp >> 6) & 0x3f));
    s += char(0x80 | (cp & 0x3f));
  }
  return s;
}

// GPT-2's byte-level alphabet: printable bytes stand for themselves, the
// others for code points from 256 up, in byte order.
std::vector<std::string> byte_level_alphabet() {
  std::vector<std::string> out(256);
  uint32_t next = 256;
  for (uint32_t b = 0; b < 256; ++b) {
    const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174);
    out[b] = utf8(printable ? b : next++);
  }
  return out;
}

std::vector<std::string> corpus_words() {
  std::vector<std::string> words;
  std::string cur;
  for (const char* p = kCorpus;; ++p) {
    if (*p == ' ' || *p == 0) {
      if (!cur.empty()) words.push_back(cur);
      cur.clear();
      if (*p == 0) break;
    } else {
      cur += *p;
    }
  }
  return words;
}

struct Vocab {
  std::vector<std::string> tokens;
  std::vector<float> scores;
  std::vector<int32_t> types;  // 1 normal, 2 unknown, 3 control, 6 byte
  std::vector<std::string> merges;
};

// SentencePiece-style: <unk>, <s>, </s>, <0x00>..<0xFF>, the corpus's
// characters, then learned pieces (words start with U+2581), scores falling.
Vocab spm_vocab(int64_t n_vocab) {
  Vocab v;
  v.tokens = {"<unk>", "<s>", "</s>"};
  v.types = {2, 3, 3};
  for (int b = 0; b < 256; ++b) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "<0x%02X>", b);
    v.tokens.push_back(buf);
    v.types.push_back(6);
  }
  v.scores.assign(v.tokens.size(), 0.f);
  const std::string space = "\xe2\x96\x81";  // U+2581
  std::vector<std::vector<std::string>> words;
  std::set<std::string> chars;
  for (const auto& w : corpus_words()) {
    std::vector<std::string> syms = {space};
    for (char ch : w) syms.push_back(std::string(1, ch));
    for (const auto& s : syms) chars.insert(s);
    words.push_back(syms);
  }
  float score = -1.f;
  for (const auto& c : chars) {
    v.tokens.push_back(c);
    v.types.push_back(1);
    v.scores.push_back(-1000.f - float(v.tokens.size()));  // characters below every piece
  }
  const size_t room = size_t(n_vocab) - v.tokens.size();
  for (const auto& [a, b] : learn_merges(words, room)) {
    v.tokens.push_back(a + b);
    v.types.push_back(1);
    v.scores.push_back(score);
    score -= 1.f;
  }
  return v;
}

// GPT-2 byte-level BPE: the 256 byte symbols, learned merges, then the
// control tokens of the qwen family at the end.
Vocab bpe_vocab(int64_t n_vocab) {
  Vocab v;
  const auto alphabet = byte_level_alphabet();
  for (const auto& s : alphabet) {
    v.tokens.push_back(s);
    v.types.push_back(1);
  }
  const std::vector<std::string> specials = {"<|endoftext|>", "<|im_start|>", "<|im_end|>"};
  std::vector<std::vector<std::string>> words;
  bool first = true;
  for (const auto& w : corpus_words()) {
    std::vector<std::string> syms;
    if (!first) syms.push_back(alphabet[' ']);  // the space belongs to the word after it
    first = false;
    for (char ch : w) syms.push_back(alphabet[uint8_t(ch)]);
    words.push_back(syms);
  }
  const size_t room = size_t(n_vocab) - v.tokens.size() - specials.size();
  for (const auto& [a, b] : learn_merges(words, room)) {
    v.tokens.push_back(a + b);
    v.types.push_back(1);
    v.merges.push_back(a + " " + b);
  }
  for (const auto& s : specials) {
    v.tokens.push_back(s);
    v.types.push_back(3);
  }
  v.scores.assign(v.tokens.size(), 0.f);
  return v;
}

// The block types a mixed file cycles through (every one decodes on the device).
constexpr TensorType kMixedTypes[] = {TensorType::Q4_K, TensorType::Q8_0,  TensorType::Q6_K,   TensorType::IQ4_XS,
                                      TensorType::Q5_K, TensorType::Q4_0,  TensorType::IQ4_NL, TensorType::Q2_0,
                                      TensorType::IQ3_S, TensorType::IQ2_S, TensorType::IQ3_XXS};

class Builder {
 public:
  Builder(const RandomModelSpec& s) : s_(s), rng_(s.seed) {}

  std::vector<float> normal(size_t n, double mean, double stddev) {
    std::normal_distribution<double> d(mean, stddev);
    std::vector<float> v(n);
    for (auto& x : v) x = float(d(rng_));
    return v;
  }

  TensorType next_type() {
    if (!s_.mixed) return s_.type;
    return kMixedTypes[mixed_++ % std::size(kMixedTypes)];
  }

  // A weight matrix [rows][k] (dims {k, rows} or {k, rows, groups}), entries N(0, gain^2 / k).
  void matrix(quant::GgufWriter& w, const std::string& name, std::vector<uint64_t> dims, double gain = 1.0,
              std::optional<TensorType> type = std::nullopt) {
    uint64_t n = 1;
    for (uint64_t d : dims) n *= d;
    const TensorType t = type ? *type : next_type();
    const uint32_t block = quant::traits(t).block_elems;
    if (dims[0] % block)
      throw Error("random model: tensor '" + name + "' has rows of " + std::to_string(dims[0]) + " elements, which " +
                  quant::type_name(t) + " blocks of " + std::to_string(block) + " cannot hold");
    auto values = normal(size_t(n), 0.0, gain / std::sqrt(double(dims[0])));
    w.add_tensor_from_f32(name, t, std::move(dims), values);
  }
  // An f32 vector around `mean` (norm weights, biases).
  void vector(quant::GgufWriter& w, const std::string& name, uint64_t n, double mean, double stddev) {
    auto values = normal(size_t(n), mean, stddev);
    w.add_tensor_from_f32(name, TensorType::F32, {n}, values);
  }

 private:
  const RandomModelSpec& s_;
  std::mt19937_64 rng_;
  size_t mixed_ = 0;
};

}  // namespace

std::string random_model_type_name(const RandomModelSpec& spec) {
  return spec.mixed ? "mixed" : quant::type_name(spec.type);
}

bool set_random_model_field(RandomModelSpec& spec, const std::string& value) {
  for (Architecture a : {Architecture::Llama, Architecture::Qwen2, Architecture::Qwen3, Architecture::Qwen3Moe})
    if (value == architecture_name(a)) {
      spec.arch = a;
      spec.llama_experts = false;
      return true;
    }
  if (value == "mixtral") {
    spec.arch = Architecture::Llama;
    spec.llama_experts = true;
    return true;
  }
  if (value == "mixed") {
    spec.mixed = true;
    return true;
  }
  if (auto t = quant::type_from_name(value)) {
    spec.type = *t;
    spec.mixed = false;
    return true;
  }
  return false;
}

void write_random_model(const std::string& path, const RandomModelSpec& s) {
  if (s.n_head <= 0 || s.n_head_kv <= 0 || s.n_head % s.n_head_kv)
    throw Error("random model: n_head_kv " + std::to_string(s.n_head_kv) + " must divide n_head " + std::to_string(s.n_head));
  if (s.n_vocab < 300) throw Error("random model: n_vocab must be at least 300 (bytes and control tokens)");
  const bool moe = s.arch == Architecture::Qwen3Moe || (s.arch == Architecture::Llama && s.llama_experts);
  const std::string a = architecture_name(s.arch);
  quant::GgufWriter w;
  w.add("general.architecture", Value::string(a));
  w.add("general.name", Value::string("k100lc random " + a + " " + random_model_type_name(s)));
  auto u32 = [](int64_t v) { return Value::of(uint32_t(v)); };
  const bool spm = s.arch == Architecture::Llama;
  const Vocab v = spm ? spm_vocab(s.n_vocab) : bpe_vocab(s.n_vocab);
  const int64_t nv = int64_t(v.tokens.size());  // n_vocab, unless the corpus has fewer pieces to learn
  w.add(a + ".vocab_size", u32(nv));
  w.add(a + ".context_length", u32(s.n_ctx));
  w.add(a + ".embedding_length", u32(s.n_embd));
  w.add(a + ".block_count", u32(s.n_layer));
  // llama's experts are feed_forward_length wide; qwen3moe's have a key of their own
  const bool llama_moe = moe && s.arch == Architecture::Llama;
  w.add(a + ".feed_forward_length", u32(llama_moe ? s.n_ff_exp : moe ? s.n_ff_exp * s.n_expert_used : s.n_ff));
  w.add(a + ".attention.head_count", u32(s.n_head));
  w.add(a + ".attention.head_count_kv", u32(s.n_head_kv));
  w.add(a + ".attention.key_length", u32(s.head_dim));
  w.add(a + ".attention.value_length", u32(s.head_dim));
  w.add(a + ".rope.dimension_count", u32(s.head_dim));
  w.add(a + ".rope.freq_base", Value::of(float(s.rope_freq_base)));
  w.add(a + ".attention.layer_norm_rms_epsilon", Value::of(s.rms_eps));
  if (moe) {
    w.add(a + ".expert_count", u32(s.n_expert));
    w.add(a + ".expert_used_count", u32(s.n_expert_used));
    if (!llama_moe) w.add(a + ".expert_feed_forward_length", u32(s.n_ff_exp));
  }

  w.add("tokenizer.ggml.model", Value::string(spm ? "llama" : "gpt2"));
  if (!spm) w.add("tokenizer.ggml.pre", Value::string("qwen2"));
  w.add("tokenizer.ggml.tokens", Value::string_array(v.tokens));
  if (spm) w.add("tokenizer.ggml.scores", Value::array(std::span<const float>(v.scores)));
  w.add("tokenizer.ggml.token_type", Value::array(std::span<const int32_t>(v.types)));
  if (!spm) w.add("tokenizer.ggml.merges", Value::string_array(v.merges));
  if (spm) {
    w.add("tokenizer.ggml.bos_token_id", u32(1));
    w.add("tokenizer.ggml.eos_token_id", u32(2));
    w.add("tokenizer.ggml.unknown_token_id", u32(0));
    w.add("tokenizer.ggml.add_bos_token", Value::of(true));
  } else {
    w.add("tokenizer.ggml.bos_token_id", u32(nv - 3));  // <|endoftext|>
    w.add("tokenizer.ggml.eos_token_id", u32(nv - 1));  // <|im_end|>
    w.add("tokenizer.ggml.padding_token_id", u32(nv - 3));
    w.add("tokenizer.ggml.add_bos_token", Value::of(false));
    // the ChatML turns its control tokens are for (as the Qwen models carry)
    w.add("tokenizer.chat_template",
          Value::string("{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + "
                        "'<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' "
                        "}}{% endif %}"));
  }

  Builder b(s);
  const uint64_t E = uint64_t(s.n_embd), Q = uint64_t(s.n_head * s.head_dim), KV = uint64_t(s.n_head_kv * s.head_dim),
                 V = uint64_t(nv);
  const TensorType embd_type = s.mixed ? TensorType::Q6_K : s.type;
  b.matrix(w, "token_embd.weight", {E, V}, 2.0, embd_type);
  auto blk = [](int64_t i, const char* n) { return "blk." + std::to_string(i) + "." + n; };
  for (int64_t i = 0; i < s.n_layer; ++i) {
    b.vector(w, blk(i, "attn_norm.weight"), E, 1.0, 0.1);
    b.matrix(w, blk(i, "attn_q.weight"), {E, Q});
    b.matrix(w, blk(i, "attn_k.weight"), {E, KV});
    b.matrix(w, blk(i, "attn_v.weight"), {E, KV});
    if (s.arch == Architecture::Qwen2) {
      b.vector(w, blk(i, "attn_q.bias"), Q, 0.0, 0.2);
      b.vector(w, blk(i, "attn_k.bias"), KV, 0.0, 0.2);
      b.vector(w, blk(i, "attn_v.bias"), KV, 0.0, 0.2);
    }
    if (s.arch == Architecture::Qwen3 || s.arch == Architecture::Qwen3Moe) {
      b.vector(w, blk(i, "attn_q_norm.weight"), uint64_t(s.head_dim), 1.0, 0.1);
      b.vector(w, blk(i, "attn_k_norm.weight"), uint64_t(s.head_dim), 1.0, 0.1);
    }
    b.matrix(w, blk(i, "attn_output.weight"), {Q, E});
    b.vector(w, blk(i, "ffn_norm.weight"), E, 1.0, 0.1);
    if (moe) {
      const uint64_t X = uint64_t(s.n_expert), F = uint64_t(s.n_ff_exp);
      b.matrix(w, blk(i, "ffn_gate_inp.weight"), {E, X}, 2.0, TensorType::F32);
      b.matrix(w, blk(i, "ffn_gate_exps.weight"), {E, F, X});
      b.matrix(w, blk(i, "ffn_up_exps.weight"), {E, F, X});
      b.matrix(w, blk(i, "ffn_down_exps.weight"), {F, E, X});
    } else {
      const uint64_t F = uint64_t(s.n_ff);
      b.matrix(w, blk(i, "ffn_gate.weight"), {E, F});
      b.matrix(w, blk(i, "ffn_up.weight"), {E, F});
      b.matrix(w, blk(i, "ffn_down.weight"), {F, E});
    }
  }
  b.vector(w, "output_norm.weight", E, 1.0, 0.1);
  if (!s.tied) b.matrix(w, "output.weight", {E, V}, 1.0, s.mixed ? TensorType::Q8_0 : s.type);
  w.write(path);
}

}  // namespace k100::model
