// Registration of the packed-KV attention kernels (query quantiser, KV append, prefill flash attention) and the head/row layout kernels.
#include "attention/packed_kv_kernels.h"

#include "k100/base/error.h"

namespace k100::kernels {

void register_packed_kv_kernels(Registry& r) {
  attention::register_packed_kv_writers(r);
  attention::register_fa_prefill(r);
  attention::register_head_layout(r);
}

}  // namespace k100::kernels
