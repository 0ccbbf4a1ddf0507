// The "other" family (KERNELS.md §3.9) is registered in three parts.
#pragma once

#include "k100/kernels/registry.h"

namespace k100::kernels {

void register_other_softmax_kernels(Registry& r);    // blocked softmax: block_max_k, block_exp_sum_k, reduce_*1_k, div_scalar_k
void register_other_attention_kernels(Registry& r);  // split decode attention: flash_dec_part_k, flash_dec_comb_k
void register_other_kv_kernels(Registry& r);         // KV-cache transposes: vt_scatter_k, vt_scatter_v_k, vt_scatter_v1_k

}  // namespace k100::kernels
