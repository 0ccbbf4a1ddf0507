#include "k100/model/mlp.h"

#include "k100/base/error.h"

namespace k100::model {

SwiGLU::SwiGLU(Device& dev, Workspace* ws, std::string tag)
    : dev_(dev), ws_(dev, ws), tag_(std::move(tag)), kernel_(dev, "silu_mul_k", tag_) {}

uint64_t SwiGLU::forward_device(uint64_t gate, uint64_t up, int64_t n, uint64_t out) {
  if (n <= 0) throw Error(tag_ + ": SwiGLU over " + std::to_string(n) + " elements");
  if (!out) out = ws_->buffer(tag_ + ".out", size_t(n) * 4);
  kernel_.launch(dev_, {{"n", n}}, {{"y", out}, {"gate", gate}, {"up", up}, {"n", uint64_t(n)}});
  return out;
}

MLP::MLP(Device& dev, Linear& gate, Linear& up, Linear& down, Workspace* ws, std::string tag, std::string_view act)
    : dev_(dev), gate_(gate), up_(up), down_(down), ws_(dev, ws), tag_(std::move(tag)), act_(dev, &*ws_, tag_ + ".act") {
  if (act != "silu") throw Error(tag_ + ": activation '" + std::string(act) + "' is not supported (only silu)");
  if (gate.n() != up.n() || gate.k() != up.k() || down.k() != gate.n())
    throw Error(tag_ + ": gate " + std::to_string(gate.n()) + "x" + std::to_string(gate.k()) + ", up " +
                std::to_string(up.n()) + "x" + std::to_string(up.k()) + " and down " + std::to_string(down.n()) + "x" +
                std::to_string(down.k()) + " do not fit together");
}

uint64_t MLP::forward_device(uint64_t x, int64_t rows, uint64_t out, bool accumulate) {
  const uint64_t g = gate_.forward_device(x, rows), u = up_.forward_device(x, rows);
  const uint64_t a = act_.forward_device(g, u, rows * gate_.n());
  return down_.forward_device(a, rows, out, accumulate);
}

std::vector<float> MLP::forward(std::span<const float> x, int64_t rows) {
  if (int64_t(x.size()) != rows * gate_.k())
    throw Error(tag_ + ": forward of " + std::to_string(x.size()) + " values, expected " + std::to_string(rows) +
                " x " + std::to_string(gate_.k()));
  const uint64_t px = ws_->upload(tag_ + ".x", x.data(), x.size_bytes());
  return dev_.download<float>(forward_device(px, rows), size_t(rows * down_.n()));
}

}  // namespace k100::model
