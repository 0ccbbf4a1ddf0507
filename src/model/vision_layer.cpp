#include "k100/model/vision_layer.h"

#include <cmath>

#include "k100/base/error.h"

namespace k100::model {

void vision_rope_tables(std::span<const int32_t> hpos, std::span<const int32_t> wpos,
                        int64_t head_dim, std::vector<float>& cos, std::vector<float>& sin,
                        double theta) {
  if (hpos.size() != wpos.size())
    throw Error("vision RoPE tables: " + std::to_string(hpos.size()) + " row positions but " +
                std::to_string(wpos.size()) + " column positions");
  if (head_dim <= 0 || head_dim % 4)
    throw Error("vision RoPE tables: head_dim " + std::to_string(head_dim) +
                " is not a positive multiple of 4");
  const size_t rows = hpos.size(), dim = size_t(head_dim), half = dim / 2, quarter = half / 2;
  cos.assign(rows * dim, 0.f);
  sin.assign(rows * dim, 0.f);
  for (size_t r = 0; r < rows; ++r)
    for (size_t j = 0; j < half; ++j) {
      const size_t i = j < quarter ? j : j - quarter;
      const double a = double(j < quarter ? hpos[r] : wpos[r]) *
                       std::pow(theta, -2.0 * double(i) / double(half));
      for (size_t d : {j, j + half}) {
        cos[r * dim + d] = float(std::cos(a));
        sin[r * dim + d] = float(std::sin(a));
      }
    }
}

namespace {

void check_size(const std::string& tag, const char* name, size_t got, int64_t want) {
  if (int64_t(got) != want)
    throw Error(tag + ": " + name + " has " + std::to_string(got) + " values, expected " +
                std::to_string(want));
}

}  // namespace

VisionLayer::VisionLayer(Device& dev, VisionLayerConfig config, const VisionLayerWeights& w,
                         Workspace* ws, std::string tag)
    : dev_(dev), cfg_(config), ws_(dev, ws), tag_(std::move(tag)) {
  const int64_t H = cfg_.hidden, I = cfg_.intermediate, heads = cfg_.heads;
  if (H <= 0 || heads <= 0 || I <= 0)
    throw Error(tag_ + ": hidden, heads and intermediate must be positive (hidden " +
                std::to_string(H) + ", heads " + std::to_string(heads) + ", intermediate " +
                std::to_string(I) + ")");
  if (H % heads)
    throw Error(tag_ + ": hidden " + std::to_string(H) + " is not a multiple of heads " +
                std::to_string(heads));
  const int64_t hd = cfg_.head_dim();
  if (hd % 2 || hd > 72)
    throw Error(tag_ + ": head_dim " + std::to_string(hd) +
                " must be even and at most 72 (vit_attn_kernel)");
  check_size(tag_, "norm1.weight", w.norm1_w.size(), H);
  check_size(tag_, "norm1.bias", w.norm1_b.size(), H);
  check_size(tag_, "attn.qkv.weight", w.qkv_w.size(), 3 * H * H);
  check_size(tag_, "attn.qkv.bias", w.qkv_b.size(), 3 * H);
  check_size(tag_, "attn.proj.weight", w.proj_w.size(), H * H);
  check_size(tag_, "attn.proj.bias", w.proj_b.size(), H);
  check_size(tag_, "norm2.weight", w.norm2_w.size(), H);
  check_size(tag_, "norm2.bias", w.norm2_b.size(), H);
  check_size(tag_, "mlp.linear_fc1.weight", w.fc1_w.size(), I * H);
  check_size(tag_, "mlp.linear_fc1.bias", w.fc1_b.size(), I);
  check_size(tag_, "mlp.linear_fc2.weight", w.fc2_w.size(), H * I);
  check_size(tag_, "mlp.linear_fc2.bias", w.fc2_b.size(), H);
  ln_ = ContractKernel(dev_, "vit_ln_kernel", tag_);
  linear_ = ContractKernel(dev_, "vit_linear_f16_kernel", tag_);
  bias_ = ContractKernel(dev_, "vit_bias_kernel", tag_);
  rope_ = ContractKernel(dev_, "vit_rope_kernel", tag_);
  attn_ = ContractKernel(dev_, "vit_attn_kernel", tag_);
  gelu_ = ContractKernel(dev_, "vit_gelu_kernel", tag_);
  add_ = ContractKernel(dev_, "add_inplace_k", tag_);
  auto up = [&](const char* key, const auto& v) {
    return ws_->upload(tag_ + "." + key, v.data(), v.size() * sizeof(v[0]));
  };
  norm1_w_ = up("norm1.w", w.norm1_w);
  norm1_b_ = up("norm1.b", w.norm1_b);
  qkv_w_ = up("qkv.w", w.qkv_w);
  qkv_b_ = up("qkv.b", w.qkv_b);
  proj_w_ = up("proj.w", w.proj_w);
  proj_b_ = up("proj.b", w.proj_b);
  norm2_w_ = up("norm2.w", w.norm2_w);
  norm2_b_ = up("norm2.b", w.norm2_b);
  fc1_w_ = up("fc1.w", w.fc1_w);
  fc1_b_ = up("fc1.b", w.fc1_b);
  fc2_w_ = up("fc2.w", w.fc2_w);
  fc2_b_ = up("fc2.b", w.fc2_b);
}

VisionLayer::~VisionLayer() = default;

// y = x W^T + b: [tokens][n] into the workspace buffer "<tag>.<out>".
uint64_t VisionLayer::linear(uint64_t w, uint64_t b, uint64_t x, int64_t tokens, int64_t n,
                             int64_t k, const char* out) {
  const uint64_t y = ws_->buffer(tag_ + "." + out, size_t(tokens * n) * 4);
  linear_.launch(
      dev_, {{"m", tokens}, {"n", n}, {"k", k}},
      {{"y", y}, {"w", w}, {"x", x}, {"x_stride", uint64_t(k)}, {"y_stride", uint64_t(n)}});
  bias_.launch(dev_, {{"rows", tokens}, {"n", n}}, {{"y", y}, {"b", b}});
  return y;
}

uint64_t VisionLayer::forward_device(uint64_t x, uint64_t cos, uint64_t sin, int64_t tokens) {
  if (tokens <= 0) throw Error(tag_ + ": forward of " + std::to_string(tokens) + " tokens");
  const int64_t H = cfg_.hidden, I = cfg_.intermediate, heads = cfg_.heads, hd = cfg_.head_dim();
  const size_t act = size_t(tokens * H) * 4;
  auto layer_norm = [&](uint64_t in, uint64_t weight, uint64_t bias, const char* out) {
    const uint64_t y = ws_->buffer(tag_ + "." + out, act);
    ln_.launch(dev_, {{"rows", tokens}, {"dim", H}},
               {{"y", y}, {"x", in}, {"w", weight}, {"b", bias}, {"eps", f32_bits(cfg_.eps)}});
    return y;
  };
  // residual stream: a copy of x that both residual additions update
  const uint64_t res = ws_->buffer(tag_ + ".out", act);
  dev_.copy(res, x, act);
  auto residual_add = [&](uint64_t delta) {
    add_.launch(dev_, {{"n", tokens * H}}, {{"y", res}, {"x", delta}, {"n", uint64_t(tokens * H)}});
  };

  // attention
  const uint64_t h1 = layer_norm(x, norm1_w_, norm1_b_, "norm1");
  const uint64_t qkv = linear(qkv_w_, qkv_b_, h1, tokens, 3 * H, H, "qkv");
  rope_.launch(dev_, {{"rows", tokens}, {"heads", heads}, {"dim", hd}},
               {{"qkv", qkv}, {"cos", cos}, {"sin", sin}, {"stride", uint64_t(3 * H)}});
  const uint64_t att = ws_->buffer(tag_ + ".attn", act);
  attn_.launch(dev_, {{"rows", tokens}, {"heads", heads}, {"dim", hd}},
               {{"out", att},
                {"qkv", qkv},
                {"stride", uint64_t(3 * H)},
                {"scale", f32_bits(float(1.0 / std::sqrt(double(hd))))}});
  residual_add(linear(proj_w_, proj_b_, att, tokens, H, H, "proj"));

  // MLP
  const uint64_t h2 = layer_norm(res, norm2_w_, norm2_b_, "norm2");
  const uint64_t f1 = linear(fc1_w_, fc1_b_, h2, tokens, I, H, "fc1");
  gelu_.launch(dev_, {{"n", tokens * I}},
               {{"y", f1}, {"x", f1}, {"exact", cfg_.gelu_exact ? 1u : 0u}});
  residual_add(linear(fc2_w_, fc2_b_, f1, tokens, H, I, "fc2"));
  return res;
}

std::vector<float> VisionLayer::forward(std::span<const float> x, std::span<const float> cos,
                                        std::span<const float> sin, int64_t tokens) {
  check_size(tag_, "x", x.size(), tokens * cfg_.hidden);
  check_size(tag_, "cos", cos.size(), tokens * cfg_.head_dim());
  check_size(tag_, "sin", sin.size(), tokens * cfg_.head_dim());
  const uint64_t px = ws_->upload(tag_ + ".x", x.data(), x.size_bytes());
  const uint64_t pc = ws_->upload(tag_ + ".cos", cos.data(), cos.size_bytes());
  const uint64_t ps = ws_->upload(tag_ + ".sin", sin.data(), sin.size_bytes());
  return dev_.download<float>(forward_device(px, pc, ps, tokens), x.size());
}

}  // namespace k100::model
