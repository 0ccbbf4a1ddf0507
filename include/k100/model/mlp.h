// k100lc model: the SwiGLU activation and the gated MLP (PYTHON_API.md 7.6,
// 7.7): out = down(silu(gate(x)) * up(x)).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "k100/model/contract_kernel.h"
#include "k100/model/linear.h"

namespace k100::model {

class SwiGLU {
 public:
  explicit SwiGLU(Device& dev, Workspace* ws = nullptr, std::string tag = "swiglu");
  // out[i] = silu(gate[i]) * up[i] for i < n (silu_mul_k); out == 0: "<tag>.out".
  uint64_t forward_device(uint64_t gate, uint64_t up, int64_t n, uint64_t out = 0);

 private:
  Device& dev_;
  WorkspaceRef ws_;
  std::string tag_;
  ContractKernel kernel_;
};

class MLP {
 public:
  // The layers are the caller's (any linear layer type); act must be "silu".
  MLP(Device& dev, Linear& gate, Linear& up, Linear& down, Workspace* ws = nullptr, std::string tag = "mlp",
      std::string_view act = "silu");
  int64_t n() const { return down_.n(); }
  // gate and up projections, SwiGLU over rows * gate.n, down; enqueued; returns the down output.
  uint64_t forward_device(uint64_t x, int64_t rows, uint64_t out = 0, bool accumulate = false);
  std::vector<float> forward(std::span<const float> x, int64_t rows);

 private:
  Device& dev_;
  Linear &gate_, &up_, &down_;
  WorkspaceRef ws_;
  std::string tag_;
  SwiGLU act_;
};

}  // namespace k100::model
