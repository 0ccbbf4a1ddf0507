#include "k100/model/moe.h"

#include "k100/base/error.h"
#include "k100/model/contract_kernel.h"

namespace k100::model {

MoECombine::MoECombine(Device& dev, int64_t rows, int64_t dim, int64_t n_exp, Workspace* ws, std::string tag)
    : dev_(dev), rows_(rows), dim_(dim), n_exp_(n_exp), ws_(dev, ws), tag_(std::move(tag)) {
  if (rows <= 0 || dim <= 0 || n_exp <= 0) throw Error(tag_ + ": MoECombine needs positive rows, dim and n_exp");
  kernel_ = dev.kernel("moe_combine_k", tag_);
  launch_ = dev.contract(kernel_);
  exp_out_ = ws_->buffer(tag_ + ".exp_out", size_t(n_exp * rows * dim) * 4);
  weights_ = ws_->buffer(tag_ + ".weights", size_t(rows * n_exp) * 4);
  out_ = ws_->buffer(tag_ + ".out", size_t(rows * dim) * 4);
}

uint64_t MoECombine::slot(int64_t e) const {
  if (e < 0 || e >= n_exp_) throw Error(tag_ + ": no expert " + std::to_string(e) + " of " + std::to_string(n_exp_));
  return exp_out_ + uint64_t(e * rows_ * dim_) * 4;
}

uint64_t MoECombine::forward_device(uint64_t weights_dev) {
  const kernels::Launch l = launch_.evaluate({{"rows", rows_}, {"dim", dim_}});
  dev_.launch(kernel_, l.grid[0], l.workgroup,
              launch_.argv(l, {{"y", out_}, {"exp_out", exp_out_}, {"weights", weights_dev ? weights_dev : weights_},
                               {"n_exp", uint64_t(n_exp_)}}));
  return out_;
}

std::vector<float> MoECombine::forward(std::span<const float> exp_out, std::span<const float> weights) {
  if (int64_t(exp_out.size()) != n_exp_ * rows_ * dim_ || int64_t(weights.size()) != rows_ * n_exp_)
    throw Error(tag_ + ": exp_out must be [n_exp][rows][dim] and weights [rows][n_exp]");
  dev_.upload(exp_out_, exp_out.data(), exp_out.size_bytes());
  dev_.upload(weights_, weights.data(), weights.size_bytes());
  return dev_.download<float>(forward_device(), size_t(rows_ * dim_));
}

MoEExperts::MoEExperts(Device& dev, std::vector<Linear*> experts, int64_t rows, int64_t dim, int64_t out_dim,
                       int64_t topk, Workspace* ws, std::string tag)
    : dev_(dev), experts_(std::move(experts)), rows_(rows), dim_(dim), out_dim_(out_dim), topk_(topk), ws_(dev, ws),
      tag_(std::move(tag)) {
  if (dim % 4) throw Error(tag_ + ": dim must be a multiple of 4 (got " + std::to_string(dim) + ")");
  if (topk <= 0 || topk > int64_t(experts_.size()))
    throw Error(tag_ + ": topk " + std::to_string(topk) + " exceeds the " + std::to_string(experts_.size()) + " experts");
  for (size_t e = 0; e < experts_.size(); ++e)
    if (experts_[e]->k() != dim || experts_[e]->n() != out_dim)
      throw Error(tag_ + ": expert " + std::to_string(e) + " is " + std::to_string(experts_[e]->n()) + " x " +
                  std::to_string(experts_[e]->k()) + ", expected " + std::to_string(out_dim) + " x " + std::to_string(dim));
}

MoERoute MoEExperts::route(std::span<const int32_t> ids, std::span<const float> weights) const {
  if (ids.size() != weights.size() || ids.size() % size_t(topk_))
    throw Error(tag_ + ": ids and weights must both be [rows][topk = " + std::to_string(topk_) + "]");
  const int64_t n_exp = int64_t(experts_.size());
  MoERoute r;
  r.pos.assign(ids.size(), 0);
  r.weights.assign(ids.size(), 0.f);
  r.valid.assign(ids.size(), 0);
  r.offsets.assign(size_t(n_exp + 1), 0);
  std::vector<std::vector<int32_t>> buckets(static_cast<size_t>(n_exp));
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= n_exp || weights[i] == 0.f) continue;
    r.valid[i] = 1;
    r.weights[i] = weights[i];
    r.pos[i] = int32_t(buckets[size_t(ids[i])].size());
    buckets[size_t(ids[i])].push_back(int32_t(i / size_t(topk_)));
  }
  for (int64_t e = 0; e < n_exp; ++e) {
    r.offsets[size_t(e + 1)] = r.offsets[size_t(e)] + int32_t(buckets[size_t(e)].size());
    r.bucket_rows.insert(r.bucket_rows.end(), buckets[size_t(e)].begin(), buckets[size_t(e)].end());
  }
  return r;
}

uint64_t MoEExperts::forward_device(uint64_t x, int64_t rows, std::span<const int32_t> ids, std::span<const float> weights) {
  if (rows <= 0 || rows > rows_)
    throw Error(tag_ + ": forward of " + std::to_string(rows) + " rows (capacity " + std::to_string(rows_) + ")");
  if (int64_t(ids.size()) != rows * topk_) throw Error(tag_ + ": ids must be [rows][topk]");
  const MoERoute r = route(ids, weights);
  const uint64_t y = ws_->buffer(tag_ + ".y", size_t(rows_ * out_dim_) * 4);
  const int64_t total = int64_t(r.bucket_rows.size());
  if (total == 0) {
    std::vector<float> zeros(size_t(rows * out_dim_), 0.f);
    dev_.upload(y, zeros.data(), zeros.size() * 4);
    return y;
  }
  const uint64_t cap = uint64_t(rows_ * topk_);
  const uint64_t xb = ws_->buffer(tag_ + ".x_bucket", cap * uint64_t(dim_) * 4),
                 eb = ws_->buffer(tag_ + ".exp_bucket", cap * uint64_t(out_dim_) * 4),
                 idx = ws_->upload(tag_ + ".idx", r.bucket_rows.data(), r.bucket_rows.size() * 4);
  // the row gather: embed_f32_k is dst[r] = src[idx[r]] over rows of dim floats
  ContractKernel(dev_, "embed_f32_k", tag_)
      .launch(dev_, {{"rows", total}},
              {{"y", xb}, {"ids", idx}, {"table", x}, {"rows", uint64_t(total)}, {"dim", uint64_t(dim_)}});
  std::vector<uint32_t> base(ids.size(), 0);
  for (size_t i = 0; i < ids.size(); ++i)
    if (r.valid[i]) base[i] = uint32_t(r.offsets[size_t(ids[i])] + r.pos[i]);
  const uint64_t pb = ws_->upload(tag_ + ".base", base.data(), base.size() * 4),
                 pw = ws_->upload(tag_ + ".weights", r.weights.data(), r.weights.size() * 4);
  for (size_t e = 0; e < experts_.size(); ++e) {
    const int64_t off = r.offsets[e], count = r.offsets[e + 1] - off;
    if (count) experts_[e]->forward_device(xb + uint64_t(off * dim_) * 4, count, eb + uint64_t(off * out_dim_) * 4);
  }
  ContractKernel(dev_, "moe_combine_gather_k", tag_)
      .launch(dev_, {{"rows", rows}, {"dim", out_dim_}},
              {{"y", y}, {"exp_bucket", eb}, {"weights", pw}, {"base", pb}, {"n_sel", uint64_t(topk_)}});
  return y;
}

std::vector<float> MoEExperts::forward(std::span<const float> x, std::span<const int32_t> ids,
                                       std::span<const float> weights) {
  if (x.size() % size_t(dim_)) throw Error(tag_ + ": x must be rows of dim " + std::to_string(dim_));
  const int64_t rows = int64_t(x.size()) / dim_;
  const uint64_t px = ws_->upload(tag_ + ".x", x.data(), x.size_bytes());
  return dev_.download<float>(forward_device(px, rows, ids, weights), size_t(rows * out_dim_));
}

}  // namespace k100::model
