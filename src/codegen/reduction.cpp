#include "k100/codegen/reduction.h"

#include "k100/codegen/address.h"

#include "k100/base/error.h"

namespace k100::codegen {

using namespace as;

uint32_t identity_bits(ReduceOp op) {
  switch (op) {
    case ReduceOp::Add: return 0;
    case ReduceOp::Max: return 0xff800000u;
    case ReduceOp::Min: return 0x7f800000u;
  }
  return 0;
}

namespace {

// The six butterfly steps; after step s < 4 every lane holds the result of its
// group of 2^(s+1) lanes (16 for the row mirror), steps 4 and 5 carry rows 0+1
// and 2+3 into row 3.
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

int steps_for(int lanes) {
  switch (lanes) {
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    case 16: return 4;
    case 64: return 6;
  }
  throw Error("lane_reduce: groups of " + std::to_string(lanes) + " lanes (2, 4, 8, 16 or 64)");
}

}  // namespace

void lane_reduce(Kernel& k, const std::vector<std::pair<ReduceOp, VGPR>>& values, int lanes) {
  const int steps = steps_for(lanes);
  const Kernel::Scope scope(k, "lane_reduce");
  if (lanes == 64) k.require_whole_wave("lane_reduce");
  for (int step = 0; step < steps; ++step) {
    for (const auto& [op, v] : values)
      butterfly_step(step, [&](auto... mods) { reduce_step(k, op, v, v, v, mods...); });
  }
}

void argmax_merge(Kernel& k, VGPR val, VGPR idx, VGPR ov, VGPR oi) {
  // take (ov, oi) when ov > val, or ov == val and oi < idx
  const Kernel::Scope scope(k, "argmax_merge");
  SGPR mask = k.sgpr(2, "argmax mask");
  k.v_cmp_eq_f32(mask, ov, val);
  k.v_cmp_lt_i32(vcc, oi, idx);
  k.s_and_b64(mask, mask, vcc);
  k.v_cmp_gt_f32(vcc, ov, val);
  k.s_or_b64(vcc, vcc, mask);
  k.v_cndmask_b32(val, val, ov, vcc);
  k.v_cndmask_b32(idx, idx, oi, vcc);
}

void wave_argmax(Kernel& k, VGPR val, VGPR idx) {
  const Kernel::Scope scope(k, "wave_argmax");
  k.require_whole_wave("wave_argmax");
  VGPR tv = k.vgpr(1, "argmax value"), ti = k.vgpr(1, "argmax index");
  for (int step = 0; step < 6; ++step) {
    butterfly_step(step, [&](auto... mods) {
      k.v_mov_b32(tv, val, mods...);
      k.v_mov_b32(ti, idx, mods...);
    });
    argmax_merge(k, val, idx, tv, ti);
  }
}

void store_wave_sum(Kernel& k, VGPR parts, SGPR y, Operand row, bool accumulate, SGPR accumulate_flag) {
  const Kernel::Scope scope(k, "store_wave_sum");
  VGPR total = k.vgpr(1, "row total"), t = k.vgpr(1, "t");
  SGPR sum = k.sgpr(1, "row sum");
  k.v_add_f32(total, parts[0], parts[1]);
  k.v_add_f32(t, parts[2], parts[3]);
  k.v_add_f32(total, total, t);
  lane_reduce(k, {{ReduceOp::Add, total}});
  k.v_readlane_b32(sum, total, 63);
  const SGPR y_row = offset_address(k, y, row, 2);  // y + row * 4, written by lane 0
  k.v_mov_b32(t, 0);
  k.s_mov_b64(exec, 1);
  if (accumulate) {
    k.global_load_dword(total, t, y_row);
    k.v_add_f32(total, sum, total);
  } else if (accumulate_flag.valid()) {
    Label store = k.label("store");
    VGPR old = k.vgpr(1, "y");
    k.v_mov_b32(total, sum);
    k.s_cmp_eq_u32(accumulate_flag, 0);
    k.s_cbranch_scc1(store);
    k.global_load_dword(old, t, y_row);
    k.v_add_f32(total, sum, old);
    k.bind(store);
  } else {
    k.v_mov_b32(total, sum);
  }
  k.global_store_dword(t, total, y_row);
}

SGPR workgroup_reduce(Kernel& k, ReduceOp op, VGPR value, SGPR wave_index, SGPR waves, VGPR lane,
                      uint32_t lds_offset) {
  const Kernel::Scope scope(k, "workgroup_reduce");
  SGPR out = k.sgpr(1, "workgroup total"), save = k.sgpr(2, "saved exec");
  VGPR addr = k.vgpr(1, "lds address"), t = k.vgpr(1, "wave total");
  k.v_readlane_b32(out, value, 63);
  k.v_mov_b32(addr, wave_index);
  k.v_lshlrev_b32(addr, 2, addr);
  k.v_mov_b32(t, out);
  k.s_mov_b64(save, exec);
  k.s_mov_b64(exec, 1);
  k.ds_write_b32(addr, t, offset(lds_offset));
  k.s_mov_b64(exec, save);
  k.s_barrier();
  k.v_mov_b32(t, identity_bits(op));
  k.v_cmp_gt_u32(vcc, waves, lane);
  k.if_(vcc, [&] {
    k.v_lshlrev_b32(addr, 2, lane);
    k.ds_read_b32(t, addr, offset(lds_offset));
  });
  lane_reduce(k, {{op, t}});
  k.v_readlane_b32(out, t, 63);
  return out;
}

std::pair<SGPR, SGPR> workgroup_argmax(Kernel& k, VGPR val, VGPR idx, SGPR wave_index, SGPR waves, VGPR lane,
                                       uint32_t lds_offset, std::optional<Label> others_leave) {
  const Kernel::Scope scope(k, "workgroup_argmax");
  const SGPR best_v = k.sgpr(1, "best value"), best_i = k.sgpr(1, "best index"), tmp = k.sgpr(1, "t"),
             saved = k.sgpr(2, "saved exec");
  const VGPR pair = k.vgpr(2, "pair"), addr = k.vgpr(1, "lds address");
  wave_argmax(k, val, idx);
  k.v_readlane_b32(best_v, val, 63);
  k.v_readlane_b32(best_i, idx, 63);
  k.s_lshl_b32(tmp, wave_index, 3);
  k.v_mov_b32(addr, tmp);
  k.v_mov_b32(pair[0], best_v);
  k.v_mov_b32(pair[1], best_i);
  k.s_mov_b64(saved, exec);
  k.s_mov_b64(exec, 1);
  k.ds_write_b64(addr, pair, offset(lds_offset));
  k.s_mov_b64(exec, saved);
  k.s_barrier();
  if (others_leave) {
    k.s_cmp_lg_u32(wave_index, 0);
    k.s_cbranch_scc1(*others_leave);
  }
  k.v_mov_b32(val, identity_bits(ReduceOp::Max));
  k.v_mov_b32(idx, 0x7fffffff);  // no element
  k.v_cmp_gt_u32(vcc, waves, lane);
  k.if_(vcc, [&] {
    k.v_lshlrev_b32(addr, 3, lane);
    k.ds_read_b64(pair, addr, offset(lds_offset));
    k.v_mov_b32(val, pair[0]);
    k.v_mov_b32(idx, pair[1]);
  });
  wave_argmax(k, val, idx);
  k.v_readlane_b32(best_v, val, 63);
  k.v_readlane_b32(best_i, idx, 63);
  return {best_v, best_i};
}

}  // namespace k100::codegen
