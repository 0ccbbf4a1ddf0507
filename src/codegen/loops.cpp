#include "k100/codegen/loops.h"

#include <algorithm>
#include <bit>

#include "k100/codegen/address.h"

namespace k100::codegen {

using namespace as;

void exit_unless_first_wave(Kernel& k, Label exit) {
  SGPR first = k.sgpr(1, "first local id");
  k.v_readfirstlane_b32(first, k.local_id());
  k.s_cmp_gt_u32(first, 63);
  k.s_cbranch_scc1(exit);
}

SGPR wave_index(Kernel& k) {
  SGPR w = k.sgpr(1, "wave index");
  k.v_readfirstlane_b32(w, k.local_id());
  k.s_lshr_b32(w, w, 6);
  return w;
}

VGPR whole_wave_lane_id(Kernel& k) {
  VGPR lane = k.vgpr(1, "lane");
  k.s_mov_b64(exec, -1);
  k.v_mbcnt_lo_u32_b32(lane, -1, 0);
  k.v_mbcnt_hi_u32_b32(lane, -1, lane);
  return lane;
}

VGPR lane_of_local_id(Kernel& k) {
  VGPR lane = k.vgpr(1, "lane");
  k.v_and_b32(lane, 63, k.local_id());
  return lane;
}

void if_lanes_below(Kernel& k, Operand limit, VGPR index, const std::function<void()>& body) {
  const Kernel::Scope scope(k, "if_lanes_below");
  k.v_cmp_gt_u32(vcc, limit, index);
  k.if_(vcc, body);
}

SGPR hidden_block(Kernel& k) { return k.kernarg(k.signature().layout().hidden_start, 8); }

Grid grid_geometry(Kernel& k, SGPR h) {
  // h[0] block_count_x, h[3] = group_size_x | group_size_y << 16,
  // h[4] = group_size_z | remainder_x << 16.
  Grid g{k.sgpr(1, "grid threads"), k.sgpr(1, "group size"), k.sgpr(1, "first index"), lane_of_local_id(k)};
  SGPR t = k.sgpr(1, "grid temp");
  k.s_and_b32(g.wgsize, h[3], 0xffff);
  k.s_lshr_b32(g.total, h[4], 16);
  k.s_mul_i32(t, h[0], g.wgsize);
  k.s_add_u32(g.total, g.total, t);
  k.v_readfirstlane_b32(g.first, k.local_id());
  k.s_and_b32(g.first, g.first, ~63u);
  k.s_mul_i32(t, k.workgroup_id(), g.wgsize);
  k.s_add_u32(g.first, g.first, t);
  return g;
}

void stride_loop(Kernel& k, SGPR count, const Grid& g, const std::function<void(SGPR)>& body,
                 const std::function<void()>& advance) {
  const Kernel::Scope scope(k, "stride_loop");
  SGPR index = k.sgpr(1, "stride index"), rem = k.sgpr(1, "units left");
  k.s_mov_b32(index, g.first);
  k.loop_();
  k.s_cmp_ge_u32(index, count);
  k.break_(Cond::Scc1);
  k.s_sub_u32(rem, count, index);
  k.v_cmp_gt_u32(vcc, rem, g.lane);  // unit I + lane < count
  k.if_(vcc, [&] { body(index); });
  advance();
  k.s_add_u32(index, index, g.total);
  k.break_(Cond::Scc1);  // carry: I passed 2^32
  k.end_loop();
}

void lane_walk(Kernel& k, VGPR unit, Operand count, Operand stride, const std::function<void()>& body) {
  const Kernel::Scope scope(k, "lane_walk");
  k.loop_();
  k.v_cmp_le_u32(vcc, count, unit);  // this lane's units are done
  k.break_(vcc);
  body();
  k.v_add_u32(unit, stride, unit);
  k.end_loop();
}

void row_walk(Kernel& k, SGPR count, Operand stride, const std::function<void(VGPR)>& body) {
  const Kernel::Scope scope(k, "row_walk");
  VGPR unit = k.vgpr(1, "unit");
  k.v_mov_b32(unit, k.local_id());
  lane_walk(k, unit, count, stride, [&] { body(unit); });
}

void batched_walk(Kernel& k, const BatchedWalk& w) {
  const Kernel::Scope scope(k, "batched_walk");
  SGPR base = k.sgpr(1, "batch base"), next = k.sgpr(1, "batch end");
  VGPR units = k.vgpr(w.batch, "units");
  k.s_mov_b32(base, 0);
  k.loop_();  // whole batches
  k.s_mul_i32(next, w.threads, w.batch);
  k.s_add_u32(next, base, next);
  k.s_cmp_gt_u32(next, w.count);
  k.break_(Cond::Scc1);
  k.v_add_u32(units[0], base, k.local_id());
  for (int j = 1; j < w.batch; ++j) k.v_add_u32(units[j], w.threads, units[j - 1]);
  for (int j = 0; j < w.batch; ++j) w.load(j, units[j]);
  for (int j = 0; j < w.batch; ++j) w.finish(j, units[j]);
  k.s_mov_b32(base, next);
  k.end_loop();
  k.v_add_u32(units[0], base, k.local_id());
  k.loop_();  // the rest, one unit per thread and trip
  k.v_cmp_le_u32(vcc, w.count, units[0]);
  k.break_(vcc);
  w.load(0, units[0]);
  w.finish(0, units[0]);
  k.v_add_u32(units[0], w.threads, units[0]);
  k.end_loop();
}

void chunk_walk(Kernel& k, const ChunkWalk& w, const std::vector<int>& batches) {
  const Kernel::Scope scope(k, "chunk_walk");
  // Per-batch VGPR offsets: single wave: off[g] = 4 dwords t + 4 round_bytes g
  // (g < ceil(max_batch / 4), immediates cover the rest); multi wave:
  // off[i] = 16 t + 16 W i (max_batch <= 4).
  const int noff = w.single_wave ? (w.max_batch + 3) / 4 : w.max_batch;
  VGPR off = k.vgpr(noff, "chunk offsets");
  SGPR wbytes, scratch = k.sgpr(1, "walk temp");
  k.v_lshlrev_b32(off[0], w.dwords == 4 ? 4 : 2, w.thread);
  if (w.single_wave) {
    for (int g = 1; g < noff; ++g) k.v_add_u32(off[g], 4 * w.round_bytes() * g, off[0]);
  } else {
    wbytes = k.sgpr(1, "W * 16");
    k.s_lshl_b32(wbytes, w.w_threads, 4);
    for (int i = 1; i < noff; ++i) k.v_add_u32(off[i], wbytes, off[i - 1]);
  }
  auto address = [&](int i) -> std::pair<VGPR, int> {
    if (!w.single_wave) return {off[i], 0};
    return {off[i / 4], (i % 4) * w.round_bytes()};
  };
  for (auto [cursor, base] : w.streams) k.s_mov_b64(cursor, base);
  auto advance = [&](Operand bytes) {
    if (w.advance) w.advance(bytes);
    for (auto [cursor, base] : w.streams) add64(k, cursor, bytes);
  };
  for (int B : batches) {
    const int log2b = std::countr_zero(unsigned(B));
    k.loop_();
    if (w.single_wave) {
      k.s_cmp_lt_u32(w.left, 64 * B);
    } else {
      k.s_lshl_b32(scratch, w.w_threads, log2b);
      k.s_cmp_lt_u32(w.left, scratch);
    }
    k.break_(Cond::Scc1);
    for (int i = 0; i < B; ++i) {
      auto [voff, imm] = address(i);
      w.load(i, voff, imm);
    }
    for (int i = 0; i < B; ++i) w.compute(i);
    for (int i = 0; i < B && w.store; ++i) {
      auto [voff, imm] = address(i);
      w.store(i, voff, imm);
    }
    if (w.finish) w.finish(B);
    if (w.single_wave) {
      advance(w.round_bytes() * B);
      k.s_sub_u32(w.left, w.left, 64 * B);
    } else {
      k.s_lshl_b32(scratch, wbytes, log2b);
      advance(scratch);
      k.s_lshl_b32(scratch, w.w_threads, log2b);
      k.s_sub_u32(w.left, w.left, scratch);
    }
    k.end_loop();
  }
  // the partial round: threads t < left
  k.s_cmp_lg_u32(w.left, 0);
  k.if_(Cond::Scc1);
  k.v_cmp_gt_u32(vcc, w.left, w.thread);
  k.if_(vcc);
  w.load(0, off[0], 0);
  w.compute(0);
  if (w.store) w.store(0, off[0], 0);
  if (w.finish) w.finish(1);
  k.end_if();
  k.end_if();
}

void workgroup_elements64(Kernel& k, Operand n, Label exit, const std::function<void(SGPR)>& body) {
  const Kernel::Scope scope(k, "workgroup_elements64");
  SGPR first = k.sgpr(1, "first element"), left = k.sgpr(1, "elements left");
  k.s_cmp_ge_u32(k.workgroup_id(), 1u << 26);
  k.s_cbranch_scc1(exit);  // first element past 2^32 > n
  k.s_lshl_b32(first, k.workgroup_id(), 6);
  k.s_sub_u32(left, n, first);
  k.s_cbranch_scc1(exit);  // workgroup past the end (borrow)
  if_lanes_below(k, left, k.local_id(), [&] {
    body(first);
    k.s_endpgm();  // the wave ends inside the region: no EXEC to restore, so no saved copy stays live through body
  });
}

WorkgroupWaves workgroup_waves(Kernel& k, Label exit) {
  WorkgroupWaves t{k.sgpr(1, "threads"), wave_index(k), k.sgpr(1, "waves"), lane_of_local_id(k)};
  k.s_and_b32(t.threads, k.kernarg(k.signature().layout().hidden_start + 12, 1), 0xffc0);
  k.s_cmp_eq_u32(t.threads, 0);
  k.s_cselect_b32(t.threads, 64, t.threads);
  k.s_lshr_b32(t.waves, t.threads, 6);
  k.s_cmp_ge_u32(t.wave, t.waves);
  k.s_cbranch_scc1(exit);
  return t;
}

void countdown_groups(Kernel& k, SGPR count, const std::vector<int>& sizes, const std::function<void(int n)>& group) {
  const Kernel::Scope scope(k, "countdown_groups");
  for (int n : sizes) {
    k.loop_();
    k.s_cmp_lt_u32(count, n);
    k.break_(Cond::Scc1);
    group(n);
    k.s_sub_u32(count, count, n);
    k.end_loop();
  }
}

void element_tail(Kernel& k, SGPR nq, SGPR rem, VGPR thread, const std::vector<std::pair<SGPR, SGPR>>& streams,
                  const std::function<void(VGPR)>& body) {
  const Kernel::Scope scope(k, "element_tail");
  k.s_cmp_lg_u32(rem, 0);
  k.if_(Cond::Scc1);
  SGPR lo = k.sgpr(1, "tail bytes"), hi = k.sgpr(1, "tail bytes hi");
  k.s_lshl_b32(lo, nq, 4);
  k.s_lshr_b32(hi, nq, 28);
  for (const auto& [stream, base] : streams) {
    k.s_add_u32(stream[0], base[0], lo);
    k.s_addc_u32(stream[1], base[1], hi);
  }
  k.v_cmp_gt_u32(vcc, rem, thread);
  k.if_(vcc);
  VGPR offset = k.vgpr(1, "tail offset");
  k.v_lshlrev_b32(offset, 2, thread);
  body(offset);
  k.end_if();
  k.end_if();
}

}  // namespace k100::codegen
