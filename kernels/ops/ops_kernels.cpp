// Transformer operators: registered in two parts (see ops_families.h).
#include "ops_families.h"

namespace k100::kernels {

void register_ops_kernels(Registry& r) {
  register_ops_norm_kernels(r);
  register_ops_elementwise_kernels(r);
}

}  // namespace k100::kernels
