// Registration of the vision-tower kernels (family `vision`): the vit_*
// operators of a ViT encoder layer (LayerNorm, f16-weight linear, biases,
// GELU, 2D RoPE, full attention).
#include <algorithm>

#include "k100/kernels/registry.h"
#include "vision_parts.h"

namespace k100::kernels {

namespace vision {

std::vector<float> guarded_copy(const std::vector<float>& initial) {
  std::vector<float> host = guarded(initial.size());
  std::copy(initial.begin(), initial.end(), host.begin());
  return host;
}

CaseResult compare_guarded_output(std::vector<float> got, const std::vector<float>& want,
                                  const Tolerance& tol) {
  CaseResult guard = split_guard(got, want.size());
  CaseResult body = tol.exact() ? compare_bits(got, want) : compare(got, want, tol);
  if (!tol.exact()) body.tolerance = tol;
  return combine({body, guard});
}

}  // namespace vision

void register_vision_kernels(Registry& r) {
  register_vision_elementwise_kernels(r);
  register_vision_row_kernels(r);
  register_vision_linear_kernels(r);
  register_vision_attention_kernels(r);
}

}  // namespace k100::kernels
