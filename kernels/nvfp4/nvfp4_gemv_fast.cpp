// nvfp4_gemv_fast_k: the NVFP4 decode GEMV for 1..4 activation rows in one
// launch, at the geometry the timing model streams best (our own form beside
// the catalog's nvfp4_gemv<M,NROW>, same arguments plus m).
//
// Units of kFastRows weight rows; workgroup b takes units [b P, b P + P) (P
// from the argument m, bits 8-31) and its wave v the units b P + v, + W, ...
// (W waves). A wave walks its units step by step (a step: 64 G groups of the
// row, as in nvfp4_gemv) with the next step's loads in flight while it
// decodes the current one (two register sets, the loads of the next unit
// issued before the current unit's lane reduction and store). Only wave 0
// reads the arguments over the host link (one 64-byte line) and hands them to
// the others through LDS with the count of the workgroup's lanes, so a
// workgroup costs one argument request and the hidden arguments are not read.
// M (bits 0-7 of m) picks one of four bodies: M = 1, 2 with two groups per
// lane and step (128-bit code loads), M = 3, 4 with one.
#include <algorithm>

#include "nvfp4/nvfp4_gemv_parts.h"
#include "nvfp4/nvfp4_generators.h"

namespace k100::kernels::nvfp4 {

using namespace codegen;

namespace {

constexpr uint32_t kCountLds = 64;

struct Args {
  SGPR wq, ws, ae, ao, asc, y, n, k, inv, m;
};

// Wave 0 reads the 16 argument dwords and passes them on through LDS; every
// wave adds its lanes to a counter. Returns the arguments and the lane count.
Args arguments_through_lds(Kernel& k, SGPR wave, SGPR lanes, VGPR& lane) {
  const SGPR block = k.sgpr(16, "arguments"), mine = k.sgpr(1, "lanes of the wave");
  Label asked = k.label("arguments asked for"), read = k.label("arguments written"), have = k.label("own arguments"),
        copied = k.label("arguments copied");
  k.s_cmp_lg_u32(wave, 0);
  k.s_cbranch_scc1(asked);
  k.s_load_dwordx16(block, k.kernarg_pointer(), 0);
  k.bind(asked);
  k.s_bcnt1_i32_b64(mine, exec);  // the launch's lanes, before whole_wave_lane_id enables all
  lane = whole_wave_lane_id(k);
  const VGPR zero = k.vgpr(1, "zero"), staging = k.vgpr(4, "argument staging"), count = k.vgpr(1, "lane count");
  k.v_mov_b32(zero, 0);
  k.s_cmp_lg_u32(wave, 0);
  k.s_cbranch_scc1(read);
  k.s_mov_b32(exec_lo, 1);
  k.s_mov_b32(exec_hi, 0);
  k.ds_write_b32(zero, zero, offset(kCountLds));
  for (int q = 0; q < 4; ++q) {
    for (int i = 0; i < 4; ++i) k.v_mov_b32(staging[i], block[4 * q + i]);
    k.ds_write_b128(zero, staging, offset(16 * q));
  }
  k.s_mov_b64(exec, -1);
  k.bind(read);
  k.s_barrier();
  k.v_mov_b32(count, mine);
  k.s_mov_b32(exec_lo, 1);
  k.s_mov_b32(exec_hi, 0);
  k.ds_add_u32(zero, count, offset(kCountLds));
  k.s_mov_b64(exec, -1);
  const VGPR copy = k.vgpr(16, "argument copy");
  k.s_cmp_eq_u32(wave, 0);
  k.s_cbranch_scc1(have);
  for (int q = 0; q < 4; ++q) k.ds_read_b128(copy.sub(4 * q, 4), zero, offset(16 * q));
  k.s_barrier();
  k.ds_read_b32(count, zero, offset(kCountLds));
  for (int i = 0; i < 16; ++i) k.v_readfirstlane_b32(block[i], copy[i]);
  k.s_branch(copied);
  k.bind(have);
  k.s_barrier();
  k.ds_read_b32(count, zero, offset(kCountLds));
  k.bind(copied);
  k.v_readfirstlane_b32(lanes, count);
  return Args{block.sub(0, 2), block.sub(2, 2),  block.sub(4, 2), block.sub(6, 2), block.sub(8, 2),
              block.sub(10, 2), block.sub(12, 1), block.sub(13, 1), block.sub(14, 1), block.sub(15, 1)};
}

// The body for one activation row count: the wave's units, two steps in flight.
void fast_body(Kernel& k, const GemvShape& sh, const Args& a, SGPR wave, SGPR waves, SGPR per, VGPR lane,
               Label exit) {
  const int R = sh.rows, G = sh.groups;
  StepMath math(k, sh);
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  const SGPR half = s1("K / 2"), groups = s1("groups"), steps = s1("steps per unit"), last_left = s1("last step groups"),
             units = s1("units"), ue = s1("end unit"), ul = s1("load unit"), uc = s1("unit"), tl = s1("load step"),
             tc = s1("step"), row0 = s1("load row"), valid = s1("load rows"), rowc = s1("row"),
             validc = s1("rows"), t = s1("t");
  const SGPR lmask = k.sgpr(2, "load lanes");
  k.s_lshr_b32(half, a.k, 1);
  k.s_lshr_b32(groups, a.k, 4);
  k.s_add_u32(steps, groups, 64 * G - 1);
  k.s_lshr_b32(steps, steps, G == 2 ? 7 : 6);
  k.s_sub_u32(t, steps, 1);
  k.s_mul_i32(t, t, 64 * G);
  k.s_sub_u32(last_left, groups, t);
  k.s_add_u32(units, a.n, R - 1);
  k.s_lshr_b32(units, units, R == 4 ? 2 : R == 2 ? 1 : 0);
  k.s_mul_i32(ul, k.workgroup_id(), per);
  k.s_add_u32(ue, ul, per);
  k.s_min_u32(ue, ue, units);
  k.s_add_u32(ul, ul, wave);
  k.s_cmp_ge_u32(ul, ue);
  k.s_cbranch_scc1(exit);
  k.s_mov_b32(uc, ul);
  k.s_mov_b32(tl, 0);
  k.s_mov_b32(tc, 0);
  const StepRows rows(k, sh);
  auto start_unit = [&] {
    k.s_mul_i32(row0, ul, R);
    unit_rows(k, sh, rows, row0, valid, a.n, half, groups, a.wq, a.ws);
    activation_rows(k, sh, rows, half, groups, a.ae, a.ao, a.asc);
  };
  start_unit();
  const LaneOffsets offs(k, sh, lane);
  const StepRegs set[2] = {StepRegs(k, sh), StepRegs(k, sh)};
  const VGPR acc = k.vgpr(R * sh.m, "sums");
  for (int i = 0; i < R * sh.m; ++i) k.v_mov_b32(acc[i], 0);

  // The load cursor's next step into `s`; past the wave's last unit the loads run with no lane.
  auto issue = [&](const StepRegs& s) {
    k.s_cmp_lt_u32(ul, ue);
    k.s_cselect_b64(lmask, -1, 0);
    k.s_add_u32(t, tl, 1);
    k.s_cmp_eq_u32(t, steps);
    k.if_(Cond::Scc1);
    s.zero(k);  // lanes past the row's groups add zeros
    k.v_cmp_gt_u32(vcc, last_left, offs.group);
    k.s_and_b64(exec, vcc, lmask);
    load_step(k, sh, s, rows, offs);
    k.s_mov_b64(exec, -1);
    k.else_();
    k.s_mov_b64(exec, lmask);
    load_step(k, sh, s, rows, offs);
    k.s_mov_b64(exec, -1);
    k.end_if();
    k.s_add_u32(tl, tl, 1);
    k.s_cmp_eq_u32(tl, steps);
    k.if_(Cond::Scc1);
    k.s_mov_b32(tl, 0);
    k.s_add_u32(ul, ul, waves);
    start_unit();
    k.else_();
    rows.advance(k, sh);
    k.end_if();
  };
  // The compute cursor's step from `s`; at a unit's end its sums are stored.
  auto compute = [&](const StepRegs& s) {
    math.dots(s, acc);
    k.s_add_u32(tc, tc, 1);
    k.s_cmp_eq_u32(tc, steps);
    k.if_(Cond::Scc1);
    k.s_mul_i32(rowc, uc, R);
    k.s_sub_u32(validc, a.n, rowc);
    k.s_min_u32(validc, validc, R);
    math.store(acc, a.y, a.n, rowc, validc, a.inv);
    for (int i = 0; i < R * sh.m; ++i) k.v_mov_b32(acc[i], 0);
    k.s_add_u32(uc, uc, waves);
    k.s_mov_b32(tc, 0);
    k.end_if();
    k.s_cmp_ge_u32(uc, ue);
    k.break_(Cond::Scc1);
  };
  issue(set[0]);
  k.loop_();
  issue(set[1]);
  compute(set[0]);
  issue(set[0]);
  compute(set[1]);
  k.end_loop();
  k.s_branch(exit);
}

}  // namespace

codeobj::CodeObject build_gemv_fast(isa::Target target) {
  const GemvForm f{1, kFastRows, 2, true};
  Kernel k(gemv_signature(f), target, {.waves_per_simd = 3, .lds_bytes = kCountLds + 4, .max_workgroup = 1024});
  Label exit = k.exit();
  const SGPR wave = wave_index(k), lanes = k.sgpr(1, "lanes"), waves = k.sgpr(1, "waves"), M = k.sgpr(1, "M"),
             per = k.sgpr(1, "units per workgroup");
  VGPR lane;
  const Args a = arguments_through_lds(k, wave, lanes, lane);
  k.s_lshr_b32(waves, lanes, 6);
  k.s_cmp_ge_u32(wave, waves);  // a partial last wave
  k.s_cbranch_scc1(exit);
  k.s_and_b32(M, a.m, 255);
  k.s_lshr_b32(per, a.m, 8);
  for (int m = 1; m <= 4; ++m) {
    Label next = k.label("other row count");
    k.s_cmp_lg_u32(M, m);
    k.s_cbranch_scc1(next);
    fast_body(k, GemvShape{m, kFastRows, m <= 2 ? 2 : 1}, a, wave, waves, per, lane, exit);
    k.bind(next);
  }
  return k.build();
}

}  // namespace k100::kernels::nvfp4
