// Grouped-query split decode attention: flash_dec_gqa_part_k.
//
// The split part of flash decoding when several query heads share one KV
// head (GQA): query head h reads KV head g = h / group. Caches as the
// decode path keeps them: K transposed kt[n_kv][dh][max_len], V row-major
// v[max_len][vstride] with KV head g in columns g dh .. g dh + dh - 1.
// Workgroup id -> h = id >> cshift, split s = id & (2^cshift - 1), rows
// [s R, min(s R + R, n_kv, max_len)). With scores t_j = q_h . K_g[j],
// m = max t_j and p_j = exp((t_j - m) inv):
//   pm[id] = m, pl[id] = sum_j p_j, po[id][d] = sum_j p_j v[j][g dh + d]
// (an empty split writes pm = -inf, pl = 0, po = 0), exactly the partials
// flash_dec_comb_k combines, so the pair computes softmax(q K^T inv) V per
// head.
//
// One wave per split, 64 rows per block with an online maximum: lanes over
// rows compute the scores (q from SGPRs, 16 at a time by s_load_dwordx16; K
// rows are 256-byte loads, sixteen in flight), the block maximum (DPP)
// updates the running m and rescales what was summed before, then lanes over
// d accumulate p_j v_j (p_j read out by v_readlane, four V rows in flight).
// Head sizes are multiples of 32: those of 64 n + 32 (Phi-3's 96) take a
// second copy of the body whose last 64-column block runs on 32 lanes, so
// the multiples of 64 keep their instructions as they are.
// The query heads of one KV head are neighbouring workgroups, so they read
// the same K and V lines while those are in the caches.
#include <algorithm>
#include <cmath>
#include <limits>

#include "model/flash_dec_reference.h"
#include "k100/codegen/exponential.h"
#include "model/model_parts.h"

namespace k100::kernels {

namespace {

using namespace codegen;
using as::vcc, as::exec, as::offset;
using namespace model_family;


const Signature kGqaPart("flash_dec_gqa_part_k",
                         {out("po", "f32"), out("pm", "f32"), out("pl", "f32"), in("q", "f32"), in("kt", "f32"),
                          in("v", "f32"), value("n_kv", "u32"), value("dh", "u32"), value("rows_per_split", "u32"),
                          value("max_len", "u32"), value("cshift", "u32"), value("inv", "f32"),
                          value("vstride", "u32"), value("group", "u32")});

codeobj::CodeObject build_gqa_part(isa::Target target) {
  Kernel k(kGqaPart, target, options(0, 5));
  const SGPR sId = k.workgroup_id(), sDh = k.arg("dh"), sMaxLen = k.arg("max_len"), sR = k.arg("rows_per_split");
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  const SGPR sH = s1("head"), sSplit = s1("split"), sT = s1("t"), sJ0 = s1("first row"), sEnd = s1("end"),
             sJb = s1("block row"), sNb = s1("rows in block"), sD = s1("d"), sJj = s1("row in block"),
             sP = k.sgpr(4, "p"), sBmax = s1("block max"), sKtRow = s1("kt row bytes");
  const SGPR sQ = k.sgpr(16, "q chunk"), sQp = k.sgpr(2, "q pointer"), sKt = k.sgpr(2, "kt of the kv head"),
             sV = k.sgpr(2, "v of the kv head"), sVrow = k.sgpr(2, "v row"), sVstep = k.sgpr(1, "v row bytes");
  SGPR sVr[4];
  for (auto& r : sVr) r = k.sgpr(2, "v rows");
  VGPR vK[16];
  for (auto& r : vK) r = k.vgpr(1, "k");
  const VGPR vScore = k.vgpr(1, "score"), vOffK = k.vgpr(1, "kt offset"), vM = k.vgpr(1, "running max"),
             vMn = k.vgpr(1, "new max"), vCorr = k.vgpr(1, "correction"), vP = k.vgpr(1, "p"),
             vL = k.vgpr(1, "sum of p"), vC = k.vgpr(1, "inv log2 e"), vT = k.vgpr(1, "t"), vOff = k.vgpr(1, "offset"),
             vRow = k.vgpr(1, "row");
  const VGPR vAcc = k.vgpr(4, "accumulators"), vVv = k.vgpr(16, "v values");
  Label exit = k.label("exit");

  exit_unless_first_wave(k, exit);
  const VGPR vLane = whole_wave_lane_id(k);
  const SGPR sLow32 = k.sgpr(2, "lanes below 32");
  auto attend = [&](bool tail) {
    k.s_cmp_gt_u32(sDh, 256);
    k.s_cbranch_scc1(exit);
    k.s_lshr_b32(sH, sId, k.arg("cshift"));
    k.s_lshl_b32(sT, 1, k.arg("cshift"));
    k.s_sub_u32(sT, sT, 1);
    k.s_and_b32(sSplit, sId, sT);
    const Divider div = make_divider(k, k.arg("group"));
    const SGPR sG = divide_scalar(k, div, sH);
    // rows [j0, end)
    k.s_mul_i32(sJ0, sSplit, sR);
    k.s_add_u32(sEnd, sJ0, sR);
    k.s_cselect_b32(sEnd, -1, sEnd);  // saturate on overflow
    k.s_min_u32(sEnd, sEnd, k.arg("n_kv"));
    k.s_min_u32(sEnd, sEnd, sMaxLen);
    // kt of head g: kt + g dh max_len * 4; v of head g: v + g dh * 4; q + h dh * 4
    k.s_mul_i32(sT, sG, sDh);
    set_scaled_address(k, sKt, k.arg("kt"), sT, sMaxLen, 2);
    set_scaled_address(k, sV, k.arg("v"), sG, sDh, 2);
    k.s_lshl_b32(sVstep, k.arg("vstride"), 2);
    k.s_lshl_b32(sKtRow, sMaxLen, 2);
    for (int c = 0; c < 4; ++c) k.v_mov_b32(vAcc[c], 0);
    k.v_mov_b32(vL, 0);
    k.v_mov_b32(vM, kNegInfBits);
    k.v_mov_b32(vC, kLog2E);
    k.v_mul_f32(vC, k.arg("inv"), vC);
    Label block = k.label("block"), dchunk = k.label("d_chunk"), rows4 = k.label("rows4"), rows1 = k.label("rows1"),
          rows_done = k.label("rows_done"), blocks_done = k.label("blocks_done");
    k.v_lshlrev_b32(vOff, 2, vLane);  // lanes over d: 4 bytes each
    k.s_mov_b32(sJb, sJ0);
    k.bind(block);
    k.s_cmp_ge_u32(sJb, sEnd);
    k.s_cbranch_scc1(blocks_done);
    k.s_sub_u32(sNb, sEnd, sJb);
    k.s_min_u32(sNb, sNb, 64);
    // ---- scores of rows jb + lane (lanes past the block: -inf)
    k.v_add_u32(vRow, sJb, vLane);
    k.v_lshlrev_b32(vOffK, 2, vRow);
    k.v_mov_b32(vScore, 0);
    k.v_cmp_gt_u32(vcc, sNb, vLane);
    const SGPR sRows = k.sgpr(2, "rows of the block");
    k.s_mov_b64(sRows, vcc);
    set_scaled_address(k, sQp, k.arg("q"), sH, sDh, 2);
    k.s_mov_b32(sD, 0);
    k.bind(dchunk);
    k.s_load_dwordx16(sQ, sQp, 0);
    k.s_mov_b64(exec, sRows);
    for (int t = 0; t < 16; ++t) {
      k.global_load_dword(vK[t], vOffK, sKt);
      k.v_add_u32(vOffK, sKtRow, vOffK);
    }
    for (int t = 0; t < 16; ++t) k.v_fmac_f32(vScore, sQ[t], vK[t]);
    k.s_mov_b64(exec, -1);
    add64(k, sQp, 64);
    k.s_add_u32(sD, sD, 16);
    k.s_cmp_lt_u32(sD, sDh);
    k.s_cbranch_scc1(dchunk);
    k.v_mov_b32(vT, kNegInfBits);
    k.v_cndmask_b32(vScore, vT, vScore, sRows);
    // ---- online maximum
    k.v_mov_b32(vT, vScore);
    lane_reduce(k, {{ReduceOp::Max, vT}});
    k.v_readlane_b32(sBmax, vT, 63);
    k.v_max_f32(vMn, sBmax, vM);
    k.v_sub_f32(vCorr, vM, vMn);
    k.v_mul_f32(vCorr, vCorr, vC);
    k.v_exp_f32(vCorr, vCorr);  // exp((m - m_new) inv); 0 while m = -inf
    k.v_mov_b32(vM, vMn);
    k.v_sub_f32(vP, vScore, vMn);
    k.v_mul_f32(vP, vP, vC);
    k.v_exp_f32(vP, vP);
    k.v_mul_f32(vL, vL, vCorr);
    k.v_add_f32(vL, vL, vP);
    for (int c = 0; c < 4; ++c) k.v_mul_f32(vAcc[c], vAcc[c], vCorr);
    // ---- acc[d] += p_j v[j][d], lanes over d (64 columns per accumulator)
    set_scaled_address(k, sVrow, sV, sJb, k.arg("vstride"), 2);
    k.s_mov_b32(sJj, 0);
    // column block c holds d = 64 c + lane: skipped past dh; with a tail, only its lanes below 32 where dh ends in it
    auto column_mask = [&](int c, Label skip) {
      k.s_cmp_le_u32(sDh, 64 * c);
      k.s_cbranch_scc1(skip);
      if (!tail) return;
      k.s_cmp_lt_u32(sDh, 64 * c + 64);
      k.s_cselect_b64(exec, sLow32, -1);
    };
    auto rows_step = [&](int n, Label top) {
      // rows jj .. jj + n - 1
      for (int r = 0; r < n; ++r) {
        k.s_mov_b64(sVr[r], sVrow);
        add64(k, sVrow, sVstep);
        k.v_readlane_b32(sP[r], vP, sJj);
        k.s_add_u32(sJj, sJj, 1);
      }
      for (int c = 0; c < 4; ++c) {
        Label skip = k.label("column_block_done");
        column_mask(c, skip);
        for (int r = 0; r < n; ++r) k.global_load_dword(vVv[4 * c + r], vOff, sVr[r], offset(256 * c));
        for (int r = 0; r < n; ++r) k.v_fmac_f32(vAcc[c], sP[r], vVv[4 * c + r]);
        k.bind(skip);
      }
      if (tail) k.s_mov_b64(exec, -1);
      k.s_branch(top);
    };
    k.bind(rows4);
    k.s_add_u32(sT, sJj, 4);
    k.s_cmp_gt_u32(sT, sNb);
    k.s_cbranch_scc1(rows1);
    rows_step(4, rows4);
    k.bind(rows1);
    k.s_cmp_ge_u32(sJj, sNb);
    k.s_cbranch_scc1(rows_done);
    rows_step(1, rows1);
    k.bind(rows_done);
    k.s_add_u32(sJb, sJb, 64);
    k.s_branch(block);

    k.bind(blocks_done);
    // ---- outputs: pm[id] = m, pl[id] = sum p, po[id][d] = acc (zeros and -inf for an empty split)
    lane_reduce(k, {{ReduceOp::Add, vL}});
    const SGPR sPo = scaled_address(k, k.arg("po"), sId, sDh, 2);
    for (int c = 0; c < 4; ++c) {
      Label skip = k.label("store_column_block_done");
      column_mask(c, skip);
      k.global_store_dword(vOff, vAcc[c], sPo, offset(256 * c));
      k.bind(skip);
    }
    if (tail) k.s_mov_b64(exec, -1);
    const SGPR sL = s1("sum of p over the split");
    k.v_readlane_b32(sL, vL, 63);
    k.s_lshl_b32(sT, sId, 2);
    k.s_mov_b64(exec, 1);
    k.v_mov_b32(vT, sT);
    k.v_mov_b32(vL, sL);
    k.global_store_dword(vT, vL, k.arg("pl"));
    k.global_store_dword(vT, vM, k.arg("pm"));
    k.s_endpgm();
  };
  // dh a multiple of 64 up to 256 (four accumulators of 64 columns), or of 32: a body of its own whose last
  // column block runs on 32 lanes, so the multiples of 64 keep their instructions
  Label tail_body = k.label("tail_body");
  k.s_and_b32(sT, sDh, 63);
  k.s_cbranch_scc1(tail_body);
  attend(false);
  k.bind(tail_body);
  k.s_and_b32(sT, sDh, 31);
  k.s_cbranch_scc1(exit);
  k.s_mov_b32(sLow32[0], -1);
  k.s_mov_b32(sLow32[1], 0);
  attend(true);
  k.bind(exit);
  k.s_endpgm();
  return k.build();
}

// ------------------------------------------------------------------ tests

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

struct GqaShape {
  int64_t heads, kv_heads, dh, n_kv, max_len, cshift, R, vstride;
  float inv;
  int64_t group() const { return heads / kv_heads; }
  int64_t nsplit() const { return int64_t(1) << cshift; }
};

GqaShape gqa_shape(const Case& c) {
  GqaShape s{c["heads"], c["kv_heads"], c["dh"], c["n_kv"], c["max_len"], c["cshift"], 0, 0, 0.f};
  s.R = (s.n_kv + s.nsplit() - 1) / s.nsplit() + c["rpad"];
  s.vstride = s.kv_heads * s.dh + c["vpad"];
  s.inv = float(1.0 / std::sqrt(double(s.dh)));
  return s;
}

// Partials from their definition (flash_dec_reference.h), caches in this kernel's layouts.
void gqa_reference(const GqaShape& s, const std::vector<float>& q, const std::vector<float>& kt,
                   const std::vector<float>& v, std::vector<float>& po, std::vector<float>& pm,
                   std::vector<float>& pl, std::vector<float>& out) {
  split_attention_reference(
      {s.heads, s.kv_heads, s.dh, std::min(s.n_kv, s.max_len), s.nsplit(), s.R, s.inv}, q,
      [&](int64_t g, int64_t j, int64_t d) { return kt[size_t((g * s.dh + d) * s.max_len + j)]; },
      [&](int64_t g, int64_t j, int64_t d) { return v[size_t(j * s.vstride + g * s.dh + d)]; }, po, pm, pl, out);
}

// Sums of up to 64 exponentials per block in f32 with a 1-ulp exp and
// rescaling between blocks; scores of dot products of dh <= 256 terms.
Tolerance gqa_tolerance() { return Tolerance{2e-5, 2e-5}; }

CaseResult run_gqa(TestDevice& dev, const Case& c) {
  const GqaShape s = gqa_shape(c);
  Rng rng(c.seed);
  auto q = rng.uniform(size_t(s.heads * s.dh), -3.f, 3.f);
  auto kt = rng.uniform(size_t(s.kv_heads * s.dh * s.max_len));
  auto v = rng.uniform(size_t(s.max_len * s.vstride));
  std::vector<float> po, pm, pl, out;
  gqa_reference(s, q, kt, v, po, pm, pl, out);
  const int64_t ids = s.heads * s.nsplit();
  DeviceBuffer<float> dq(dev, q), dkt(dev, kt), dv(dev, v), dpo(dev, std::vector<float>(po.size(), std::nanf(""))),
      dpm(dev, std::vector<float>(pm.size(), std::nanf(""))), dpl(dev, std::vector<float>(pl.size(), std::nanf(""))),
      dout(dev, out.size());
  launch(dev, kGqaPart, {uint32_t(ids)}, {64},
         {dpo.addr(), dpm.addr(), dpl.addr(), dq.addr(), dkt.addr(), dv.addr(), s.n_kv, s.dh, s.R, s.max_len,
          s.cshift, s.inv, s.vstride, s.group()});
  // the pair with flash_dec_comb_k is softmax attention
  dev.launch("flash_dec_comb_k", {uint32_t(s.heads)}, {64},
             {dout.addr(), dpo.addr(), dpm.addr(), dpl.addr(), uint64_t(s.dh), uint64_t(s.nsplit()), f32(s.inv)});
  return combine({compare(dpo.download(), po, gqa_tolerance()), compare(dpm.download(), pm, gqa_tolerance()),
                  compare(dpl.download(), pl, gqa_tolerance()), compare(dout.download(), out, gqa_tolerance())});
}

Case gqa_case(int64_t heads, int64_t kv_heads, int64_t dh, int64_t n_kv, int64_t max_len, int64_t cshift, uint32_t seed,
              int64_t rpad = 0, int64_t vpad = 0) {
  return make_case({{"heads", heads}, {"kv_heads", kv_heads}, {"dh", dh}, {"n_kv", n_kv}, {"max_len", max_len},
                    {"cshift", cshift}, {"rpad", rpad}, {"vpad", vpad}},
                   seed);
}

void add_gqa_part(Registry& reg) {
  KernelDef d = generated_kernel("model", kGqaPart, build_gqa_part);
  d.description =
      "Split part of decode attention with grouped-query heads: query head h reads KV head h / group from the "
      "f32 caches (K transposed kt[n_kv][dh][max_len], V row-major [max_len][vstride]). Workgroup id -> head "
      "h = id >> cshift and split s (rows [s R, s R + R) below n_kv); writes the split's running max pm, sum "
      "of exponentials pl and unnormalised P V po, which flash_dec_comb_k combines into softmax(q K^T inv) V. "
      "One wave per split: lanes over 64 rows score them (q from SGPRs, sixteen 256-byte K loads in flight), "
      "an online maximum rescales earlier sums, lanes over d accumulate p_j v_j (p_j by v_readlane, four V "
      "rows in flight; a head size of 64 n + 32 takes a body whose last column block runs on 32 lanes).";
  d.semantics = "g = h / group; t_j = sum_d q[h dh + d] kt[(g dh + d) max_len + j]; m = max t_j; p_j = exp((t_j - m) "
                "inv); pm[id] = m, pl[id] = sum p_j, po[id][d] = sum p_j v[j vstride + g dh + d], j in the split";
  d.geometry = "grid = n_head << cshift, wg = 64 (waves past the first do nothing)";
  d.launch = "sizes n_head splits\nworkgroup = 64\ngrid = n_head * splits\narg cshift = log2_ceil(splits)";
  d.limits = "dh % 32 == 0 and dh <= 256 (otherwise nothing is written), group >= 1, inv >= 0";
  d.tolerance = gqa_tolerance();
  d.cases = [](bool sweep) {
    std::vector<Case> c = {gqa_case(4, 2, 64, 1, 8, 0, 1),          gqa_case(4, 1, 64, 37, 64, 0, 2),
                           gqa_case(8, 2, 128, 200, 256, 2, 3, 0, 5), gqa_case(5, 5, 64, 130, 130, 1, 4, 3),
                           gqa_case(6, 2, 256, 70, 80, 3, 5),         gqa_case(10, 2, 192, 300, 512, 4, 6, 0, 64),
                           // head sizes of 32 (up to 16 query heads per KV head) with a half-full column block
                           gqa_case(16, 1, 32, 37, 64, 0, 7),         gqa_case(8, 2, 96, 130, 192, 1, 8, 3, 32),
                           gqa_case(4, 1, 160, 65, 128, 2, 9),        gqa_case(6, 3, 224, 200, 256, 3, 10, 0, 5)};
    if (sweep) {
      uint32_t seed = 40;
      for (int64_t n_kv : {1, 2, 63, 64, 65, 127, 129, 640})
        for (int64_t cshift : {0, 1, 3, 5}) {
          const int64_t tail_dh = 32 + 64 * ((seed >> 1) & 3);  // 32, 96, 160, 224 in turn
          c.push_back(gqa_case(8, 2, 128, n_kv, 700, cshift, seed++, cshift));
          c.push_back(gqa_case(16, 1, tail_dh, n_kv, 700, cshift, seed++, cshift));
        }
    }
    return c;
  };
  d.run = run_gqa;
  d.ideal_bytes = [](const Case& c) {
    const GqaShape s = gqa_shape(c);
    return uint64_t(s.kv_heads * s.dh * std::min(s.n_kv, s.max_len) * 8 + s.heads * s.dh * 4);
  };
  d.bench_case = [] { return gqa_case(40, 8, 128, 4096, 4096, 4, 1); };
  reg.add(std::move(d));
}

}  // namespace

namespace model_family {

void split_attention_reference(const SplitAttentionShape& s, const std::vector<float>& q, const CacheElement& K,
                               const CacheElement& V, std::vector<float>& po, std::vector<float>& pm,
                               std::vector<float>& pl, std::vector<float>& out) {
  const int64_t ns = s.nsplit, group = s.heads / s.kv_heads;
  po.assign(size_t(s.heads * ns * s.dh), 0.f);
  pm.assign(size_t(s.heads * ns), kNegInf);
  pl.assign(size_t(s.heads * ns), 0.f);
  out.assign(size_t(s.heads * s.dh), 0.f);
  for (int64_t h = 0; h < s.heads; ++h) {
    const int64_t g = h / group;
    std::vector<double> sc(static_cast<size_t>(s.rows));
    for (int64_t j = 0; j < s.rows; ++j) {
      double a = 0;
      for (int64_t d = 0; d < s.dh; ++d) a += double(q[size_t(h * s.dh + d)]) * double(K(g, j, d));
      sc[size_t(j)] = a;
    }
    auto attend = [&](int64_t j0, int64_t j1, double& m, double& l, std::vector<double>& o) {
      m = -INFINITY;
      for (int64_t j = j0; j < j1; ++j) m = std::max(m, sc[size_t(j)]);
      l = 0;
      o.assign(size_t(s.dh), 0.0);
      for (int64_t j = j0; j < j1; ++j) {
        const double p = std::exp((sc[size_t(j)] - m) * double(s.inv));
        l += p;
        for (int64_t d = 0; d < s.dh; ++d) o[size_t(d)] += p * double(V(g, j, d));
      }
    };
    for (int64_t sp = 0; sp < ns; ++sp) {
      const int64_t id = h * ns + sp, j0 = sp * s.R, j1 = std::min(j0 + s.R, s.rows);
      if (j0 >= j1) continue;
      double m, l;
      std::vector<double> o;
      attend(j0, j1, m, l, o);
      pm[size_t(id)] = float(m);
      pl[size_t(id)] = float(l);
      for (int64_t d = 0; d < s.dh; ++d) po[size_t(id * s.dh + d)] = float(o[size_t(d)]);
    }
    double m, l;
    std::vector<double> o;
    attend(0, s.rows, m, l, o);
    for (int64_t d = 0; d < s.dh; ++d) out[size_t(h * s.dh + d)] = float(o[size_t(d)] / l);
  }
}

}  // namespace model_family

void register_model_attention_kernels(Registry& r) {
  add_gqa_part(r);
  add_gqa_one_launch(r);
  add_gqa_rope(r);
}

}  // namespace k100::kernels
