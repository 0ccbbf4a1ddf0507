// The fused forms' ends of the fast GEMVs (`<type>_gemv_<fusion>_k`,
// gemv_decoder.h GemvFusion): the SwiGLU form's two matrices gathered, the
// RMS factor, the accumulating form's old y, scaled copy and partial sums
// of squares, and their stores.
#include <algorithm>

#include "gemv_skeleton.h"

namespace k100::kernels::gguf_gemv::skeleton {

using namespace codegen;
using as::offset, as::exec, as::vcc, as::exec_lo, as::exec_hi;

// SwiGlu: a tile has 2S waves, part p = half * S + (share of the row), the
// waves of a tile adjacent; parts 1 .. 2S-1 hand their sums to part 0 through
// LDS (2S - 1 regions per tile), which adds the gate's into the totals and
// the up matrix's into utotals_.
void Body::gather_halves(Label store) {
  auto s1 = [&](const char* name) { return k.sgpr(1, name); };
  const SGPR logp = s1("log2 parts"), parts = s1("parts"), pidx = s1("part of the tile"), region = s1("region"),
             t = s1("t"), v = s1("part");
  const VGPR addr = k.vgpr(1, "lds address"), partial = k.vgpr(1, "partial");
  k.s_ff1_i32_b32(logp, e_.split);
  k.s_add_u32(logp, logp, 1);
  k.s_lshl_b32(parts, e_.split, 1);
  k.s_sub_u32(pidx, parts, 1);
  k.s_and_b32(pidx, pidx, e_.wave);
  Label gather = k.label("gather"), gate = k.label("gate parts"), up = k.label("up parts");
  hand_over(logp, parts, pidx, region, t, addr, gather);
  for (int m = 0; m < M; ++m) {
    utotals_.push_back(k.vgpr(1, "up total"));
    k.v_mov_b32(utotals_.back(), 0);
  }
  k.s_mov_b32(v, 1);
  auto loop = [&](Label top, SGPR end, const std::vector<VGPR>& into, Label done) {
    k.bind(top);
    k.s_cmp_ge_u32(v, end);
    k.s_cbranch_scc1(done);
    for (int m = 0; m < M; ++m) {
      k.ds_read_b32(partial, addr, offset(kReduceLds + 256 * m));
      k.v_add_f32(into[size_t(m)], into[size_t(m)], partial);
    }
    k.v_add_u32(addr, 256 * M, addr);
    k.s_add_u32(v, v, 1);
    k.s_branch(top);
  };
  loop(gate, e_.split, totals_, up);
  loop(up, parts, utotals_, store);
}

// The whole block from LDS into VGPRs at the fused end: its late_arg()s
// then cost no LDS round trip each.
void Body::load_late_args() {
  const int n = int(e_.lds_dwords);
  const VGPR zero = k.vgpr(1, "zero");
  k.v_mov_b32(zero, 0);
  for (int d = 0; d < n;) {
    const int w = std::min(4, n - d);
    late_copy_.push_back(k.vgpr(w, "argument copy"));
    read_arg_dwords(k, late_copy_.back(), zero, d, w);
    d += w;
  }
}

// Arguments of the block in LDS (Entry's offsets), read into SGPRs by the storing wave.
std::vector<SGPR> Body::late_args(const std::vector<std::pair<uint32_t, int>>& args) {
  std::vector<SGPR> out;
  if (!late_copy_.empty()) {
    for (auto [at, dwords] : args) {
      out.push_back(k.sgpr(dwords, "argument"));
      for (int i = 0; i < dwords; ++i) {
        const int d = int(at / 4) + i;
        k.v_readfirstlane_b32(out.back()[i], late_copy_[size_t(d / 4)][d % 4]);
      }
    }
    return out;
  }
  const VGPR zero = k.vgpr(1, "zero");
  k.v_mov_b32(zero, 0);
  std::vector<VGPR> copies;
  for (auto [at, dwords] : args) {
    copies.push_back(k.vgpr(dwords, "argument"));
    if (dwords == 2) k.ds_read_b64(copies.back(), zero, offset(kArgsLds + at));
    else k.ds_read_b32(copies.back(), zero, offset(kArgsLds + at));
  }
  for (size_t a = 0; a < args.size(); ++a) {
    out.push_back(k.sgpr(args[a].second, "argument"));
    for (int i = 0; i < args[a].second; ++i) k.v_readfirstlane_b32(out.back()[i], copies[a][i]);
  }
  return out;
}

// One row: the fused end's inputs, read right after the prologue's loads so
// their round trips overlap the body instead of following it (a wave's end
// would otherwise wait for them once the last weights are in): the RMS
// factor (its partial sums two loads at a time; the VGPRs of the body are
// live here), or Accumulate's old y and, with y_scaled, the scale of the
// lane's row (lanes past the matrix read nothing).
void Body::early_epilogue(SGPR rows_left, SGPR ybase) {
  if (*e_.fusion != GemvFusion::Accumulate) {
    early_r_ = rms_factor(0, {2, 1});
    return;
  }
  early_y_ = k.vgpr(1, "old y");
  early_scale_ = k.vgpr(1, "scale");
  k.v_mov_b32(early_y_, 0);
  k.v_mov_b32(early_scale_, 0);
  k.v_cmp_gt_i32(vcc, rows_left, e_.lane);
  k.if_(vcc, [&] {
    k.global_load_dword(early_y_, vofs_[1], ybase);
    const std::vector<SGPR> a = late_args({{e_.yscaled, 2}, {e_.scale, 2}});
    k.s_cmp_lg_u64(a[0], 0);
    k.if_(Cond::Scc1, [&] {
      const SGPR row = k.sgpr(1, "row");
      k.s_sub_u32(row, e_.n, rows_left);  // 64 tile
      k.global_load_dword(early_scale_, vofs_[1], offset_address(k, a[1], row, 2));
    });
  });
}

// r = 1 / sqrt(sum_p ss[row][p] / k + eps) over the P = ceil(k / 64)
// partial sums of squares of x row m's source (1 when ss = 0), in every
// lane: lane l reads partials l, l + 64, ... (eight loads in flight), and the
// lanes add them up. Row (g, m) of the partials is g * M + m, or m when
// x_stride is 0 (x shared by the groups).
VGPR Body::rms_factor(int m, const std::vector<int>& in_flight) {
  const VGPR r = k.vgpr(1, "rms factor"), sum = k.vgpr(1, "sum of squares"), elem = k.vgpr(1, "partial index"),
             voff = k.vgpr(1, "offset"), t = k.vgpr(1, "t");
  const SGPR row = k.sgpr(1, "partials row"), left = k.sgpr(1, "partials left"), count = k.sgpr(1, "rounds"),
             total = k.sgpr(1, "sum"), p = k.sgpr(1, "partials");
  Label none = k.label("no rms");
  const std::vector<SGPR> a =
      late_args({{e_.s, 2}, {e_.eps, 1}, {e_.k_at, 1}, {e_.grp_at, 1}, {e_.xstride_at, 1}});
  const SGPR ss = a[0], eps = a[1], kcols = a[2];
  k.v_mov_b32(r, 1.0f);
  k.s_cmp_eq_u64(ss, 0);
  k.s_cbranch_scc1(none);
  k.s_mul_i32(row, a[3], M);
  k.s_cmp_eq_u32(a[4], 0);
  k.s_cselect_b32(row, 0, row);
  if (m) k.s_add_u32(row, row, m);
  k.s_add_u32(p, kcols, 63);
  k.s_lshr_b32(p, p, 6);
  k.s_mul_i32(row, row, p);
  const SGPR base = offset_address(k, ss, row, 2);
  k.s_mov_b32(left, p);
  k.s_add_u32(count, p, 63);
  k.s_lshr_b32(count, count, 6);
  k.v_mov_b32(sum, 0);
  countdown_groups(k, count, in_flight, [&](int n) {
    std::vector<VGPR> v;
    for (int j = 0; j < n; ++j) {
      v.push_back(k.vgpr(1, "partial"));
      k.v_mov_b32(v.back(), 0);
      if (j) k.v_add_u32(elem, 64 * j, e_.lane);
      if_lanes_below(k, left, j ? elem : e_.lane, [&] {
        k.v_add_u32(voff, 256 * j, vofs_[1]);
        k.global_load_dword(v.back(), voff, base);
      });
    }
    for (int j = 0; j < n; ++j) k.v_add_f32(sum, sum, v[size_t(j)]);
    add64(k, base, uint32_t(256 * n), 0);
    k.s_sub_u32(left, left, 64 * n);
  });
  lane_reduce(k, {{ReduceOp::Add, sum}});
  k.v_readlane_b32(total, sum, 63);
  k.v_cvt_f32_u32(t, kcols);
  k.v_rcp_f32(t, t);
  k.v_mul_f32(t, total, t);
  k.v_add_f32(t, eps, t);
  k.v_rsq_f32(r, t);
  k.bind(none);
  return r;
}

// The stores of the fused variants (wave 0 of a tile, the sums gathered).
void Body::store_fused(SGPR rows_left, SGPR ybase, SGPR nbytes) {
  const GemvFusion f = *e_.fusion;
  if (f != GemvFusion::Accumulate)
    for (int m = 0; m < M; ++m) {
      const VGPR r = early_r_.valid() ? early_r_ : rms_factor(m);  // a whole-wave reduction: before the row if_
      k.v_mul_f32(totals_[size_t(m)], totals_[size_t(m)], r);
      if (f == GemvFusion::SwiGlu) k.v_mul_f32(utotals_[size_t(m)], utotals_[size_t(m)], r);
    }
  const VGPR old = k.vgpr(1, "y"), t = k.vgpr(1, "t");
  k.v_cmp_gt_i32(vcc, rows_left, e_.lane);
  k.if_(vcc, [&] {
    for (int m = 0; m < M; ++m) {
      const VGPR y = totals_[size_t(m)];
      if (m) add64(k, ybase, nbytes, 0);
      if (f == GemvFusion::Accumulate) {
        if (early_y_.valid()) {
          k.v_add_f32(y, early_y_, y);
        } else {
          k.global_load_dword(old, vofs_[1], ybase);
          k.v_add_f32(y, old, y);
        }
      } else if (f == GemvFusion::SwiGlu) {
        // silu(g) * u = g * u / (1 + 2^(-g log2 e))
        k.v_mul_f32(t, -1.4426950408889634f, y);
        k.v_exp_f32(t, t);
        k.v_add_f32(t, 1.0f, t);
        k.v_rcp_f32(t, t);
        k.v_mul_f32(y, y, utotals_[size_t(m)]);
        k.v_mul_f32(y, y, t);
      }
      k.global_store_dword(vofs_[1], y, ybase);
    }
    if (f == GemvFusion::Accumulate) {
      // y_scaled rows beside y's: (grp * M + m) * n + 64 tile; scale by the row within n
      Label done = k.label("no scaled copy");
      const SGPR zptr = late_arg(e_.yscaled, 2);
      k.s_cmp_eq_u64(zptr, 0);
      k.s_cbranch_scc1(done);
      const SGPR row = k.sgpr(1, "row"), yrow = k.sgpr(1, "y row");
      const SGPR n = late_arg(e_.n_at, 1);
      k.s_sub_u32(row, n, rows_left);  // 64 tile
      k.s_mul_i32(yrow, late_arg(e_.grp_at, 1), M);
      k.s_mul_i32(yrow, yrow, n);
      k.s_add_u32(yrow, yrow, row);
      const SGPR zbase = offset_address(k, zptr, yrow, 2);
      if (early_scale_.valid()) {
        k.v_mov_b32(t, early_scale_);
      } else {
        const SGPR sbase = offset_address(k, late_arg(e_.scale, 2), row, 2);
        k.global_load_dword(t, vofs_[1], sbase);
      }
      for (int m = 0; m < M; ++m) {
        if (m) add64(k, zbase, nbytes, 0);
        k.v_mul_f32(old, totals_[size_t(m)], t);
        k.global_store_dword(vofs_[1], old, zbase);
      }
      k.bind(done);
    }
  });
  if (f == GemvFusion::Accumulate) partial_squares(rows_left);
  k.s_endpgm();
}

// Accumulate with ss != 0: ss[(g * M + m) * tiles + tile] = the sum of the
// squares of the tile's new y rows (the RMS-scaled forms' partials). The
// lanes past the matrix add zeros; lane 0 stores; a wave whose tile is past
// the matrix stores nothing.
void Body::partial_squares(SGPR rows_left) {
  Label done = k.label("no partials");
  const SGPR ss = late_arg(e_.ss_at, 2);
  k.s_cmp_eq_u64(ss, 0);
  k.s_cbranch_scc1(done);
  k.s_cmp_le_i32(rows_left, 0);  // a tile past the matrix has no partial
  k.s_cbranch_scc1(done);
  const SGPR n = late_arg(e_.n_at, 1), tiles = k.sgpr(1, "tiles"), first = k.sgpr(1, "partial"),
             step = k.sgpr(1, "partial row bytes"), v = k.sgpr(1, "sum");
  const VGPR sq = k.vgpr(1, "square"), zero = k.vgpr(1, "zero");
  k.s_add_u32(tiles, n, 63);
  k.s_lshr_b32(tiles, tiles, 6);
  k.s_lshl_b32(step, tiles, 2);
  k.s_mul_i32(first, late_arg(e_.grp_at, 1), M);
  k.s_mul_i32(first, first, tiles);
  k.s_sub_u32(v, n, rows_left);
  k.s_lshr_b32(v, v, 6);  // the tile
  k.s_add_u32(first, first, v);
  const SGPR at = offset_address(k, ss, first, 2);
  k.v_mov_b32(zero, 0);
  for (int m = 0; m < M; ++m) {
    if (m) add64(k, at, step, 0);
    k.v_cmp_gt_i32(vcc, rows_left, e_.lane);
    k.v_mul_f32(sq, totals_[size_t(m)], totals_[size_t(m)]);
    k.v_cndmask_b32(sq, zero, sq, vcc);
    lane_reduce(k, {{ReduceOp::Add, sq}});
    k.v_readlane_b32(v, sq, 63);
    k.v_mov_b32(sq, v);
    k.s_mov_b32(exec_lo, 1);
    k.s_mov_b32(exec_hi, 0);
    k.global_store_dword(zero, sq, at);
    k.s_mov_b64(exec, -1);
  }
  k.bind(done);
}

}  // namespace k100::kernels::gguf_gemv::skeleton
