// The transformer-operator family: every kernel group's registration.
#include "ops_parts.h"

namespace k100::kernels {

void register_ops_kernels(Registry& r) {
  register_ops_norm_row_kernels(r);
  register_ops_norm_softmax_kernels(r);
  register_ops_topk_kernels(r);
  register_ops_argmax_kernels(r);
  register_ops_elementwise_stream_kernels(r);
  register_ops_elementwise_concat_kernels(r);
  register_ops_elementwise_embed_kernels(r);
  register_ops_elementwise_moe_kernels(r);
  register_ops_elementwise_rope_kernels(r);
}

}  // namespace k100::kernels
