// The vision-tower family (vision): the vit_* kernels a ViT encoder layer is
// built from. One file per kernel group; this header joins them to the
// family's registration function and holds what their tests share.
#pragma once

#include <vector>

#include "k100/codegen/codegen.h"
#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"

namespace k100::kernels {

void register_vision_elementwise_kernels(
    Registry& r);  // vit_bias_kernel, vit_bias_s_kernel, vit_gelu_kernel
void register_vision_row_kernels(Registry& r);        // vit_ln_kernel, vit_rope_kernel
void register_vision_linear_kernels(Registry& r);     // vit_linear_f16_kernel
void register_vision_attention_kernels(Registry& r);  // vit_attn_kernel

namespace vision {

// The vision-tower shape the bench cases use (a Qwen3-VL / Qwen3.5 vision
// block): 1024 tokens, hidden 1152 = 16 heads x 72, MLP 4304.
inline constexpr int64_t kBenchTokens = 1024, kBenchHidden = 1152, kBenchHeads = 16,
                         kBenchHeadDim = 72, kBenchMlp = 4304;

// An output buffer of n floats followed by guard words, compared after the
// launch: the first n words within `tol` of `want` (exact when tol is), the
// guard words unchanged.
// `initial` (an output's contents before the launch, for in-place kernels)
// followed by the guard words compare_guarded_output checks.
std::vector<float> guarded_copy(const std::vector<float>& initial);

CaseResult compare_guarded_output(std::vector<float> got, const std::vector<float>& want,
                                  const Tolerance& tol);

}  // namespace vision

}  // namespace k100::kernels
