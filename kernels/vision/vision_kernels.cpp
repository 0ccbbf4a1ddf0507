// Registration of the vision-tower kernels.
#include "k100/kernels/registry.h"

namespace k100::kernels {

void register_vision_kernels(Registry&) {}

}  // namespace k100::kernels
