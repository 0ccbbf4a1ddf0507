// fa_int4 (KERNELS.md 3.7): prefill flash attention over the packed KV cache
// (docs/PACKED_KV.md). Despite the catalog's name the operands are int8
// (KVEL = 4), as in the shipped build.
//
// Workgroup (qb, h) of the 2D grid (ceil(n_q/64), n_heads) takes queries
// i0 = 64 qb .. i0+63 of head h against kv head h / ratio, 256 threads, head
// dim 256. Per 64-key tile (only the tiles the block's last query reaches):
//   1. the K tile (64 rows of 64 words, rows padded to 68 words so the four
//      keys a wave reads at once sit in different banks), its 128 scales, the
//      V tile (16 word rows of 256 dims) and its 256 scales go to LDS;
//   2. scores: thread t takes query row r = t/4 (its 64 query words stay in
//      registers for the whole kernel) and keys c = t%4 + 4m, m < 16: two
//      v_dot4_i32_i8 chains of 32 words (one per 128-dim scale group), then
//      s = (qs0 ks0) f32(dot0) + (qs1 ks1) f32(dot1); masked keys become -inf;
//      the row max over the four lanes of the row (DPP), the running max m',
//      alpha = exp(m - m'), P codes round(127 exp(s - m')) (ties to even, 0..127)
//      to LDS as bytes, alpha to LDS, l = alpha l + sum of the codes;
//   3. P V: thread t takes rows 4R .. 4R+3, R = 4 (t/64) + (t/8) % 4 (the
//      rows its wave scored), and dims 4q + 64k + e (k, e < 4), q = t % 8 +
//      8 ((t/32) % 2), O = alpha O + vsc[d] f32(sum_j P[r][j] V[j][d]) with the
//      integer sums from v_dot4_i32_i8 over words of four keys.
// The next tile's K, V and scales are loaded into registers while this one
// is used (they go to LDS at the top of the next trip), the K words of the
// scores are read one step ahead. Barriers separate the LDS writes of a tile
// from its scores and P V from the next tile's writes; scores and P V need
// none between them (a wave reads only the P rows and alphas it wrote). At
// the end out = O / l for the rows below n_q.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "attention/packed_kv_kernels.h"
#include "k100/codegen/codegen.h"
#include "k100/kernels/test_support.h"
#include "k100/quant/packed_kv.h"

namespace k100::kernels::attention {

namespace {

using namespace codegen;

constexpr int kD = 256;               // head dim
constexpr int kWords = kD / 4;        // words per query / key row
constexpr uint32_t kKRow = 272;       // LDS bytes per K row (68 words)
constexpr uint32_t kLdsK = 0;
constexpr uint32_t kLdsKsc = kLdsK + 64 * kKRow;     // [2][64] f32
constexpr uint32_t kLdsV = kLdsKsc + 512;            // [16][256] words
constexpr uint32_t kLdsVsc = kLdsV + 16 * 1024;      // [256] f32
constexpr uint32_t kPBlock = 272;                    // LDS bytes per block of 4 P rows (padded: banks)
constexpr uint32_t kLdsP = kLdsVsc + 1024;           // [16][272] bytes: rows 4b .. 4b+3 of 64 codes
constexpr uint32_t kLdsAlpha = kLdsP + 16 * kPBlock; // [64] f32
constexpr uint32_t kLdsL = kLdsAlpha + 256;          // [64] f32
constexpr uint32_t kLdsBytes = kLdsL + 256;

// See register_fa_prefill's description.
const Tolerance kFaTolerance{1e-4, 0};

const Signature kFa("fa_int4", {in("q", "u32"), in("qsc", "f32"), in("k", "u32"), in("ksc", "f32"), in("v", "u32"),
                                in("vsc", "f32"), out("out", "f32"), value("n_q", "i32"), value("n_kv", "i32"),
                                value("off", "i32"), value("n_tile", "i32"), value("ratio", "i32"),
                                value("kv_cap", "i32")});

codeobj::CodeObject build_fa(isa::Target target) {
  Kernel k(kFa, target, {.waves_per_simd = 1, .lds_bytes = kLdsBytes, .max_workgroup = 256, .workgroup_dims = 2});
  const SGPR qb = k.workgroup_id(0), h = k.workgroup_id(1), n_q = k.arg("n_q"), n_kv = k.arg("n_kv"),
             off = k.arg("off"), cap = k.arg("kv_cap");
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  const SGPR hk = s1("kv head"), i0 = s1("first query"), tp = s1("TP"), tmp = s1("tmp"), reach = s1("keys reached"),
             ntiles = s1("tiles"), tile = s1("tile"), key0 = s1("first key of the tile");
  const SGPR kg = k.sgpr(2, "K tile"), kscg0 = k.sgpr(2, "K scales g0"), kscg1 = k.sgpr(2, "K scales g1"),
             vg = k.sgpr(2, "V tile"), vscg = k.sgpr(2, "V scales"), qrow = k.sgpr(2, "Q rows"),
             orow = k.sgpr(2, "out rows");
  const VGPR t = k.local_id();
  auto v1 = [&](const char* n) { return k.vgpr(1, n); };
  const VGPR r = v1("row"), c0 = v1("key lane"), tmpv = v1("tmp"), lim = v1("last key of the row"),
             voff = v1("lane offset"), lds_kw = v1("K tile write"), lds_kr = v1("K row read"),
             lds_t = v1("4 t"), lds_p = v1("P write"), key = v1("key"), qs0 = v1("qs0"), qs1 = v1("qs1"),
             m_run = v1("running max"), l_run = v1("running sum"), mt = v1("tile max"), alpha = v1("alpha"),
             csum = v1("code sum"), ks = k.vgpr(2, "key scales"), acc = k.vgpr(2, "dots"), f = k.vgpr(2, "dots f32"),
             sc = k.vgpr(16, "scores"), pc = k.vgpr(16, "P codes"), kw = k.vgpr(8, "K words"), kw2 = k.vgpr(8, "K words 2"),
             lds_ks = v1("key scale read"), lim_rel = v1("last key - first key of the lane"),
             ldr = k.vgpr(4, "tile words"), ldk = k.vgpr(16, "K tile words"), ldv = k.vgpr(16, "V tile words"), lds_prow = v1("P rows read"), pv_block = v1("P V row block"), lds_vd = v1("V dims read"),
             vv = k.vgpr(16, "V words"), vv2 = k.vgpr(16, "V words 2"), pw = k.vgpr(8, "P words"),
             iacc = k.vgpr(16, "P V dots"), vs4 = k.vgpr(4, "V scales"), a4 = k.vgpr(4, "alphas"), ninf = v1("-inf"),
             voff16 = v1("16 t"), voff_s = v1("4 (t % 64)");
  const SGPR step4k = s1("4096");
  std::vector<VGPR> qv, ov;
  for (int i = 0; i < 4; ++i) qv.push_back(k.vgpr(16, "Q words"));
  for (int i = 0; i < 4; ++i) ov.push_back(k.vgpr(16, "O"));  // ov[row i][4k + e]
  auto qword = [&](int w) { return qv[size_t(w / 16)][w % 16]; };

  // ---- scalars: kv head, TP, the tiles this block reaches.
  const Divider by_ratio = make_divider(k, k.arg("ratio"));
  k.s_mov_b32(hk, divide_scalar(k, by_ratio, h));
  k.s_lshl_b32(i0, qb, 6);
  k.s_add_u32(tp, n_q, 63);
  k.s_and_b32(tp, tp, ~63u);
  k.s_add_u32(tmp, i0, 63);                   // the block's last query
  k.s_add_u32(reach, n_q, -1);
  k.s_min_u32(tmp, tmp, reach);
  k.s_add_u32(reach, tmp, off);
  k.s_add_u32(reach, reach, 1);               // keys j <= off + last query
  k.s_min_u32(reach, reach, n_kv);
  k.s_add_u32(ntiles, reach, 63);
  k.s_lshr_b32(ntiles, ntiles, 6);
  k.s_min_u32(ntiles, ntiles, k.arg("n_tile"));

  // ---- per-thread constants.
  k.v_lshrrev_b32(r, 2, t);
  k.v_and_b32(c0, 3, t);
  k.v_add_u32(lim, i0, r);
  k.v_add_u32(lim, off, lim);                 // off + i
  k.s_add_u32(tmp, n_kv, -1);
  k.v_min_u32(lim, tmp, lim);                 // last key the row sees
  k.v_lshlrev_b32(lds_t, 2, t);
  k.v_lshrrev_b32(tmpv, 4, t);
  k.v_mul_u32_u24(lds_kw, kKRow, tmpv);
  k.v_and_b32(tmpv, 15, t);
  k.v_lshl_add_u32(lds_kw, tmpv, 4, lds_kw);  // (t/16) 272 + 16 (t%16)
  k.v_mul_u32_u24(lds_kr, kKRow, c0);         // row c0 of the K tile
  k.v_lshrrev_b32(tmpv, 2, r);
  k.v_mul_u32_u24(lds_p, kPBlock, tmpv);
  k.v_and_b32(tmpv, 3, r);
  k.v_lshl_add_u32(lds_p, tmpv, 6, lds_p);
  k.v_add_u32(lds_p, lds_p, c0);
  k.v_add_u32(lds_p, kLdsP, lds_p);           // P + 272 (r/4) + 64 (r%4) + c0
  // P V lanes: a half-wave covers 8 dim chunks x 4 row blocks, so its V reads
  // hit 8 distinct 16-byte chunks (all 32 banks) and its P reads 4 blocks
  // 272 bytes apart (distinct banks).
  k.v_lshrrev_b32(pv_block, 6, t);
  k.v_bfe_u32(tmpv, t, 3, 2);
  k.v_lshl_add_u32(pv_block, pv_block, 2, tmpv);  // R = 4 (t/64) + (t/8) % 4: rows 4R .. 4R+3
  k.v_mul_u32_u24(lds_prow, kPBlock, pv_block);
  k.v_add_u32(lds_prow, kLdsP, lds_prow);     // P + 272 R
  k.v_and_b32(tmpv, 7, t);
  k.v_bfe_u32(lds_vd, t, 5, 1);
  k.v_lshl_add_u32(lds_vd, lds_vd, 3, tmpv);  // chunk q = t % 8 + 8 ((t/32) % 2)
  k.v_lshlrev_b32(lds_vd, 4, lds_vd);         // 16 q: dims 4 q + 64 kk + e

  // ---- the query row (64 words) and its two scales, once.
  k.s_mul_i32(tmp, h, tp);
  k.s_add_u32(tmp, tmp, i0);
  set_scaled_address(k, qrow, k.arg("q"), tmp, kWords, 2);
  k.v_lshlrev_b32(voff, 8, r);
  for (int i = 0; i < 16; ++i) k.global_load_dwordx4(qv[size_t(i / 4)].sub(4 * (i % 4), 4), voff, qrow, offset(16 * i));
  k.s_lshl_b32(tmp, h, 1);
  k.s_mul_i32(tmp, tmp, tp);
  k.s_add_u32(tmp, tmp, i0);
  const SGPR qsrow = offset_address(k, k.arg("qsc"), tmp, 2);
  k.v_lshlrev_b32(voff, 2, r);
  k.global_load_dword(qs0, voff, qsrow);
  k.s_lshl_b32(tmp, tp, 2);
  add64(k, qsrow, tmp);
  k.global_load_dword(qs1, voff, qsrow);

  // ---- cache pointers of tile 0.
  k.s_mul_i32(tmp, hk, cap);
  set_scaled_address(k, kg, k.arg("k"), tmp, kWords, 2);           // k + 4 (hk kv_cap) 64
  k.s_lshl_b32(tmp, tmp, 1);
  set_offset_address(k, kscg0, k.arg("ksc"), tmp, 2);              // ksc + 4 (2 hk kv_cap)
  k.s_lshl_b32(tmp, cap, 2);
  k.s_mov_b64(kscg1, kscg0);
  add64(k, kscg1, tmp);
  k.s_mul_i32(tmp, hk, cap);
  set_offset_address(k, vg, k.arg("v"), tmp, 8);                   // v + 4 (hk kv_cap/4) 256
  k.s_lshr_b32(tmp, cap, 6);
  k.s_mul_i32(tmp, tmp, hk);
  set_scaled_address(k, vscg, k.arg("vsc"), tmp, kD, 2);           // vsc + 4 (hk kv_cap/64) 256

  k.v_mov_b32(m_run, kNegInfBits);
  k.v_mov_b32(ninf, kNegInfBits);
  k.v_mov_b32(l_run, 0);
  for (auto& o : ov)
    for (int i = 0; i < 16; ++i) k.v_mov_b32(o[i], 0);
  k.s_mov_b32(tile, 0);
  k.s_mov_b32(key0, 0);

  // The next tile's K, V and scales go to registers while this one is used
  // (ldk, ldv, ldr: 35 VGPRs), so their latency hides behind the compute.
  k.v_lshlrev_b32(voff16, 4, t);
  k.v_and_b32(voff_s, 63, t);
  k.v_lshlrev_b32(voff_s, 2, voff_s);
  k.s_mov_b32(step4k, 4096);
  auto fetch = [&] {
    for (int n = 0; n < 4; ++n) {
      k.global_load_dwordx4(ldk.sub(4 * n, 4), voff16, kg);
      k.global_load_dwordx4(ldv.sub(4 * n, 4), voff16, vg);
      add64(k, kg, step4k);  // four times: the next tile
      add64(k, vg, step4k);
    }
    k.global_load_dword(ldr[0], lds_t, vscg);
    k.global_load_dword(ldr[1], voff_s, kscg0);
    k.global_load_dword(ldr[2], voff_s, kscg1);
    add64(k, kscg0, 256);
    add64(k, kscg1, 256);
    add64(k, vscg, 1024);
  };
  fetch();

  k.loop_();
  k.s_cmp_ge_u32(tile, ntiles);
  k.break_(Cond::Scc1);
  // ---- 1. the tile to LDS (after every thread is done with the last one).
  k.s_barrier();
  for (int n = 0; n < 4; ++n) {
    k.ds_write_b128(lds_kw, ldk.sub(4 * n, 4), offset(int(kLdsK + 16 * kKRow * n)));
    k.ds_write_b128(voff16, ldv.sub(4 * n, 4), offset(int(kLdsV + 4096 * n)));
  }
  k.ds_write_b32(lds_t, ldr[0], offset(int(kLdsVsc)));
  k.v_cmp_gt_u32(vcc, 64, t);
  k.if_(vcc);
  k.ds_write_b32(lds_t, ldr[1], offset(int(kLdsKsc)));
  k.ds_write_b32(lds_t, ldr[2], offset(int(kLdsKsc + 256)));
  k.end_if();
  k.s_barrier();
  k.s_add_u32(tile, tile, 1);
  k.s_cmp_lt_u32(tile, ntiles);
  k.if_(Cond::Scc1);
  fetch();
  k.end_if();

  // ---- 2. scores, running max, P codes. 128 steps of 8 K words (key m =
  // step / 8); the words of the next step are read while this one's dot
  // products run (two buffers), so the LDS latency hides behind them.
  const VGPR kwb[2] = {kw, kw2};
  auto read_k = [&](int step, VGPR buf) {
    const int m = step / 8, q = 2 * (step % 8);
    k.ds_read_b128(buf.sub(0, 4), lds_kr, offset(int(kLdsK + 4 * kKRow * m + 16 * q)));
    k.ds_read_b128(buf.sub(4, 4), lds_kr, offset(int(kLdsK + 4 * kKRow * m + 16 * q + 16)));
  };
  k.v_lshlrev_b32(lds_ks, 2, c0);
  k.v_sub_u32(lim_rel, lim, c0);
  k.v_subrev_u32(lim_rel, key0, lim_rel);  // last key - (64 tile + c0), signed
  read_k(0, kwb[0]);
  for (int step = 0; step < 128; ++step) {
    const int m = step / 8, qp = step % 8;
    if (qp == 0) {
      k.ds_read_b32(ks[0], lds_ks, offset(int(kLdsKsc + 16 * m)));
      k.ds_read_b32(ks[1], lds_ks, offset(int(kLdsKsc + 256 + 16 * m)));
    }
    if (step + 1 < 128) read_k(step + 1, kwb[(step + 1) % 2]);
    for (int e = 0; e < 8; ++e) {
      const VGPR a = acc[qp < 4 ? 0 : 1];
      if (e == 0 && qp % 4 == 0)
        k.v_dot4_i32_i8(a, qword(8 * qp), kwb[step % 2][0], 0);  // the group's first: from 0
      else
        dot4_i8(k, a, qword(8 * qp + e), kwb[step % 2][e]);
    }
    if (qp < 7) continue;
    k.v_cvt_f32_i32(f[0], acc[0]);
    k.v_cvt_f32_i32(f[1], acc[1]);
    k.v_mul_f32(ks[0], qs0, ks[0]);
    k.v_mul_f32(ks[1], qs1, ks[1]);
    k.v_mul_f32(sc[m], ks[0], f[0]);
    k.v_fma_f32(sc[m], ks[1], f[1], sc[m]);
    // key = 64 tile + c0 + 4m; masked past the row's last key
    k.v_cmp_le_i32(vcc, 4 * m, lim_rel);  // key 64 tile + c0 + 4m <= the row's last key
    k.v_cndmask_b32(sc[m], ninf, sc[m], vcc);
  }
  k.v_max3_f32(mt, sc[0], sc[1], sc[2]);
  for (int m = 3; m + 1 < 16; m += 2) k.v_max3_f32(mt, mt, sc[m], sc[m + 1]);
  k.v_max_f32(mt, mt, sc[15]);
  lane_reduce(k, {{ReduceOp::Max, mt}}, 4);
  k.v_max_f32(mt, m_run, mt);                                       // m'
  exp2_scaled_difference(k, alpha, m_run, mt, kLog2E);              // exp(m - m')
  k.v_mov_b32(m_run, mt);
  k.v_mov_b32(csum, 0);
  for (int m = 0; m < 16; ++m) {
    exp2_scaled_difference(k, pc[m], sc[m], mt, kLog2E);
    k.v_mul_f32(pc[m], 127.0f, pc[m]);
    k.v_rndne_f32(pc[m], pc[m]);
    k.v_add_f32(csum, csum, pc[m]);
    k.v_cvt_i32_f32(pc[m], pc[m]);
    k.ds_write_b8(lds_p, pc[m], offset(int(4 * m)));
  }
  lane_reduce(k, {{ReduceOp::Add, csum}}, 4);
  k.v_fma_f32(l_run, l_run, alpha, csum);
  k.v_cmp_eq_u32(vcc, 0, c0);
  k.if_(vcc);
  k.v_lshlrev_b32(tmpv, 2, r);
  k.ds_write_b32(tmpv, alpha, offset(int(kLdsAlpha)));
  k.end_if();
  // No barrier: wave w wrote the P rows and alphas 16 w .. 16 w + 15 and P V
  // reads only those (its rows 4R + i, R in 4w .. 4w+3), in order within the wave.

  // ---- 3. P V: rows 4R + i, dims 4q + 64 kk + e.
  k.v_lshlrev_b32(tmpv, 4, pv_block);
  k.ds_read_b128(a4, tmpv, offset(int(kLdsAlpha)));
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 16; ++j) k.v_mul_f32(ov[size_t(i)][j], a4[i], ov[size_t(i)][j]);
  for (int kk = 0; kk < 4; ++kk) {
    for (int half = 0; half < 2; ++half) {
      // V words of rows 8 half .. +7, dims 4 (t%16) + 64 kk .. +3: vv[4 w + e]
      for (int w = 0; w < 8; ++w) {
        const VGPR dst = w < 4 ? vv.sub(4 * w, 4) : vv2.sub(4 * (w - 4), 4);
        k.ds_read_b128(dst, lds_vd, offset(int(kLdsV + 1024 * (8 * half + w) + 256 * kk)));
      }
      for (int i = 0; i < 4; ++i) {
        k.ds_read_b128(pw.sub(0, 4), lds_prow, offset(64 * i + 32 * half));
        k.ds_read_b128(pw.sub(4, 4), lds_prow, offset(64 * i + 32 * half + 16));
        for (int w = 0; w < 8; ++w)
          for (int e = 0; e < 4; ++e)
            if (half == 0 && w == 0)
              k.v_dot4_i32_i8(iacc[4 * i + e], pw[0], vv[e], 0);  // iacc[4 i + e] from 0
            else
              dot4_i8(k, iacc[4 * i + e], pw[w], w < 4 ? vv[4 * w + e] : vv2[4 * (w - 4) + e]);
      }
    }
    k.ds_read_b128(vs4, lds_vd, offset(int(kLdsVsc + 256 * kk)));
    for (int i = 0; i < 4; ++i)
      for (int e = 0; e < 4; ++e) {
        k.v_cvt_f32_i32(iacc[4 * i + e], iacc[4 * i + e]);
        k.v_fma_f32(ov[size_t(i)][4 * kk + e], vs4[e], iacc[4 * i + e], ov[size_t(i)][4 * kk + e]);
      }
  }
  k.s_add_u32(key0, key0, 64);
  k.end_loop();

  // ---- out = O / l for the rows below n_q.
  k.s_barrier();
  k.v_cmp_eq_u32(vcc, 0, c0);
  k.if_(vcc);
  k.v_lshlrev_b32(tmpv, 2, r);
  k.ds_write_b32(tmpv, l_run, offset(int(kLdsL)));
  k.end_if();
  k.s_barrier();
  k.v_lshlrev_b32(tmpv, 4, pv_block);
  k.ds_read_b128(a4, tmpv, offset(int(kLdsL)));
  k.s_mul_i32(tmp, h, n_q);
  k.s_add_u32(tmp, tmp, i0);
  set_scaled_address(k, orow, k.arg("out"), tmp, kD, 2);
  k.v_lshlrev_b32(tmpv, 2, pv_block);                               // first row 4R
  for (int i = 0; i < 4; ++i) {
    k.v_rcp_f32(a4[i], a4[i]);
    k.v_add_u32(key, i0, tmpv);
    k.v_add_u32(key, i, key);
    k.v_cmp_gt_u32(vcc, n_q, key);
    k.if_(vcc);
    // out + 4 ((row) 256 + 4q + 64 kk)
    k.v_add_u32(voff, i, tmpv);
    k.v_lshlrev_b32(voff, 10, voff);
    k.v_add_u32(voff, voff, lds_vd);
    for (int kk = 0; kk < 4; ++kk) {
      for (int e = 0; e < 4; ++e) k.v_mul_f32(ov[size_t(i)][4 * kk + e], a4[i], ov[size_t(i)][4 * kk + e]);
      k.global_store_dwordx4(voff, ov[size_t(i)].sub(4 * kk, 4), orow, offset(256 * kk));
    }
    k.end_if();
  }
  return k.build();
}

// ---------------------------------------------------------------- reference

struct FaShape {
  int64_t n_q, n_kv, off, heads, ratio, cap;
  int64_t tp() const { return (n_q + 63) / 64 * 64; }
  int64_t kv_heads() const { return heads / ratio; }
};

// The packed attention of the semantics, in exact integers and double: per
// row the tiles in order, P codes against the running maximum.
struct FaReference {
  std::vector<float> out;     // [heads][n_q][256]
  std::vector<double> bound;  // allowed |error| per row [heads][n_q]
};

FaReference fa_reference(const FaShape& s, const quant::PackedQuery& q, const quant::PackedKvCache& c) {
  FaReference ref;
  ref.out.assign(size_t(s.heads * s.n_q * kD), 0.0f);
  ref.bound.assign(size_t(s.heads * s.n_q), 0.0);
  std::vector<double> o(kD), sc(64);
  // The codes as plain int8 rows (the dots below are the hot loop of the bench case's check).
  std::vector<int8_t> qc(static_cast<size_t>(s.n_q * kD)), kc(size_t(s.n_kv * kD)), vc(size_t(s.n_kv * kD));
  for (int64_t h = 0; h < s.heads; ++h) {
    const int64_t hk = h / s.ratio;
    for (int64_t i = 0; i < s.n_q; ++i)
      for (int64_t d = 0; d < kD; ++d) qc[size_t(i * kD + d)] = q.code(h, i, d);
    for (int64_t j = 0; j < s.n_kv; ++j)
      for (int64_t d = 0; d < kD; ++d) {
        kc[size_t(j * kD + d)] = c.key_code(hk, j, d);
        vc[size_t(j * kD + d)] = c.value_code(hk, j, d);
      }
    double vmax = 0;
    for (int64_t j = 0; j < s.n_kv; ++j)
      for (int64_t d = 0; d < kD; ++d) vmax = std::max(vmax, std::fabs(double(c.value(hk, j, d))));
    for (int64_t i = 0; i < s.n_q; ++i) {
      const int64_t last = std::min(s.n_kv - 1, s.off + i);  // keys 0..last
      double m = -INFINITY, l = 0;
      int ambiguous = 0;
      std::fill(o.begin(), o.end(), 0.0);
      for (int64_t b = 0; b <= last; b += 64) {
        double mt = -INFINITY;
        for (int64_t jj = 0; jj < 64; ++jj) {
          const int64_t j = b + jj;
          sc[size_t(jj)] = -INFINITY;
          if (j > last) continue;
          double sum = 0;
          for (int64_t g = 0; g < 2; ++g) {
            int32_t dot = 0;
            for (int64_t d = 128 * g; d < 128 * g + 128; ++d) dot += int32_t(qc[size_t(i * kD + d)]) * kc[size_t(j * kD + d)];
            sum += double(q.scale(h, i, 128 * g)) * double(c.key_scale(hk, j, 128 * g)) * double(dot);
          }
          sc[size_t(jj)] = sum;
          mt = std::max(mt, sum);
        }
        const double mn = std::max(m, mt), alpha = std::exp(m - mn);
        int64_t csum = 0;
        std::vector<int32_t> code(64, 0);
        for (int64_t jj = 0; jj < 64; ++jj) {
          if (sc[size_t(jj)] == -INFINITY) continue;
          const double x = 127.0 * std::exp(sc[size_t(jj)] - mn);
          code[size_t(jj)] = int32_t(std::nearbyint(x));
          // within float rounding of a tie: the device may round the other way
          if (std::fabs(x - std::floor(x) - 0.5) < 1e-3) ++ambiguous;
          csum += code[size_t(jj)];
        }
        l = l * alpha + double(csum);
        std::vector<int32_t> pv(kD, 0);
        for (int64_t jj = 0; jj < 64 && b + jj <= last; ++jj)
          for (int64_t d = 0; d < kD; ++d) pv[size_t(d)] += int32_t(code[size_t(jj)]) * vc[size_t((b + jj) * kD + d)];
        for (int64_t d = 0; d < kD; ++d)
          o[size_t(d)] = o[size_t(d)] * alpha + double(c.value_scale(hk, b, d)) * double(pv[size_t(d)]);
        m = mn;
      }
      for (int64_t d = 0; d < kD; ++d) ref.out[size_t((h * s.n_q + i) * kD + d)] = float(o[size_t(d)] / l);
      // f32 scores, exp and sums: 1e-4 of the largest value; a P code that
      // rounds the other way moves the row by at most 2 vmax / l.
      ref.bound[size_t(h * s.n_q + i)] = 1e-4 * vmax + 2.0 * ambiguous * vmax / l;
    }
  }
  return ref;
}

// The largest |a - b| over the outputs, a = the packed reference, b = plain
// float64 attention softmax(q k^T) V (causal, q already scaled) on the
// unquantised values, relative to max |V|: how far the int8 arithmetic is
// from the attention it stands for (a check of the conventions: no scale
// inside, natural exp, the mask, GQA).
double gap_to_plain_attention(const FaShape& s, const std::vector<float>& x, const std::vector<float>& keys,
                              const std::vector<float>& vals, const std::vector<float>& packed) {
  const int64_t hkv = s.kv_heads();
  double worst = 0, vmax = 0;
  for (float v : vals) vmax = std::max(vmax, std::fabs(double(v)));
  std::vector<double> w(size_t(s.n_kv));
  for (int64_t h = 0; h < s.heads; ++h)
    for (int64_t i = 0; i < s.n_q; ++i) {
      const int64_t hk = h / s.ratio, last = std::min(s.n_kv - 1, s.off + i);
      double m = -INFINITY, l = 0;
      for (int64_t j = 0; j <= last; ++j) {
        double dot = 0;
        for (int64_t d = 0; d < kD; ++d)
          dot += double(x[size_t((i * s.heads + h) * kD + d)]) * keys[size_t((j * hkv + hk) * kD + d)];
        w[size_t(j)] = dot;
        m = std::max(m, dot);
      }
      for (int64_t j = 0; j <= last; ++j) l += (w[size_t(j)] = std::exp(w[size_t(j)] - m));
      for (int64_t d = 0; d < kD; ++d) {
        double o = 0;
        for (int64_t j = 0; j <= last; ++j) o += w[size_t(j)] * vals[size_t((j * hkv + hk) * kD + d)];
        worst = std::max(worst, std::fabs(o / l - packed[size_t((h * s.n_q + i) * kD + d)]));
      }
    }
  return worst / vmax;
}

FaShape fa_shape(const Case& c) {
  return {c["n_q"], c["off"] + c["n_q"] + dim(c, "extra", 0), c["off"], c["heads"], c["ratio"], c["cap"]};
}

CaseResult run_fa(TestDevice& dev, const Case& c) {
  const FaShape s = fa_shape(c);
  const std::map<std::string, int64_t> sizes = {{"n_q", s.n_q},         {"n_kv", s.n_kv},   {"off", s.off},
                                                {"n_heads", s.heads},    {"ratio", s.ratio}, {"kv_cap", s.cap}};
  auto with = [&](const char* key, int64_t v) {
    auto m = sizes;
    m[key] = v;
    return m;
  };
  if (auto bad = expect_contract_refusal(dev, "fa_int4", with("n_kv", s.cap + 1), "n_kv_from_1_to_kv_cap")) return *bad;
  if (auto bad = expect_contract_refusal(dev, "fa_int4", with("kv_cap", s.cap + 32), "kv_cap_multiple_of_64")) return *bad;
  if (s.ratio > 1)
    if (auto bad = expect_contract_refusal(dev, "fa_int4", with("n_heads", s.heads + 1), "ratio_divides_n_heads")) return *bad;
  // Queries with the softmax scale 1/sqrt(256) folded in before quantising.
  std::vector<float> x = Rng(c.seed).normal(size_t(s.n_q * s.heads * kD), 0.0f, 2.0f);
  for (float& e : x) e *= 1.0f / 16.0f;
  const quant::PackedQuery q = quant::quantize_query(x, s.n_q, s.heads, kD, 128, s.tp());
  quant::PackedKvCache cache(s.kv_heads(), s.cap, kD, 128);
  const auto keys = Rng(c.seed + 1).normal(size_t(s.n_kv * s.kv_heads() * kD));
  const auto vals = Rng(c.seed + 2).normal(size_t(s.n_kv * s.kv_heads() * kD));
  cache.append_k(keys, 0, s.n_kv);
  // values in two appends, the second the prompt's (as a prefill would)
  cache.append_v(std::span<const float>(vals).first(size_t(s.off * s.kv_heads() * kD)), 0, s.off);
  cache.append_v(std::span<const float>(vals).subspan(size_t(s.off * s.kv_heads() * kD)), s.off, s.n_kv - s.off);
  const FaReference ref = fa_reference(s, q, cache);
  // int8 Q, K, V and P codes (steps of 1/127) stay within a few percent of
  // max |V| of plain attention; only for the small cases (f64 is slow).
  if (s.heads * s.n_q * s.n_kv <= (1 << 20)) {
    const double gap = gap_to_plain_attention(s, x, keys, vals, ref.out);
    if (gap > 0.05) {
      CaseResult bad;
      bad.note = "the packed reference is " + std::to_string(gap) + " max|V| from plain attention";
      return bad;
    }
  }

  DeviceBuffer<uint32_t> dq(dev, q.codes), dk(dev, cache.k_codes), dv(dev, cache.v_codes);
  DeviceBuffer<float> dqs(dev, q.scales), dks(dev, cache.k_scales), dvs(dev, cache.v_scales),
      dout(dev, guarded(ref.out.size()));
  const LaunchContract lc = dev.launch_contract("fa_int4");
  const Launch l = lc.evaluate(sizes);
  launch(dev, "fa_int4", l,
         lc.argv(l, {{"q", dq.addr()}, {"qsc", dqs.addr()}, {"k", dk.addr()}, {"ksc", dks.addr()}, {"v", dv.addr()},
                     {"vsc", dvs.addr()}, {"out", dout.addr()}, {"n_q", i32(s.n_q)}, {"n_kv", i32(s.n_kv)},
                     {"off", i32(s.off)}, {"ratio", i32(s.ratio)}, {"kv_cap", i32(s.cap)}}));
  std::vector<float> got = dout.download();
  CaseResult res = split_guard(got, ref.out.size());
  if (!res.pass && !res.note.empty()) return res;
  res = CaseResult{};
  res.pass = true;
  res.tolerance = kFaTolerance;
  for (size_t e = 0; e < got.size(); ++e) {
    const double err = std::fabs(double(got[e]) - double(ref.out[e])), bound = ref.bound[e / kD];
    res.max_abs = std::max(res.max_abs, err);
    if (std::fabs(ref.out[e]) > 1e-3) res.max_rel = std::max(res.max_rel, err / std::fabs(ref.out[e]));
    ++res.compared;
    if (!(err <= bound) && res.pass) {
      res.pass = false;
      res.note = "out[" + std::to_string(e) + "] (head " + std::to_string(e / kD / size_t(s.n_q)) + ", query " +
                 std::to_string(e / kD % size_t(s.n_q)) + ", d " + std::to_string(e % kD) + ") = " +
                 std::to_string(got[e]) + ", want " + std::to_string(ref.out[e]) + " within " + std::to_string(bound);
    }
  }
  return res;
}

}  // namespace

void register_fa_prefill(Registry& r) {
  KernelDef d = generated_kernel("attention", kFa, build_fa);
  d.description =
      "Prefill flash attention over the packed KV cache (docs/PACKED_KV.md); int8 operands despite the name. "
      "Workgroup (qb, h) takes queries 64 qb .. 64 qb + 63 of head h against kv head h / ratio, one 64-key tile "
      "at a time (only the tiles its last query reaches): integer Q K^T with v_dot4_i32_i8 and one scale per 128 "
      "dims, causal mask (query i sits at absolute position off + i), online softmax whose P is re-quantised to "
      "int8 codes round(127 exp(s - m)) against the running maximum m (p <= 1, so codes 0..127), integer P V "
      "with the per-(tile, d) V scales, out = O / l. No softmax-scale argument: the caller folds 1/sqrt(256) "
      "into the queries before attn_q_quant_k (the tests do). Queries are read with TP = 64 ceil(n_q/64) rows "
      "per head (quantise them with that TP). Tolerance: per row 1e-4 max|V| (f32 scores, exp and sums against "
      "the double reference) plus 2 max|V| / l for every P code whose 127 p lies within 1e-3 of a tie (the "
      "device may round it the other way); the codes, dots and masks are exact.";
  d.semantics =
      "hk = h / ratio; valid(i, j) = j < n_kv and j <= off + i; s(i, j) = sum over g < 2 of qsc[h][g][i] "
      "ksc[hk][g][j] (sum over d in [128 g, 128 g + 128) of q[h][i][d] k[hk][j][d]) (int8 codes); per 64-key "
      "tile b = 0, 1, ... in order: m' = max(m, max_valid s(i, j)), a = exp(m - m'), c(i, j) = "
      "rint(127 exp(s(i, j) - m')) for valid keys, else 0; l = a l + sum_j c(i, j); O[d] = a O[d] + vsc[hk][b][d] "
      "sum_j c(i, j) v[hk][j][d]; m = m' (m starts at -inf, l and O at 0); out[h][i][d] = O[d] / l for i < n_q, "
      "d < 256";
  d.geometry = "[2D] grid = (ceil(n_q/64), n_heads), wg = 256; head_dim 256; n_tile = ceil(n_kv/64)";
  d.launch =
      "sizes n_q n_kv off n_heads ratio kv_cap\nlet n_q_positive = 1 / (n_q >= 1)\n"
      "let kv_cap_multiple_of_64 = 1 / ((kv_cap > 0) * (kv_cap % 64 == 0))\n"
      "let n_kv_from_1_to_kv_cap = 1 / ((n_kv >= 1) * (n_kv <= kv_cap))\nlet off_not_negative = 1 / (off >= 0)\n"
      "let ratio_divides_n_heads = 1 / ((ratio >= 1) * (n_heads % ratio == 0))\narg n_tile = ceil_div(n_kv, 64)\n"
      "workgroup = 256\ngrid = ceil_div(n_q, 64), n_heads";
  d.limits =
      "head_dim 256, scale groups of 128 (fixed); 1 <= n_kv <= kv_cap (refused: n_kv_from_1_to_kv_cap); kv_cap % "
      "64 == 0 (kv_cap_multiple_of_64); n_heads % ratio == 0 (ratio_divides_n_heads); wg = 256 exactly; q with "
      "TP = 64 ceil(n_q/64) rows per head";
  d.tolerance = kFaTolerance;
  d.cases = [](bool) {
    return case_table({"n_q", "off", "heads", "ratio", "cap", "extra"}, {{1, 0, 1, 1, 64, 0},
                                                                          {63, 0, 2, 1, 64, 0},
                                                                          {65, 40, 4, 4, 128, 0},
                                                                          {130, 70, 2, 2, 256, 0},
                                                                          {1, 150, 4, 4, 192, 0},
                                                                          {20, 5, 2, 1, 64, 30}});
  };
  d.run = run_fa;
  d.ideal_bytes = [](const Case& c) {
    const FaShape s = fa_shape(c);
    return uint64_t(s.heads * s.n_q * (kD + 8 + kD * 4)) + uint64_t(s.kv_heads() * s.n_kv * (2 * kD + 8 + 4 * 4));
  };
  d.bench_case = [] {
    return make_case({{"n_q", 512}, {"off", 2048}, {"heads", 24}, {"ratio", 6}, {"cap", 2560}, {"extra", 0}});
  };
  r.add(std::move(d));
}

}  // namespace k100::kernels::attention
