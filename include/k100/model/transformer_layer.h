// k100lc model: TransformerLayer (PYTHON_API.md 7.15), one decoder layer's
// decode step on f32 weights, fully on the device:
//
//   h = x
//   h += W_o FlashAttention(RoPE(q), RoPE(k), v)   [q|k|v] = W_qkv RMSNorm1(h)
//   h += W_down (silu(g) * u)                        [g|u]   = W_gate_up RMSNorm2(h)
//
// RoPE is rotate-half over head_dim (as RoPE in rope.h). Per token: the copy
// x -> h, RMSNorm, the QKV GEMV, one qkv_rope_append_k (RoPE of q and k, KV
// append), the flash attention part and combine, the output GEMV added to h,
// RMSNorm, the gate|up GEMV, and gemv_f32_gated_acc_k (h += W_down(silu(g) u)).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "k100/model/attention.h"
#include "k100/model/contract_kernel.h"
#include "k100/model/linear.h"
#include "k100/model/norm.h"
#include "k100/model/rope.h"

namespace k100::model {

class TransformerLayer {
 public:
  TransformerLayer(Device& dev, int64_t dim, int64_t n_heads, int64_t head_dim, int64_t ffn, int64_t max_len,
                   std::span<const float> w_qkv, std::span<const float> w_o, std::span<const float> w_gate_up,
                   std::span<const float> w_down, std::span<const float> w_norm1, std::span<const float> w_norm2,
                   float eps = 1e-6f, Workspace* ws = nullptr, std::string tag = "layer");
  ~TransformerLayer();
  int64_t length() const { return attn_->length(); }
  // One token's row x at position pos (consecutive from 0); returns h (the layer's buffer).
  uint64_t forward_device(uint64_t x, int64_t pos);
  std::vector<float> forward(std::span<const float> x, int64_t pos);
  void reset() { attn_->reset(); }

 private:
  Device& dev_;
  int64_t dim_, n_heads_, head_dim_, ffn_, max_len_;
  float eps_;
  WorkspaceRef ws_;
  std::string tag_;
  std::unique_ptr<RMSNorm> norm1_, norm2_;
  std::unique_ptr<F32Linear> qkv_, o_, gate_up_;
  uint64_t w_down_ = 0;
  std::unique_ptr<RoPE> rope_;
  std::unique_ptr<FlashAttention> attn_;
  ContractKernel rope_append_, gated_;
};

}  // namespace k100::model
