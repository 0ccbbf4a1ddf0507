#include "k100/model/norm.h"

#include "k100/base/error.h"

namespace k100::model {

RMSNorm::RMSNorm(Device& dev, int64_t dim, std::span<const float> weight, float eps, Workspace* ws, std::string tag)
    : dev_(dev), dim_(dim), eps_(eps), ws_(dev, ws), tag_(std::move(tag)) {
  if (int64_t(weight.size()) != dim)
    throw Error(tag_ + ": weight has " + std::to_string(weight.size()) + " values, dim is " + std::to_string(dim));
  init();
  w_ = ws_->upload(tag_ + ".w", weight.data(), weight.size_bytes());
}

RMSNorm::RMSNorm(Device& dev, int64_t dim, uint64_t weight, float eps, Workspace* ws, std::string tag)
    : dev_(dev), dim_(dim), eps_(eps), ws_(dev, ws), tag_(std::move(tag)), w_(weight) {
  init();
}

void RMSNorm::init() {
  if (dim_ <= 0 || dim_ % 64)
    throw Error(tag_ + ": RMSNorm needs dim % 64 == 0 (dim = " + std::to_string(dim_) + ")");
  kernel_ = dev_.kernel(dim_ >= kRmsNormDeepMinDim && dev_.has("rmsnorm_deep_k") ? "rmsnorm_deep_k" : "rmsnorm_fast_k",
                        tag_);
  launch_ = dev_.contract(kernel_);
}

uint64_t RMSNorm::forward_device(uint64_t x, int64_t rows, uint64_t out) {
  if (rows <= 0) throw Error(tag_ + ": forward of " + std::to_string(rows) + " rows");
  if (!out) out = ws_->buffer(tag_ + ".out", size_t(rows * dim_) * 4);
  const kernels::Launch l = launch_.evaluate({{"rows", rows}, {"dim", dim_}});
  dev_.launch(kernel_, l.grid[0], l.workgroup, launch_.argv(l, {{"y", out}, {"x", x}, {"w", w_}, {"eps", f32_bits(eps_)}}));
  return out;
}

std::vector<float> RMSNorm::forward(std::span<const float> x, int64_t rows) {
  if (int64_t(x.size()) != rows * dim_)
    throw Error(tag_ + ": forward of " + std::to_string(x.size()) + " values, expected " + std::to_string(rows) +
                " x " + std::to_string(dim_));
  const uint64_t px = ws_->upload(tag_ + ".x", x.data(), x.size_bytes());
  return dev_.download<float>(forward_device(px, rows), x.size());
}

}  // namespace k100::model
