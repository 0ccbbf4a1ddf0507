// MoE routing on the device: moe_route_k.
//
// From a row of router logits over n_expert experts: probabilities
// p = softmax(logits), the k experts of highest p (descending; the lower
// index first among equal values) into ids[r][0..k), and their weights
// p_sel (norm = 0) or p_sel / sum of the selected p (norm = 1, as qwen3moe
// renormalises) into weights[r][0..k). The ids feed the grouped GEMVs and
// the *_dot_k kernels (their weight-group table), so a decode step never
// waits for the host to route.
//
// One wave per row, lane l holds experts l, l + 64, l + 128, l + 192
// (n_expert <= 256). Max and sum by DPP reductions; each of the k rounds
// takes the wave's argmax and removes it.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "k100/codegen/exponential.h"
#include "model/model_parts.h"

namespace k100::kernels {

namespace {

using namespace codegen;
using as::vcc;
using namespace model_family;


const Signature kRoute("moe_route_k", {in("logits", "f32"), out("ids", "u32"), out("weights", "f32"),
                                       value("rows", "u32"), value("n_expert", "u32"), value("k", "u32"),
                                       value("norm", "u32")});

codeobj::CodeObject build_route(isa::Target target) {
  Kernel k(kRoute, target, options(0, 8));
  constexpr int C = 4;
  const SGPR sRow = k.workgroup_id(), sN = k.arg("n_expert"), sK = k.arg("k");
  const SGPR sT = k.sgpr(1, "t"), sMax = k.sgpr(1, "max"), sSum = k.sgpr(1, "sum"), sRound = k.sgpr(1, "round"),
             sSel = k.sgpr(1, "selected"), sSelV = k.sgpr(1, "selected logit"), sTot = k.sgpr(1, "selected sum");
  VGPR vL[C], vIdx[C];
  for (int c = 0; c < C; ++c) {
    vL[c] = k.vgpr(1, "logit");
    vIdx[c] = k.vgpr(1, "expert");
  }
  const VGPR vOff = k.vgpr(1, "offset"), vBest = k.vgpr(1, "best"), vBestI = k.vgpr(1, "best expert"),
             vE = k.vgpr(1, "exp"), vAcc = k.vgpr(1, "acc"), vSel = k.vgpr(1, "selected ids"),
             vW = k.vgpr(1, "selected weights"), vT = k.vgpr(1, "t");
  Label exit = k.exit();

  exit_unless_first_wave(k, exit);
  k.s_cmp_ge_u32(sRow, k.arg("rows"));
  k.s_cbranch_scc1(exit);
  k.s_cmp_gt_u32(sN, 64 * C);
  k.s_cbranch_scc1(exit);
  k.s_cmp_gt_u32(sK, sN);
  k.s_cbranch_scc1(exit);
  k.s_cmp_gt_u32(sK, 64);
  k.s_cbranch_scc1(exit);
  const VGPR vLane = whole_wave_lane_id(k);
  const SGPR sLog = scaled_address(k, k.arg("logits"), sRow, sN, 2);
  for (int c = 0; c < C; ++c) {
    k.v_add_u32(vIdx[c], 64 * c, vLane);
    k.v_mov_b32(vL[c], kNegInfBits);
    if_lanes_below(k, sN, vIdx[c], [&] {
      k.v_lshlrev_b32(vOff, 2, vIdx[c]);
      k.global_load_dword(vL[c], vOff, sLog);
    });
  }
  // softmax denominator: m = max logit, S = sum exp(l - m)
  k.v_max_f32(vBest, vL[0], vL[1]);
  k.v_max3_f32(vBest, vBest, vL[2], vL[3]);
  lane_reduce(k, {{ReduceOp::Max, vBest}});
  k.v_readlane_b32(sMax, vBest, 63);
  k.v_mov_b32(vAcc, 0);
  for (int c = 0; c < C; ++c) {
    k.v_subrev_f32(vE, sMax, vL[c]);
    k.v_mul_f32(vE, kLog2E, vE);
    k.v_exp_f32(vE, vE);  // 0 for the -inf of absent experts
    k.v_add_f32(vAcc, vAcc, vE);
  }
  lane_reduce(k, {{ReduceOp::Add, vAcc}});
  k.v_readlane_b32(sSum, vAcc, 63);

  // k rounds of argmax; round t leaves its expert in lane t of vSel, exp(l - m) in lane t of vW
  k.v_mov_b32(vSel, 0);
  k.v_mov_b32(vW, 0);
  k.s_mov_b32(sRound, 0);
  k.loop_();
  k.s_cmp_ge_u32(sRound, sK);
  k.break_(Cond::Scc1);
  k.v_mov_b32(vBest, vL[0]);
  k.v_mov_b32(vBestI, vIdx[0]);
  for (int c = 1; c < C; ++c) argmax_merge(k, vBest, vBestI, vL[c], vIdx[c]);
  wave_argmax(k, vBest, vBestI);
  k.v_readlane_b32(sSel, vBestI, 63);
  k.v_readlane_b32(sSelV, vBest, 63);
  k.v_cmp_eq_u32(vcc, sRound, vLane);
  k.v_mov_b32(vT, sSel);
  k.v_cndmask_b32(vSel, vSel, vT, vcc);
  k.v_mov_b32(vE, sSelV);
  k.v_subrev_f32(vE, sMax, vE);
  k.v_mul_f32(vE, kLog2E, vE);
  k.v_exp_f32(vE, vE);
  k.v_cndmask_b32(vW, vW, vE, vcc);
  // remove the winner
  k.v_mov_b32(vT, kNegInfBits);
  for (int c = 0; c < C; ++c) {
    k.v_cmp_eq_u32(vcc, sSel, vIdx[c]);
    k.v_cndmask_b32(vL[c], vL[c], vT, vcc);
  }
  k.s_add_u32(sRound, sRound, 1);
  k.end_loop();

  // weights: exp / S, or exp / (sum of the selected exp)
  k.s_cmp_eq_u32(k.arg("norm"), 0);
  k.if_(Cond::Scc1, [&] { k.s_mov_b32(sTot, sSum); }, [&] {
    k.v_mov_b32(vAcc, vW);
    lane_reduce(k, {{ReduceOp::Add, vAcc}});
    k.v_readlane_b32(sTot, vAcc, 63);
  });
  // w = e / total, with one residual correction of the reciprocal
  k.v_mov_b32(vT, sTot);
  k.v_rcp_f32(vE, vT);
  k.v_mul_f32(vAcc, vW, vE);
  k.v_fma_f32(vT, neg(vAcc), vT, vW);
  k.v_fmac_f32(vAcc, vT, vE);
  k.s_mul_i32(sT, sRow, sK);
  const SGPR sIds = offset_address(k, k.arg("ids"), sT, 2), sWs = offset_address(k, k.arg("weights"), sT, 2);
  k.v_lshlrev_b32(vOff, 2, vLane);
  if_lanes_below(k, sK, vLane, [&] {
    k.global_store_dword(vOff, vSel, sIds);
    k.global_store_dword(vOff, vAcc, sWs);
  });
  return k.build();
}

// ------------------------------------------------------------------ tests

// The reference: softmax in double, stable descending order (lower index first on ties).
void route_reference(const std::vector<float>& logits, int64_t rows, int64_t n, int64_t kk, bool norm,
                     std::vector<uint32_t>& ids, std::vector<float>& weights) {
  ids.assign(size_t(rows * kk), 0);
  weights.assign(size_t(rows * kk), 0.f);
  for (int64_t r = 0; r < rows; ++r) {
    const float* l = &logits[size_t(r * n)];
    double m = -INFINITY, s = 0;
    for (int64_t e = 0; e < n; ++e) m = std::max(m, double(l[e]));
    std::vector<double> p(static_cast<size_t>(n));
    for (int64_t e = 0; e < n; ++e) s += (p[size_t(e)] = std::exp(double(l[e]) - m));
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return l[a] > l[b]; });
    double sel = 0;
    for (int64_t t = 0; t < kk; ++t) sel += p[size_t(order[size_t(t)])];
    for (int64_t t = 0; t < kk; ++t) {
      ids[size_t(r * kk + t)] = uint32_t(order[size_t(t)]);
      weights[size_t(r * kk + t)] = float(p[size_t(order[size_t(t)])] / (norm ? sel : s));
    }
  }
}

// A 1-ulp exp per term and a corrected reciprocal.
Tolerance route_tolerance() { return Tolerance{1e-6, 4e-6}; }

CaseResult run_route(TestDevice& dev, const Case& c) {
  const int64_t rows = c["rows"], n = c["n"], kk = c["k"];
  const bool norm = c["norm"] != 0;
  Rng rng(c.seed);
  auto logits = rng.uniform(size_t(rows * n), -4.f, 4.f);
  if (c["ties"])  // repeated values: the lower index wins
    for (size_t i = 0; i < logits.size(); ++i) logits[i] = float(int(logits[i] * 2)) * 0.5f;
  std::vector<uint32_t> ids;
  std::vector<float> w;
  route_reference(logits, rows, n, kk, norm, ids, w);
  DeviceBuffer<float> dl(dev, logits), dw(dev, std::vector<float>(w.size() + 4, std::nanf("")));
  DeviceBuffer<uint32_t> di(dev, std::vector<uint32_t>(ids.size() + 4, 0xdeadbeefu));
  launch(dev, kRoute, {uint32_t(rows)}, {64}, {dl.addr(), di.addr(), dw.addr(), rows, n, kk, norm ? 1 : 0});
  std::vector<uint32_t> want_ids = ids;
  want_ids.insert(want_ids.end(), 4, 0xdeadbeefu);  // nothing past the rows
  std::vector<float> got_w = dw.download();
  got_w.resize(w.size());
  return combine({compare_exact_u32(di.download(), want_ids), compare(got_w, w, route_tolerance())});
}

void add_route(Registry& reg) {
  KernelDef d = generated_kernel("model", kRoute, build_route);
  d.description =
      "MoE routing of rows of router logits on the device: p = softmax(logits) over n_expert, the k experts of "
      "highest p in descending order (the lower index first among equal values) into ids, and their weights "
      "p (norm = 0) or p / sum of the selected p (norm = 1, the renormalisation of qwen3moe) into weights. The "
      "ids feed the grouped GEMVs and the *_dot_k kernels as their weight-group table. One wave per row, four "
      "experts per lane; DPP max and sum, then k rounds of a wave argmax.";
  d.semantics = "ids[r][t] = t-th largest logit's expert; weights[r][t] = p[ids[r][t]] / (norm ? sum_t p[ids[r][t]] "
                ": 1), p = softmax(logits[r])";
  d.geometry = "grid = rows, wg = 64 (waves past the first do nothing)";
  d.launch = "sizes rows\nworkgroup = 64\ngrid = rows";
  d.limits = "n_expert <= 256, k <= min(n_expert, 64) (otherwise nothing is written); logits not NaN";
  d.tolerance = route_tolerance();
  d.cases = [](bool sweep) {
    std::vector<Case> c = {make_case({{"rows", 1}, {"n", 8}, {"k", 2}, {"norm", 1}, {"ties", 0}}, 1),
                           make_case({{"rows", 3}, {"n", 128}, {"k", 8}, {"norm", 1}, {"ties", 0}}, 2),
                           make_case({{"rows", 2}, {"n", 60}, {"k", 4}, {"norm", 0}, {"ties", 1}}, 3),
                           make_case({{"rows", 1}, {"n", 256}, {"k", 16}, {"norm", 0}, {"ties", 0}}, 4),
                           make_case({{"rows", 2}, {"n", 3}, {"k", 3}, {"norm", 1}, {"ties", 1}}, 5)};
    if (sweep) {
      uint32_t seed = 10;
      for (int64_t n : {1, 2, 63, 64, 65, 129, 200, 256})
        for (int64_t kk : {1, 2, 8})
          if (kk <= n) c.push_back(make_case({{"rows", 4}, {"n", n}, {"k", kk}, {"norm", kk % 2}, {"ties", n % 2}}, seed++));
    }
    return c;
  };
  d.run = run_route;
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["rows"] * (c["n"] * 4 + c["k"] * 8)); };
  reg.add(std::move(d));
}

}  // namespace

void register_model_moe_kernels(Registry& r) { add_route(r); }

}  // namespace k100::kernels
