// Other kernels (blocked softmax, split decode attention, KV transposes):
// registered in three parts (see other_families.h).
#include "other_families.h"

namespace k100::kernels {

void register_other_kernels(Registry& r) {
  register_other_softmax_kernels(r);
  register_other_attention_kernels(r);
  register_other_kv_kernels(r);
}

}  // namespace k100::kernels
