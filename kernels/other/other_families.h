// The "other" family (KERNELS.md §3.9) is registered in three parts; its
// generators share the codegen layer, its tests the kernel test support.
#pragma once

#include "k100/codegen/codegen.h"
#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"

namespace k100::kernels {

// The tests fill each output with a guard value and give it one more element:
// an element the kernel does not write, or one it writes past the end, keeps
// or loses the value. guarded(n): the n + 1 guards of an output of n;
// guarded(want): the expected n outputs and the guard after them.
inline constexpr float kGuardValue = 12345.f;
inline std::vector<float> guarded(size_t n) { return std::vector<float>(n + 1, kGuardValue); }
inline std::vector<float> guarded(std::vector<float> want) {
  want.push_back(kGuardValue);
  return want;
}

void register_other_softmax_kernels(Registry& r);    // blocked softmax: block_max_k, block_exp_sum_k, reduce_*1_k, div_scalar_k
void register_other_attention_kernels(Registry& r);  // split decode attention: flash_dec_part_k, flash_dec_comb_k
void register_other_kv_kernels(Registry& r);         // KV-cache transposes: vt_scatter_k, vt_scatter_v_k, vt_scatter_v1_k

}  // namespace k100::kernels
