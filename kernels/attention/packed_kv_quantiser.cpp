#include "attention/packed_kv_quantiser.h"

namespace k100::kernels::attention {

using namespace codegen;

void pack_code_bytes(Kernel& k, VGPR word, VGPR codes, int first) {
  const Kernel::Scope scope(k, "pack_code_bytes");
  const VGPR t = k.vgpr(1, "code byte");
  k.v_and_b32(word, 0xff, codes[first]);
  for (int j = 1; j < 3; ++j) {
    k.v_and_b32(t, 0xff, codes[first + j]);
    k.v_lshl_or_b32(word, t, 8 * j, word);
  }
  k.v_lshl_or_b32(word, codes[first + 3], 24, word);  // the shift drops the sign bits
}

VGPR quantise_group_words(Kernel& k, const w4act::GroupQuantiser& q, VGPR src, SGPR group, VGPR dst) {
  const Kernel::Scope scope(k, "quantise_group_words");
  const VGPR x8 = k.vgpr(8, "x"), amax = k.vgpr(1, "amax"), codes = k.vgpr(8, "codes"), words = k.vgpr(2, "words"),
             start = k.vgpr(2, "group start");
  const SGPR left = k.sgpr(1, "units left");
  k.v_mov_b32(start[0], src[0]);
  k.v_mov_b32(start[1], src[1]);
  k.v_mov_b32(amax, 0);
  // Pass 1: the group's max |x|, 8 values per trip.
  k.s_lshr_b32(left, group, 3);
  k.loop_();
  k.s_cmp_eq_u32(left, 0);
  k.break_(Cond::Scc1);
  k.global_load_dwordx4(x8.sub(0, 4), src, off);
  k.global_load_dwordx4(x8.sub(4, 4), src, off, offset(16));
  q.unit_amax(amax, x8, false);
  add_lane_bytes(k, src, 32);
  k.s_sub_u32(left, left, 1);
  k.end_loop();
  const VGPR s = q.scale(amax);
  // Pass 2: the codes, two words per trip.
  k.s_lshr_b32(left, group, 3);
  k.loop_();
  k.s_cmp_eq_u32(left, 0);
  k.break_(Cond::Scc1);
  k.global_load_dwordx4(x8.sub(0, 4), start, off);
  k.global_load_dwordx4(x8.sub(4, 4), start, off, offset(16));
  q.codes(codes, x8, s);
  pack_code_bytes(k, words[0], codes, 0);
  pack_code_bytes(k, words[1], codes, 4);
  k.global_store_dwordx2(dst, words, off);
  add_lane_bytes(k, start, 32);
  add_lane_bytes(k, dst, 8);
  k.s_sub_u32(left, left, 1);
  k.end_loop();
  return s;
}

}  // namespace k100::kernels::attention
