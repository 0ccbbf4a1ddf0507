// k100lc model: decode attention over f32 KV caches (one query row).
//
// Attention (PYTHON_API.md 7.11): one head, caches K [max_len][dim] and
// V^T [dim][max_len]; scores by GEMV, softmax (block-split for long rows),
// V^T P by split-K GEMV, from the verified catalog kernels.
//
// FlashAttention (7.12): n_heads heads in two launches (split part, then
// combine), caches Kt [kv_heads dh][max_len] (K transposed) and V
// [max_len][kv_heads dh]. With n_kv_heads < n_heads (grouped-query
// attention) query head h reads KV head h / (n_heads / n_kv_heads) through
// flash_dec_gqa_part_k; otherwise flash_dec_part_k.
#pragma once

#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "k100/model/contract_kernel.h"
#include "k100/model/device.h"
#include "k100/model/workspace.h"

namespace k100::model {

inline constexpr int64_t kSplitSoftmaxMinPad = 2048;

class Attention {
 public:
  Attention(Device& dev, int64_t dim, int64_t max_len, Workspace* ws = nullptr, std::string tag = "attn",
            int64_t n_split = 128);
  int64_t dim() const { return dim_; }
  int64_t length() const { return length_; }
  uint64_t k() const { return k_; }
  uint64_t vt() const { return vt_; }
  // K rows by device copy, V transposed on the device (vt_scatter_k) or, when
  // dim / 64 is not a power of two, through the host.
  void append_device(uint64_t k, uint64_t v, int64_t rows);
  void append(std::span<const float> k, std::span<const float> v);
  // softmax(K q / sqrt(dim)) V over the first n_kv rows (0: the cached length).
  uint64_t forward_device(uint64_t q, int64_t n_kv = 0, uint64_t out = 0);
  std::vector<float> forward(std::span<const float> q, int64_t n_kv = 0);
  void reset() { length_ = 0; }

 private:
  Device& dev_;
  int64_t dim_, max_len_, n_split_;
  WorkspaceRef ws_;
  std::string tag_;
  uint64_t k_ = 0, vt_ = 0;
  int64_t length_ = 0;
};

class FlashAttention {
 public:
  FlashAttention(Device& dev, int64_t n_heads, int64_t head_dim, int64_t max_len, Workspace* ws = nullptr,
                 std::string tag = "fmha", int64_t n_kv_heads = 0);
  int64_t dim() const { return n_heads_ * head_dim_; }
  int64_t kv_dim() const { return n_kv_heads_ * head_dim_; }
  int64_t length() const { return length_; }
  uint64_t kt() const { return kt_; }
  uint64_t v() const { return v_; }
  // (pad, nsplit, R) of the split part kernel for n_kv rows.
  std::tuple<int64_t, int64_t, int64_t> plan(int64_t n_kv = 0) const;
  // rows rows of k and v ([rows][kv_dim]) into the caches, on the device.
  void append_device(uint64_t k, uint64_t v, int64_t rows);
  void append(std::span<const float> k, std::span<const float> v);
  // Marks `rows` more rows as cached (filled by another kernel, e.g. qkv_rope_append_k).
  void advance(int64_t rows);
  uint64_t forward_device(uint64_t q, int64_t n_kv = 0, uint64_t out = 0);
  std::vector<float> forward(std::span<const float> q, int64_t n_kv = 0);
  void reset() { length_ = 0; }

 private:
  Device& dev_;
  int64_t n_heads_, head_dim_, max_len_, n_kv_heads_;
  WorkspaceRef ws_;
  std::string tag_;
  uint64_t kt_ = 0, v_ = 0, po_ = 0, pm_ = 0, pl_ = 0;
  int64_t length_ = 0;
  ContractKernel part_, comb_;
};

}  // namespace k100::model
