#include "k100/model/rope.h"

#include <cmath>

#include "k100/base/error.h"

namespace k100::model {

RoPE::RoPE(Device& dev, int64_t dim, int64_t max_len, double base, Workspace* ws, std::string tag)
    : dev_(dev), dim_(dim), max_len_(max_len), ws_(dev, ws), tag_(std::move(tag)) {
  if (dim <= 0 || dim % 2) throw Error(tag_ + ": RoPE needs a positive even dim (got " + std::to_string(dim) + ")");
  if (max_len <= 0) throw Error(tag_ + ": RoPE needs max_len > 0");
  kernel_ = dev.kernel("rope_apply_k", tag_);
  launch_ = dev.contract(kernel_);
  const int64_t half = dim / 2;
  std::vector<float> c(size_t(max_len * half)), s(c.size());
  for (int64_t j = 0; j < half; ++j) {
    const double theta = std::pow(base, -2.0 * double(j) / double(dim));
    for (int64_t p = 0; p < max_len; ++p) {
      c[size_t(p * half + j)] = float(std::cos(double(p) * theta));
      s[size_t(p * half + j)] = float(std::sin(double(p) * theta));
    }
  }
  cos_ = ws_->upload(tag_ + ".cos", c.data(), c.size() * 4);
  sin_ = ws_->upload(tag_ + ".sin", s.data(), s.size() * 4);
}

uint64_t RoPE::forward_device(uint64_t x, int64_t rows, int64_t pos, uint64_t out, int tsh) {
  if (rows <= 0) throw Error(tag_ + ": forward of " + std::to_string(rows) + " rows");
  if (pos < 0 || pos + rows > max_len_)
    throw Error(tag_ + ": positions " + std::to_string(pos) + " + " + std::to_string(rows) + " rows pass max_len " +
                std::to_string(max_len_));
  if (!out) out = ws_->buffer(tag_ + ".out", size_t(rows * dim_) * 4);
  const kernels::Launch l = launch_.evaluate({{"rows", rows}, {"dim", dim_}});
  dev_.launch(kernel_, l.grid[0], l.workgroup,
              launch_.argv(l, {{"y", out}, {"x", x}, {"cos", cos_}, {"sin", sin_}, {"tsh", uint64_t(tsh)},
                               {"tbase", uint64_t(pos)}}));
  return out;
}

std::vector<float> RoPE::forward(std::span<const float> x, int64_t pos) {
  if (x.size() % size_t(dim_)) throw Error(tag_ + ": forward of " + std::to_string(x.size()) + " values, not rows of dim");
  const int64_t rows = int64_t(x.size()) / dim_;
  const uint64_t px = ws_->upload(tag_ + ".x", x.data(), x.size_bytes());
  return dev_.download<float>(forward_device(px, rows, pos), x.size());
}

}  // namespace k100::model
