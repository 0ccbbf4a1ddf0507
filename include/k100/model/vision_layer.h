// k100lc model: one encoder layer of a Qwen3-VL / Qwen3.5-style vision tower
// (a pre-norm ViT block with 2D rotary attention) on the device:
//
//   h   = LayerNorm1(x)
//   qkv = h W_qkv^T + b_qkv            (fused [3][heads][head_dim] per token)
//   q,k = RoPE2D(q, k)                 (rotate-half pairs, caller's cos/sin tables)
//   a   = softmax(q k^T / sqrt(head_dim)) v   per head, over all tokens (no mask)
//   x1  = x + a W_proj^T + b_proj
//   x2  = x1 + fc2(GELU(fc1(LayerNorm2(x1))))   (fc1, fc2 with bias)
//
// Every step is one launch of a vision kernel (vit_ln_kernel,
// vit_linear_f16_kernel, vit_bias_kernel, vit_rope_kernel, vit_attn_kernel,
// vit_gelu_kernel) or of add_inplace_k (the residuals), each planned by its
// launch contract. Weights are f16 (the linear layers) and f32 (norms,
// biases), in the Hugging Face layouts ([out][in] matrices). What a whole
// tower adds (the patch embedding, learned position embeddings, the patch
// merger, deepstack feature taps) is not part of this layer (docs/MODEL.md,
// "Vision encoder layer").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "k100/model/contract_kernel.h"
#include "k100/model/device.h"
#include "k100/model/workspace.h"

namespace k100::model {

struct VisionLayerConfig {
  int64_t hidden = 0;        // hidden_size
  int64_t heads = 0;         // num_heads (head_dim = hidden / heads, even, <= 72)
  int64_t intermediate = 0;  // intermediate_size
  float eps = 1e-6f;         // LayerNorm epsilon
  bool gelu_exact = false;   // hidden_act: "gelu" (erf) when true, "gelu_pytorch_tanh" when false
  int64_t head_dim() const { return heads > 0 ? hidden / heads : 0; }
};

// Host weights of one layer. f16 matrices as raw bits.
struct VisionLayerWeights {
  std::vector<float> norm1_w, norm1_b;  // [hidden]
  std::vector<uint16_t> qkv_w;          // [3*hidden][hidden]
  std::vector<float> qkv_b;             // [3*hidden]
  std::vector<uint16_t> proj_w;         // [hidden][hidden]
  std::vector<float> proj_b;            // [hidden]
  std::vector<float> norm2_w, norm2_b;  // [hidden]
  std::vector<uint16_t> fc1_w;          // [intermediate][hidden]
  std::vector<float> fc1_b;             // [intermediate]
  std::vector<uint16_t> fc2_w;          // [hidden][intermediate]
  std::vector<float> fc2_b;             // [hidden]
};

// The 2D rotary tables of the Qwen2.5-VL / Qwen3-VL vision towers for tokens
// at patch positions (hpos[r], wpos[r]): with half = head_dim / 2, quarter =
// half / 2 and inv_freq[i] = theta^(-2i / half), the angles of token r are
// a[j] = hpos[r] inv_freq[j] (j < quarter) and wpos[r] inv_freq[j - quarter]
// (quarter <= j < half); cos[r][d] = cos(a[d mod half]), sin likewise, for
// d < head_dim. head_dim must be a multiple of 4.
void vision_rope_tables(std::span<const int32_t> hpos, std::span<const int32_t> wpos,
                        int64_t head_dim, std::vector<float>& cos, std::vector<float>& sin,
                        double theta = 10000.0);

class VisionLayer {
 public:
  // Checks every shape (errors name the tensor and the tag) and uploads the weights.
  VisionLayer(Device& dev, VisionLayerConfig config, const VisionLayerWeights& weights,
              Workspace* ws = nullptr, std::string tag = "vision");
  ~VisionLayer();
  VisionLayer(const VisionLayer&) = delete;
  VisionLayer& operator=(const VisionLayer&) = delete;

  const VisionLayerConfig& config() const { return cfg_; }
  // x [tokens][hidden], cos/sin [tokens][head_dim] on the device; x is not
  // changed. Returns the layer's output [tokens][hidden] (a workspace buffer
  // of this layer, "<tag>.out"). Enqueues only.
  uint64_t forward_device(uint64_t x, uint64_t cos, uint64_t sin, int64_t tokens);
  // Host in and out (uploads, forward_device, download).
  std::vector<float> forward(std::span<const float> x, std::span<const float> cos,
                             std::span<const float> sin, int64_t tokens);

 private:
  uint64_t linear(uint64_t w, uint64_t b, uint64_t x, int64_t tokens, int64_t n, int64_t k,
                  const char* out);
  Device& dev_;
  VisionLayerConfig cfg_;
  WorkspaceRef ws_;
  std::string tag_;
  ContractKernel ln_, linear_, bias_, rope_, attn_, gelu_, add_;
  uint64_t norm1_w_ = 0, norm1_b_ = 0, qkv_w_ = 0, qkv_b_ = 0, proj_w_ = 0, proj_b_ = 0,
           norm2_w_ = 0, norm2_b_ = 0, fc1_w_ = 0, fc1_b_ = 0, fc2_w_ = 0, fc2_b_ = 0;
};

}  // namespace k100::model
