// Shared code generation for the row-reduction operators (see ops_norm_emit.h).
#include "ops_norm_emit.h"

#include <bit>
#include <cmath>
#include <limits>

namespace k100::kernels::norm {

using namespace as;

void kernel_interface(KernelBuilder& b, codeobj::HiddenArgLayout hidden, uint32_t lds_bytes, uint32_t max_workgroup,
                      uint32_t kernarg_size) {
  b.setting(".amdhsa_user_sgpr_private_segment_buffer", 1)
      .setting(".amdhsa_user_sgpr_kernarg_segment_ptr", 1)
      .setting(".amdhsa_system_sgpr_workgroup_id_x", 1)
      .setting(".amdhsa_float_denorm_mode_32", 3);
  if (lds_bytes) b.setting(".amdhsa_group_segment_fixed_size", lds_bytes);
  b.setting(".amdhsa_kernarg_size", kernarg_size);
  b.hidden_args(hidden);
  b.max_flat_workgroup_size(max_workgroup);
}

void wait_states(KernelBuilder& b, int n) {
  while (n > 0) {
    int k = n > 8 ? 8 : n;
    b.s_nop(k - 1);
    n -= k;
  }
}

void wait_vm(KernelBuilder& b, int n) { b.s_waitcnt(waitcnt(n > 63 ? 63 : n)); }
void wait_lgkm(KernelBuilder& b, int n) { b.s_waitcnt(waitcnt(63, 7, n)); }

namespace {

// The six butterfly steps; after step 3 every lane holds its row's result,
// steps 4 and 5 carry rows 0+1 and 2+3 into row 3.
template <class F>
void butterfly_step(int step, F&& f) {
  switch (step) {
    case 0: f(quad_perm(1, 0, 3, 2)); break;
    case 1: f(quad_perm(2, 3, 0, 1)); break;
    case 2: f(row_half_mirror()); break;
    case 3: f(row_mirror()); break;
    case 4: f(row_bcast(15), row_mask(0xa)); break;
    default: f(row_bcast(31), row_mask(0xc)); break;
  }
}

}  // namespace

void wave_reduce(KernelBuilder& b, const std::vector<std::pair<Red, VGPR>>& values) {
  int n = int(values.size());
  for (int step = 0; step < 6; ++step) {
    // each value was last written n - 1 instructions ago (2 wait states needed)
    wait_states(b, step == 0 ? 2 : 2 - (n - 1));
    for (const auto& [op, v] : values)
      butterfly_step(step, [&](auto... mods) { red_step(b, op, v, v, v, mods...); });
  }
}

void argmax_merge(KernelBuilder& b, VGPR val, VGPR idx, VGPR ov, VGPR oi, SGPR mask) {
  // take (ov, oi) when ov > val, or ov == val and oi < idx
  b.v_cmp_eq_f32(mask, ov, val);
  b.v_cmp_lt_i32(vcc, oi, idx);
  b.s_and_b64(mask, mask, vcc);
  b.v_cmp_gt_f32(vcc, ov, val);
  b.s_or_b64(vcc, vcc, mask);
  b.v_cndmask_b32(val, val, ov, vcc);
  b.v_cndmask_b32(idx, idx, oi, vcc);
}

void wave_argmax(KernelBuilder& b, VGPR val, VGPR idx, VGPR tv, VGPR ti, SGPR mask) {
  for (int step = 0; step < 6; ++step) {
    // val was written two instructions before the next step's first DPP read
    wait_states(b, step == 0 ? 2 : 1);
    butterfly_step(step, [&](auto... mods) {
      b.v_mov_b32(tv, val, mods...);
      b.v_mov_b32(ti, idx, mods...);
    });
    argmax_merge(b, val, idx, tv, ti, mask);
  }
}

void row_address(KernelBuilder& b, SGPR dst, SGPR base, SGPR index, SGPR count, int shift, SGPR tmp2) {
  b.s_mul_i32(tmp2[0], index, count);
  b.s_mul_hi_u32(tmp2[1], index, count);
  if (shift) b.s_lshl_b64(tmp2, tmp2, shift);
  b.s_add_u32(dst[0], base[0], tmp2[0]);
  b.s_addc_u32(dst[1], base[1], tmp2[1]);
}

void add64(KernelBuilder& b, SGPR pair, const Arg& value) {
  b.s_add_u32(pair[0], pair[0], value);
  b.s_addc_u32(pair[1], pair[1], 0);
}

void chunk_offsets(KernelBuilder& b, const ChunkWalk& w) {
  b.v_lshlrev_b32(w.offsets[0], w.dwords == 4 ? 4 : 2, w.thread);
  if (w.single_wave) {
    for (int g = 1; g < (w.max_batch + 3) / 4; ++g) b.v_add_u32(w.offsets[g], 4 * w.round_bytes() * g, w.offsets[0]);
  } else {
    for (int i = 1; i < w.max_batch; ++i) b.v_add_u32(w.offsets[i], w.w_bytes16, w.offsets[i - 1]);
  }
}

void chunk_walk(KernelBuilder& b, const ChunkWalk& w, const std::vector<int>& batches) {
  for (int B : batches) {
    int log2b = std::countr_zero(unsigned(B));
    Label top = b.label("batch" + std::to_string(B)), done = b.label("batch" + std::to_string(B) + "_done");
    b.bind(top);
    if (w.single_wave) {
      b.s_cmp_lt_u32(w.left, 64 * B);
    } else {
      b.s_lshl_b32(w.scratch, w.w_threads, log2b);
      b.s_cmp_lt_u32(w.left, w.scratch);
    }
    b.s_cbranch_scc1(done);
    for (int i = 0; i < B; ++i) {
      auto [voff, imm] = w.address(i);
      w.load(i, voff, imm);
    }
    for (int i = 0; i < B; ++i) {
      wait_vm(b, (B - 1 - i) * w.loads_per_chunk);
      w.compute(i);
    }
    if (w.finish) w.finish(B);
    if (w.single_wave) {
      w.advance(Arg(w.round_bytes() * B));
      b.s_sub_u32(w.left, w.left, 64 * B);
    } else {
      b.s_lshl_b32(w.scratch, w.w_bytes16, log2b);
      w.advance(Arg(w.scratch));
      b.s_lshl_b32(w.scratch, w.w_threads, log2b);
      b.s_sub_u32(w.left, w.left, w.scratch);
    }
    b.s_branch(top);
    b.bind(done);
  }
  // the partial round: threads t < left
  Label end = b.label("partial_done");
  b.s_cmp_eq_u32(w.left, 0);
  b.s_cbranch_scc1(end);
  b.v_cmp_gt_u32(vcc, w.left, w.thread);
  b.s_and_saveexec_b64(w.save_exec, vcc);
  w.load(0, w.offsets[0], 0);
  wait_vm(b, 0);
  w.compute(0);
  if (w.finish) w.finish(1);
  b.s_mov_b64(exec, w.save_exec);
  b.bind(end);
}

void workgroup_reduce(KernelBuilder& b, Red op, VGPR value, VGPR tmp, SGPR out, SGPR wave_index, SGPR waves,
                      SGPR save_exec, VGPR lane) {
  b.v_readlane_b32(out, value, 63);
  b.v_mov_b32(value, wave_index);
  b.v_lshlrev_b32(value, 2, value);
  b.v_mov_b32(tmp, out);
  b.s_mov_b64(save_exec, exec);
  b.s_mov_b64(exec, 1);
  b.ds_write_b32(value, tmp);
  b.s_mov_b64(exec, save_exec);
  wait_lgkm(b, 0);
  b.s_barrier();
  if (op == Red::Add)
    b.v_mov_b32(tmp, 0);
  else
    b.v_mov_b32(tmp, kNegInfBits);
  b.v_cmp_gt_u32(vcc, waves, lane);
  b.s_and_saveexec_b64(save_exec, vcc);
  b.v_lshlrev_b32(value, 2, lane);
  b.ds_read_b32(tmp, value);
  wait_lgkm(b, 0);
  b.s_mov_b64(exec, save_exec);
  wave_reduce(b, {{op, tmp}});
  b.v_readlane_b32(out, tmp, 63);
}

void udiv32(KernelBuilder& b, SGPR q, SGPR n, SGPR d, VGPR t) {
  // estimate in f64 (exact operands, error far below 1), then one correction each way
  b.v_cvt_f64_u32(t.sub(0, 2), n);
  b.v_cvt_f64_u32(t.sub(2, 2), d);
  b.v_rcp_f64(t.sub(4, 2), t.sub(2, 2));
  for (int i = 0; i < 2; ++i) {  // Newton steps: the estimate stays exact to far below 1 whatever rcp's accuracy
    b.v_fma_f64(t.sub(6, 2), neg(t.sub(2, 2)), t.sub(4, 2), 1.0);
    b.v_fma_f64(t.sub(4, 2), t.sub(4, 2), t.sub(6, 2), t.sub(4, 2));
  }
  b.v_mul_f64(t.sub(4, 2), t.sub(0, 2), t.sub(4, 2));
  b.v_cvt_u32_f64(t[6], t.sub(4, 2));
  b.v_mul_lo_u32(t[7], t[6], d);
  b.v_cmp_lt_u32(vcc, n, t[7]);  // estimate * d > n: one too many
  b.v_add_u32(t[8], -1, t[6]);
  b.v_cndmask_b32(t[6], t[6], t[8], vcc);
  b.v_mul_lo_u32(t[7], t[6], d);
  b.v_sub_u32(t[7], n, t[7]);
  b.v_cmp_le_u32(vcc, d, t[7]);  // remainder >= d: one too few
  b.v_add_u32(t[8], 1, t[6]);
  b.v_cndmask_b32(t[6], t[6], t[8], vcc);
  b.v_readfirstlane_b32(q, t[6]);
}

}  // namespace k100::kernels::norm
