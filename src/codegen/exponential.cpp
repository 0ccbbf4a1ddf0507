#include "k100/codegen/exponential.h"

namespace k100::codegen {

void exp2_scaled_difference(Kernel& k, VGPR dst, Operand a, Operand b, Operand scale) {
  if (b.sreg())
    k.v_subrev_f32(dst, b, a);
  else
    k.v_sub_f32(dst, a, b);
  k.v_mul_f32(dst, scale, dst);
  k.v_exp_f32(dst, dst);
}

void reciprocal_one_plus_exp2(Kernel& k, VGPR dst, Operand scale, VGPR x, int n) {
  for (int c = 0; c < n; ++c) k.v_mul_f32(dst[c], scale, x[c]);
  for (int c = 0; c < n; ++c) k.v_exp_f32(dst[c], dst[c]);
  for (int c = 0; c < n; ++c) k.v_add_f32(dst[c], 1.0f, dst[c]);
  for (int c = 0; c < n; ++c) k.v_rcp_f32(dst[c], dst[c]);
}

}  // namespace k100::codegen
