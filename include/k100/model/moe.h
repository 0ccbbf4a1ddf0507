// k100lc model: mixture-of-experts layers (PYTHON_API.md 7.8, 7.9).
//
// MoECombine: y[r] = sum_e weights[r][e] exp_out[e][r] (dense, every expert
// on every row). MoEExperts: token -> expert bucketing on the host, then per
// expert one run over just its rows (rows gathered on the device), and
// moe_combine_gather_k. (The decoder routes on the device instead: see
// moe_route_k and Linear::forward_selected.)
#pragma once

#include <span>
#include <string>
#include <vector>

#include "k100/model/linear.h"

namespace k100::model {

class MoECombine {
 public:
  MoECombine(Device& dev, int64_t rows, int64_t dim, int64_t n_exp, Workspace* ws = nullptr, std::string tag = "moe");
  // Expert e's [rows][dim] slice of the expert outputs (an expert layer's out_dev).
  uint64_t slot(int64_t e) const;
  uint64_t weights() const { return weights_; }
  // weights_dev [rows][n_exp] (0: the layer's own buffer); returns y [rows][dim].
  uint64_t forward_device(uint64_t weights_dev = 0);
  std::vector<float> forward(std::span<const float> exp_out, std::span<const float> weights);

 private:
  Device& dev_;
  int64_t rows_, dim_, n_exp_;
  WorkspaceRef ws_;
  std::string tag_;
  uint64_t exp_out_ = 0, weights_ = 0, out_ = 0;
  KernelRef kernel_;
  kernels::LaunchContract launch_;  // kernel_'s, from the package
};

struct MoERoute {
  std::vector<int32_t> bucket_rows;  // source row of each bucket entry, stably sorted by expert
  std::vector<int32_t> pos;          // [rows][topk] rank of the assignment in its expert's bucket
  std::vector<float> weights;        // [rows][topk], 0 where invalid
  std::vector<int32_t> offsets;      // [n_exp + 1] prefix sums of the per-expert counts
  std::vector<uint8_t> valid;        // [rows][topk]: 0 <= id < n_exp and weight != 0
};

class MoEExperts {
 public:
  // experts: layers [out_dim][dim] the caller keeps alive.
  MoEExperts(Device& dev, std::vector<Linear*> experts, int64_t rows, int64_t dim, int64_t out_dim, int64_t topk,
             Workspace* ws = nullptr, std::string tag = "moe_experts");
  int64_t topk() const { return topk_; }
  int64_t n_experts() const { return int64_t(experts_.size()); }
  // ids, weights [rows][topk].
  MoERoute route(std::span<const int32_t> ids, std::span<const float> weights) const;
  // y [rows][out_dim] = sum_t weights[r][t] expert_{ids[r][t]}(x[r]).
  uint64_t forward_device(uint64_t x, int64_t rows, std::span<const int32_t> ids, std::span<const float> weights);
  std::vector<float> forward(std::span<const float> x, std::span<const int32_t> ids, std::span<const float> weights);

 private:
  Device& dev_;
  std::vector<Linear*> experts_;
  int64_t rows_, dim_, out_dim_, topk_;
  WorkspaceRef ws_;
  std::string tag_;
};

}  // namespace k100::model
