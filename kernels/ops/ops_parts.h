// The transformer-operator family (ops) is registered from one file per
// kernel group; its generators share the codegen layer and these options.
#pragma once

#include "k100/codegen/codegen.h"
#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"

namespace k100::kernels {

void register_ops_norm_row_kernels(Registry& r);            // rmsnorm_*, layernorm_k, l2norm_k
void register_ops_norm_softmax_kernels(Registry& r);        // softmax_k, softmax_vec_k
void register_ops_topk_kernels(Registry& r);                // topk_k, router_top10_k
void register_ops_argmax_kernels(Registry& r);              // argmax_k, argmax_part_k, argmax_comb_k
void register_ops_elementwise_stream_kernels(Registry& r);  // fill_k, add_inplace_k, scale_mul_k, *_mul_k
void register_ops_elementwise_concat_kernels(Registry& r);  // concat2_k
void register_ops_elementwise_embed_kernels(Registry& r);   // embed_f16_k, embed_k
void register_ops_elementwise_moe_kernels(Registry& r);     // moe_combine_k, moe_combine_gather_k
void register_ops_elementwise_rope_kernels(Registry& r);    // rope_apply_k, rope_k

namespace ops {
// Every ops kernel accepts workgroups of up to 1024 work-items.
inline codegen::KernelOptions options(uint32_t lds_bytes = 0, int waves_per_simd = 8) {
  return codegen::KernelOptions{.waves_per_simd = waves_per_simd, .lds_bytes = lds_bytes, .max_workgroup = 1024};
}
}  // namespace ops

}  // namespace k100::kernels
