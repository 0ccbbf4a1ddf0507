#include "k100/model/attention.h"

#include <cmath>
#include <map>

#include "k100/base/error.h"
#include "k100/model/linear.h"

namespace k100::model {

namespace {

bool power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
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
    ContractKernel(dev_, "vt_scatter_k")
        .launch(dev_, {{"rows", rows}, {"dim", dim_}},
                {{"vt", vt_}, {"v", v}, {"rows", uint64_t(rows)}, {"dim", uint64_t(dim_)}, {"vstride", uint64_t(dim_)},
                 {"ystride", uint64_t(max_len_)}, {"y0", uint64_t(length_)}});
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
    ContractKernel(dev_, "fill_k", tag_)
        .launch(dev_, {{"n", pad - n_kv}},
                {{"y", scores + uint64_t(n_kv) * 4}, {"value", f32_bits(-1e30f)}, {"n", uint64_t(pad - n_kv)}});
  }
  const bool split = pad >= kSplitSoftmaxMinPad && dev_.has("block_exp_sum_k");
  uint64_t l = 0;
  if (split) {
    const int64_t nblk = pow2_divisor(pad / 256, 64);
    const uint64_t pmax = ws_->buffer(tag_ + ".pmax", 64 * 4), m = ws_->buffer(tag_ + ".m", 4),
                   psum = ws_->buffer(tag_ + ".psum", 64 * 4);
    l = ws_->buffer(tag_ + ".l", 4);
    ContractKernel(dev_, "block_max_k", tag_)
        .launch(dev_, {{"splits", nblk}}, {{"part", pmax}, {"x", scores}, {"cols", uint64_t(pad)}});
    ContractKernel(dev_, "reduce_max1_k", tag_).launch(dev_, {{"n", nblk}}, {{"part", pmax}, {"y", m}});
    ContractKernel(dev_, "block_exp_sum_k", tag_)
        .launch(dev_, {{"splits", nblk}},
                {{"part", psum}, {"y", probs}, {"x", scores}, {"m", m}, {"cols", uint64_t(pad)},
                 {"inv", f32_bits(inv)}});
    ContractKernel(dev_, "reduce_sum1_k", tag_).launch(dev_, {{"n", nblk}}, {{"part", psum}, {"y", l}});
  } else {
    ContractKernel(dev_, "scale_mul_k", tag_)
        .launch(dev_, {{"n", pad}}, {{"x", scores}, {"s", f32_bits(inv)}, {"n", uint64_t(pad)}});
    ContractKernel(dev_, "softmax_vec_k", tag_)
        .launch(dev_, {{"rows", 1}},
                {{"y", probs}, {"x", scores}, {"rows", 1}, {"cols", uint64_t(pad)}, {"group_size", 64}});
  }
  if (dim_ % 8 == 0 && pad % 128 == 0 && dev_.has("gemv_f32_rows8_split_k") && dev_.has("reduce_blocks_k")) {
    const int64_t nsplit = pow2_divisor(pad / 128, 16);
    const uint64_t part = ws_->buffer(tag_ + ".part", size_t(dim_ * nsplit) * 4);
    ContractKernel(dev_, "gemv_f32_rows8_split_k", tag_)
        .launch(dev_, {{"nrows", dim_}, {"splits", nsplit}},
                {{"w", vt_}, {"x", probs}, {"part", part}, {"nrows", uint64_t(dim_)}, {"k", uint64_t(pad)},
                 {"stride", uint64_t(max_len_)}});
    ContractKernel(dev_, "reduce_blocks_k", tag_)
        .launch(dev_, {{"nrows", dim_}},
                {{"partial", part}, {"y", out}, {"nrows", uint64_t(dim_)}, {"nbpr", uint64_t(nsplit)}});
  } else {
    // one wave per V^T row over the whole pitch: probabilities past pad are 0
    if (pad < max_len_) {
      ContractKernel(dev_, "fill_k", tag_)
          .launch(dev_, {{"n", max_len_ - pad}},
                  {{"y", probs + uint64_t(pad) * 4}, {"value", f32_bits(0.f)}, {"n", uint64_t(max_len_ - pad)}});
    }
    gemv_f32(dev_, vt_, probs, out, dim_, max_len_);
  }
  if (split) {
    ContractKernel(dev_, "div_scalar_k", tag_)
        .launch(dev_, {{"n", dim_}}, {{"y", out}, {"s", l}, {"n", uint64_t(dim_)}});
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
  part_ = ContractKernel(dev, gqa ? "flash_dec_gqa_part_k" : "flash_dec_part_k", tag_);
  comb_ = ContractKernel(dev, "flash_dec_comb_k", tag_);
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
    ContractKernel(dev_, "vt_scatter_v1_k")
        .launch(dev_, {{"dim", dim}},
                {{"vt", kt_}, {"vc", v_}, {"k", k}, {"v", v}, {"dim", uint64_t(dim)}, {"ystride", uint64_t(max_len_)},
                 {"y0", uint64_t(length_)}});
  } else if (dim % 64 == 0 && power_of_two(dim / 64) && dev_.has("vt_scatter_v_k")) {
    ContractKernel(dev_, "vt_scatter_v_k")
        .launch(dev_, {{"rows", rows}, {"dim", dim}},
                {{"vt", kt_}, {"vc", v_}, {"k", k}, {"v", v}, {"rows", uint64_t(rows)}, {"dim", uint64_t(dim)},
                 {"kstride", uint64_t(dim)}, {"vstride", uint64_t(dim)}, {"ystride", uint64_t(max_len_)},
                 {"y0", uint64_t(length_)}});
  } else {
    if (dim % 64 || !power_of_two(dim / 64))
      throw Error(tag_ + ": appending " + std::to_string(rows) + " rows of " + std::to_string(dim) +
                  " needs (dim / 64) a power of two");
    ContractKernel(dev_, "vt_scatter_k", tag_)
        .launch(dev_, {{"rows", rows}, {"dim", dim}},
                {{"vt", kt_}, {"v", k}, {"rows", uint64_t(rows)}, {"dim", uint64_t(dim)}, {"vstride", uint64_t(dim)},
                 {"ystride", uint64_t(max_len_)}, {"y0", uint64_t(length_)}});
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
  std::map<std::string, uint64_t> given = {{"po", po_}, {"pm", pm_}, {"pl", pl_}, {"q", q}, {"kt", kt_}, {"v", v_},
                                           {"n_kv", uint64_t(n_kv)}, {"dh", uint64_t(head_dim_)},
                                           {"max_len", uint64_t(max_len_)}, {"inv", f32_bits(inv)}};
  if (n_kv_heads_ != n_heads_) {
    given.insert({{"rows_per_split", uint64_t(R)}, {"vstride", uint64_t(kv_dim())},
                  {"group", uint64_t(n_heads_ / n_kv_heads_)}});
    part_.launch(dev_, {{"n_head", n_heads_}, {"splits", nsplit}}, given);
  } else {
    given.insert({{"pad", uint64_t(pad)}, {"vstride", uint64_t(dim())}});
    part_.launch(dev_, {{"n_heads", n_heads_}, {"splits", nsplit}}, given);
  }
  comb_.launch(dev_, {{"n_heads", n_heads_}, {"splits", nsplit}},
               {{"out", out}, {"po", po_}, {"pm", pm_}, {"pl", pl_}, {"dh", uint64_t(head_dim_)}, {"inv", f32_bits(inv)}});
  return out;
}

std::vector<float> FlashAttention::forward(std::span<const float> q, int64_t n_kv) {
  if (int64_t(q.size()) != dim()) throw Error(tag_ + ": q has " + std::to_string(q.size()) + " values, dim is " + std::to_string(dim()));
  const uint64_t pq = ws_->upload(tag_ + ".q", q.data(), q.size_bytes());
  return dev_.download<float>(forward_device(pq, n_kv), size_t(dim()));
}

}  // namespace k100::model
