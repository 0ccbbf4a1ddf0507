// Code-generation pieces the sequence-model kernels share (seq_blocks.h).
#include "seq_blocks.h"

namespace k100::kernels::seq {

using namespace codegen;

namespace {
constexpr float kLn2 = 0.69314718055994531f;
}

void softplus(Kernel& k, VGPR dst, VGPR z) {
  // ln(1 + e^z) = log2(1 + 2^(z log2 e)) ln 2
  k.v_mul_f32(dst, kLog2E, z);
  k.v_exp_f32(dst, dst);
  k.v_add_f32(dst, 1.0f, dst);
  k.v_log_f32(dst, dst);
  k.v_mul_f32(dst, kLn2, dst);
  k.v_cmp_lt_f32(vcc, 20.0f, z);
  k.v_cndmask_b32(dst, dst, z, vcc);
}

KeyHead key_head(Kernel& k, SGPR h, SGPR Hk, SGPR rep, SGPR khmod, Label exit) {
  const SGPR div = k.sgpr(1, "key-head divisor");
  KeyHead r{k.sgpr(1, "key head"), k.sgpr(1, "h mod divisor")};
  k.s_cmp_lg_u32(khmod, 0);
  k.s_cselect_b32(div, Hk, rep);
  k.s_cmp_lt_i32(div, 1);
  k.s_cbranch_scc1(exit);
  const SGPR quot = divide_scalar(k, make_divider(k, div), h);
  k.s_mul_i32(r.rem, quot, div);
  k.s_sub_u32(r.rem, h, r.rem);
  k.s_cmp_lg_u32(khmod, 0);
  k.s_cselect_b32(r.kh, r.rem, quot);
  k.s_cmp_ge_u32(r.kh, Hk);
  k.s_cbranch_scc1(exit);
  return r;
}

void exit_unless_workgroup_128(Kernel& k, Label exit) {
  const uint32_t hidden = k.signature().layout().hidden_start;
  SGPR sizes;  // workgroup_size_x | workgroup_size_y << 16
  if (hidden) {
    sizes = k.kernarg(hidden + 12, 1);  // hidden_group_size_x, _y
  } else {
    sizes = k.sgpr(1, "workgroup size");
    k.s_load_dword(sizes, k.dispatch_pointer(), 0x4);
  }
  k.s_cmp_lg_u32(sizes, 128 | (1u << 16));
  k.s_cbranch_scc1(exit);
}

SliceRule::SliceRule(Kernel& k, SGPR state, SGPR h, SGPR y, int region_a, int region_b)
    : k_(k), region_a_(region_a), region_b_(region_b) {
  tid = k.local_id();
  slice = k.vgpr(1, "slice");
  col = k.vgpr(1, "column");
  cl_ = k.vgpr(1, "column in group");
  lds_ = k.vgpr(1, "lds slot");
  ldsr_ = k.vgpr(1, "lds column");
  offs_ = k.vgpr(4, "row offsets");
  S_ = k.vgpr(16, "state rows 0-15");
  S2_ = k.vgpr(16, "state rows 16-31");
  k_rows = k.vgpr(16, "k 0-15");
  k_rows2 = k.vgpr(16, "k 16-31");
  q_rows = k.vgpr(16, "q 0-15");
  q_rows2 = k.vgpr(16, "q 16-31");
  part_ = k.vgpr(4, "slice parts");
  p0_ = k.vgpr(1, "part even");
  p1_ = k.vgpr(1, "part odd");
  u_ = k.vgpr(1, "u");
  ku_ = k.vgpr(1, "k u");
  const VGPR soff = k.vgpr(1, "state offset");
  k.v_lshrrev_b32(slice, 5, tid);
  k.v_and_b32(cl_, 31, tid);
  k.v_lshl_add_u32(col, y, 5, cl_);  // 32 y + cl
  // element (32 slice + j, col) at ((32 slice + j) D + col) 4 bytes: 16384 bytes per slice; rows 8 apart
  // per offset register (immediate offsets stay below 4096)
  k.v_lshlrev_b32(soff, 14, slice);
  k.v_lshl_add_u32(soff, col, 2, soff);
  for (int r = 0; r < 4; ++r) k.v_add_u32(offs_[r], 4096 * r, soff);
  k.v_lshlrev_b32(lds_, 2, tid);
  k.v_lshlrev_b32(ldsr_, 2, cl_);
  base = offset_address(k, state, h, 16);  // h D D 4 bytes
}

VGPR SliceRule::row(int j) const { return j < 16 ? S_[j] : S2_[j - 16]; }
VGPR SliceRule::k_row(int j) const { return j < 16 ? k_rows[j] : k_rows2[j - 16]; }
VGPR SliceRule::q_row(int j) const { return j < 16 ? q_rows[j] : q_rows2[j - 16]; }

void SliceRule::load(SGPR b) {
  for (int j = 0; j < kSlice; ++j) k_.global_load_dword(row(j), offs_[j / 8], b, offset(kD * 4 * (j % 8)));
}

void SliceRule::store(SGPR b) {
  for (int j = 0; j < kSlice; ++j) k_.global_store_dword(offs_[j / 8], row(j), b, offset(kD * 4 * (j % 8)));
}

// The four slices' parts of one column: write mine, barrier, add all four in slice order.
void SliceRule::column_sum(VGPR dst, VGPR mine, int region) {
  k_.ds_write_b32(lds_, mine, offset(region));
  k_.s_barrier();
  for (int s = 0; s < 4; ++s) k_.ds_read_b32(part_[s], ldsr_, offset(region + 128 * s));
  k_.v_add_f32(dst, part_[0], part_[1]);
  k_.v_add_f32(dst, dst, part_[2]);
  k_.v_add_f32(dst, dst, part_[3]);
}

void SliceRule::step(VGPR decay, Operand beta, VGPR v, VGPR out) {
  Kernel& k = k_;
  k.v_mov_b32(p0_, 0);
  k.v_mov_b32(p1_, 0);
  for (int j = 0; j < kSlice; ++j) k.v_fmac_f32(j % 2 ? p1_ : p0_, k_row(j), row(j));
  k.v_add_f32(p0_, p0_, p1_);
  column_sum(u_, p0_, region_a_);     // kv
  k.v_fma_f32(u_, neg(decay), u_, v);  // v - decay kv
  k.v_mul_f32(u_, beta, u_);
  k.v_mov_b32(p0_, 0);
  k.v_mov_b32(p1_, 0);
  for (int j = 0; j < kSlice; ++j) {
    const VGPR s = row(j);
    k.v_mul_f32(ku_, k_row(j), u_);
    k.v_fma_f32(s, s, decay, ku_);
    k.v_fmac_f32(j % 2 ? p1_ : p0_, q_row(j), s);
  }
  k.v_add_f32(p0_, p0_, p1_);
  column_sum(out, p0_, region_b_);
}

}  // namespace k100::kernels::seq
