#include "k100/model/attention.h"

#include <cmath>

#include "k100/base/error.h"
#include "k100/model/linear.h"

namespace k100::model {

namespace {

bool power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
int log2_of(int64_t v) {
  int s = 0;
  while ((int64_t(1) << s) < v) ++s;
  return s;
}
// The largest power of two <= cap dividing v.
int64_t pow2_divisor(int64_t v, int64_t cap) {
  int64_t p = 1;
  while (p * 2 <= cap && v % (p * 2) == 0) p *= 2;
  return p;
}

}  // namespace

// ---------------------------------------------------------------- Attention

Attention::Attention(Device& dev, int64_t dim, int64_t max_len, Workspace* ws, std::string tag, int64_t n_split)
    : dev_(dev), dim_(dim), max_len_(max_len), n_split_(n_split), ws_(dev, ws), tag_(std::move(tag)) {
  if (dim <= 0 || dim % 64) throw Error(tag_ + ": Attention needs dim % 64 == 0 (dim = " + std::to_string(dim) + ")");
  if (max_len <= 0 || max_len % 256)
    throw Error(tag_ + ": Attention needs max_len % 256 == 0 (max_len = " + std::to_string(max_len) + ")");
  if (!power_of_two(n_split)) throw Error(tag_ + ": n_split must be a power of two (got " + std::to_string(n_split) + ")");
  k_ = ws_->buffer(tag_ + ".k", size_t(max_len * dim) * 4);
  vt_ = ws_->buffer(tag_ + ".vt", size_t(dim * max_len) * 4);
  dev.memset(k_, 0, size_t(max_len * dim) * 4);
  dev.memset(vt_, 0, size_t(dim * max_len) * 4);
}

void Attention::append_device(uint64_t k, uint64_t v, int64_t rows) {
  if (rows <= 0 || length_ + rows > max_len_)
    throw Error(tag_ + ": append of " + std::to_string(rows) + " rows after " + std::to_string(length_) +
                " (max_len " + std::to_string(max_len_) + ")");
  dev_.copy(k_ + uint64_t(length_ * dim_) * 4, k, size_t(rows * dim_) * 4);
  if (power_of_two(dim_ / 64) && dev_.has("vt_scatter_k")) {
    const uint64_t argv[] = {vt_, v, uint64_t(rows), uint64_t(dim_), uint64_t(dim_), uint64_t(max_len_),
                             uint64_t(length_), uint64_t(log2_of(dim_ / 64))};
    dev_.launch(dev_.kernel("vt_scatter_k"), uint32_t((rows + 63) / 64 * (dim_ / 64)), 64, argv);
  } else {
    auto host = dev_.download<float>(v, size_t(rows * dim_));
    std::vector<float> col(static_cast<size_t>(rows));
    for (int64_t d = 0; d < dim_; ++d) {
      for (int64_t t = 0; t < rows; ++t) col[size_t(t)] = host[size_t(t * dim_ + d)];
      dev_.upload(vt_ + uint64_t(d * max_len_ + length_) * 4, col.data(), col.size() * 4);
    }
  }
  length_ += rows;
}

void Attention::append(std::span<const float> k, std::span<const float> v) {
  if (k.size() != v.size() || k.size() % size_t(dim_))
    throw Error(tag_ + ": append needs k and v of the same rows of dim " + std::to_string(dim_));
  const int64_t rows = int64_t(k.size()) / dim_;
  const uint64_t pk = ws_->upload(tag_ + ".k_in", k.data(), k.size_bytes());
  const uint64_t pv = ws_->upload(tag_ + ".v_in", v.data(), v.size_bytes());
  append_device(pk, pv, rows);
}

uint64_t Attention::forward_device(uint64_t q, int64_t n_kv, uint64_t out) {
  if (n_kv == 0) n_kv = length_;
  if (n_kv <= 0 || n_kv > max_len_)
    throw Error(tag_ + ": attention over " + std::to_string(n_kv) + " rows (cached " + std::to_string(length_) + ")");
  const int64_t pad = (n_kv + 255) / 256 * 256;
  const float inv = float(1.0 / std::sqrt(double(dim_)));
  const uint64_t scores = ws_->buffer(tag_ + ".scores", size_t(max_len_) * 4),
                 probs = ws_->buffer(tag_ + ".probs", size_t(max_len_) * 4);
  if (!out) out = ws_->buffer(tag_ + ".out", size_t(dim_) * 4);
  gemv_f32(dev_, k_, q, scores, pad, dim_);
  if (pad > n_kv) {
    const uint64_t argv[] = {scores + uint64_t(n_kv) * 4, f32_bits(-1e30f), uint64_t(pad - n_kv)};
    dev_.launch(dev_.kernel("fill_k", tag_), uint32_t((pad - n_kv + 63) / 64), 64, argv);
  }
  const bool split = pad >= kSplitSoftmaxMinPad && dev_.has("block_exp_sum_k");
  uint64_t l = 0;
  if (split) {
    const int64_t nblk = pow2_divisor(pad / 256, 64), sh = log2_of(nblk);
    const uint64_t pmax = ws_->buffer(tag_ + ".pmax", 64 * 4), m = ws_->buffer(tag_ + ".m", 4),
                   psum = ws_->buffer(tag_ + ".psum", 64 * 4);
    l = ws_->buffer(tag_ + ".l", 4);
    const uint64_t a1[] = {pmax, scores, uint64_t(pad), uint64_t(sh)};
    dev_.launch(dev_.kernel("block_max_k", tag_), uint32_t(nblk), 64, a1);
    const uint64_t a2[] = {pmax, m, uint64_t(nblk)};
    dev_.launch(dev_.kernel("reduce_max1_k", tag_), 1, 64, a2);
    const uint64_t a3[] = {psum, probs, scores, m, uint64_t(pad), uint64_t(sh), f32_bits(inv)};
    dev_.launch(dev_.kernel("block_exp_sum_k", tag_), uint32_t(nblk), 64, a3);
    const uint64_t a4[] = {psum, l, uint64_t(nblk)};
    dev_.launch(dev_.kernel("reduce_sum1_k", tag_), 1, 64, a4);
  } else {
    const uint64_t a1[] = {scores, f32_bits(inv), uint64_t(pad)};
    dev_.launch(dev_.kernel("scale_mul_k", tag_), uint32_t((pad + 63) / 64), 64, a1);
    const uint64_t a2[] = {probs, scores, 1, uint64_t(pad), 64};
    dev_.launch(dev_.kernel("softmax_vec_k", tag_), 1, 64, a2);
  }
  if (dim_ % 8 == 0 && pad % 128 == 0 && dev_.has("gemv_f32_rows8_split_k") && dev_.has("reduce_blocks_k")) {
    const int64_t nsplit = pow2_divisor(pad / 128, 16);
    const uint64_t part = ws_->buffer(tag_ + ".part", size_t(dim_ * nsplit) * 4);
    const uint64_t a1[] = {vt_, probs, part, uint64_t(dim_), uint64_t(pad), uint64_t(max_len_), uint64_t(log2_of(nsplit))};
    dev_.launch(dev_.kernel("gemv_f32_rows8_split_k", tag_), uint32_t(dim_ / 8 * nsplit), 64, a1);
    const uint64_t a2[] = {part, out, uint64_t(dim_), uint64_t(nsplit)};
    dev_.launch(dev_.kernel("reduce_blocks_k", tag_), uint32_t((dim_ + 63) / 64), 64, a2);
  } else {
    // one wave per V^T row over the whole pitch: probabilities past pad are 0
    if (pad < max_len_) {
      const uint64_t argv[] = {probs + uint64_t(pad) * 4, f32_bits(0.f), uint64_t(max_len_ - pad)};
      dev_.launch(dev_.kernel("fill_k", tag_), uint32_t((max_len_ - pad + 63) / 64), 64, argv);
    }
    gemv_f32(dev_, vt_, probs, out, dim_, max_len_);
  }
  if (split) {
    const uint64_t argv[] = {out, l, uint64_t(dim_)};
    dev_.launch(dev_.kernel("div_scalar_k", tag_), uint32_t((dim_ + 63) / 64), 64, argv);
  }
  return out;
}

std::vector<float> Attention::forward(std::span<const float> q, int64_t n_kv) {
  if (int64_t(q.size()) != dim_) throw Error(tag_ + ": q has " + std::to_string(q.size()) + " values, dim is " + std::to_string(dim_));
  const uint64_t pq = ws_->upload(tag_ + ".q", q.data(), q.size_bytes());
  return dev_.download<float>(forward_device(pq, n_kv), size_t(dim_));
}

// ----------------------------------------------------------- FlashAttention

FlashAttention::FlashAttention(Device& dev, int64_t n_heads, int64_t head_dim, int64_t max_len, Workspace* ws,
                               std::string tag, int64_t n_kv_heads)
    : dev_(dev), n_heads_(n_heads), head_dim_(head_dim), max_len_(max_len),
      n_kv_heads_(n_kv_heads ? n_kv_heads : n_heads), ws_(dev, ws), tag_(std::move(tag)) {
  if (n_heads <= 0 || head_dim <= 0 || max_len <= 0)
    throw Error(tag_ + ": FlashAttention needs positive n_heads, head_dim and max_len");
  if (n_kv_heads_ <= 0 || n_heads % n_kv_heads_)
    throw Error(tag_ + ": n_kv_heads " + std::to_string(n_kv_heads_) + " must divide n_heads " + std::to_string(n_heads));
  const bool gqa = n_kv_heads_ != n_heads;
  if (gqa ? (head_dim % 32 || head_dim > 256) : head_dim > 128)
    throw Error(tag_ + ": head_dim " + std::to_string(head_dim) +
                (gqa ? " must be a multiple of 32 up to 256 with grouped KV heads" : " must be at most 128"));
  part_ = dev.kernel(gqa ? "flash_dec_gqa_part_k" : "flash_dec_part_k", tag_);
  comb_ = dev.kernel("flash_dec_comb_k", tag_);
  kt_ = ws_->buffer(tag_ + ".kt", size_t(kv_dim() * max_len) * 4);
  v_ = ws_->buffer(tag_ + ".v", size_t(max_len * kv_dim()) * 4);
  po_ = ws_->buffer(tag_ + ".po", size_t(n_heads * 64 * head_dim) * 4);
  pm_ = ws_->buffer(tag_ + ".pm", size_t(n_heads * 64) * 4);
  pl_ = ws_->buffer(tag_ + ".pl", size_t(n_heads * 64) * 4);
}

std::tuple<int64_t, int64_t, int64_t> FlashAttention::plan(int64_t n_kv) const {
  if (n_kv == 0) n_kv = length_;
  if (n_kv <= 0) throw Error(tag_ + ": attention over " + std::to_string(n_kv) + " rows");
  const int64_t pad = (n_kv + 255) / 256 * 256, nsplit = pow2_divisor(pad / 64, 64), R = pad / nsplit;
  if (R % 64 || R > 4096)
    throw Error(tag_ + ": " + std::to_string(n_kv) + " rows need splits of " + std::to_string(R) +
                " rows; the part kernel takes multiples of 64 up to 4096");
  return {pad, nsplit, R};
}

void FlashAttention::append_device(uint64_t k, uint64_t v, int64_t rows) {
  if (rows <= 0 || length_ + rows > max_len_)
    throw Error(tag_ + ": append of " + std::to_string(rows) + " rows after " + std::to_string(length_) +
                " (max_len " + std::to_string(max_len_) + ")");
  const int64_t dim = kv_dim();
  if (rows == 1 && dim % 64 == 0 && dev_.has("vt_scatter_v1_k")) {
    const uint64_t argv[] = {kt_, v_, k, v, uint64_t(dim), uint64_t(max_len_), uint64_t(length_)};
    dev_.launch(dev_.kernel("vt_scatter_v1_k"), uint32_t(dim / 64), 64, argv);
  } else if (dim % 64 == 0 && power_of_two(dim / 64) && dev_.has("vt_scatter_v_k")) {
    const uint64_t argv[] = {kt_, v_, k, v, uint64_t(rows), uint64_t(dim), uint64_t(dim), uint64_t(dim),
                             uint64_t(max_len_), uint64_t(length_), uint64_t(log2_of(dim / 64))};
    dev_.launch(dev_.kernel("vt_scatter_v_k"), uint32_t((rows + 63) / 64 * (dim / 64)), 64, argv);
  } else {
    if (dim % 64 || !power_of_two(dim / 64))
      throw Error(tag_ + ": appending " + std::to_string(rows) + " rows of " + std::to_string(dim) +
                  " needs (dim / 64) a power of two");
    const uint64_t argv[] = {kt_, k, uint64_t(rows), uint64_t(dim), uint64_t(dim), uint64_t(max_len_),
                             uint64_t(length_), uint64_t(log2_of(dim / 64))};
    dev_.launch(dev_.kernel("vt_scatter_k", tag_), uint32_t((rows + 63) / 64 * (dim / 64)), 64, argv);
    dev_.copy(v_ + uint64_t(length_ * dim) * 4, v, size_t(rows * dim) * 4);
  }
  length_ += rows;
}

void FlashAttention::append(std::span<const float> k, std::span<const float> v) {
  if (k.size() != v.size() || k.size() % size_t(kv_dim()))
    throw Error(tag_ + ": append needs k and v of the same rows of " + std::to_string(kv_dim()));
  const uint64_t pk = ws_->upload(tag_ + ".k_in", k.data(), k.size_bytes());
  const uint64_t pv = ws_->upload(tag_ + ".v_in", v.data(), v.size_bytes());
  append_device(pk, pv, int64_t(k.size()) / kv_dim());
}

void FlashAttention::advance(int64_t rows) {
  if (rows < 0 || length_ + rows > max_len_) throw Error(tag_ + ": KV cache full");
  length_ += rows;
}

uint64_t FlashAttention::forward_device(uint64_t q, int64_t n_kv, uint64_t out) {
  if (n_kv == 0) n_kv = length_;
  const auto [pad, nsplit, R] = plan(n_kv);
  const float inv = float(1.0 / std::sqrt(double(head_dim_)));
  if (!out) out = ws_->buffer(tag_ + ".out", size_t(dim()) * 4);
  if (n_kv_heads_ != n_heads_) {
    const uint64_t argv[] = {po_, pm_, pl_, q, kt_, v_, uint64_t(n_kv), uint64_t(head_dim_), uint64_t(R),
                             uint64_t(max_len_), uint64_t(log2_of(nsplit)), f32_bits(inv), uint64_t(kv_dim()),
                             uint64_t(n_heads_ / n_kv_heads_)};
    dev_.launch(part_, uint32_t(n_heads_ * nsplit), 64, argv);
  } else {
    const uint64_t argv[] = {po_, pm_, pl_, q, kt_, v_, uint64_t(n_kv), uint64_t(head_dim_), uint64_t(pad),
                             uint64_t(max_len_), uint64_t(log2_of(nsplit)), f32_bits(inv), uint64_t(dim())};
    dev_.launch(part_, uint32_t(n_heads_ * nsplit), 64, argv);
  }
  const uint64_t cargv[] = {out, po_, pm_, pl_, uint64_t(head_dim_), uint64_t(nsplit), f32_bits(inv)};
  dev_.launch(comb_, uint32_t(n_heads_), 64, cargv);
  return out;
}

std::vector<float> FlashAttention::forward(std::span<const float> q, int64_t n_kv) {
  if (int64_t(q.size()) != dim()) throw Error(tag_ + ": q has " + std::to_string(q.size()) + " values, dim is " + std::to_string(dim()));
  const uint64_t pq = ws_->upload(tag_ + ".q", q.data(), q.size_bytes());
  return dev_.download<float>(forward_device(pq, n_kv), size_t(dim()));
}

}  // namespace k100::model
