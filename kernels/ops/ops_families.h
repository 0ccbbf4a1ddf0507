// The transformer-operator family is registered in two parts.
#pragma once

#include "k100/kernels/registry.h"

namespace k100::kernels {

void register_ops_norm_kernels(Registry& r);         // norms, softmax, top-k, router, argmax
void register_ops_elementwise_kernels(Registry& r);  // elementwise, embeddings, RoPE, MoE combine, concat

}  // namespace k100::kernels
