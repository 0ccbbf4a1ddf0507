#include "gemv/gemv_emit.h"

namespace k100::kernels::gemv {

using namespace as;

EntryRegs entry_regs(bool dispatch_ptr) {
  if (dispatch_ptr) return EntryRegs{s(4, 2), s(6, 2), s(8)};
  return EntryRegs{SGPR{}, s(4, 2), s(6)};
}

void kernel_interface(KernelBuilder& b, bool dispatch_ptr, uint32_t kernarg_size) {
  b.setting(".amdhsa_user_sgpr_private_segment_buffer", 1);
  if (dispatch_ptr) b.setting(".amdhsa_user_sgpr_dispatch_ptr", 1);
  b.setting(".amdhsa_user_sgpr_kernarg_segment_ptr", 1)
      .setting(".amdhsa_system_sgpr_workgroup_id_x", 1)
      .setting(".amdhsa_float_denorm_mode_32", 3)
      .setting(".amdhsa_kernarg_size", kernarg_size);
}

void first_wave_whole(KernelBuilder& b, VGPR local_id, SGPR scratch, VGPR lane, Label exit) {
  // The first active lane of wave w has local id 64 w.
  b.v_readfirstlane_b32(scratch, local_id);
  b.s_cmp_gt_u32(scratch, 63);
  b.s_cbranch_scc1(exit);
  whole_wave_lane_id(b, lane);
}

void whole_wave_lane_id(KernelBuilder& b, VGPR lane) {
  // Lanes a partial wave did not launch exist in hardware; enabling them (as
  // whole-wave mode does) lets the wave cover its full 64-lane pattern.
  b.s_mov_b64(exec, -1);
  b.v_mbcnt_lo_u32_b32(lane, -1, 0);
  b.v_mbcnt_hi_u32_b32(lane, -1, lane);
}

namespace {
// Wait states a DPP read needs after the write of its VGPR, given `between`
// instructions already issued in between.
void dpp_gap(KernelBuilder& b, int between) {
  if (between < 2) b.s_nop(1 - between);
}
}  // namespace

void wave_sum_to_lane63(KernelBuilder& b, const std::vector<VGPR>& accs, const std::vector<VGPR>& copies) {
  const int n = int(accs.size());
  // Steps 1-3: lane i of each 16-lane row gets the sum of lanes i-3..i of the
  // original values (lanes before the row start read 0 with bound_ctrl).
  for (int r = 0; r < n; ++r) b.v_mov_b32(copies[size_t(r)], accs[size_t(r)]);
  for (int shift = 1; shift <= 3; ++shift) {
    // Every VGPR a DPP instruction reads counts, vsrc1 (the accumulator written
    // by the previous step) included.
    dpp_gap(b, n - 1);
    for (int r = 0; r < n; ++r) {
      VGPR a = accs[size_t(r)], c = copies[size_t(r)];
      b.v_add_f32(a, c, shift == 1 ? Arg(c) : Arg(a), row_shr(shift), bound_ctrl());
    }
  }
  // Steps 4-5: lane 15 of each row gets the row's sum; steps 6-7 carry the
  // row sums into lane 63.
  auto round = [&](auto... mods) {
    dpp_gap(b, n - 1);
    for (int r = 0; r < n; ++r) b.v_add_f32(accs[size_t(r)], accs[size_t(r)], accs[size_t(r)], mods...);
  };
  round(row_shr(4), bank_mask(0xe));
  round(row_shr(8), bank_mask(0xc));
  round(row_bcast(15), row_mask(0xa));
  round(row_bcast(31), row_mask(0xc));
}

void octet_sum(KernelBuilder& b, VGPR acc) {
  b.s_nop(1);
  b.v_add_f32(acc, acc, acc, quad_perm(1, 0, 3, 2));
  b.s_nop(1);
  b.v_add_f32(acc, acc, acc, quad_perm(2, 3, 0, 1));
  b.s_nop(1);
  b.v_add_f32(acc, acc, acc, row_half_mirror());  // lane i + lane 7-i of its half-row
}

void scalar_address(KernelBuilder& b, SGPR dst, SGPR base, SGPR a, SGPR bval, int shift) {
  b.s_mul_i32(dst[0], a, bval);
  b.s_mul_hi_u32(dst[1], a, bval);
  if (shift) b.s_lshl_b64(dst, dst, shift);
  b.s_add_u32(dst[0], base[0], dst[0]);
  b.s_addc_u32(dst[1], base[1], dst[1]);
}

}  // namespace k100::kernels::gemv
