// The GGUF decoder model on the default device: random models of every
// architecture load and run (the logits are compared with llama.cpp and a
// float64 reference by tests/model/python); here: the same logits when the
// sequence is run again or enqueued without syncs in between, the progress
// callback, and the errors a bad file or bad input gives, each naming the
// key, tensor or value.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>

#include "k100/base/error.h"
#include "k100/model/decoder.h"
#include "k100/model/generator.h"
#include "k100/model/random_model.h"
#include "k100/quant/gguf_writer.h"
#include "k100/runtime/runtime.h"

namespace k100::model {
namespace {

namespace fs = std::filesystem;

Device& device() {
  static runtime::Runtime rt;
  static RuntimeDevice dev(rt);
  return dev;
}

fs::path temp_dir() {
  static const fs::path d = [] {
    fs::path p = fs::temp_directory_path() / ("k100_decoder_test_" + std::to_string(::getpid()));
    fs::create_directories(p);
    return p;
  }();
  return d;
}

std::string model_path(Architecture a, quant::TensorType t = quant::TensorType::F32) {
  const std::string p = (temp_dir() / (std::string(architecture_name(a)) + "_" + quant::type_name(t) + ".gguf")).string();
  if (!fs::exists(p)) {
    RandomModelSpec s;
    s.arch = a;
    s.type = t;
    s.n_ctx = 64;
    write_random_model(p, s);
  }
  return p;
}

// A copy of `src` with its metadata and tensors passed through `edit_kv` and `edit_tensor`
// (return false to drop an entry).
std::string rewrite(const std::string& src, const std::string& name,
                    const std::function<bool(std::string&, quant::Value&)>& edit_kv,
                    const std::function<bool(std::string&, std::vector<uint64_t>&, std::vector<uint8_t>&)>& edit_tensor) {
  const quant::GgufFile f = quant::GgufFile::open(src);
  quant::GgufWriter w;
  for (const auto& kv : f.metadata()) {
    std::string key = kv.key;
    quant::Value v = kv.value;
    if (edit_kv(key, v)) w.add(key, v);
  }
  for (const auto& t : f.tensors()) {
    std::string n = t.name;
    std::vector<uint64_t> dims = t.dims;
    const auto view = f.tensor(t);
    std::vector<uint8_t> bytes(view.bytes.begin(), view.bytes.end());
    if (edit_tensor(n, dims, bytes)) w.add_tensor(n, t.type, dims, bytes);
  }
  const std::string out = (temp_dir() / name).string();
  w.write(out);
  return out;
}

auto keep_kv = [](std::string&, quant::Value&) { return true; };
auto keep_tensor = [](std::string&, std::vector<uint64_t>&, std::vector<uint8_t>&) { return true; };

std::string load_error(const std::string& path, LoadOptions o = {}) {
  try {
    const quant::GgufFile f = quant::GgufFile::open(path);
    DecoderModel m(device(), f, o);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A copy of `src` with one more f32 tensor of `dims`.
std::string with_tensor(const std::string& src, const std::string& file, const std::string& name,
                        std::vector<uint64_t> dims) {
  const std::string out = (temp_dir() / file).string();
  const quant::GgufFile f = quant::GgufFile::open(src);
  quant::GgufWriter w;
  for (const auto& kv : f.metadata()) w.add(kv.key, kv.value);
  for (const auto& t : f.tensors()) {
    const auto v = f.tensor(t);
    w.add_tensor(t.name, t.type, t.dims, std::vector<uint8_t>(v.bytes.begin(), v.bytes.end()));
  }
  uint64_t n = 4;
  for (uint64_t d : dims) n *= d;
  w.add_tensor(name, quant::TensorType::F32, dims, std::vector<uint8_t>(n, 0));
  w.write(out);
  return out;
}

std::vector<float> logits_after(const std::string& path, const std::vector<int32_t>& seq, LoadOptions o = {}) {
  o.context = 16;
  const quant::GgufFile f = quant::GgufFile::open(path);
  DecoderModel m(device(), f, o);
  for (size_t i = 0; i < seq.size(); ++i) m.forward(seq[i], int64_t(i));
  return m.logits();
}

TEST(Decoder, EveryArchitectureRunsAndRepeats) {
  for (Architecture a : {Architecture::Llama, Architecture::Qwen2, Architecture::Qwen3, Architecture::Qwen3Moe}) {
    const quant::GgufFile f = quant::GgufFile::open(model_path(a));
    uint64_t last = 0, total = 0;
    LoadOptions o;
    o.context = 16;
    o.progress = [&](uint64_t done, uint64_t all) {
      EXPECT_GE(done, last);
      last = done;
      total = all;
    };
    DecoderModel m(device(), f, o);
    EXPECT_EQ(last, total) << architecture_name(a);
    EXPECT_GT(total, 0u);
    const std::vector<int32_t> seq = {3, 300, 301, 302, 7};
    // each position synced
    std::vector<std::vector<float>> synced;
    for (size_t i = 0; i < seq.size(); ++i) {
      m.forward(seq[i], int64_t(i));
      synced.push_back(m.logits());
    }
    // the same sequence enqueued without syncs: the last logits are the same
    for (size_t i = 0; i < seq.size(); ++i) m.forward(seq[i], int64_t(i));
    EXPECT_EQ(m.logits(), synced.back()) << architecture_name(a);
    for (float v : synced.back()) ASSERT_TRUE(std::isfinite(v));
    EXPECT_NE(synced[0], synced[1]);
  }
}

// The f16 KV cache (LoadOptions::kv_f16) where the one-launch attention has it
// (head sizes 64, 128 and 256): the logits follow the f32 cache's within what
// rounding K and V to f16 (2^-11 relative) moves them, past the first 64-row
// tile; head size 32 (the two-launch attention) keeps the f32 cache.
TEST(Decoder, F16KvCacheFollowsF32) {
  LoadOptions o32;
  o32.context = 80;
  LoadOptions o16 = o32;
  o16.kv_f16 = true;
  // the largest logit difference of the two caches, of the largest logit, every 24 steps
  auto worst_difference = [&](const std::string& path, int64_t steps) {
    const quant::GgufFile f = quant::GgufFile::open(path);
    DecoderModel a(device(), f, o32), b(device(), f, o16);
    EXPECT_EQ(a.kv_element_bytes(), 4);
    EXPECT_EQ(b.kv_element_bytes(), 2);
    double worst = 0;
    for (int64_t i = 0; i < steps; ++i) {
      const int32_t t = int32_t((i * 37 + 11) % 512);
      a.forward(t, i);
      b.forward(t, i);
      if (i % 24 != 23) continue;
      const std::vector<float> la = a.logits(), lb = b.logits();
      float top = 0;
      for (float v : la) top = std::max(top, std::fabs(v));
      for (size_t k = 0; k < la.size(); ++k) worst = std::max(worst, double(std::fabs(la[k] - lb[k])) / double(top));
    }
    return worst;
  };
  RandomModelSpec s;
  s.n_head = 2;
  s.n_head_kv = 1;
  s.head_dim = 128;  // the one-launch attention with the RoPE/append step
  const std::string p = (temp_dir() / "llama_head128.gguf").string();
  write_random_model(p, s);
  double worst = worst_difference(p, 72);
  EXPECT_LT(worst, 2e-3);
  EXPECT_GT(worst, 0.0);  // the caches did differ
  s.head_dim = 256;  // qkv_rope_append_k into the blocked f16 caches, then flash_dec_gqa_f16_k
  const std::string p256 = (temp_dir() / "llama_head256.gguf").string();
  write_random_model(p256, s);
  worst = worst_difference(p256, 48);
  EXPECT_LT(worst, 2e-3);
  EXPECT_GT(worst, 0.0);
  DecoderModel c(device(), quant::GgufFile::open(model_path(Architecture::Llama)), o16);
  EXPECT_EQ(c.kv_element_bytes(), 2);  // heads of 64
  const std::string p32 = (temp_dir() / "llama_head32.gguf").string();
  s.head_dim = 32;
  write_random_model(p32, s);
  DecoderModel d(device(), quant::GgufFile::open(p32), o16);
  EXPECT_EQ(d.kv_element_bytes(), 4);
}

TEST(Decoder, GeneratorCountsTokensAndLaunches) {
  const quant::GgufFile f = quant::GgufFile::open(model_path(Architecture::Qwen3));
  ProfilingDevice prof(device());
  DecoderModel m(prof, f, LoadOptions{.context = 16, .progress = {}});
  Generator g(m, &prof);
  GenerationCallbacks cb;
  cb.choose = [](std::span<const float> l) { return int32_t(std::max_element(l.begin(), l.end()) - l.begin()); };
  int seen = 0;
  cb.on_token = [&](int32_t) { return ++seen < 4; };
  const auto ids = g.run(std::vector<int32_t>{300, 301}, 8, cb);
  EXPECT_EQ(ids.size(), 4u);  // on_token stopped it
  EXPECT_EQ(g.stats().generated, 4);
  EXPECT_EQ(g.stats().decode_passes, 3);
  // per layer: norm, QKV, attention with its rope+append (one launch), output, norm, gate|up, gated down;
  // plus the embedding, the final norm and the head
  EXPECT_EQ(g.stats().launches_per_token, uint64_t(2 * 7 + 3));
  uint64_t launches = 0;
  for (const auto& fam : g.stats().families) launches += fam.launches;
  EXPECT_EQ(launches, 3 * g.stats().launches_per_token);
}

TEST(Decoder, InputErrorsNameTheValue) {
  const quant::GgufFile f = quant::GgufFile::open(model_path(Architecture::Llama));
  DecoderModel m(device(), f, LoadOptions{.context = 4, .progress = {}});
  EXPECT_THROW(m.forward(-1, 0), Error);
  EXPECT_THROW(m.forward(int32_t(m.config().n_vocab), 0), Error);
  m.forward(5, 0);
  EXPECT_THROW(m.forward(5, 2), Error);  // skips position 1
  m.forward(5, 1);
  m.forward(5, 2);
  m.forward(5, 3);
  try {
    m.forward(5, 4);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("context of 4"), std::string::npos) << e.what();
  }
}

TEST(Decoder, FileErrorsNameKeyOrTensor) {
  const std::string src = model_path(Architecture::Qwen3);
  const std::string arch = rewrite(src, "arch.gguf", [](std::string& k, quant::Value& v) {
    if (k == "general.architecture") v = quant::Value::string("gpt-neox");
    return true;
  }, keep_tensor);
  EXPECT_NE(load_error(arch).find("architecture 'gpt-neox'"), std::string::npos) << load_error(arch);

  const std::string key = rewrite(src, "key.gguf", [](std::string& k, quant::Value&) {
    return k != "qwen3.attention.layer_norm_rms_epsilon";
  }, keep_tensor);
  EXPECT_NE(load_error(key).find("'qwen3.attention.layer_norm_rms_epsilon' is missing"), std::string::npos)
      << load_error(key);

  const std::string missing = rewrite(src, "missing.gguf", keep_kv,
                                      [](std::string& n, std::vector<uint64_t>&, std::vector<uint8_t>&) {
                                        return n != "blk.1.attn_k_norm.weight";
                                      });
  EXPECT_NE(load_error(missing).find("tensor 'blk.1.attn_k_norm.weight'"), std::string::npos) << load_error(missing);
  EXPECT_NE(load_error(missing).find("is missing"), std::string::npos);

  const std::string shape = rewrite(src, "shape.gguf", keep_kv,
                                    [](std::string& n, std::vector<uint64_t>& d, std::vector<uint8_t>& b) {
                                      if (n == "blk.0.ffn_up.weight") {
                                        d[1] /= 2;
                                        b.resize(b.size() / 2);
                                      }
                                      return true;
                                    });
  const std::string e = load_error(shape);
  EXPECT_NE(e.find("tensor 'blk.0.ffn_up.weight' has shape 256 x 256, expected 256 x 512"), std::string::npos) << e;

  const std::string heads = rewrite(src, "heads.gguf", [](std::string& k, quant::Value& v) {
    if (k == "qwen3.attention.head_count_kv") v = quant::Value::of(uint32_t(3));
    return true;
  }, keep_tensor);
  EXPECT_NE(load_error(heads).find("'qwen3.attention.head_count_kv'"), std::string::npos) << load_error(heads);
}

// Every tensor of the file is used or refused: one the architecture does
// not have stops the load with its name; allowed, it is skipped and listed,
// and the model runs as the file without it.
TEST(Decoder, UnusedTensorsAreRefusedByNameOrSkipped) {
  const std::string src = model_path(Architecture::Llama);
  const std::string extra = with_tensor(src, "extra.gguf", "blk.1.attn_gate.weight", {256, 256});
  const std::string e = load_error(extra);
  EXPECT_NE(e.find("1 tensor is not used by a llama model"), std::string::npos) << e;
  EXPECT_NE(e.find("'blk.1.attn_gate.weight'"), std::string::npos) << e;
  EXPECT_NE(e.find("--allow-unused"), std::string::npos) << e;

  LoadOptions allow;
  allow.allow_unused = true;
  {
    const quant::GgufFile f = quant::GgufFile::open(extra);
    DecoderModel m(device(), f, allow);
    EXPECT_EQ(m.skipped_tensors(), std::vector<std::string>{"blk.1.attn_gate.weight"});
  }
  const std::vector<int32_t> seq = {1, 300, 301};
  EXPECT_EQ(logits_after(extra, seq, allow), logits_after(src, seq));

  // an optional tensor of another architecture (llama's attention output bias in a qwen2 file)
  const std::string bias = with_tensor(model_path(Architecture::Qwen2), "qwen2_out_bias.gguf",
                                       "blk.0.attn_output.bias", {256});
  EXPECT_NE(load_error(bias).find("'blk.0.attn_output.bias'"), std::string::npos) << load_error(bias);
  // a fused Q|K|V beside the separate ones: the separate ones are not used
  const std::string both = with_tensor(model_path(Architecture::Qwen3), "qwen3_both_qkv.gguf", "blk.0.attn_qkv.weight",
                                       {256, 256 + 2 * 128});
  const std::string b = load_error(both);
  EXPECT_NE(b.find("3 tensors are not used"), std::string::npos) << b;
  EXPECT_NE(b.find("'blk.0.attn_q.weight', 'blk.0.attn_k.weight', 'blk.0.attn_v.weight'"), std::string::npos) << b;
  // a per-tensor scale (NVFP4 files) says why
  const std::string scale = with_tensor(src, "scale.gguf", "blk.0.attn_q.scale", {1});
  EXPECT_NE(load_error(scale).find("'blk.0.attn_q.scale' (a per-tensor scale"), std::string::npos) << load_error(scale);
}

// Mixtral-style experts in a llama file run on the routed path (no longer a
// missing dense FFN tensor); llama.cpp and the float64 pass check the values
// (tests/model/python/test_model_tensors.py).
TEST(Decoder, LlamaWithExpertsRuns) {
  const std::string p = (temp_dir() / "mixtral.gguf").string();
  RandomModelSpec s;
  ASSERT_TRUE(set_random_model_field(s, "mixtral"));
  write_random_model(p, s);
  const quant::GgufFile f = quant::GgufFile::open(p);
  DecoderModel m(device(), f, LoadOptions{.context = 8, .progress = {}});
  EXPECT_EQ(m.config().n_expert, 4);
  EXPECT_EQ(m.config().n_ff_exp, 256);
  const std::vector<int32_t> seq = {1, 300, 301};
  for (size_t i = 0; i < seq.size(); ++i) m.forward(seq[i], int64_t(i));
  for (float v : m.logits()) ASSERT_TRUE(std::isfinite(v));
  // past the routing kernel's limit: an error naming it (before any tensor is read)
  const std::string many = rewrite(p, "mixtral_300.gguf", [](std::string& k, quant::Value& v) {
    if (k == "llama.expert_count") v = quant::Value::of(uint32_t(300));
    return true;
  }, keep_tensor);
  EXPECT_NE(load_error(many).find("300 experts, 2 used per token; routing handles at most 256 experts and 64 used"),
            std::string::npos)
      << load_error(many);
}

// Head sizes: every multiple of 32 up to 256 runs (values: the Python oracle
// test); others are refused naming the limit.
TEST(Decoder, HeadSizesNameTheLimit) {
  for (int64_t hd : {32, 96, 160, 224}) {
    const std::string p = (temp_dir() / ("head" + std::to_string(hd) + ".gguf")).string();
    RandomModelSpec s;
    s.head_dim = hd;
    s.n_head = hd == 32 ? 16 : 4;
    s.n_head_kv = hd == 32 ? 1 : 2;
    write_random_model(p, s);
    const std::vector<float> l = logits_after(p, {1, 300, 301});
    for (float v : l) ASSERT_TRUE(std::isfinite(v)) << hd;
  }
  for (int64_t hd : {48, 288}) {
    const std::string p = (temp_dir() / ("head" + std::to_string(hd) + ".gguf")).string();
    RandomModelSpec s;
    s.head_dim = hd;
    write_random_model(p, s);
    EXPECT_NE(load_error(p).find("head size " + std::to_string(hd) + " is not supported (attention takes multiples "
                                 "of 32 up to 256)"),
              std::string::npos)
        << load_error(p);
  }
}

}  // namespace
}  // namespace k100::model
