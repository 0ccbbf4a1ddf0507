#include "ops/ops_elementwise_emit.h"

#include <algorithm>

#include "k100/base/error.h"

namespace k100::kernels::elem {

using namespace as;

SGPR Regs::s(int count) {
  int align = count >= 4 ? 4 : count == 2 ? 2 : 1;
  next_s_ = (next_s_ + align - 1) / align * align;
  SGPR r = as::s(next_s_, count);
  next_s_ += count;
  if (next_s_ > 102) throw Error("elementwise kernel generator: out of SGPRs");
  return r;
}

VGPR Regs::v(int count) {
  VGPR r = as::v(next_v_, count);
  next_v_ += count;
  if (next_v_ > 256) throw Error("elementwise kernel generator: out of VGPRs");
  return r;
}

void kernel_interface(KernelBuilder& b, codeobj::HiddenArgLayout hidden, uint32_t kernarg_size,
                      uint32_t max_workgroup) {
  b.setting(".amdhsa_user_sgpr_private_segment_buffer", 1)
      .setting(".amdhsa_user_sgpr_kernarg_segment_ptr", 1)
      .setting(".amdhsa_system_sgpr_workgroup_id_x", 1)
      .setting(".amdhsa_float_denorm_mode_32", 3);
  if (kernarg_size) b.setting(".amdhsa_kernarg_size", kernarg_size);
  b.hidden_args(hidden);
  b.max_flat_workgroup_size(max_workgroup);
}

void wait_vm(KernelBuilder& b, int n) { b.s_waitcnt(waitcnt(n, 7, 15)); }
void wait_lgkm(KernelBuilder& b, int n) { b.s_waitcnt(waitcnt(63, 7, n)); }

void add64(KernelBuilder& b, SGPR pair, SGPR lo, int hi_imm) {
  b.s_add_u32(pair[0], pair[0], lo);
  b.s_addc_u32(pair[1], pair[1], hi_imm);
}

void add64(KernelBuilder& b, SGPR pair, SGPR value64) {
  b.s_add_u32(pair[0], pair[0], value64[0]);
  b.s_addc_u32(pair[1], pair[1], value64[1]);
}

void scaled_address(KernelBuilder& b, SGPR dst, SGPR base, SGPR a, SGPR b_, int shift) {
  b.s_mul_i32(dst[0], a, b_);
  b.s_mul_hi_u32(dst[1], a, b_);
  if (shift) b.s_lshl_b64(dst, dst, shift);
  b.s_add_u32(dst[0], base[0], dst[0]);
  b.s_addc_u32(dst[1], base[1], dst[1]);
}

void shifted_address(KernelBuilder& b, SGPR dst, SGPR base, SGPR a, int shift) {
  b.s_mov_b32(dst[0], a);
  b.s_mov_b32(dst[1], 0);
  if (shift) b.s_lshl_b64(dst, dst, shift);
  b.s_add_u32(dst[0], base[0], dst[0]);
  b.s_addc_u32(dst[1], base[1], dst[1]);
}

void divider_init(KernelBuilder& b, SGPR d, SGPR z, SGPR neg_scratch, VGPR tmp2) {
  VGPR t = tmp2[0], u = tmp2[1];
  b.v_cvt_f32_u32(t, d);
  b.v_rcp_iflag_f32(t, t);
  b.v_mul_f32(t, 0x4f7ffffe, t);  // 2^32 - 512: the estimate stays below 2^32 / d
  b.v_cvt_u32_f32(t, t);
  b.s_sub_u32(neg_scratch, 0, d);
  b.v_mul_lo_u32(u, neg_scratch, t);  // (-d * z) mod 2^32: the error of the estimate
  b.v_mul_hi_u32(u, t, u);
  b.v_add_u32(t, t, u);
  b.v_readfirstlane_b32(z, t);
}

void divide(KernelBuilder& b, VGPR q, VGPR r, VGPR x, SGPR d, SGPR z, VGPR tmp) {
  b.v_mul_hi_u32(q, x, z);
  b.v_mul_lo_u32(r, q, d);
  b.v_sub_u32(r, x, r);
  for (int step = 0; step < 2; ++step) {
    b.v_cmp_le_u32(vcc, d, r);  // remainder still >= d
    b.v_add_u32(tmp, 1, q);
    b.v_cndmask_b32(q, q, tmp, vcc);
    b.v_subrev_u32(tmp, d, r);
    b.v_cndmask_b32(r, r, tmp, vcc);
  }
}

void divide_scalar(KernelBuilder& b, SGPR q, SGPR n, SGPR d, SGPR z, VGPR tmp4) {
  b.v_mov_b32(tmp4[0], n);
  divide(b, tmp4[1], tmp4[2], tmp4[0], d, z, tmp4[3]);
  b.v_readfirstlane_b32(q, tmp4[1]);
}

void load_hidden(KernelBuilder& b, SGPR hidden8, uint32_t hidden_offset) {
  b.s_load_dwordx8(hidden8, kernarg_ptr(), int(hidden_offset));
}

void grid_geometry(KernelBuilder& b, SGPR hidden8, SGPR total, SGPR wgsize, SGPR first, VGPR lane) {
  // hidden8[0] block_count_x, hidden8[3] = group_size_x | group_size_y << 16,
  // hidden8[4] = group_size_z | remainder_x << 16.
  b.s_and_b32(wgsize, hidden8[3], 0xffff);
  b.s_lshr_b32(total, hidden8[4], 16);
  b.s_mul_i32(hidden8[0], hidden8[0], wgsize);
  b.s_add_u32(total, total, hidden8[0]);
  b.v_readfirstlane_b32(first, local_id());
  b.s_and_b32(first, first, ~63u);
  b.s_mul_i32(hidden8[1], group_id(), wgsize);
  b.s_add_u32(first, first, hidden8[1]);
  b.v_and_b32(lane, 63, local_id());
}

void stride_loop(KernelBuilder& b, const StrideLoop& l, const std::function<void()>& body,
                 const std::function<void()>& advance) {
  Label top = b.label("stride_top"), whole = b.label("stride_whole"), done = b.label("stride_done");
  b.s_mov_b32(l.index, l.first);
  b.bind(top);
  b.s_cmp_ge_u32(l.index, l.count);
  b.s_cbranch_scc1(done);
  b.s_mov_b64(l.save_exec, exec);
  b.s_sub_u32(l.rem, l.count, l.index);
  b.s_cmp_ge_u32(l.rem, 64);
  b.s_cbranch_scc1(whole);
  b.v_cmp_gt_u32(vcc, l.rem, l.lane);  // unit I + lane < count
  b.s_and_b64(exec, exec, vcc);
  b.bind(whole);
  body();
  b.s_mov_b64(exec, l.save_exec);
  advance();
  b.s_add_u32(l.index, l.index, l.total);
  b.s_cbranch_scc0(top);  // no carry: I did not pass 2^32
  b.bind(done);
}

void row_walk(KernelBuilder& b, VGPR unit, SGPR count, const Arg& stride, const std::function<void()>& body) {
  Label top = b.label("row_top"), done = b.label("row_done");
  b.v_mov_b32(unit, local_id());
  b.bind(top);
  b.v_cmp_gt_u32(vcc, count, unit);
  b.s_and_b64(exec, exec, vcc);
  b.s_cbranch_execz(done);
  body();
  b.v_add_u32(unit, stride, unit);
  b.s_branch(top);
  b.bind(done);
}

void batched_walk(KernelBuilder& b, const BatchedWalk& w) {
  Label big = b.label("batch_top"), single = b.label("single_top"), done = b.label("walk_done");
  b.s_mov_b32(w.base, 0);
  b.bind(big);
  b.s_mul_i32(w.tmp, w.threads, w.batch);
  b.s_add_u32(w.tmp, w.base, w.tmp);
  b.s_cmp_gt_u32(w.tmp, w.count);
  b.s_cbranch_scc1(single);
  b.v_add_u32(w.units[0], w.base, local_id());
  for (int j = 1; j < w.batch; ++j) b.v_add_u32(w.units[j], w.threads, w.units[j - 1]);
  for (int j = 0; j < w.batch; ++j) w.load(j, w.units[j]);
  for (int j = 0; j < w.batch; ++j) {
    // VMEM operations complete in issue order: wait until unit j's loads are
    // back, i.e. at most the later units' loads and the stores so far remain.
    wait_vm(b, std::min(63, w.loads * (w.batch - 1 - j) + w.stores * j));
    w.finish(j, w.units[j]);
  }
  b.s_mov_b32(w.base, w.tmp);
  b.s_branch(big);
  b.bind(single);
  b.v_add_u32(w.units[0], w.base, local_id());
  Label top = b.label("single_loop");
  b.bind(top);
  b.v_cmp_gt_u32(vcc, w.count, w.units[0]);
  b.s_and_b64(exec, exec, vcc);
  b.s_cbranch_execz(done);
  w.load(0, w.units[0]);
  wait_vm(b, 0);
  w.finish(0, w.units[0]);
  b.v_add_u32(w.units[0], w.threads, w.units[0]);
  b.s_branch(top);
  b.bind(done);
}

}  // namespace k100::kernels::elem
