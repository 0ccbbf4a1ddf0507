// The packed-KV attention family's registration parts (KERNELS.md 3.7, 4.6)
// and what their tests share.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "k100/kernels/registry.h"

namespace k100::kernels::attention {

// attn_q_quant_k, kv_append_k_k, kv_append_v_k (packed_kv_append.cpp).
void register_packed_kv_writers(Registry& r);
// fa_int4 (fa_prefill_int8.cpp).
void register_fa_prefill(Registry& r);
// gather_heads_k, scatter_heads_k, gather_rows_k (head_layout_kernels.cpp).
void register_head_layout(Registry& r);

}  // namespace k100::kernels::attention
