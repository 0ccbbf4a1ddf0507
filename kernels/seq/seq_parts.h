// The sequence-model family (seq): causal depthwise convolution with carried
// state, the SSM gate, the gated delta rule and the QKV split of the Gated
// DeltaNet layers. One file per kernel group; seq_kernels.cpp registers them.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "k100/base/error.h"
#include "k100/codegen/codegen.h"
#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"
#include "seq_reference.h"

namespace k100::kernels {

void register_seq_conv_kernels(Registry& r);   // conv1d_silu_k, conv_state_update_k
void register_seq_gate_kernels(Registry& r);   // ssm_ab_gate_k
void register_seq_gdn_kernels(Registry& r);    // gdn_k, gdn_k2<32>
void register_seq_split_kernels(Registry& r);  // split_qkv_k
void register_seq_decode_kernels(Registry& r); // gdn_decode_k (one launch per GDN decode step)
void register_seq_decode_gated_kernels(Registry& r);  // gdn_decode_gated_k (the step and its gated RMSNorm)

namespace seq {

// The launch the device's contract gives `lookup` for these sizes.
inline Launch contract_launch(TestDevice& dev, const std::string& lookup, const std::map<std::string, int64_t>& sizes) {
  return dev.launch_contract(lookup).evaluate(sizes);
}

// The sizes and limits of the decode steps' launch contracts (gdn_decode_k,
// gdn_decode_gated_k), before their workgroup and grid lines.
std::string decode_contract_limits();

// A decode step's self-test inputs that do not change from step to step:
// the conv rows and weights, dt_bias, ssm_a and the state.
DecodeInputs random_decode_inputs(Rng& rng, int64_t Hk, int64_t Hv, int64_t K);

}  // namespace seq

}  // namespace k100::kernels
