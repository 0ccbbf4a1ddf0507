// config.json and generation_config.json of Hugging Face directories:
// the hyper-parameters as a ModelConfig, the llama3 RoPE factors, and every
// refusal naming the file and the key.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "k100/base/error.h"
#include "k100/model/hf_model.h"
#include "test_vocabularies.h"

namespace k100::model {
namespace {

const std::string kQwen3 = R"({"architectures":["Qwen3ForCausalLM"],"hidden_act":"silu","hidden_size":256,
  "num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":64,"intermediate_size":512,
  "vocab_size":512,"max_position_embeddings":1024,"rms_norm_eps":1e-6,"rope_theta":1000000.0,"rope_scaling":null,
  "tie_word_embeddings":true,"bos_token_id":5,"eos_token_id":[6,7],"sliding_window":null,"use_sliding_window":false})";

std::string write(const std::string& name, const std::string& text) {
  const std::string path = test::temp_path(name);
  std::ofstream(path) << text;
  return path;
}

std::string edited(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  if (at == std::string::npos) ADD_FAILURE() << from;
  else text.replace(at, from.size(), to);
  return text;
}

std::string error_of(const std::string& text) {
  try {
    read_hf_config(write("config.json", text));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(HfConfig, Qwen3HyperParameters) {
  const HfConfig h = read_hf_config(write("config.json", kQwen3));
  const ModelConfig& c = h.model;
  EXPECT_EQ(c.arch, Architecture::Qwen3);
  EXPECT_EQ(c.arch_name, "qwen3");
  EXPECT_EQ(c.rope_type, RopeType::Neox);
  EXPECT_EQ(c.n_embd, 256);
  EXPECT_EQ(c.n_layer, 2);
  EXPECT_EQ(c.n_head, 4);
  EXPECT_EQ(c.n_head_kv, 2);
  EXPECT_EQ(c.head_dim, 64);
  EXPECT_EQ(c.n_rot, 64);
  EXPECT_EQ(c.n_ff, 512);
  EXPECT_EQ(c.n_vocab, 512);
  EXPECT_EQ(c.n_ctx_train, 1024);
  EXPECT_FLOAT_EQ(c.rms_eps, 1e-6f);
  EXPECT_EQ(c.rope_freq_base, 1e6);
  EXPECT_TRUE(h.tie_word_embeddings);
  EXPECT_EQ(h.bos_token_id, 5);
  EXPECT_EQ(h.eos_token_ids, (std::vector<int64_t>{6, 7}));
}

TEST(HfConfig, LlamaPairsLikeHuggingFaceAndReadsLlama3Scaling) {
  std::string t = edited(kQwen3, "Qwen3ForCausalLM", "LlamaForCausalLM");
  t = edited(t, R"("rope_scaling":null)", R"("rope_scaling":{"rope_type":"llama3","factor":8.0,"low_freq_factor":1.0,
    "high_freq_factor":4.0,"original_max_position_embeddings":64})");
  t = edited(t, R"("rope_theta":1000000.0)", R"("rope_theta":10000.0)");
  const HfConfig h = read_hf_config(write("config.json", t));
  EXPECT_EQ(h.model.arch, Architecture::Llama);
  EXPECT_EQ(h.model.rope_type, RopeType::Neox);
  ASSERT_EQ(h.rope_freq_factors.size(), 32u);
  // short wavelengths keep their frequency, long ones are divided by the factor, a blend between
  EXPECT_EQ(h.rope_freq_factors.front(), 1.0f);
  EXPECT_EQ(h.rope_freq_factors.back(), 8.0f);
  for (size_t j = 1; j < 32; ++j) EXPECT_GE(h.rope_freq_factors[j], h.rope_freq_factors[j - 1]);
  // wavelength 2*pi*10000^(2j/64); the blend region lies between 16 and 64 positions
  for (size_t j = 0; j < 32; ++j) {
    const double wavelen = 2 * M_PI * std::pow(10000.0, double(2 * j) / 64.0);
    if (wavelen < 16) {
      EXPECT_EQ(h.rope_freq_factors[j], 1.0f) << j;
    } else if (wavelen > 64) {
      EXPECT_EQ(h.rope_freq_factors[j], 8.0f) << j;
    } else {
      const double smooth = (64 / wavelen - 1.0) / 3.0;
      EXPECT_NEAR(h.rope_freq_factors[j], 1.0 / ((1 - smooth) / 8.0 + smooth), 1e-5) << j;
    }
  }
}

TEST(HfConfig, ExpertsOfQwen3MoeAndMixtral) {
  std::string t = edited(kQwen3, "Qwen3ForCausalLM", "Qwen3MoeForCausalLM");
  t = edited(t, R"("intermediate_size":512)", R"("num_experts":8,"num_experts_per_tok":2,"moe_intermediate_size":128)");
  const HfConfig q = read_hf_config(write("config.json", t));
  EXPECT_EQ(q.model.n_expert, 8);
  EXPECT_EQ(q.model.n_expert_used, 2);
  EXPECT_EQ(q.model.n_ff_exp, 128);
  EXPECT_TRUE(q.model.expert_weights_norm);
  std::string m = edited(kQwen3, "Qwen3ForCausalLM", "MixtralForCausalLM");
  m = edited(m, R"("intermediate_size":512)", R"("intermediate_size":512,"num_local_experts":4,"num_experts_per_tok":2)");
  m = edited(m, R"("sliding_window":null,)", "");
  const HfConfig x = read_hf_config(write("config.json", m));
  EXPECT_EQ(x.model.arch, Architecture::Llama);
  EXPECT_EQ(x.model.n_expert, 4);
  EXPECT_EQ(x.model.n_ff_exp, 512);
}

TEST(HfConfig, QuantisationConfigIsRead) {
  // compressed-tensors INT4 and NVFP4: the scheme the loader runs the layers with (docs/SAFETENSORS.md)
  const HfConfig plain = read_hf_config(write("config.json", kQwen3));
  EXPECT_FALSE(plain.quantization.has_value());
  const HfConfig q = read_hf_config(write(
      "config.json", edited(kQwen3, R"("rope_scaling":null)",
                            R"("quantization_config":{"quant_method":"compressed-tensors","format":"nvfp4-pack-quantized",
                  "ignore":["lm_head"],
                  "config_groups":{"g":{"weights":{"num_bits":4,"type":"float","group_size":16,"strategy":"tensor_group"}}}})")));
  ASSERT_TRUE(q.quantization.has_value());
  EXPECT_EQ(q.quantization->scheme, quant::CompressedTensorsScheme::Nvfp4);
  EXPECT_EQ(q.quantization->ignore, std::vector<std::string>{"lm_head"});
}

TEST(HfConfig, RefusalsNameTheKey) {
  const auto expect = [](const std::string& text, std::vector<std::string> parts) {
    const std::string msg = error_of(text);
    ASSERT_FALSE(msg.empty()) << "accepted";
    EXPECT_NE(msg.find("config.json"), std::string::npos) << msg;
    for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << msg;
  };
  expect(edited(kQwen3, "Qwen3ForCausalLM", "PhiForCausalLM"), {"'architectures'", "PhiForCausalLM", "supported"});
  expect(edited(kQwen3, R"("hidden_act":"silu")", R"("hidden_act":"gelu")"), {"'hidden_act'", "gelu"});
  expect(edited(kQwen3, R"("use_sliding_window":false)", R"("use_sliding_window":true)"), {"'use_sliding_window'"});
  expect(edited(kQwen3, R"("rope_scaling":null)", R"("rope_scaling":{"rope_type":"yarn","factor":4.0})"),
         {"'rope_scaling.rope_type'", "yarn"});
  expect(edited(kQwen3, R"("num_key_value_heads":2)", R"("num_key_value_heads":3)"), {"'num_key_value_heads'"});
  expect(edited(kQwen3, R"("hidden_size":256,)", ""), {"'hidden_size'", "missing"});
  expect(edited(kQwen3, R"("vocab_size":512)", R"("vocab_size":"512")"), {"'vocab_size'", "expected an integer"});
  expect(edited(kQwen3, R"("rope_scaling":null)",
                R"("quantization_config":{"quant_method":"compressed-tensors","format":"nvfp4-pack-quantized",
                  "config_groups":{"g":{"weights":{"num_bits":4,"type":"float","group_size":8,"strategy":"tensor_group"}}}})"),
         {"'quantization_config.config_groups.g.weights.group_size'", "8"});
  expect(edited(kQwen3, R"("rope_scaling":null)", R"("quantization_config":{"quant_method":"awq","bits":4})"),
         {"'quantization_config.quant_method'", "awq"});
  expect("{", {"not valid JSON"});
}

TEST(HfConfig, GenerationConfig) {
  const HfGenerationConfig g = read_generation_config(
      write("generation_config.json", R"({"bos_token_id":1,"eos_token_id":[2,3],"temperature":0.6,"top_k":20})"));
  EXPECT_EQ(g.bos_token_id, 1);
  EXPECT_EQ(g.eos_token_ids, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(g.temperature, 0.6);
  EXPECT_EQ(g.top_k, 20);
  EXPECT_FALSE(g.top_p);
  EXPECT_EQ(read_generation_config(write("generation_config.json", R"({"eos_token_id":9})")).eos_token_ids,
            (std::vector<int64_t>{9}));
}

}  // namespace
}  // namespace k100::model
