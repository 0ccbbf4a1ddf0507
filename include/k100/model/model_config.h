// k100lc model: the hyper-parameters of a decoder model, read from a GGUF
// file's metadata (`<arch>.*` keys, the names llama.cpp writes).
//
// Architectures: llama (and models stored as llama, such as Mistral's, and
// Mixtral's with <arch>.expert_count experts), qwen2 (attention biases),
// qwen3 (q/k RMSNorm per head), qwen3moe (experts), and the hybrids of Gated
// DeltaNet and gated attention layers: qwen35 (dense FFN), qwen35moe and
// qwen3next (experts and a shared expert). Anything else, a missing required
// key or a value out of range is a k100::Error naming the file and the key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "k100/quant/gguf_reader.h"

namespace k100::model {

enum class Architecture { Llama, Qwen2, Qwen3, Qwen3Moe, Qwen35, Qwen35Moe, Qwen3Next };

// How RoPE pairs dimensions: Norm rotates (2i, 2i+1) (llama), Neox rotates
// (i, i + n_rot/2) (qwen2, qwen3, qwen3moe), as llama.cpp's rope types.
enum class RopeType { Norm, Neox };

struct ModelConfig {
  Architecture arch = Architecture::Llama;
  std::string arch_name;      // general.architecture
  std::string name;           // general.name ("" when absent)
  int64_t n_vocab = 0;
  int64_t n_ctx_train = 0;    // <arch>.context_length
  int64_t n_embd = 0;
  int64_t n_layer = 0;
  int64_t n_ff = 0;           // dense FFN width (0 for a MoE model without dense FFN)
  int64_t n_head = 0;
  int64_t n_head_kv = 0;
  int64_t head_dim = 0;       // attention.key_length (= value_length)
  int64_t n_rot = 0;          // rope.dimension_count
  double rope_freq_base = 10000.0;
  double rope_freq_scale = 1.0;  // 1 / rope.scaling.factor for linear scaling
  RopeType rope_type = RopeType::Norm;
  float rms_eps = 1e-5f;
  int64_t n_expert = 0, n_expert_used = 0, n_ff_exp = 0;  // n_ff_exp: llama's experts are feed_forward_length wide
  bool expert_weights_norm = false;  // renormalise the selected experts' weights

  // Hybrid models (qwen35, qwen35moe, qwen3next). Layer i is Gated DeltaNet
  // ("recurrent") when recurrent[i], else gated attention.
  std::vector<bool> recurrent;
  int64_t ssm_conv = 0;      // ssm.conv_kernel: taps of the causal depthwise conv
  int64_t ssm_state = 0;     // ssm.state_size: key and value head size
  int64_t ssm_k_heads = 0;   // ssm.group_count
  int64_t ssm_v_heads = 0;   // ssm.time_step_rank
  // Value head h reads key head h mod ssm_k_heads (qwen35*: the converter
  // tiles the heads) or h / (ssm_v_heads / ssm_k_heads) (qwen3next: grouped).
  bool ssm_tiled_heads = false;
  int64_t n_ff_shexp = 0;    // the shared expert's width (qwen35moe, qwen3next)
  // qwen35*: interleaved multi-section RoPE (rope.dimension_sections); with
  // text positions (p, p, p, 0) pair i turns by p unless it falls in the
  // fourth section, where it turns by 0 (rope_pair_moves).
  bool rope_multi = false;
  int64_t rope_sections[4] = {0, 0, 0, 0};

  bool hybrid() const { return !recurrent.empty(); }
  int64_t ssm_k_dim() const { return ssm_k_heads * ssm_state; }
  int64_t ssm_v_dim() const { return ssm_v_heads * ssm_state; }
  int64_t ssm_conv_dim() const { return 2 * ssm_k_dim() + ssm_v_dim(); }  // q | k | v channels
  // Whether RoPE pair i (< n_rot / 2) turns with the position (false: by 0).
  bool rope_pair_moves(int64_t i) const;

  int64_t q_dim() const { return n_head * head_dim; }
  int64_t kv_dim() const { return n_head_kv * head_dim; }
  bool moe() const { return n_expert > 0; }
  // One line: "qwen3: 2 layers, embd 256, 4 heads (2 kv) of 64, ffn 512, vocab 512".
  std::string describe() const;

  static ModelConfig from_gguf(const quant::GgufFile& file);
};

const char* architecture_name(Architecture a);
// The architectures from_gguf accepts.
std::vector<std::string> supported_architectures();

}  // namespace k100::model
