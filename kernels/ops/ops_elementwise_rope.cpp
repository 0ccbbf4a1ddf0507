#include "ops_elementwise_parts.h"
namespace k100::kernels {
void register_ops_elementwise_rope_kernels(Registry& r) { (void)r; }
}  // namespace k100::kernels
