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

}  // namespace k100::codegen
