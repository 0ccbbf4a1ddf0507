// Transformer operators (elementwise): registered from one file per kernel
// group (see ops_elementwise_parts.h).
#include "ops_elementwise_parts.h"
#include "ops_families.h"

namespace k100::kernels {

void register_ops_elementwise_kernels(Registry& r) {
  register_ops_elementwise_stream_kernels(r);
  register_ops_elementwise_concat_kernels(r);
  register_ops_elementwise_embed_kernels(r);
  register_ops_elementwise_moe_kernels(r);
  register_ops_elementwise_rope_kernels(r);
}

}  // namespace k100::kernels
