// gdn_decode_gated_k: gdn_decode_k's decode step of a Gated DeltaNet layer
// (D = 128) with the layer's gated RMSNorm at its end, one workgroup per value
// head, so the step is one launch where gdn_decode_k + rmsnorm_gated_k are two.
//
// [1D] grid Hv, wg 512 (8 waves). Why a whole head per workgroup: the norm
// needs all 128 columns of the head's output, and the head's 64 KiB of state
// stream best as long runs: wave w holds rows 16w .. 16w+15 of the [i][col]
// state, lane l columns 2l and 2l+1 (one dwordx2 per row: a wave reads 8 KiB
// in one contiguous run, so the reads in flight cost no row activations).
//
// Arguments: wave 0 reads them (two 64-byte lines over the host link) and
// hands them to the other waves through LDS, so a workgroup asks once; the
// lane count is summed in LDS as well (a workgroup other than 512 x 1 writes
// nothing). Then waves 0-5 convolve one channel per lane (waves 0-1 q and 2-3
// k of the key head, 4-5 v of the head: the conv with SiLU over the carried
// rows and the new row, rolling the conv state into conv_out: v by its head,
// q and k by the key head's first value head) into LDS; every wave takes the
// L2 norms of q and k from LDS (a DPP sum of its own), its 16 k and q rows
// (broadcast reads) and its v columns; the delta rule's two column sums meet
// in LDS (8 partials per column, added in wave order); wave 0 then has the
// head's output in its 64 lanes and stores y = o rms(o)^-1 w silu(z).
#include <cmath>

#include "seq_parts.h"
#include "seq_blocks.h"
#include "seq_reference.h"

namespace k100::kernels {

namespace {

using namespace codegen;
using as::exec, as::exec_lo, as::exec_hi, as::vcc;

const Signature kGated("gdn_decode_gated_k",
                       {out("y", "f32"), inout("state", "f32"), out("conv_out", "f32"), in("qkv", "f32"),
                        in("conv_in", "f32"), in("conv_w", "f32"), in("a", "f32"), in("b", "f32"),
                        in("dt_bias", "f32"), in("ssm_a", "f32"), in("norm_w", "f32"), in("z", "f32"),
                        value("Hk", "i32"), value("Hv", "i32"), value("K", "i32"), value("rep", "i32"),
                        value("khmod", "i32"), value("eps", "f32")});

constexpr int kD = 128, kWaves = 8, kThreads = 64 * kWaves, kRows = kD / kWaves;
// LDS: the argument block (30 dwords) and the lane count; q, k, v (128 floats each);
// the two column sums' partials (8 waves x 128 columns each).
constexpr uint32_t kLdsArgs = 0, kLdsCount = 124, kLdsQ = 128, kLdsK = kLdsQ + 4 * kD, kLdsV = kLdsK + 4 * kD,
                   kLdsA = kLdsV + 4 * kD, kLdsB = kLdsA + 4 * kD * kWaves, kLdsEnd = kLdsB + 4 * kD * kWaves;
constexpr int kArgDwords = 30;

codeobj::CodeObject build_gated(isa::Target target) {
  Kernel k(kGated, target, {.waves_per_simd = 2, .lds_bytes = kLdsEnd, .max_workgroup = kThreads});
  Label exit = k.exit();
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  auto v1 = [&](const char* n) { return k.vgpr(1, n); };
  const SGPR h = k.workgroup_id(0), wave = wave_index(k), mine = s1("lanes of the wave");
  k.s_bcnt1_i32_b64(mine, exec);  // the launch's lanes, before whole_wave_lane_id sets them all
  const VGPR lane = whole_wave_lane_id(k);

  // ---- arguments: wave 0 asks, LDS hands them on; the lanes are counted
  const SGPR args0 = k.sgpr(16, "arguments 0-15"), args1 = k.sgpr(16, "arguments 16-29");
  auto adw = [&](int d) { return d < 16 ? args0.sub(d, 1) : args1.sub(d - 16, 1); };
  {
    Label asked = k.label("arguments asked for");
    k.s_cmp_lg_u32(wave, 0);
    k.s_cbranch_scc1(asked);
    k.s_load_dwordx16(args0, k.kernarg_pointer(), 0);
    k.s_load_dwordx8(args1.sub(0, 8), k.kernarg_pointer(), 64);
    k.s_load_dwordx4(args1.sub(8, 4), k.kernarg_pointer(), 96);
    k.s_load_dwordx2(args1.sub(12, 2), k.kernarg_pointer(), 112);
    k.bind(asked);
  }
  const VGPR zero = v1("zero"), staging = k.vgpr(4, "argument staging");
  k.v_mov_b32(zero, 0);
  {
    Label read = k.label("read arguments");
    k.s_cmp_lg_u32(wave, 0);
    k.s_cbranch_scc1(read);
    k.s_mov_b32(exec_lo, 1);
    k.s_mov_b32(exec_hi, 0);
    k.ds_write_b32(zero, zero, offset(kLdsCount));
    for (int d = 0; d < kArgDwords; d += 4) {
      const int w = std::min(4, kArgDwords - d);
      for (int i = 0; i < w; ++i) k.v_mov_b32(staging[i], adw(d + i));
      if (w == 4) k.ds_write_b128(zero, staging, offset(kLdsArgs + 4 * uint32_t(d)));
      else k.ds_write_b64(zero, staging.sub(0, 2), offset(kLdsArgs + 4 * uint32_t(d)));
    }
    k.s_mov_b64(exec, -1);
    k.bind(read);
  }
  k.s_barrier();
  {
    const VGPR v = v1("lanes of the wave");
    k.v_mov_b32(v, mine);
    k.s_mov_b32(exec_lo, 1);
    k.s_mov_b32(exec_hi, 0);
    k.ds_add_u32(zero, v, offset(kLdsCount));
    k.s_mov_b64(exec, -1);
  }
  const SGPR lanes = s1("lanes");
  {
    const VGPR copy0 = k.vgpr(16, "argument copy 0-15"), copy1 = k.vgpr(16, "argument copy 16-29"),
               ccopy = v1("lane count copy");
    auto copy = [&](int d, int n) { return d < 16 ? copy0.sub(d, n) : copy1.sub(d - 16, n); };
    Label have = k.label("arguments in SGPRs"), copied = k.label("arguments copied");
    k.s_cmp_eq_u32(wave, 0);
    k.s_cbranch_scc1(have);
    for (int d = 0; d < kArgDwords; d += 4) {
      if (kArgDwords - d >= 4) k.ds_read_b128(copy(d, 4), zero, offset(kLdsArgs + 4 * uint32_t(d)));
      else k.ds_read_b64(copy(d, 2), zero, offset(kLdsArgs + 4 * uint32_t(d)));
    }
    k.s_barrier();
    k.ds_read_b32(ccopy, zero, offset(kLdsCount));
    for (int i = 0; i < kArgDwords; ++i) k.v_readfirstlane_b32(adw(i), copy(i, 1));
    k.s_branch(copied);
    k.bind(have);
    k.s_barrier();
    k.ds_read_b32(ccopy, zero, offset(kLdsCount));
    k.bind(copied);
    k.v_readfirstlane_b32(lanes, ccopy);
  }
  auto arg = [&](const char* name) {
    const uint32_t at = kGated.offset(name) / 4, n = kGated.size(name) / 4;
    const SGPR& block = at < 16 ? args0 : args1;
    return block.sub(int(at % 16), int(n));
  };
  const SGPR Hk = arg("Hk"), Hv = arg("Hv"), K = arg("K"), rep = arg("rep"), khmod = arg("khmod");

  // ---- limits (the contract refuses them by name; here nothing is written)
  k.s_cmp_lg_u32(lanes, kThreads);
  k.s_cbranch_scc1(exit);
  k.s_cmp_lt_i32(Hk, 1);
  k.s_cbranch_scc1(exit);
  k.s_cmp_ge_u32(h, Hv);
  k.s_cbranch_scc1(exit);
  k.s_cmp_lt_i32(K, 2);
  k.s_cbranch_scc1(exit);
  k.s_cmp_gt_i32(K, 64);
  k.s_cbranch_scc1(exit);
  const SGPR sC = s1("channels"), sT = s1("t"), sHi = s1("product high");
  k.s_lshl_b32(sC, Hk, 8);  // 2 Hk D + Hv D channels
  k.s_lshl_b32(sT, Hv, 7);
  k.s_add_u32(sC, sC, sT);
  k.s_mul_hi_u32(sHi, sC, K);
  k.s_cmp_lg_u32(sHi, 0);
  k.s_cbranch_scc1(exit);
  k.s_mul_i32(sHi, sC, K);
  k.s_cmp_ge_u32(sHi, 1u << 30);
  k.s_cbranch_scc1(exit);

  const SGPR sA = s1("a"), sB = s1("b"), sDt = s1("dt"), sSa = s1("ssm_a");
  k.s_load_dword(sA, offset_address(k, arg("a"), h, 2), 0);
  k.s_load_dword(sB, offset_address(k, arg("b"), h, 2), 0);
  k.s_load_dword(sDt, offset_address(k, arg("dt_bias"), h, 2), 0);
  k.s_load_dword(sSa, offset_address(k, arg("ssm_a"), h, 2), 0);

  // the key head (after the loads: its division is on the way to nothing they need)
  const seq::KeyHead key = seq::key_head(k, h, Hk, rep, khmod, exit);

  // ---- the wave's 16 state rows, z and the norm weight: asked for once the conv has its rows (the HBM
  // serves reads in order, and the conv's few rows would otherwise wait behind 3 MB of state); waves 6
  // and 7, which convolve nothing, ask at once
  const SGPR sBase = k.sgpr(2, "state rows"), zrow = k.sgpr(2, "z row");
  const VGPR cofs = v1("column offset"), cofs2 = v1("column offset + 8 rows"), Sa = k.vgpr(16, "state rows 0-7"),
             Sb = k.vgpr(16, "state rows 8-15"), zv = k.vgpr(2, "z"), wv = k.vgpr(2, "norm weight");
  // element e (0..31) of the lane's rows: row e / 2, column 2l + e % 2
  auto S = [&](int e) { return e < 16 ? Sa.sub(e, 1) : Sb.sub(e - 16, 1); };
  auto S2 = [&](int j) { return j < 8 ? Sa.sub(2 * j, 2) : Sb.sub(2 * (j - 8), 2); };
  k.v_lshlrev_b32(cofs, 3, lane);
  k.v_add_u32(cofs2, 4096, cofs);
  auto load_state = [&] {
    set_offset_address(k, sBase, arg("state"), h, 16);  // h D D 4 bytes
    k.s_lshl_b32(sT, wave, 13);                         // 16 rows of 512 bytes
    add64(k, sBase, sT);
    for (int j = 0; j < kRows; ++j)
      k.global_load_dwordx2(S2(j), j < 8 ? cofs : cofs2, sBase, offset(uint32_t(kD * 4 * (j % 8))));
    set_offset_address(k, zrow, arg("z"), h, 9);  // h D 4 bytes
    k.global_load_dwordx2(zv, cofs, zrow);
    k.global_load_dwordx2(wv, cofs, arg("norm_w"));
  };

  // ---- conv + SiLU: waves 0-1 q, 2-3 k (key head kh), 4-5 v (head h); one channel per lane
  {
    Label no_conv = k.label("no channel");
    k.s_cmp_ge_u32(wave, 6);
    k.s_cbranch_scc1(no_conv);
    const SGPR role = s1("role"), sCh = s1("first channel"), sRoll = s1("rolls"), sC4 = s1("4 C"), km1 = s1("K - 1"),
               sJ = s1("tap");
    k.s_lshr_b32(role, wave, 1);
    // q: kh D; k: Hk D + kh D; v: 2 Hk D + h D; then + 64 (wave & 1)
    k.s_lshl_b32(sCh, key.kh, 7);
    k.s_cmp_eq_u32(role, 1);
    k.s_cselect_b32(sT, Hk, 0);
    k.s_lshl_b32(sT, sT, 7);
    k.s_add_u32(sCh, sCh, sT);
    k.s_lshl_b32(sT, Hk, 8);
    k.s_lshl_b32(sHi, h, 7);
    k.s_add_u32(sT, sT, sHi);
    k.s_cmp_eq_u32(role, 2);
    k.s_cselect_b32(sCh, sT, sCh);
    k.s_and_b32(sT, wave, 1);
    k.s_lshl_b32(sT, sT, 6);
    k.s_add_u32(sCh, sCh, sT);
    // q and k are rolled by the first value head of the key head (khmod: h < Hk; grouped: h % rep == 0), v by h
    k.s_cmp_lg_u32(khmod, 0);
    k.s_cselect_b32(sRoll, h, key.rem);
    k.s_cmp_lg_u32(khmod, 0);
    k.s_cselect_b32(sT, Hk, 1);
    k.s_cmp_lt_u32(sRoll, sT);
    k.s_cselect_b32(sRoll, 1, 0);
    k.s_cmp_eq_u32(role, 2);
    k.s_cselect_b32(sRoll, 1, sRoll);
    const VGPR ch = v1("channel"), rowoff = v1("row offset"), woff = v1("w offset"), x = v1("x"), w = v1("w"),
               acc = v1("conv"), sig = v1("sigmoid"), t0 = v1("t");
    k.v_add_u32(ch, sCh, lane);
    k.v_lshlrev_b32(rowoff, 2, ch);
    k.v_mul_lo_u32(woff, ch, K);
    k.v_lshlrev_b32(woff, 2, woff);
    k.v_mov_b32(acc, 0);
    k.s_add_u32(km1, K, -1);
    k.s_lshl_b32(sC4, sC, 2);
    const SGPR conv_out = arg("conv_out");
    auto roll = [&](VGPR xr, VGPR row) {  // x of carried row j to conv_out row j - 1 (row: row j's offset)
      k.s_cmp_lg_u32(sRoll, 0);
      k.if_(Cond::Scc1);
      k.v_subrev_u32(t0, sC4, row);
      k.global_store_dword(t0, xr, conv_out);
      k.end_if();
    };
    // The new row (tap K-1) is asked for first, then the carried rows three
    // taps per trip: at K = 4 every load of the conv is in flight at once.
    const VGPR xn = v1("new x"), wn = v1("new w"), x1 = v1("x 1"), w1 = v1("w 1"), x2 = v1("x 2"), w2 = v1("w 2"),
               r1 = v1("row offset 1"), r2 = v1("row offset 2");
    const SGPR left = s1("taps left");
    k.v_lshlrev_b32(t0, 2, ch);
    k.global_load_dword(xn, t0, arg("qkv"));
    k.s_lshl_b32(sT, km1, 2);
    k.v_add_u32(t0, sT, woff);
    k.global_load_dword(wn, t0, arg("conv_w"));
    k.s_mov_b32(sJ, 0);
    k.loop_();
    k.s_sub_u32(left, km1, sJ);
    k.s_cmp_lt_u32(left, 3);
    k.break_(Cond::Scc1);
    k.v_add_u32(r1, sC4, rowoff);
    k.v_add_u32(r2, sC4, r1);
    k.global_load_dword(x, rowoff, arg("conv_in"));
    k.global_load_dword(w, woff, arg("conv_w"));
    k.global_load_dword(x1, r1, arg("conv_in"));
    k.global_load_dword(w1, woff, arg("conv_w"), offset(4));
    k.global_load_dword(x2, r2, arg("conv_in"));
    k.global_load_dword(w2, woff, arg("conv_w"), offset(8));
    k.v_fmac_f32(acc, w, x);
    k.v_fmac_f32(acc, w1, x1);
    k.v_fmac_f32(acc, w2, x2);
    k.s_cmp_lg_u32(sJ, 0);
    k.if_(Cond::Scc1);
    roll(x, rowoff);
    k.end_if();
    roll(x1, r1);
    roll(x2, r2);
    k.v_add_u32(rowoff, sC4, r2);
    k.v_add_u32(woff, 12, woff);
    k.s_add_u32(sJ, sJ, 3);
    k.end_loop();
    k.loop_();  // the last one or two carried taps
    k.s_cmp_ge_u32(sJ, km1);
    k.break_(Cond::Scc1);
    k.global_load_dword(x, rowoff, arg("conv_in"));
    k.global_load_dword(w, woff, arg("conv_w"));
    k.v_fmac_f32(acc, w, x);
    k.s_cmp_lg_u32(sJ, 0);
    k.if_(Cond::Scc1);
    roll(x, rowoff);
    k.end_if();
    k.v_add_u32(rowoff, sC4, rowoff);
    k.v_add_u32(woff, 4, woff);
    k.s_add_u32(sJ, sJ, 1);
    k.end_loop();
    k.v_fmac_f32(acc, wn, xn);
    roll(xn, rowoff);  // the new row to conv_out row K-2
    reciprocal_one_plus_exp2(k, sig, -kLog2E, acc);
    k.v_mul_f32(acc, acc, sig);
    // channel slot 64 wave + lane of q | k | v in LDS
    k.s_lshl_b32(sT, wave, 8);
    k.v_lshlrev_b32(t0, 2, lane);
    k.v_add_u32(t0, sT, t0);
    k.ds_write_b32(t0, acc, offset(kLdsQ));
    Label conv_done = k.label("conv done");
    k.s_branch(conv_done);
    k.bind(no_conv);
    load_state();
    k.bind(conv_done);
  }
  k.s_barrier();
  {
    Label loaded = k.label("state asked for");
    k.s_cmp_ge_u32(wave, 6);
    k.s_cbranch_scc1(loaded);
    load_state();
    k.bind(loaded);
  }


  // ---- L2 norms of q (times 1/sqrt(D)) and k, each wave its own
  const VGPR lofs = v1("lane offset"), p0 = v1("q square"), p1 = v1("k square"), e0 = v1("e0"), e1 = v1("e1"),
             sq = v1("q scale"), sk = v1("k scale");
  k.v_lshlrev_b32(lofs, 2, lane);
  k.ds_read_b32(e0, lofs, offset(kLdsQ));
  k.ds_read_b32(e1, lofs, offset(kLdsQ + 256));
  k.v_mul_f32(p0, e0, e0);
  k.v_fmac_f32(p0, e1, e1);
  k.ds_read_b32(e0, lofs, offset(kLdsK));
  k.ds_read_b32(e1, lofs, offset(kLdsK + 256));
  k.v_mul_f32(p1, e0, e0);
  k.v_fmac_f32(p1, e1, e1);
  lane_reduce(k, {{ReduceOp::Add, p0}, {ReduceOp::Add, p1}});
  const SGPR ssq = s1("q sum of squares"), ssk = s1("k sum of squares");
  k.v_readlane_b32(ssq, p0, 63);
  k.v_readlane_b32(ssk, p1, 63);
  k.v_mov_b32(e0, arg("eps"));
  k.v_mul_f32(e0, e0, e0);  // eps^2
  k.v_max_f32(sq, ssq, e0);
  k.v_rsq_f32(sq, sq);
  k.v_mul_f32(sq, 1.0f / 11.313708498984761f, sq);  // and 1/sqrt(128)
  k.v_max_f32(sk, ssk, e0);
  k.v_rsq_f32(sk, sk);

  // ---- the wave's k and q rows (broadcast), its v columns
  const VGPR kr = k.vgpr(kRows, "k rows"), qr = k.vgpr(kRows, "q rows"), vv = k.vgpr(2, "v"), rofs = v1("rows offset");
  k.s_lshl_b32(sT, wave, 6);  // 16 floats
  k.v_mov_b32(rofs, sT);
  for (int m = 0; m < kRows / 4; ++m) {
    k.ds_read_b128(kr.sub(4 * m, 4), rofs, offset(kLdsK + 16 * uint32_t(m)));
    k.ds_read_b128(qr.sub(4 * m, 4), rofs, offset(kLdsQ + 16 * uint32_t(m)));
  }
  k.v_lshlrev_b32(e1, 3, lane);
  k.ds_read_b64(vv, e1, offset(kLdsV));
  for (int j = 0; j < kRows; ++j) {
    k.v_mul_f32(kr[j], kr[j], sk);
    k.v_mul_f32(qr[j], qr[j], sq);
  }

  // ---- gate: decay = exp(ssm_a softplus(a + dt)), beta = sigmoid(b)
  const VGPR decay = v1("decay"), beta = v1("beta"), t1 = v1("t");
  k.v_mov_b32(t1, sA);
  k.v_add_f32(t1, sDt, t1);
  seq::softplus(k, decay, t1);
  k.v_mul_f32(decay, sSa, decay);  // g
  k.v_mul_f32(decay, kLog2E, decay);
  k.v_exp_f32(decay, decay);
  k.v_mov_b32(beta, sB);
  reciprocal_one_plus_exp2(k, beta, -kLog2E, beta);

  // ---- the delta rule: kv = S^T k, u = beta (v - decay kv), S = decay S + k u^T, o = S^T q
  const VGPR c0 = v1("column 2l"), c1 = v1("column 2l + 1"), part = k.vgpr(2 * kWaves, "wave partials"),
             wofs = v1("partial slot");
  k.s_lshl_b32(sT, wave, 9);  // 128 floats per wave
  k.v_add_u32(wofs, sT, e1);  // e1 = 8 lane
  // the column sums of (c0, c1) over the 8 waves, in wave order, through LDS region `at`
  const VGPR pair = k.vgpr(2, "column pair");
  auto sums = [&](uint32_t at) {
    k.v_mov_b32(pair[0], c0);
    k.v_mov_b32(pair[1], c1);
    k.ds_write_b64(wofs, pair, offset(at));
    k.s_barrier();
    for (int s = 0; s < kWaves; ++s) k.ds_read_b64(part.sub(2 * s, 2), e1, offset(at + 512 * uint32_t(s)));
    k.v_add_f32(c0, part[0], part[2]);
    k.v_add_f32(c1, part[1], part[3]);
    for (int s = 2; s < kWaves; ++s) {
      k.v_add_f32(c0, c0, part[2 * s]);
      k.v_add_f32(c1, c1, part[2 * s + 1]);
    }
  };
  k.v_mul_f32(c0, kr[0], S(0));
  k.v_mul_f32(c1, kr[0], S(1));
  for (int j = 1; j < kRows; ++j) {
    k.v_fmac_f32(c0, kr[j], S(2 * j));
    k.v_fmac_f32(c1, kr[j], S(2 * j + 1));
  }
  sums(kLdsA);
  const VGPR u0 = v1("u 2l"), u1 = v1("u 2l + 1"), ku = v1("k u");
  k.v_fma_f32(u0, neg(decay), c0, vv[0]);
  k.v_fma_f32(u1, neg(decay), c1, vv[1]);
  k.v_mul_f32(u0, beta, u0);
  k.v_mul_f32(u1, beta, u1);
  for (int j = 0; j < kRows; ++j) {
    k.v_mul_f32(ku, kr[j], u0);
    k.v_fma_f32(S(2 * j), S(2 * j), decay, ku);
    k.v_mul_f32(ku, kr[j], u1);
    k.v_fma_f32(S(2 * j + 1), S(2 * j + 1), decay, ku);
    if (j == 0) {
      k.v_mul_f32(c0, qr[0], S(0));
      k.v_mul_f32(c1, qr[0], S(1));
    } else {
      k.v_fmac_f32(c0, qr[j], S(2 * j));
      k.v_fmac_f32(c1, qr[j], S(2 * j + 1));
    }
  }
  for (int j = 0; j < kRows; ++j)
    k.global_store_dwordx2(j < 8 ? cofs : cofs2, S2(j), sBase, offset(uint32_t(kD * 4 * (j % 8))));
  sums(kLdsB);

  // ---- wave 0: y = o (sum o^2 / D + eps)^-1/2 w silu(z), o = (c0, c1) of columns 2l, 2l + 1
  k.s_cmp_lg_u32(wave, 0);
  k.s_cbranch_scc1(exit);
  k.v_mul_f32(p0, c0, c0);
  k.v_fmac_f32(p0, c1, c1);
  lane_reduce(k, {{ReduceOp::Add, p0}});
  k.v_readlane_b32(ssq, p0, 63);
  k.v_mov_b32(e0, ssq);
  k.v_mul_f32(e0, 1.0f / kD, e0);
  k.v_add_f32(e0, arg("eps"), e0);
  k.v_rsq_f32(e0, e0);
  k.v_mul_f32(c0, c0, e0);
  k.v_mul_f32(c1, c1, e0);
  k.v_mul_f32(c0, c0, wv[0]);
  k.v_mul_f32(c1, c1, wv[1]);
  k.v_mov_b32(u0, zv[0]);
  k.v_mov_b32(u1, zv[1]);
  reciprocal_one_plus_exp2(k, u0, -kLog2E, u0);
  reciprocal_one_plus_exp2(k, u1, -kLog2E, u1);
  k.v_mul_f32(u0, zv[0], u0);  // silu(z)
  k.v_mul_f32(u1, zv[1], u1);
  k.v_mul_f32(pair[0], c0, u0);
  k.v_mul_f32(pair[1], c1, u1);
  const SGPR yrow = offset_address(k, arg("y"), h, 9);  // h D 4 bytes
  k.global_store_dwordx2(cofs, pair, yrow);
  return k.build();
}

const Tolerance kGatedTolerance{2e-5, 1e-4};

}  // namespace

void register_seq_decode_gated_kernels(Registry& r) {
  KernelDef d = generated_kernel("seq", kGated, build_gated);
  d.description =
      "gdn_decode_k's decode step (one token) of a Gated DeltaNet layer with D = 128 heads, the layer's gated "
      "RMSNorm included: the causal conv + SiLU with the carried conv state rolled into conv_out, the L2 norms of "
      "q and k, the gate from the raw a, b, the delta rule on the state [Hv][i][col], then y = o (mean o^2 + "
      "eps)^-1/2 norm_w silu(z) per head (as rmsnorm_gated_k). One workgroup of 512 per value head: wave w holds "
      "state rows 16w..16w+15 (8 KiB contiguous per wave), lane l columns 2l, 2l+1; the column sums meet in LDS "
      "(added in wave order); wave 0 reads the arguments and hands them on through LDS. Our own kernel (not in "
      "the catalog): one launch where gdn_decode_k and rmsnorm_gated_k are two.";
  d.semantics =
      "o = gdn_decode_k's out (same inputs, same state and conv_out updates); y[h][i] = o[h][i] * (sum_j "
      "o[h][j]^2 / 128 + eps)^(-1/2) * norm_w[i] * silu(z[h][i]), silu(g) = g / (1 + e^-g); one eps for the L2 "
      "norms and the RMSNorm";
  d.geometry = "grid = Hv, wg = 512 exactly";
  d.launch = seq::decode_contract_limits() + "workgroup = 512\ngrid = Hv\narg Hk = Hk\narg Hv = Hv\narg K = K\narg rep = rep\narg khmod = khmod";
  d.limits = "D = 128; workgroup exactly 512 x 1; 2 <= K <= 64; key head below Hk; conv_out must not overlap conv_in "
             "(swap the two every step); y must not overlap the inputs; otherwise nothing is written (the contract "
             "refuses by name)";
  d.tolerance = kGatedTolerance;
  d.cases = [](bool) {
    return case_table({"Hk", "Hv", "K", "rep", "khmod", "steps", "badwg"},
                      {{1, 1, 4, 1, 0, 1, 1},
                       {2, 4, 4, 2, 0, 2, 0},
                       {2, 6, 4, 1, 1, 3, 0},
                       {1, 3, 2, 3, 0, 1, 0},
                       {3, 3, 5, 1, 1, 2, 0},
                       {1, 2, 7, 2, 0, 2, 0}});
  };
  d.run = [](TestDevice& dev, const Case& c) {
    const int64_t Hk = c["Hk"], Hv = c["Hv"], K = c["K"], rep = c["rep"], steps = c["steps"], D = kD;
    const bool khmod = c["khmod"] != 0;
    const int64_t C = 2 * Hk * D + Hv * D;
    const float eps = 1e-6f;
    Rng rng(c.seed);
    seq::DecodeInputs in = seq::random_decode_inputs(rng, Hk, Hv, K);
    const std::vector<float> norm_w = rng.uniform(size_t(D), 0.5f, 1.5f);
    DeviceBuffer<float> dstate(dev, in.state), dconv_w(dev, in.conv_w), ddt(dev, in.dt), dsa(dev, in.ssm_a),
        dnw(dev, norm_w);
    DeviceBuffer<float> dconv0(dev, in.conv_in), dconv1(dev, in.conv_in.size());
    auto argv = [&](const Launch& l, uint64_t y, uint64_t cout, uint64_t qkv, uint64_t cin, uint64_t a, uint64_t b,
                    uint64_t z) {
      return dev.launch_contract("gdn_decode_gated_k")
          .argv(l, {{"y", y}, {"state", dstate.addr()}, {"conv_out", cout}, {"qkv", qkv}, {"conv_in", cin},
                    {"conv_w", dconv_w.addr()}, {"a", a}, {"b", b}, {"dt_bias", ddt.addr()}, {"ssm_a", dsa.addr()},
                    {"norm_w", dnw.addr()}, {"z", z}, {"eps", f32(eps)}});
    };
    const std::map<std::string, int64_t> sizes = {{"Hk", Hk}, {"Hv", Hv}, {"K", K}, {"rep", rep},
                                                  {"khmod", khmod ? 1 : 0}};
    std::vector<CaseResult> parts;
    for (int64_t s = 0; s < steps; ++s) {
      in.qkv = rng.normal(size_t(C));
      in.a = rng.normal(size_t(Hv), 0.f, 2.f);
      in.b = rng.normal(size_t(Hv));
      if (s == 0) in.a[0] = 30.f;  // a + dt above 20
      const std::vector<float> z = rng.normal(size_t(Hv * D), 0.f, 3.f);
      const seq::DecodeOutputs want = seq::gdn_decode_reference(in, Hk, Hv, K, rep, khmod, eps);
      const std::vector<float> want_y = seq::gated_rmsnorm_reference(want.out, norm_w, z, Hv, D, eps);
      DeviceBuffer<float> dqkv(dev, in.qkv), da(dev, in.a), db(dev, in.b), dz(dev, z), dy(dev, guarded(size_t(Hv * D)));
      DeviceBuffer<float>& cin = s % 2 ? dconv1 : dconv0;
      DeviceBuffer<float>& cout = s % 2 ? dconv0 : dconv1;
      const Launch l = seq::contract_launch(dev, "gdn_decode_gated_k", sizes);
      launch(dev, "gdn_decode_gated_k", l,
             argv(l, dy.addr(), cout.addr(), dqkv.addr(), cin.addr(), da.addr(), db.addr(), dz.addr()));
      std::vector<float> got = dy.download();
      parts.push_back(split_guard(got, size_t(Hv * D)));
      parts.push_back(compare(got, want_y, kGatedTolerance));
      std::vector<float> state = dstate.download();
      parts.push_back(compare(state, want.state, kGatedTolerance));
      parts.push_back(compare(cout.download(), want.conv_out, kGatedTolerance));
      in.state = state;  // the next step starts from the kernel's state and conv state
      in.conv_in = cout.download();
    }
    if (dim(c, "badwg", 0)) {  // a 256-thread workgroup: refused, nothing written
      DeviceBuffer<float> dy(dev, guarded(size_t(Hv * D))), dqkv(dev, size_t(C)), dab(dev, size_t(Hv)),
          dz(dev, size_t(Hv * D));
      Launch l = seq::contract_launch(dev, "gdn_decode_gated_k", sizes);
      l.workgroup = 256;
      launch(dev, "gdn_decode_gated_k", l,
             argv(l, dy.addr(), dconv1.addr(), dqkv.addr(), dconv0.addr(), dab.addr(), dab.addr(), dz.addr()));
      parts.push_back(compare(dy.download(), guarded(size_t(Hv * D)), kGatedTolerance));  // the guard NaNs only
      parts.push_back(compare(dstate.download(), in.state, kGatedTolerance));
    }
    if (c.seed == 1)
      if (auto bad = expect_contract_refusal(dev, "gdn_decode_gated_k",
                                             {{"Hk", 2}, {"Hv", 6}, {"K", 4}, {"rep", 2}, {"khmod", 0}},
                                             "key_heads_cover_value_heads"))
        parts.push_back(*bad);
    return combine(parts);
  };
  // state read and written, conv state read and written, conv weights, the qkv row, z, the norm weight, y
  d.ideal_bytes = [](const Case& c) {
    const uint64_t Hk = uint64_t(c["Hk"]), Hv = uint64_t(c["Hv"]), K = uint64_t(c["K"]), C = (2 * Hk + Hv) * kD;
    return (2 * Hv * kD * kD + 2 * (K - 1) * C + K * C + C + 2 * Hv * kD + kD + 4 * Hv) * 4;
  };
  // Qwen3.5-27B: 16 key heads, 48 value heads of 128, conv K = 4
  d.bench_case = [] { return make_case({{"Hk", 16}, {"Hv", 48}, {"K", 4}, {"rep", 3}, {"khmod", 0}, {"steps", 1}}); };
  r.add(std::move(d));
}

}  // namespace k100::kernels
