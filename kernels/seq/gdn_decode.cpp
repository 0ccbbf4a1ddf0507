// gdn_decode_k: one launch for the decode step (T = 1) of a Gated DeltaNet
// layer, from the projected q | k | v row to the layer's attention output:
// causal conv + SiLU with the carried conv state, the state roll, the L2
// norms of q and k, the gate (g, beta) and the delta rule on a D = 128
// state [Hv][i][col] (gdn_k2<32>'s layout). Not in the catalog: the chain of
// conv1d_silu_k, conv_state_update_k, l2norm_k and gdn_k2<32> pays one
// dispatch floor per launch.
//
// [2D] grid (Hv, 4), wg 128, as gdn_k2<32>: workgroup (h, y) owns state
// columns 32y .. 32y+31, thread tid column 32y + (tid & 31), rows of slice
// tid >> 5. The state loads are issued first; meanwhile thread tid convolves
// channel tid of q and of k of key head kh (every workgroup of the key head
// does, redundantly: 2 x 128 channels x K taps), the two L2 norms reduce
// through DPP and LDS, and the normalised q (times 1/sqrt(D)) and k go to
// LDS for the slices to read; each thread convolves its column's v channel.
// The conv state is rolled into a second buffer (conv_out; conv_in is only
// read, since every workgroup of a key head reads its q/k rows): q and k
// channels by the first value head of the key head (y = 0), v channels by
// slice 0 of their workgroup. Then the delta rule as in gdn_k2<32>.
#include <cmath>

#include "gdn_generators.h"
#include "seq_parts.h"
#include "seq_blocks.h"
#include "seq_reference.h"

namespace k100::kernels {

namespace {

using namespace codegen;

const Signature kDecode("gdn_decode_k",
                        {out("out", "f32"), inout("state", "f32"), out("conv_out", "f32"), in("qkv", "f32"),
                         in("conv_in", "f32"), in("conv_w", "f32"), in("a", "f32"), in("b", "f32"),
                         in("dt_bias", "f32"), in("ssm_a", "f32"), value("Hk", "i32"), value("Hv", "i32"),
                         value("K", "i32"), value("rep", "i32"), value("khmod", "i32"), value("eps", "f32")},
                        HiddenArgLayout::Full);

constexpr int kD = seq::SliceRule::kD, kSlice = seq::SliceRule::kSlice;
constexpr int kLdsQ = 0, kLdsK = 512, kLdsA = 1024, kLdsB = 1536, kLdsNorm = 2048;

codeobj::CodeObject build_decode(isa::Target target) {
  Kernel k(kDecode, target,
           {.waves_per_simd = 2, .lds_bytes = kLdsNorm + 32, .max_workgroup = 128, .workgroup_dims = 2});
  Label exit = k.exit();
  const SGPR h = k.workgroup_id(0), y = k.workgroup_id(1), Hk = k.arg("Hk"), Hv = k.arg("Hv"), K = k.arg("K"),
             rep = k.arg("rep"), khmod = k.arg("khmod");
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  const SGPR sDiv = s1("writer limit"),
             sC = s1("channels"), sC4 = s1("4 C"), km1 = s1("K - 1"), sJ = s1("tap"), sHi = s1("product high"),
             sWriter = s1("rolls q k"), sA = s1("a"), sB = s1("b"), sDt = s1("dt"), sSa = s1("ssm_a"),
             sWaves = s1("waves"), sCh = s1("first channel");
  const SGPR qkMask = k.sgpr(2, "q k roll lanes"), vMask = k.sgpr(2, "v roll lanes");
  const VGPR coff = k.vgpr(1, "column offset"), kqoff = k.vgpr(1, "slice offset"), lds = k.vgpr(1, "lds slot"),
             vQ = k.vgpr(1, "q"), vK = k.vgpr(1, "k"), vV = k.vgpr(1, "v"), sig = k.vgpr(1, "sigmoid"),
             decay = k.vgpr(1, "decay"), vbeta = k.vgpr(1, "beta"), p0 = k.vgpr(1, "q square"),
             p1 = k.vgpr(1, "k square"), t0 = k.vgpr(1, "t");

  // ---- limits (the contract refuses them by name; here nothing is written)
  seq::exit_unless_workgroup_128(k, exit);
  k.s_cmp_lt_i32(Hk, 1);
  k.s_cbranch_scc1(exit);
  k.s_cmp_ge_u32(h, Hv);
  k.s_cbranch_scc1(exit);
  k.s_cmp_ge_u32(y, kD / kSlice);
  k.s_cbranch_scc1(exit);
  k.s_cmp_lt_i32(K, 2);
  k.s_cbranch_scc1(exit);
  k.s_cmp_gt_i32(K, 64);
  k.s_cbranch_scc1(exit);
  k.s_lshl_b32(sC, Hk, 8);  // 2 Hk D + Hv D channels
  k.s_lshl_b32(sCh, Hv, 7);
  k.s_add_u32(sC, sC, sCh);
  k.s_mul_hi_u32(sHi, sC, K);
  k.s_cmp_lg_u32(sHi, 0);
  k.s_cbranch_scc1(exit);
  k.s_mul_i32(sHi, sC, K);
  k.s_cmp_ge_u32(sHi, 1u << 30);
  k.s_cbranch_scc1(exit);
  const seq::KeyHead key = seq::key_head(k, h, Hk, rep, khmod, exit);
  const SGPR sKh = key.kh, sMod = key.rem;

  // ---- the state rows first: their loads overlap the conv
  seq::SliceRule rule(k, k.arg("state"), h, y, kLdsA, kLdsB);
  const VGPR tid = rule.tid, col = rule.col;
  rule.load(rule.base);
  k.s_load_dword(sA, offset_address(k, k.arg("a"), h, 2), 0);
  k.s_load_dword(sB, offset_address(k, k.arg("b"), h, 2), 0);
  k.s_load_dword(sDt, offset_address(k, k.arg("dt_bias"), h, 2), 0);
  k.s_load_dword(sSa, offset_address(k, k.arg("ssm_a"), h, 2), 0);

  // ---- conv + SiLU of the three channels ch[c] (q, k, v) into dst[c], their taps interleaved so
  // that their loads are in flight together; the carried rows 1 .. K-2 and the new row go to
  // conv_out rows 0 .. K-2 in the lanes of roll[c].
  k.s_add_u32(km1, K, -1);
  k.s_lshl_b32(sC4, sC, 2);
  const SGPR conv_in = k.arg("conv_in"), conv_w = k.arg("conv_w"), conv_out = k.arg("conv_out"),
             qkv = k.arg("qkv");
  std::vector<VGPR> ch, rowoff, woff, xs, ws;
  for (int c = 0; c < 3; ++c) {
    ch.push_back(k.vgpr(1, "channel"));
    rowoff.push_back(k.vgpr(1, "row offset"));
    woff.push_back(k.vgpr(1, "w offset"));
    xs.push_back(k.vgpr(1, "x"));
    ws.push_back(k.vgpr(1, "w"));
  }
  const VGPR dst[3] = {vQ, vK, vV};
  const SGPR roll[3] = {qkMask, qkMask, vMask};
  auto conv3 = [&] {
    for (int c = 0; c < 3; ++c) {
      k.v_mov_b32(dst[c], 0);
      k.v_lshlrev_b32(rowoff[size_t(c)], 2, ch[size_t(c)]);
      k.v_mul_lo_u32(woff[size_t(c)], ch[size_t(c)], K);
      k.v_lshlrev_b32(woff[size_t(c)], 2, woff[size_t(c)]);
    }
    auto tap = [&](bool carried) {
      for (int c = 0; c < 3; ++c) {
        if (carried) {
          k.global_load_dword(xs[size_t(c)], rowoff[size_t(c)], conv_in);
        } else {
          k.v_lshlrev_b32(t0, 2, ch[size_t(c)]);
          k.global_load_dword(xs[size_t(c)], t0, qkv);  // tap K-1: the new row
        }
        k.global_load_dword(ws[size_t(c)], woff[size_t(c)], conv_w);
      }
      for (int c = 0; c < 3; ++c) k.v_fmac_f32(dst[c], ws[size_t(c)], xs[size_t(c)]);
    };
    auto store_rolled = [&] {  // x of row j to conv_out row j - 1
      for (int c = 0; c < 3; ++c) {
        k.if_(roll[c]);
        k.v_subrev_u32(t0, sC4, rowoff[size_t(c)]);
        k.global_store_dword(t0, xs[size_t(c)], conv_out);
        k.end_if();
      }
    };
    k.s_mov_b32(sJ, 0);
    k.loop_();
    k.s_cmp_ge_u32(sJ, km1);
    k.break_(Cond::Scc1);
    tap(true);
    k.s_cmp_lg_u32(sJ, 0);
    k.if_(Cond::Scc1);
    store_rolled();
    k.end_if();
    for (int c = 0; c < 3; ++c) {
      k.v_add_u32(rowoff[size_t(c)], sC4, rowoff[size_t(c)]);
      k.v_add_u32(woff[size_t(c)], 4, woff[size_t(c)]);
    }
    k.s_add_u32(sJ, sJ, 1);
    k.end_loop();
    tap(false);
    store_rolled();  // the new row to conv_out row K-2
    for (int c = 0; c < 3; ++c) {
      reciprocal_one_plus_exp2(k, sig, -kLog2E, dst[c]);
      k.v_mul_f32(dst[c], dst[c], sig);
    }
  };
  // q and k are rolled by the first value head of the key head, at y = 0
  k.s_cmp_lg_u32(khmod, 0);
  k.s_cselect_b32(sWriter, h, sMod);  // khmod: h < Hk; grouped: h % rep == 0
  k.s_cmp_lg_u32(khmod, 0);
  k.s_cselect_b32(sDiv, Hk, 1);
  k.s_cmp_lt_u32(sWriter, sDiv);
  k.s_cselect_b32(sWriter, 1, 0);
  k.s_cmp_eq_u32(y, 0);
  k.s_cselect_b32(sWriter, sWriter, 0);
  k.s_cmp_lg_u32(sWriter, 0);
  k.s_cselect_b64(qkMask, exec, 0);
  k.v_cmp_gt_u32(vMask, kSlice, tid);
  k.s_lshl_b32(sCh, sKh, 7);
  k.v_add_u32(ch[0], sCh, tid);
  k.s_lshl_b32(sCh, Hk, 7);
  k.v_add_u32(ch[1], sCh, ch[0]);
  k.s_lshl_b32(sCh, Hk, 8);
  k.s_lshl_b32(sDiv, h, 7);
  k.s_add_u32(sCh, sCh, sDiv);
  k.v_add_u32(ch[2], sCh, col);
  conv3();

  // ---- L2 norms: q / max(|q|, eps) / sqrt(D), k / max(|k|, eps), to LDS
  k.v_mul_f32(p0, vQ, vQ);
  k.v_mul_f32(p1, vK, vK);
  lane_reduce(k, {{ReduceOp::Add, p0}, {ReduceOp::Add, p1}});
  k.s_mov_b32(sWaves, 2);
  const SGPR wave = wave_index(k);
  const VGPR lane = lane_of_local_id(k);
  const SGPR sq = workgroup_reduce(k, ReduceOp::Add, p0, wave, sWaves, lane, kLdsNorm);
  const SGPR sk = workgroup_reduce(k, ReduceOp::Add, p1, wave, sWaves, lane, kLdsNorm + 16);
  k.v_mov_b32(p0, k.arg("eps"));
  k.v_mul_f32(p0, p0, p0);  // eps^2
  k.v_max_f32(p1, sq, p0);
  k.v_rsq_f32(p1, p1);
  k.v_mul_f32(p1, 1.0f / 11.313708498984761f, p1);  // and 1/sqrt(128)
  k.v_mul_f32(vQ, vQ, p1);
  k.v_max_f32(p1, sk, p0);
  k.v_rsq_f32(p1, p1);
  k.v_mul_f32(vK, vK, p1);
  k.v_lshlrev_b32(lds, 2, tid);
  k.ds_write_b32(lds, vQ, offset(kLdsQ));
  k.ds_write_b32(lds, vK, offset(kLdsK));
  k.s_barrier();
  k.v_lshlrev_b32(kqoff, 7, rule.slice);
  for (int m = 0; m < 4; ++m) {
    k.ds_read_b128(rule.k_rows.sub(4 * m, 4), kqoff, offset(kLdsK + 16 * m));
    k.ds_read_b128(rule.k_rows2.sub(4 * m, 4), kqoff, offset(kLdsK + 64 + 16 * m));
    k.ds_read_b128(rule.q_rows.sub(4 * m, 4), kqoff, offset(kLdsQ + 16 * m));
    k.ds_read_b128(rule.q_rows2.sub(4 * m, 4), kqoff, offset(kLdsQ + 64 + 16 * m));
  }

  // ---- gate: decay = exp(ssm_a softplus(a + dt)), beta = sigmoid(b)
  k.v_mov_b32(t0, sA);
  k.v_add_f32(t0, sDt, t0);
  seq::softplus(k, decay, t0);
  k.v_mul_f32(decay, sSa, decay);           // g
  k.v_mul_f32(decay, kLog2E, decay);
  k.v_exp_f32(decay, decay);
  k.v_mov_b32(vbeta, sB);
  reciprocal_one_plus_exp2(k, vbeta, -kLog2E, vbeta);

  // ---- the delta rule (gdn_k2<32>'s, one token)
  rule.step(decay, vbeta, vV, p1);
  k.v_lshlrev_b32(coff, 2, col);
  const SGPR orow = offset_address(k, k.arg("out"), h, 9);  // h D 4 bytes
  k.if_(vMask);
  k.global_store_dword(coff, p1, orow);
  k.end_if();
  rule.store(rule.base);
  return k.build();
}

const Tolerance kDecodeTolerance{2e-5, 1e-4};

}  // namespace

std::string seq::decode_contract_limits() {
  return "sizes Hk Hv K rep khmod\nlet K_from_2_to_64 = 1 / (K >= 2) / (K <= 64)\n"
         "let Hk_Hv_positive = 1 / (Hk >= 1) / (Hv >= 1)\n"
         "let key_heads_cover_value_heads = 1 / select(khmod, Hv % Hk == 0, (rep >= 1) * (rep * Hk == Hv))\n"
         "let channels_times_K_below_2_30 = 1 / ((2 * Hk + Hv) * 128 * K < 1073741824)\n";
}

seq::DecodeInputs seq::random_decode_inputs(Rng& rng, int64_t Hk, int64_t Hv, int64_t K) {
  const int64_t C = 2 * Hk * kD + Hv * kD;
  DecodeInputs in;
  in.conv_in = rng.normal(size_t((K - 1) * C));
  in.conv_w = rng.uniform(size_t(C * K), -0.6f, 0.6f);
  in.dt = rng.uniform(size_t(Hv), -2.f, 2.f);
  in.ssm_a = rng.uniform(size_t(Hv), -4.f, -0.2f);
  in.state = rng.normal(size_t(Hv * kD * kD), 0.f, 0.1f);
  return in;
}

void register_seq_decode_kernels(Registry& r) {
  KernelDef d = generated_kernel("seq", kDecode, build_decode);
  d.description =
      "One launch for the decode step (one token) of a Gated DeltaNet layer with D = 128 heads, from the "
      "projected q | k | v row to the recurrence output: causal depthwise conv + SiLU over the C = 2 Hk D + Hv D "
      "channels with the carried conv state (as conv1d_silu_k, K taps, w [C][K], no bias), the roll of that "
      "state into conv_out (as conv_state_update_k; conv_out must not alias conv_in: the model swaps the two "
      "buffers every step), the L2 norms of q and k (x / max(|x|, eps), as the reference models), the gate "
      "g = ssm_a * softplus(a + dt_bias) (ssm_a = -exp(A_log), as GGUF files store it; softplus linear above 20) "
      "and beta = sigmoid(b) from the raw projections a, b, then the delta rule of gdn_k2<32> on the state "
      "[Hv][i][col]. Key head h % Hk (khmod != 0) or h / rep. [2D] grid (Hv, 4), wg = 128 exactly (read from "
      "the hidden group sizes; other sizes write nothing). Our own kernel (not in the catalog): it replaces the "
      "chain conv1d_silu_k, conv_state_update_k, l2norm_k, gdn_k2<32> (one dispatch floor instead of four).";
  d.semantics =
      "x = conv1d_silu(qkv; conv_in, conv_w) over C channels (one token); conv_out = the last K-1 rows of "
      "conv_in || qkv; q = x[kh D ..] / max(|.|, eps), k = x[Hk D + kh D ..] / max(|.|, eps), v = x[2 Hk D + h D ..]; "
      "g = ssm_a[h] softplus(a[h] + dt_bias[h]), beta = sigmoid(b[h]); then gdn_k2<32>'s rule for T = 1: "
      "S <- S exp(g); u = beta (v - S^T k); S += k u^T; out[h] = S^T q / sqrt(128)";
  d.geometry = "[2D] grid = (Hv, 4), wg = 128 exactly";
  d.launch = seq::decode_contract_limits() + "workgroup = 128\ngrid = Hv, 4\narg Hk = Hk\narg Hv = Hv\narg K = K\narg rep = rep\narg khmod = khmod";
  d.limits = "D = 128; workgroup exactly 128 x 1; 2 <= K <= 64; key head below Hk; conv_out must not overlap conv_in "
             "(swap the two every step); otherwise nothing is written (the contract refuses by name)";
  d.tolerance = kDecodeTolerance;
  d.cases = [](bool) {
    return case_table({"Hk", "Hv", "K", "rep", "khmod", "steps", "badwg"},
                      {{1, 1, 4, 1, 0, 1, 1},
                       {2, 4, 4, 2, 0, 2, 0},
                       {2, 6, 4, 1, 1, 3, 0},
                       {1, 3, 2, 3, 0, 1, 0},
                       {4, 12, 4, 3, 0, 2, 0}});
  };
  d.run = [](TestDevice& dev, const Case& c) {
    const int64_t Hk = c["Hk"], Hv = c["Hv"], K = c["K"], rep = c["rep"], steps = c["steps"], D = kD;
    const bool khmod = c["khmod"] != 0;
    const int64_t C = 2 * Hk * D + Hv * D;
    const float eps = 1e-6f;
    Rng rng(c.seed);
    seq::DecodeInputs in = seq::random_decode_inputs(rng, Hk, Hv, K);
    DeviceBuffer<float> dstate(dev, in.state), dconv_w(dev, in.conv_w), ddt(dev, in.dt), dsa(dev, in.ssm_a);
    DeviceBuffer<float> dconv0(dev, in.conv_in), dconv1(dev, in.conv_in.size());
    std::vector<CaseResult> parts;
    for (int64_t s = 0; s < steps; ++s) {
      in.qkv = rng.normal(size_t(C));
      in.a = rng.normal(size_t(Hv), 0.f, 2.f);
      in.b = rng.normal(size_t(Hv));
      if (s == 0) in.a[0] = 30.f;  // a + dt above 20
      const seq::DecodeOutputs want = seq::gdn_decode_reference(in, Hk, Hv, K, rep, khmod, eps);
      DeviceBuffer<float> dqkv(dev, in.qkv), da(dev, in.a), db(dev, in.b), dout(dev, guarded(size_t(Hv * D)));
      DeviceBuffer<float>& cin = s % 2 ? dconv1 : dconv0;
      DeviceBuffer<float>& cout = s % 2 ? dconv0 : dconv1;
      Launch l = seq::contract_launch(dev, "gdn_decode_k", {{"Hk", Hk}, {"Hv", Hv}, {"K", K}, {"rep", rep},
                                                            {"khmod", khmod ? 1 : 0}});
      launch(dev, "gdn_decode_k", l,
             dev.launch_contract("gdn_decode_k")
                 .argv(l, {{"out", dout.addr()}, {"state", dstate.addr()}, {"conv_out", cout.addr()},
                           {"qkv", dqkv.addr()}, {"conv_in", cin.addr()}, {"conv_w", dconv_w.addr()},
                           {"a", da.addr()}, {"b", db.addr()}, {"dt_bias", ddt.addr()}, {"ssm_a", dsa.addr()},
                           {"eps", f32(eps)}}));
      std::vector<float> got = dout.download();
      parts.push_back(split_guard(got, size_t(Hv * D)));
      parts.push_back(compare(got, want.out, kDecodeTolerance));
      std::vector<float> state = dstate.download();
      parts.push_back(compare(state, want.state, kDecodeTolerance));
      parts.push_back(compare(cout.download(), want.conv_out, kDecodeTolerance));
      in.state = state;  // the next step starts from the kernel's state and conv state
      in.conv_in = cout.download();
    }
    if (dim(c, "badwg", 0)) {  // a 64-thread workgroup: refused, nothing written
      DeviceBuffer<float> dout(dev, guarded(size_t(Hv * D))), dqkv(dev, size_t(C)), dab(dev, size_t(Hv));
      Launch l = seq::contract_launch(dev, "gdn_decode_k", {{"Hk", Hk}, {"Hv", Hv}, {"K", K}, {"rep", rep},
                                                            {"khmod", khmod ? 1 : 0}});
      l.workgroup = 64;
      launch(dev, "gdn_decode_k", l,
             dev.launch_contract("gdn_decode_k")
                 .argv(l, {{"out", dout.addr()}, {"state", dstate.addr()}, {"conv_out", dconv1.addr()},
                           {"qkv", dqkv.addr()}, {"conv_in", dconv0.addr()}, {"conv_w", dconv_w.addr()},
                           {"a", dab.addr()}, {"b", dab.addr()}, {"dt_bias", ddt.addr()}, {"ssm_a", dsa.addr()},
                           {"eps", f32(eps)}}));
      parts.push_back(compare(dout.download(), guarded(size_t(Hv * D)), kDecodeTolerance));  // the guard NaNs only
      parts.push_back(compare(dstate.download(), in.state, kDecodeTolerance));
    }
    if (c.seed == 1)
      if (auto bad = expect_contract_refusal(dev, "gdn_decode_k", {{"Hk", 2}, {"Hv", 6}, {"K", 4}, {"rep", 2}, {"khmod", 0}},
                                         "key_heads_cover_value_heads"))
        parts.push_back(*bad);
    return combine(parts);
  };
  // state read and written, conv state read and written, conv weights, the qkv row, out
  d.ideal_bytes = [](const Case& c) {
    const uint64_t Hk = uint64_t(c["Hk"]), Hv = uint64_t(c["Hv"]), K = uint64_t(c["K"]), C = (2 * Hk + Hv) * kD;
    return (2 * Hv * kD * kD + 2 * (K - 1) * C + K * C + C + Hv * kD + 4 * Hv) * 4;
  };
  // Qwen3.5-27B: 16 key heads, 48 value heads of 128, conv K = 4
  d.bench_case = [] { return make_case({{"Hk", 16}, {"Hv", 48}, {"K", 4}, {"rep", 3}, {"khmod", 0}, {"steps", 1}}); };
  r.add(std::move(d));
}

}  // namespace k100::kernels
