// Transformer operators (elementwise): definitions, host references and tests.
#include "ops_families.h"

namespace k100::kernels {

void register_ops_elementwise_kernels(Registry& r) { (void)r; }

}  // namespace k100::kernels
