// Registration of compressed-tensors INT4 decode and dot (W4A16).
#include "k100/kernels/registry.h"

namespace k100::kernels {

void register_int4_dot_kernels(Registry&) {}

}  // namespace k100::kernels
