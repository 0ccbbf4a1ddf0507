// k100lc model: RoPE (PYTHON_API.md 7.13), rotary position embedding with
// rotate-half pairing (j, j + dim/2) through rope_apply_k, tables computed
// once on the host in float64: theta_j = base^(-2j/dim), cos/sin[p][j] of
// p theta_j, [max_len][dim/2] f32. (The decoder rotates inside
// qkv_rope_append_k with either pairing; see decoder.h.)
#pragma once

#include <span>
#include <string>
#include <vector>

#include "k100/model/device.h"
#include "k100/model/workspace.h"

namespace k100::model {

class RoPE {
 public:
  RoPE(Device& dev, int64_t dim, int64_t max_len, double base = 10000.0, Workspace* ws = nullptr,
       std::string tag = "rope");
  int64_t dim() const { return dim_; }
  uint64_t cos() const { return cos_; }
  uint64_t sin() const { return sin_; }
  // Rows of dim floats; row r uses table row (r >> tsh) + pos (tsh = log2(heads): one position per token).
  uint64_t forward_device(uint64_t x, int64_t rows, int64_t pos = 0, uint64_t out = 0, int tsh = 0);
  std::vector<float> forward(std::span<const float> x, int64_t pos = 0);

 private:
  Device& dev_;
  int64_t dim_, max_len_;
  WorkspaceRef ws_;
  std::string tag_;
  uint64_t cos_ = 0, sin_ = 0;
  KernelRef kernel_;
  kernels::LaunchContract launch_;  // kernel_'s, from the package
};

}  // namespace k100::model
