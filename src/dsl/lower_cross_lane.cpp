// Cross-lane built-ins. They work inside varying control flow, on the lanes
// active there: shuffle reads the source lane's value through
// ds_bpermute_b32 (0 when that lane is inactive); broadcast reads one lane
// (v_readlane_b32; the lane should be active, an inactive one gives its
// stale value); the wave reductions visit the active lanes in ascending
// order with a scalar loop (s_ff1 picks the next lane), so an f32 sum is
// the sequential sum in lane order.
#include "lower.h"
#include "lowering_error.h"

namespace k100::dsl {

Lowerer::Reg Lowerer::cross_lane(const ir::Value& v) {
  Reg r;
  const Scalar t = v.type;
  if (v.builtin == BuiltinId::Shuffle) {
    VGPR a = k_.vgpr(1, "source lane bytes");
    k_.v_lshlrev_b32(a, 2, vec(v.args[1]));
    r = new_vreg("shuffled");
    k_.ds_bpermute_b32(r.v, a, vec(v.args[0]));
    return r;
  }
  if (v.builtin == BuiltinId::Broadcast) {
    SGPR s = k_.sgpr(1, "broadcast");
    k_.v_readlane_b32(s, vec(v.args[0]), sop(v.args[1]));
    if (!v.varying) {
      r.s = s;
      return r;
    }
    r = new_vreg("broadcast");
    k_.v_mov_b32(r.v, s);
    return r;
  }
  // A reduction: acc (a VGPR, the same in every active lane) combined with
  // each active lane's value in turn.
  VGPR x = vec(v.args[0]);
  VGPR acc = k_.vgpr(1, "reduction");
  SGPR rest = k_.sgpr(2, "lanes left"), lane = k_.sgpr(1, "lane"), one = k_.sgpr(1, "lane value");
  const bool sum = v.builtin == BuiltinId::WaveSum, mx = v.builtin == BuiltinId::WaveMax;
  uint32_t identity = 0;
  if (!sum) {
    if (t == Scalar::F32) identity = mx ? 0xff800000u : 0x7f800000u;  // -inf / +inf
    else if (t == Scalar::S32) identity = mx ? 0x80000000u : 0x7fffffffu;
    else identity = mx ? 0u : 0xffffffffu;
  }
  k_.v_mov_b32(acc, identity);
  k_.s_mov_b64(rest, exec);
  k_.loop_();
  k_.s_cmp_eq_u64(rest, 0);
  k_.break_(Cond::Scc1);
  k_.s_ff1_i32_b64(lane, rest);
  k_.v_readlane_b32(one, x, lane);
  // rest &= ~(1 << lane); not s_bitset0_b64, whose destination the layer
  // takes for written only (it is read too), so it may share rest's register
  SGPR bit = k_.sgpr(2, "lane bit");
  k_.s_lshl_b64(bit, 1, lane);
  k_.s_andn2_b64(rest, rest, bit);
  const char* op = nullptr;
  if (t == Scalar::F32) op = sum ? "v_add_f32" : mx ? "v_max_f32" : "v_min_f32";
  else if (sum) op = "v_add_u32";
  else if (t == Scalar::S32) op = mx ? "v_max_i32" : "v_min_i32";
  else op = mx ? "v_max_u32" : "v_min_u32";
  k_.emit(op, {acc, one, acc});
  k_.end_loop();
  return as_value(acc, v.varying);
}

}  // namespace k100::dsl
