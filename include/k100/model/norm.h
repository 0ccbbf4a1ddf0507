// k100lc model: RMSNorm (PYTHON_API.md 7.5), y = x / sqrt(mean(x^2) + eps) * w
// per row of dim floats: rmsnorm_deep_k for dim >= 2048, rmsnorm_fast_k
// below (the two give bit-identical rows).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "k100/model/device.h"
#include "k100/model/workspace.h"

namespace k100::model {

inline constexpr int64_t kRmsNormDeepMinDim = 2048;

class RMSNorm {
 public:
  // weight [dim] uploaded once; dim % 64 == 0.
  RMSNorm(Device& dev, int64_t dim, std::span<const float> weight, float eps = 1e-6f, Workspace* ws = nullptr,
          std::string tag = "rmsnorm");
  // weights already on the device (the caller keeps them).
  RMSNorm(Device& dev, int64_t dim, uint64_t weight, float eps, Workspace* ws, std::string tag);

  int64_t dim() const { return dim_; }
  float eps() const { return eps_; }
  uint64_t weight() const { return w_; }
  // rows rows of dim floats from x into out (or "<tag>.out"); enqueues only.
  uint64_t forward_device(uint64_t x, int64_t rows, uint64_t out = 0);
  std::vector<float> forward(std::span<const float> x, int64_t rows);

 private:
  void init();
  Device& dev_;
  int64_t dim_;
  float eps_;
  WorkspaceRef ws_;
  std::string tag_;
  uint64_t w_ = 0;
  KernelRef kernel_;
  kernels::LaunchContract launch_;  // kernel_'s, from the package
};

}  // namespace k100::model
