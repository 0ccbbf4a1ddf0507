// k100lc model: small decoder models with random weights, written with the
// project's GGUF writer: what the tests, the demo and `k100-generate
// --write-random-model` run on when no real model is at hand.
//
// The file is a complete model of its architecture as llama.cpp reads it:
// the hyper-parameter keys, every tensor by its llama.cpp name and shape, and
// a vocabulary (SentencePiece for llama: <unk>, <s>, </s>, the 256 byte
// tokens and word pieces; GPT-2 byte-level BPE with merges and the qwen2
// pre-tokenizer for the qwen architectures, plus their control tokens and a
// ChatML tokenizer.chat_template).
// Weight matrices are quantised with the host codecs to the type asked for
// (or, for a mixed file, to a different block type per tensor); norms and
// biases stay f32.
#pragma once

#include <cstdint>
#include <string>

#include "k100/model/model_config.h"
#include "k100/quant/tensor_type.h"

namespace k100::model {

struct RandomModelSpec {
  Architecture arch = Architecture::Llama;
  int64_t n_layer = 2, n_embd = 256, n_head = 4, n_head_kv = 2, head_dim = 64, n_ff = 512, n_vocab = 512;
  int64_t n_ctx = 256;
  int64_t n_expert = 4, n_expert_used = 2, n_ff_exp = 256;  // qwen3moe, and llama with experts
  bool llama_experts = false;  // llama: Mixtral-style experts instead of the dense FFN ("mixtral")
  quant::TensorType type = quant::TensorType::F32;          // weight matrices and the embedding
  bool mixed = false;  // a different block type per tensor (q4_K, q8_0, q6_K, iq4_xs, q5_K, q4_0, ...)
  bool tied = false;   // no output.weight: the head reads the embedding
  uint64_t seed = 1;
  double rope_freq_base = 10000.0;
  float rms_eps = 1e-5f;
};

// Writes the model; k100::Error naming the path or the spec field that is
// inconsistent (heads that do not divide, rows the block type cannot hold).
void write_random_model(const std::string& path, const RandomModelSpec& spec);

// "f32", "q4_K", ... or "mixed"; inverse of parse below.
std::string random_model_type_name(const RandomModelSpec& spec);
// Fills arch / type / mixed from "llama", "qwen3moe", "q4_K", "mixed", ...
// ("mixtral": llama with experts); false for a name that is neither.
bool set_random_model_field(RandomModelSpec& spec, const std::string& value);

}  // namespace k100::model
