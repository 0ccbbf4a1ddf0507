// The norm / softmax / selection part of the transformer-operator family is
// registered from several files (one per kernel group).
#pragma once

#include "k100/kernels/registry.h"

namespace k100::kernels {

void register_ops_norm_row_kernels(Registry& r);      // rmsnorm_*, layernorm_k, l2norm_k
void register_ops_norm_softmax_kernels(Registry& r);  // softmax_k, softmax_vec_k
void register_ops_norm_select_kernels(Registry& r);   // topk_k, router_top10_k, argmax_*

}  // namespace k100::kernels
