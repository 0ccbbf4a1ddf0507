// Registration of the sequence-model kernels (causal convolution, gated delta-net, SSM gate, QKV split).
#include "seq_parts.h"

namespace k100::kernels {

void register_seq_kernels(Registry& r) {
  register_seq_conv_kernels(r);
  register_seq_gate_kernels(r);
  register_seq_gdn_kernels(r);
  register_seq_split_kernels(r);
  register_seq_decode_kernels(r);
  register_seq_decode_gated_kernels(r);
}

}  // namespace k100::kernels
