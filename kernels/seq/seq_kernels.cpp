// Registration of the sequence-model kernels (causal convolution, gated delta-net, SSM gate, QKV split).
#include "k100/kernels/registry.h"

namespace k100::kernels {

void register_seq_kernels(Registry&) {}

}  // namespace k100::kernels
