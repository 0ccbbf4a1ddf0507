#include "w4act/activation_quantiser.h"

#include <bit>

namespace k100::kernels::w4act {

using namespace codegen;

void divide_f32(Kernel& k, VGPR q, Operand n, Operand d) {
  const Kernel::Scope scope(k, "divide_f32");
  // The scaled operands keep the reciprocal's refinement away from overflow
  // and denormals; div_fmas undoes the scaling (VCC: the numerator's flag) and
  // div_fixup answers zeros, infinities and NaNs.
  const SGPR unused = k.sgpr(2, "denominator flag");
  const VGPR den = k.vgpr(1, "scaled denominator"), num = k.vgpr(1, "scaled numerator"), r = k.vgpr(1, "reciprocal"),
             e = k.vgpr(1, "residual"), t = k.vgpr(1, "quotient");
  k.v_div_scale_f32(den, unused, d, d, n);
  k.v_div_scale_f32(num, vcc, n, d, n);
  k.v_rcp_f32(r, den);
  k.v_fma_f32(e, neg(den), r, 1.0);
  k.v_fma_f32(r, e, r, r);
  k.v_mul_f32(t, num, r);
  k.v_fma_f32(e, neg(den), t, num);
  k.v_fma_f32(t, e, r, t);
  k.v_fma_f32(e, neg(den), t, num);
  k.v_div_fmas_f32(t, e, r, t);
  k.v_div_fixup_f32(q, t, d, n);
}

GroupQuantiser::GroupQuantiser(Kernel& k, CodeRange range, int lanes)
    : k_(k), range_(range), lanes_(lanes) {
  qmax_f32_ = k.vgpr(1, "qmax");
  lo_ = k.vgpr(1, "lowest code");
  hi_ = k.vgpr(1, "highest code");
  k.v_mov_b32(qmax_f32_, std::bit_cast<uint32_t>(float(range.qmax)));
  k.v_mov_b32(lo_, uint32_t(range.lo));
  k.v_mov_b32(hi_, uint32_t(range.qmax));
}

void GroupQuantiser::unit_amax(VGPR amax, VGPR x8, bool first) const {
  const Kernel::Scope scope(k_, "unit_amax");
  if (first)
    k_.v_max3_f32(amax, abs(x8[0]), abs(x8[1]), abs(x8[2]));
  else
    k_.v_max3_f32(amax, amax, abs(x8[0]), abs(x8[1]));
  const int from = first ? 3 : 2;
  for (int i = from; i + 1 < 8; i += 2) k_.v_max3_f32(amax, amax, abs(x8[i]), abs(x8[i + 1]));
  if ((8 - from) % 2) k_.v_max_f32(amax, amax, abs(x8[7]));
}

VGPR GroupQuantiser::scale(VGPR amax) const {
  const Kernel::Scope scope(k_, "group_scale");
  if (lanes_ > 1) lane_reduce(k_, {{ReduceOp::Max, amax}}, lanes_);
  const VGPR q = k_.vgpr(1, "amax / qmax"), s = k_.vgpr(1, "scale");
  divide_f32(k_, q, amax, qmax_f32_);
  k_.v_cmp_lt_f32(vcc, 0, amax);  // an all-zero group has scale 1
  k_.v_cndmask_b32(s, 1.0, q, vcc);
  return s;
}

void GroupQuantiser::codes(VGPR codes8, VGPR x8, VGPR s) const {
  const Kernel::Scope scope(k_, "group_codes");
  const VGPR t = k_.vgpr(1, "x / s");
  for (int i = 0; i < 8; ++i) {
    divide_f32(k_, t, x8[i], s);
    k_.v_rndne_f32(t, t);
    // rint(x / s) is integral: converting first and clamping the int32 gives
    // the clamped float's value (the conversion saturates).
    k_.v_cvt_i32_f32(codes8[i], t);
    k_.v_med3_i32(codes8[i], codes8[i], lo_, hi_);
  }
}

VGPR GroupQuantiser::quantise(VGPR codes8, VGPR x8) const {
  const VGPR amax = k_.vgpr(1, "amax");
  unit_amax(amax, x8);
  const VGPR s = scale(amax);
  codes(codes8, x8, s);
  return s;
}

void GroupQuantiser::nibbles(VGPR word, VGPR codes8) const {
  const Kernel::Scope scope(k_, "pack_nibbles");
  const VGPR t = k_.vgpr(1, "nibble");
  k_.v_and_b32(word, 15, codes8[0]);
  for (int j = 1; j < 7; ++j) {
    k_.v_and_b32(t, 15, codes8[j]);
    k_.v_lshl_or_b32(word, t, 4 * j, word);
  }
  k_.v_lshl_or_b32(word, codes8[7], 28, word);  // the shift drops the sign bits
}

void GroupQuantiser::even_odd_bytes(VGPR even, VGPR odd, VGPR codes8) const {
  const Kernel::Scope scope(k_, "pack_even_odd");
  const VGPR t = k_.vgpr(1, "byte");
  for (int p = 0; p < 2; ++p) {
    const VGPR w = p ? odd : even;
    k_.v_and_b32(w, 0xff, codes8[p]);
    for (int j = 1; j < 3; ++j) {
      k_.v_and_b32(t, 0xff, codes8[p + 2 * j]);
      k_.v_lshl_or_b32(w, t, 8 * j, w);
    }
    k_.v_lshl_or_b32(w, codes8[p + 6], 24, w);
  }
}

VGPR GroupQuantiser::group_sum(VGPR codes8) const {
  const Kernel::Scope scope(k_, "group_sum");
  const VGPR sum = k_.vgpr(1, "code sum");
  k_.v_add_u32(sum, codes8[0], codes8[1]);
  for (int i = 2; i < 8; ++i) k_.v_add_u32(sum, sum, codes8[i]);
  if (lanes_ > 1) {
    // |sum| <= 128 * 128: exact in f32, so the f32 lane reduction is exact.
    const VGPR f = k_.vgpr(1, "code sum f32");
    k_.v_cvt_f32_i32(f, sum);
    lane_reduce(k_, {{ReduceOp::Add, f}}, lanes_);
    k_.v_cvt_i32_f32(sum, f);
  }
  return sum;
}

}  // namespace k100::kernels::w4act
