// Split decode attention (KERNELS.md §3.9): flash_dec_part_k, flash_dec_comb_k.
#include "k100/kernels/registry.h"
#include "other_families.h"

namespace k100::kernels {

void register_other_attention_kernels(Registry& r) { (void)r; }

}  // namespace k100::kernels
