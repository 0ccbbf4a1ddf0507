// Transformer operators (norm): norms, softmax, top-k, router and argmax.
// Definitions, host references and tests live in ops_norm_row_kernels.cpp,
// ops_norm_softmax_kernels.cpp and ops_norm_select_kernels.cpp; the shared
// code generation in ops_norm_emit.cpp.
#include "ops_families.h"
#include "ops_norm_parts.h"

namespace k100::kernels {

void register_ops_norm_kernels(Registry& r) {
  register_ops_norm_row_kernels(r);
  register_ops_norm_softmax_kernels(r);
  register_ops_norm_select_kernels(r);
}

}  // namespace k100::kernels
