// The model-layer kernel family (model): what running GGUF decoder models
// needs beyond the other families, one file per kernel group. Every
// generator is on the codegen layer; each file holds the kernels'
// registry entries, host references and tests.
#pragma once

#include <cstring>

#include "k100/codegen/codegen.h"
#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"

namespace k100::kernels {

void register_model_gemv_kernels(Registry& r);       // gemv_grouped_{f32,f16,bf16}_k
void register_model_embed_kernels(Registry& r);      // embed_f32_k, embed_bf16_k
void register_model_rope_kernels(Registry& r);       // qkv_rope_append_k
void register_model_attention_kernels(Registry& r);  // flash_dec_gqa_part_k
void register_model_moe_kernels(Registry& r);        // moe_route_k

namespace model_family {

// Workgroups of up to 1024 work-items unless a kernel says otherwise.
inline codegen::KernelOptions options(uint32_t lds_bytes = 0, int waves_per_simd = 8) {
  return codegen::KernelOptions{.waves_per_simd = waves_per_simd, .lds_bytes = lds_bytes, .max_workgroup = 1024};
}

// The workgroup size x from the hidden block (group_size_x at H + 12).
inline codegen::SGPR group_size_x(codegen::Kernel& k) {
  codegen::SGPR wg = k.sgpr(1, "group size");
  k.s_and_b32(wg, codegen::hidden_block(k)[3], 0xffff);
  return wg;
}

// IEEE half -> float, exact.
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);  // round to nearest even
inline float bf16_to_float(uint16_t b) {
  uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
uint16_t float_to_bf16(float f);  // round to nearest even

uint32_t ceil_div(uint64_t a, uint64_t b);

}  // namespace model_family
}  // namespace k100::kernels
