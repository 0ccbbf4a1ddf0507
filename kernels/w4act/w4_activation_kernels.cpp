// Registration of the activation quantisers of the W4 and NVFP4 paths.
#include "k100/kernels/registry.h"

namespace k100::kernels {

void register_w4_activation_kernels(Registry&) {}

}  // namespace k100::kernels
