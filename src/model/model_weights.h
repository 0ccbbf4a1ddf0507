// The weights of a decoder model on the device, and how they are read from a
// GGUF file: every tensor by its llama.cpp name, checked against the shape
// the hyper-parameters imply, uploaded in its stored type (norm weights and
// biases widened to f32), with a progress callback over the bytes.
//
// Every tensor of the file is accounted for: the architecture's table of
// required and optional tensors (the ones llama.cpp's loader creates for it)
// is matched against the file before anything is uploaded, and a tensor the
// table does not use stops the load with its name, unless the caller allows
// unused tensors (then they are skipped and listed).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "k100/model/device.h"
#include "k100/model/linear.h"
#include "k100/model/model_config.h"
#include "k100/model/tensor_source.h"
#include "k100/model/w4_weight.h"
#include "k100/model/workspace.h"
#include "k100/quant/gguf_reader.h"

namespace k100::model {

// A projection whose rows may come from several tensors: one Linear when
// they share a type (one buffer, one GEMV), else one per tensor writing at
// its row offset of the output.
struct Projection {
  struct Part {
    std::unique_ptr<Linear> linear;
    int64_t row_offset = 0;
  };
  std::vector<Part> parts;
  int64_t n = 0, k = 0;
  // y[0..n) = W x (+ y when accumulate): one row.
  void forward(uint64_t x, uint64_t y, bool accumulate = false) const;
};

struct LayerWeights {
  // ffn_norm: the norm before the FFN (hybrids: post_attention_norm)
  uint64_t attn_norm = 0, ffn_norm = 0;  // f32 [n_embd]
  uint64_t qkv_bias = 0;                 // f32 [q + 2 kv] or 0
  uint64_t out_bias = 0;                 // f32 [n_embd] or 0 (llama: attn_output.bias)
  uint64_t gate_up_bias = 0;             // f32 [2 ff] or 0 (llama: ffn_gate.bias | ffn_up.bias, zeros where absent)
  uint64_t down_bias = 0;                // f32 [n_embd] or 0 (llama: ffn_down.bias)
  uint64_t q_norm = 0, k_norm = 0;       // f32 [head_dim] or 0
  // [q + 2 kv][embd], [embd][q]; hybrid attention layers: qkv rows [q | k | v | gate] (the query and gate
  // rows of attn_q's heads parted at load); Gated DeltaNet layers: qkv rows [q | k | v | z] of the
  // in-projection (conv_dim + v_dim; then b and a, n_v rows each, with WeightOptions::gdn_ab_rows), out the
  // ssm_out projection [embd][v_dim]
  Projection qkv, out;
  Projection gate_up, down;              // dense: [2 ff][embd], [embd][ff]
  std::unique_ptr<Linear> router;        // MoE: [n_expert][embd]
  std::unique_ptr<Linear> gate_exps, up_exps, down_exps;  // groups = n_expert
  // the shared expert (qwen35moe, qwen3next): its gate's weight row [1][embd], gate|up and down
  Projection shexp_inp, shexp_gate_up, shexp_down;

  // Gated DeltaNet (ModelConfig::recurrent): f32 copies of the small tensors
  bool recurrent = false;
  uint64_t conv_w = 0;               // [conv_dim][d_conv], tap d_conv - 1 the current token
  // [n_v][embd] (qwen3next: parted from ssm_ba), or 0 when qkv holds them (WeightOptions::gdn_ab_rows)
  uint64_t ssm_alpha = 0, ssm_beta = 0;
  uint64_t ssm_dt = 0, ssm_a = 0, ssm_alog = 0;  // [n_v]: dt bias, ssm_a (-exp(A_log)), log(-ssm_a)
  uint64_t ssm_norm = 0;                 // [d_state]
};

struct ModelWeights {
  quant::TensorType embd_type = quant::TensorType::F32;
  uint64_t token_embd = 0;     // [n_vocab][n_embd] stored bytes
  uint64_t embd_row_bytes = 0;
  uint64_t output_norm = 0;    // f32 [n_embd]
  Projection output;           // [n_vocab][n_embd] (the token embedding when tied)
  uint64_t output_bias = 0;    // f32 [n_vocab] or 0 (qwen2: output.bias)
  bool tied = false;
  std::vector<float> rope_freq_factors;  // rope_freqs.weight, or empty
  std::vector<LayerWeights> layers;
  std::vector<std::pair<std::string, quant::TensorType>> types;
  std::vector<std::string> skipped;  // tensors of the file the architecture does not use (allow_unused)
  W4Activations w4_act = W4Activations::Default;  // the path the 4-bit layers run (Default: none has 4 bits)
  uint64_t bytes = 0;

  // Owns every device buffer above.
  std::vector<uint64_t> buffers;
  Device* dev = nullptr;
  ~ModelWeights();
};

struct WeightOptions {
  // Dense block-type weights repacked for the fast GEMVs (GemvLinear), else
  // in the GGUF layout (DotLinear).
  bool fast_gemv = true;
  // Tensors the architecture does not use are skipped (ModelWeights::skipped)
  // instead of stopping the load.
  bool allow_unused = false;
  // The activation path of 4-bit weights (TensorSource::w4; W4Linear).
  W4Activations w4_act = W4Activations::Default;
  // Gated DeltaNet layers: the b and a rows (ssm_beta, ssm_alpha / ssm_ba)
  // after q|k|v|z in the in-projection, for the one-launch decode step
  // (gdn_decode_k takes the raw projections), instead of f32 copies for
  // ssm_ab_gate_k.
  bool gdn_ab_rows = false;
};

// Reads and uploads every tensor of `cfg`'s architecture; `ws` holds the
// constant tables the block kernels share. k100::Error naming the tensor for
// a missing required tensor, a wrong shape, or (without allow_unused) a
// tensor of the source the architecture does not use.
std::unique_ptr<ModelWeights> load_weights(Device& dev, Workspace& ws, const TensorSource& source,
                                           const ModelConfig& cfg,
                                           const std::function<void(uint64_t, uint64_t)>& progress,
                                           const WeightOptions& options = {});

}  // namespace k100::model
