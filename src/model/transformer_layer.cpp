#include "k100/model/transformer_layer.h"

#include "k100/base/error.h"

namespace k100::model {

namespace {
bool power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
}  // namespace

TransformerLayer::TransformerLayer(Device& dev, int64_t dim, int64_t n_heads, int64_t head_dim, int64_t ffn,
                                   int64_t max_len, std::span<const float> w_qkv, std::span<const float> w_o,
                                   std::span<const float> w_gate_up, std::span<const float> w_down,
                                   std::span<const float> w_norm1, std::span<const float> w_norm2, float eps,
                                   Workspace* ws, std::string tag)
    : dev_(dev), dim_(dim), n_heads_(n_heads), head_dim_(head_dim), ffn_(ffn), max_len_(max_len), eps_(eps),
      ws_(dev, ws), tag_(std::move(tag)) {
  if (head_dim % 64 || head_dim > 128 || !power_of_two(n_heads) || dim != n_heads * head_dim)
    throw Error(tag_ + ": TransformerLayer needs head_dim % 64 == 0 and <= 128, n_heads a power of two and dim == "
                       "n_heads * head_dim (got dim " + std::to_string(dim) + ", " + std::to_string(n_heads) +
                " heads of " + std::to_string(head_dim) + ")");
  auto need = [&](std::span<const float> w, int64_t n, const char* what) {
    if (int64_t(w.size()) != n)
      throw Error(tag_ + ": " + what + " has " + std::to_string(w.size()) + " values, expected " + std::to_string(n));
  };
  need(w_qkv, 3 * dim * dim, "w_qkv [3 dim][dim]");
  need(w_o, dim * dim, "w_o [dim][dim]");
  need(w_gate_up, 2 * ffn * dim, "w_gate_up [2 ffn][dim]");
  need(w_down, dim * ffn, "w_down [dim][ffn]");
  need(w_norm1, dim, "w_norm1 [dim]");
  need(w_norm2, dim, "w_norm2 [dim]");
  Workspace& w = *ws_;
  norm1_ = std::make_unique<RMSNorm>(dev, dim, w_norm1, eps, &w, tag_ + ".norm1");
  norm2_ = std::make_unique<RMSNorm>(dev, dim, w_norm2, eps, &w, tag_ + ".norm2");
  qkv_ = std::make_unique<F32Linear>(dev, 3 * dim, dim, w_qkv, &w, tag_ + ".qkv");
  o_ = std::make_unique<F32Linear>(dev, dim, dim, w_o, &w, tag_ + ".o");
  gate_up_ = std::make_unique<F32Linear>(dev, 2 * ffn, dim, w_gate_up, &w, tag_ + ".gate_up");
  w_down_ = w.upload(tag_ + ".w_down", w_down.data(), w_down.size_bytes());
  rope_ = std::make_unique<RoPE>(dev, head_dim, max_len, 10000.0, &w, tag_ + ".rope");
  attn_ = std::make_unique<FlashAttention>(dev, n_heads, head_dim, max_len, &w, tag_ + ".attn");
  rope_append_ = ContractKernel(dev, "qkv_rope_append_k", tag_);
  gated_ = ContractKernel(dev, "gemv_f32_gated_acc_k", tag_);
}

TransformerLayer::~TransformerLayer() = default;

uint64_t TransformerLayer::forward_device(uint64_t x, int64_t pos) {
  const int64_t col = attn_->length();
  if (col >= max_len_) throw Error(tag_ + ": KV cache full");
  // the table row is pos while the cache column is the cached length
  if (pos < col || pos >= max_len_)
    throw Error(tag_ + ": position " + std::to_string(pos) + " before the cached length " + std::to_string(col) +
                " or past max_len");
  Workspace& w = *ws_;
  const uint64_t h = w.buffer(tag_ + ".h", size_t(dim_) * 4), qkv = w.buffer(tag_ + ".qkv_out", size_t(3 * dim_) * 4),
                 q = w.buffer(tag_ + ".q", size_t(dim_) * 4), gu = w.buffer(tag_ + ".gu", size_t(2 * ffn_) * 4);
  dev_.copy(h, x, size_t(dim_) * 4);
  const uint64_t xn = norm1_->forward_device(h, 1);
  qkv_->forward_device(xn, 1, qkv);
  const uint64_t shift = uint64_t(pos - col) * uint64_t(head_dim_ / 2) * 4;
  rope_append_.launch(dev_, {{"n_head", n_heads_}, {"n_kv", n_heads_}},
                      {{"q_out", q}, {"kt", attn_->kt()}, {"vc", attn_->v()}, {"qkv", qkv}, {"bias", 0}, {"q_norm", 0},
                       {"k_norm", 0}, {"cos", rope_->cos() + shift}, {"sin", rope_->sin() + shift},
                       {"n_head", uint64_t(n_heads_)}, {"n_kv", uint64_t(n_heads_)}, {"dh", uint64_t(head_dim_)},
                       {"n_rot", uint64_t(head_dim_)}, {"max_len", uint64_t(max_len_)}, {"pos", uint64_t(col)},
                       {"mode", 1}, {"eps", f32_bits(eps_)}});
  attn_->advance(1);
  const uint64_t a = attn_->forward_device(q);
  o_->forward_device(a, 1, h, true);
  const uint64_t xn2 = norm2_->forward_device(h, 1);
  gate_up_->forward_device(xn2, 1, gu);
  gated_.launch(dev_, {{"nrows", dim_}},
                {{"w", w_down_}, {"gate", gu}, {"up", gu + uint64_t(ffn_) * 4}, {"y", h}, {"nrows", uint64_t(dim_)},
                 {"k", uint64_t(ffn_)}, {"group_size", 64}});
  return h;
}

std::vector<float> TransformerLayer::forward(std::span<const float> x, int64_t pos) {
  if (int64_t(x.size()) != dim_) throw Error(tag_ + ": x has " + std::to_string(x.size()) + " values, dim is " + std::to_string(dim_));
  const uint64_t px = ws_->upload(tag_ + ".x", x.data(), x.size_bytes());
  return dev_.download<float>(forward_device(px, pos), size_t(dim_));
}

}  // namespace k100::model
