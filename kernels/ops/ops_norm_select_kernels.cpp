// Selection: topk_k, router_top10_k, argmax_k, argmax_part_k, argmax_comb_k.
#include "ops_norm_emit.h"
#include "ops_norm_parts.h"

namespace k100::kernels {

void register_ops_norm_select_kernels(Registry& r) { (void)r; }

}  // namespace k100::kernels
