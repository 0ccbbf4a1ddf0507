// Registration of INT4 decode GEMVs (W4A4, W4A8).
#include "k100/kernels/registry.h"

namespace k100::kernels {

void register_int4_gemv_kernels(Registry&) {}

}  // namespace k100::kernels
