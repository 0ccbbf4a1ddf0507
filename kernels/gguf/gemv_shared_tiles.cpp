// Shared tiles of the fast GEMVs (k100/quant/gemv_tile_shares.h): which
// share of which tile a workgroup takes (at the entry), and how the shares'
// partial sums meet in the workspace `ws` (at the end of wave 0).
#include "gemv_skeleton.h"
#include "k100/codegen/division.h"
#include "k100/quant/gemv_tile_shares.h"

namespace k100::kernels::gguf_gemv::skeleton {

using namespace codegen;
using as::offset, as::exec, as::vcc, as::exec_lo, as::exec_hi;

// Shared tiles (k100/quant/gemv_tile_shares.h): with split = S | P << 8 |
// R << 16, P > 1 (at most kGemvMaxShares), 0 < R <= the tiles and one tile
// per workgroup (ws, read at the end, must then be the workspace), workgroup w = P r + q < R P takes share q of the
// tile T - R + r: units [q c, q c + c) of the row, c = ceil(units / P); the
// others take tile w - R P whole. Every wave works it out and keeps the
// record's offset (g R + r) * record bytes, q and P - 1 in lanes 0-2 of a
// VGPR for the end (the offset ~0 when the tile is not shared): a VGPR
// costs the body nothing (the SGPRs are short) and its lanes come back
// without an LDS round trip.
void share_tile(Kernel& k, Entry& en, SGPR split, SGPR per, SGPR units) {
  const SGPR p = k.sgpr(1, "shares"), r = k.sgpr(1, "shared tiles"), tiles = k.sgpr(1, "tiles"),
             t = k.sgpr(1, "t"), record = k.sgpr(1, "record"), q = k.sgpr(1, "share");
  Label whole = k.label("tile not shared");
  k.s_mov_b32(record, ~0u);
  k.s_mov_b32(q, 0);
  k.s_bfe_u32(p, split, 8 | 8 << 16);
  k.s_min_u32(p, p, quant::kGemvMaxShares);
  k.s_lshr_b32(r, split, 16);
  k.s_add_u32(tiles, en.n, 63);
  k.s_lshr_b32(tiles, tiles, 6);
  k.s_cmp_lt_u32(p, 2);
  k.s_cbranch_scc1(whole);
  k.s_cmp_eq_u32(r, 0);
  k.s_cbranch_scc1(whole);
  k.s_cmp_gt_u32(r, tiles);
  k.s_cbranch_scc1(whole);
  k.s_cmp_lg_u32(per, 1);
  k.s_cbranch_scc1(whole);
  k.s_mul_i32(t, r, p);
  Label sharing = k.label("a share");
  k.s_cmp_lt_u32(k.workgroup_id(0), t);
  k.s_cbranch_scc1(sharing);
  k.s_sub_u32(en.tile, k.workgroup_id(0), t);  // the whole tiles after the shares
  k.s_branch(whole);
  k.bind(sharing);
  {
    const Divider d = make_divider(k, p);
    const SGPR rt = divide_scalar(k, d, k.workgroup_id(0));  // the shared tile
    k.s_mul_i32(t, rt, p);
    k.s_sub_u32(q, k.workgroup_id(0), t);
    k.s_sub_u32(en.tile, tiles, r);
    k.s_add_u32(en.tile, en.tile, rt);
    // units [q c, q c + c), clipped to the row
    k.s_add_u32(t, units, p);
    k.s_sub_u32(t, t, 1);
    const SGPR c = divide_scalar(k, d, t);
    k.s_mul_i32(en.unit0, q, c);
    k.s_min_u32(en.unit0, en.unit0, units);
    k.s_add_u32(en.unit1, en.unit0, c);
    k.s_min_u32(en.unit1, en.unit1, units);
    // record (g R + rt) of P 4 256 + 64 bytes
    k.s_mul_i32(record, en.grp, r);
    k.s_add_u32(record, record, rt);
    k.s_mul_i32(t, p, quant::kGemvShareRows * 256);
    k.s_add_u32(t, t, 64);
    k.s_mul_i32(record, record, t);
  }
  k.bind(whole);
  en.share = k.vgpr(1, "share");
  k.s_sub_u32(t, p, 1);
  k.v_mov_b32(en.share, record);
  k.v_writelane_b32(en.share, q, 1);
  k.v_writelane_b32(en.share, t, 2);
  k.v_writelane_b32(en.share, k.kernarg_pointer()[0], 3);
  k.v_writelane_b32(en.share, k.kernarg_pointer()[1], 4);
}

// Shared tiles (k100/quant/gemv_tile_shares.h), the end of wave 0 of a
// share: its partial sums into the tile's record of ws, then the counter;
// the share that brings the counter round (its old value P - 1) adds the P
// partials in share order, whatever order the shares came in, and goes on to
// the store; the others end. Wave 0 of a tile that is not shared branches
// to the store, and so do the storing waves of workgroups with several
// tiles (never shared).
void Body::merge_shares(Label write) {
  // a shared tile is a workgroup's only one: other waves storing hold whole tiles
  k.s_cmp_lg_u32(e_.wave, 0);
  k.s_cbranch_scc1(write);
  const SGPR record = k.sgpr(1, "record"), q = k.sgpr(1, "share"), last = k.sgpr(1, "shares - 1"),
             t = k.sgpr(1, "t");
  k.v_readlane_b32(record, e_.share, 0);
  k.v_readlane_b32(q, e_.share, 1);
  k.v_readlane_b32(last, e_.share, 2);
  k.s_cmp_eq_u32(record, ~0u);
  k.s_cbranch_scc1(write);
  const SGPR base = k.sgpr(2, "record address");
  {
    // ws: asked for only now, over the host link (the first request leaves it
    // out, as every workgroup makes one; a share ends early, while whole
    // tiles still run, so the round trip is hidden)
    const SGPR kp = k.sgpr(2, "kernel arguments"), ws = k.sgpr(2, "ws");
    k.v_readlane_b32(kp[0], e_.share, 3);
    k.v_readlane_b32(kp[1], e_.share, 4);
    k.s_load_dwordx2(ws, kp, int(e_.ws_at));
    k.s_waitcnt(lgkmcnt(0));
    k.s_add_u32(base[0], ws[0], record);
    k.s_addc_u32(base[1], ws[1], 0);
  }
  // share q's rows: q * kGemvShareRows + m
  const uint32_t rows_bytes = quant::kGemvShareRows * 256;  // a share's rows: whatever M, the counter stays put
  const VGPR addr = k.vgpr(1, "partial offset");
  k.s_mul_i32(t, q, rows_bytes);
  k.v_add_u32(addr, t, vofs_[1]);
  for (int m = 0; m < M; ++m) k.global_store_dword(addr, totals_[size_t(m)], base, offset(256 * m));
  k.s_waitcnt(vmcnt(0));  // the partials are in the L2 before the counter says so
  const VGPR at = k.vgpr(1, "counter offset"), wrap = k.vgpr(1, "wrap"), old = k.vgpr(1, "count before");
  k.s_add_u32(t, last, 1);
  k.s_mul_i32(t, t, rows_bytes);
  k.v_mov_b32(at, t);
  k.v_mov_b32(wrap, last);
  k.s_mov_b32(exec_lo, 1);
  k.s_mov_b32(exec_hi, 0);
  k.global_atomic_inc(old, at, wrap, base, as::glc());
  const SGPR before = k.sgpr(1, "count before");
  k.v_readfirstlane_b32(before, old);
  k.s_mov_b64(exec, -1);
  Label mine = k.label("last share");
  k.s_cmp_eq_u32(before, last);
  k.s_cbranch_scc1(mine);
  k.s_endpgm();
  k.bind(mine);
  // Every share's partials (glc: past this CU's L1), then their sum in share order.
  std::vector<std::vector<VGPR>> parts(size_t(quant::kGemvMaxShares));
  Label loaded = k.label("partials loaded"), added = k.label("partials added");
  for (int p = 0; p < quant::kGemvMaxShares; ++p) {
    if (p) {
      k.s_cmp_lt_u32(last, p);
      k.s_cbranch_scc1(loaded);
    }
    const VGPR a = k.vgpr(1, "partial offset");
    k.v_add_u32(a, uint32_t(p) * rows_bytes, vofs_[1]);
    for (int m = 0; m < M; ++m) {
      parts[size_t(p)].push_back(k.vgpr(1, "partial"));
      k.global_load_dword(parts[size_t(p)].back(), a, base, offset(256 * m), as::glc());
    }
  }
  k.bind(loaded);
  k.s_waitcnt(vmcnt(0));
  for (int m = 0; m < M; ++m) k.v_mov_b32(totals_[size_t(m)], parts[0][size_t(m)]);
  for (int p = 1; p < quant::kGemvMaxShares; ++p) {
    k.s_cmp_lt_u32(last, p);
    k.s_cbranch_scc1(added);
    for (int m = 0; m < M; ++m) k.v_add_f32(totals_[size_t(m)], totals_[size_t(m)], parts[size_t(p)][size_t(m)]);
  }
  k.bind(added);
}

}  // namespace k100::kernels::gguf_gemv::skeleton
