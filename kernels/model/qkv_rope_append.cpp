// The attention input of one decode step in one launch: qkv_rope_append_k.
//
// The fused Q|K|V projection of a token (n_head query heads, then n_kv key
// heads, then n_kv value heads, dh floats each) gets its bias (qwen2), the
// per-head RMSNorm of q and k (qwen3), rotary position embedding of q and k,
// and k and v go into the KV cache at column `pos`:
//   q heads  -> q_out[h][d]
//   k heads  -> kt[(g dh + d) max_len + pos]   (K transposed, as flash decoding reads it)
//   v heads  -> vc[pos (n_kv dh) + g dh + d]   (V row-major)
// or, with mode bit 1, in the blocked layouts flash_dec_gqa_k reads:
//   k heads  -> kt[(g max_len + (pos & ~63)) dh + 64 d + (pos & 63)]  (64-row tiles of K^T)
//   v heads  -> vc[(g max_len + pos) dh + d]                          (head-major V)
// RoPE pairs: mode 0 ("norm", llama) rotates (2i, 2i+1); mode 1 ("neox",
// qwen2/qwen3) rotates (i, i + n_rot/2); pair i < n_rot/2 uses cos/sin[pos][i]
// of the caller's tables (so any frequency scaling is the host's choice);
// dimensions past n_rot pass through.
//
// One wave per head row (grid = n_head + 2 n_kv). Lane t holds pairs t and
// t + 64 (dh <= 256); the RMSNorm sum of squares is a DPP reduction.
#include <cmath>
#include <cstring>

#include "model/flash_dec_reference.h"
#include "model/model_parts.h"

namespace k100::kernels {

namespace {

using namespace codegen;
using as::vcc, as::exec;
using namespace model_family;

}  // namespace

namespace model_family {

Tolerance rope_tolerance() { return Tolerance{2e-6, 4e-6}; }

}  // namespace model_family

namespace {

const Signature kQkvRope("qkv_rope_append_k",
                         {out("q_out", "f32"), inout("kt", "f32"), inout("vc", "f32"), in("qkv", "f32"),
                          in("bias", "f32"), in("q_norm", "f32"), in("k_norm", "f32"), in("cos", "f32"),
                          in("sin", "f32"), value("n_head", "u32"), value("n_kv", "u32"), value("dh", "u32"),
                          value("n_rot", "u32"), value("max_len", "u32"), value("pos", "u32"), value("mode", "u32"),
                          value("eps", "f32")});

codeobj::CodeObject build_qkv_rope(isa::Target target) {
  Kernel k(kQkvRope, target, options(0, 6));
  Label exit = k.label("exit"), not_q = k.label("not_q"), is_v = k.label("is_v"), have_kind = k.label("have_kind"),
        no_norm = k.label("no_norm"), no_rope = k.label("no_rope"), blocked_k = k.label("blocked_k"),
        blocked_v = k.label("blocked_v");
  const SGPR sRow = k.workgroup_id(), sNh = k.arg("n_head"), sNkv = k.arg("n_kv"), sDh = k.arg("dh"),
             sPos = k.arg("pos"), sMaxLen = k.arg("max_len");
  const SGPR sT = k.sgpr(1, "t"), sG = k.sgpr(1, "kv head"), sDst = k.sgpr(2, "destination"),
             sStride = k.sgpr(1, "element stride"), sNormW = k.sgpr(2, "norm weights"), sRope = k.sgpr(1, "rope"),
             sBias = k.sgpr(2, "bias row"), sHalfDh = k.sgpr(1, "pairs"), sHalfRot = k.sgpr(1, "rotated pairs"),
             sNeox = k.sgpr(2, "neox lanes"), sSum = k.sgpr(1, "sum of squares"),
             sTab = k.sgpr(2, "table row"), sHalf = k.sgpr(1, "f16 cache row");

  // sDst = cache + sT dh elements of 4 bytes, or of 2 with mode bit 2 (sHalf = 1)
  auto blocked_row = [&](const char* cache) {
    Label half = k.label("half_row"), done = k.label("row_set");
    k.s_bitcmp1_b32(k.arg("mode"), 2);
    k.s_cbranch_scc1(half);
    set_scaled_address(k, sDst, k.arg(cache), sT, sDh, 2);
    k.s_branch(done);
    k.bind(half);
    set_scaled_address(k, sDst, k.arg(cache), sT, sDh, 1);
    k.s_mov_b32(sHalf, 1);
    k.bind(done);
  };
  exit_unless_first_wave(k, exit);
  k.s_mov_b32(sHalf, 0);
  k.s_add_u32(sT, sNh, sNkv);
  k.s_add_u32(sT, sT, sNkv);
  k.s_cmp_ge_u32(sRow, sT);
  k.s_cbranch_scc1(exit);
  k.s_cmp_gt_u32(sDh, 256);  // two pairs per lane at most
  k.s_cbranch_scc1(exit);
  const SGPR sSrc = scaled_address(k, k.arg("qkv"), sRow, sDh, 2);
  k.s_mov_b64(sBias, k.arg("bias"));
  k.s_cmp_eq_u64(sBias, 0);
  Label no_bias_row = k.label("no_bias_row");
  k.s_cbranch_scc1(no_bias_row);
  set_scaled_address(k, sBias, k.arg("bias"), sRow, sDh, 2);
  k.bind(no_bias_row);

  // Which head this row is, where it goes.
  k.s_cmp_ge_u32(sRow, sNh);
  k.s_cbranch_scc1(not_q);
  set_scaled_address(k, sDst, k.arg("q_out"), sRow, sDh, 2);
  k.s_mov_b32(sStride, 4);
  k.s_mov_b64(sNormW, k.arg("q_norm"));
  k.s_mov_b32(sRope, 1);
  k.s_branch(have_kind);
  k.bind(not_q);
  k.s_sub_u32(sG, sRow, sNh);
  k.s_cmp_ge_u32(sG, sNkv);
  k.s_cbranch_scc1(is_v);
  k.s_mov_b64(sNormW, k.arg("k_norm"));
  k.s_mov_b32(sRope, 1);
  k.s_bitcmp1_b32(k.arg("mode"), 1);
  k.s_cbranch_scc1(blocked_k);
  // kt + (g dh max_len + pos) * 4
  k.s_mul_i32(sT, sG, sDh);
  set_scaled_address(k, sDst, k.arg("kt"), sT, sMaxLen, 2);
  add64_pair(k, sDst, widen_shifted(k, sPos, 2));
  k.s_lshl_b32(sStride, sMaxLen, 2);
  k.s_branch(have_kind);
  // blocked: kt + ((g max_len + (pos & ~63)) dh + (pos & 63)) * 4, element stride 64 * 4;
  // f16 (bit 2): kt + (g max_len + (pos & ~63)) dh * 2 + (pos & 63) * 4, d pairs 256 bytes apart
  k.bind(blocked_k);
  k.s_mul_i32(sT, sG, sMaxLen);
  k.s_andn2_b32(sStride, sPos, 63);
  k.s_add_u32(sT, sT, sStride);
  blocked_row("kt");
  k.s_and_b32(sT, sPos, 63);
  k.s_lshl_b32(sT, sT, 2);
  add64(k, sDst, sT);
  k.s_mov_b32(sStride, 256);
  k.s_branch(have_kind);
  k.bind(is_v);
  k.s_sub_u32(sG, sG, sNkv);
  k.s_mov_b32(sStride, 4);
  k.s_mov_b64(sNormW, 0);
  k.s_mov_b32(sRope, 0);
  k.s_bitcmp1_b32(k.arg("mode"), 1);
  k.s_cbranch_scc1(blocked_v);
  // vc + (pos n_kv dh + g dh) * 4
  k.s_mul_i32(sT, sNkv, sDh);
  set_scaled_address(k, sDst, k.arg("vc"), sPos, sT, 2);
  k.s_mul_i32(sT, sG, sDh);
  k.s_lshl_b32(sT, sT, 2);
  add64(k, sDst, sT);
  k.s_branch(have_kind);
  // blocked (head-major): vc + (g max_len + pos) dh * 4; f16: * 2, d pairs 4 bytes apart
  k.bind(blocked_v);
  k.s_mul_i32(sT, sG, sMaxLen);
  k.s_add_u32(sT, sT, sPos);
  blocked_row("vc");
  k.bind(have_kind);

  const VGPR vLane = whole_wave_lane_id(k);
  k.s_lshr_b32(sHalfDh, sDh, 1);
  k.s_lshr_b32(sHalfRot, k.arg("n_rot"), 1);
  k.s_min_u32(sHalfRot, sHalfRot, sHalfDh);
  k.s_and_b32(sT, k.arg("mode"), 1);
  k.s_cmp_eq_u32(sT, 1);
  k.s_cselect_b64(sNeox, -1, 0);
  k.s_cmp_eq_u32(sRope, 0);
  Label keep_rot = k.label("keep_rot");
  k.s_cbranch_scc0(keep_rot);
  k.s_mov_b32(sHalfRot, 0);  // v rows: nothing rotates
  k.bind(keep_rot);

  constexpr int C = 2;
  VGPR vI[C], vIa[C], vIb[C], vA[C], vB[C];
  SGPR sValid[C], sRot[C];
  const VGPR vOff = k.vgpr(1, "offset"), vT = k.vgpr(1, "t"), vU = k.vgpr(1, "u"), vCos = k.vgpr(1, "cos"),
             vSin = k.vgpr(1, "sin"), vSq = k.vgpr(1, "squares"), vScale = k.vgpr(1, "scale");
  for (int c = 0; c < C; ++c) {
    vI[c] = k.vgpr(1, "pair");
    vIa[c] = k.vgpr(1, "first element");
    vIb[c] = k.vgpr(1, "second element");
    vA[c] = k.vgpr(1, "a");
    vB[c] = k.vgpr(1, "b");
    sValid[c] = k.sgpr(2, "valid lanes");
    sRot[c] = k.sgpr(2, "rotated lanes");
    k.v_add_u32(vI[c], 64 * c, vLane);
    k.v_cmp_gt_u32(vcc, sHalfDh, vI[c]);
    k.s_mov_b64(sValid[c], vcc);
    k.v_cmp_gt_u32(vcc, sHalfRot, vI[c]);
    k.s_and_b64(sRot[c], vcc, sValid[c]);
    // elements: (2i, 2i + 1), or (i, i + n_rot/2) for rotated neox pairs
    k.v_lshlrev_b32(vIa[c], 1, vI[c]);
    k.v_add_u32(vIb[c], 1, vIa[c]);
    k.s_and_b64(vcc, sRot[c], sNeox);
    k.v_cndmask_b32(vIa[c], vIa[c], vI[c], vcc);
    k.v_add_u32(vT, sHalfRot, vI[c]);
    k.v_cndmask_b32(vIb[c], vIb[c], vT, vcc);
    k.v_mov_b32(vA[c], 0);
    k.v_mov_b32(vB[c], 0);
  }
  // x (+ bias)
  Label bias_done = k.label("bias_done");
  for (int c = 0; c < C; ++c) {
    k.s_mov_b64(exec, sValid[c]);
    k.v_lshlrev_b32(vOff, 2, vIa[c]);
    k.global_load_dword(vA[c], vOff, sSrc);
    k.v_lshlrev_b32(vOff, 2, vIb[c]);
    k.global_load_dword(vB[c], vOff, sSrc);
  }
  k.s_cmp_eq_u64(sBias, 0);
  k.s_cbranch_scc1(bias_done);
  for (int c = 0; c < C; ++c) {
    k.s_mov_b64(exec, sValid[c]);
    k.v_lshlrev_b32(vOff, 2, vIa[c]);
    k.global_load_dword(vT, vOff, sBias);
    k.v_lshlrev_b32(vOff, 2, vIb[c]);
    k.global_load_dword(vU, vOff, sBias);
    k.v_add_f32(vA[c], vA[c], vT);
    k.v_add_f32(vB[c], vB[c], vU);
  }
  k.bind(bias_done);
  k.s_mov_b64(exec, -1);

  // RMSNorm over the head: x * (mean(x^2) + eps)^(-1/2) * w
  k.s_cmp_eq_u64(sNormW, 0);
  k.s_cbranch_scc1(no_norm);
  k.v_mul_f32(vSq, vA[0], vA[0]);
  k.v_fmac_f32(vSq, vB[0], vB[0]);
  k.v_fmac_f32(vSq, vA[1], vA[1]);
  k.v_fmac_f32(vSq, vB[1], vB[1]);
  lane_reduce(k, {{ReduceOp::Add, vSq}});
  k.v_readlane_b32(sSum, vSq, 63);
  // mean = sum / dh: reciprocal estimate, one residual correction
  k.v_cvt_f32_u32(vT, sDh);
  k.v_rcp_f32(vCos, vT);
  k.v_mul_f32(vScale, sSum, vCos);
  k.v_fma_f32(vU, neg(vScale), vT, sSum);
  k.v_fmac_f32(vScale, vU, vCos);
  k.v_add_f32(vScale, k.arg("eps"), vScale);
  k.v_rsq_f32(vScale, vScale);
  for (int c = 0; c < C; ++c) {
    k.s_mov_b64(exec, sValid[c]);
    k.v_lshlrev_b32(vOff, 2, vIa[c]);
    k.global_load_dword(vT, vOff, sNormW);
    k.v_lshlrev_b32(vOff, 2, vIb[c]);
    k.global_load_dword(vU, vOff, sNormW);
    k.v_mul_f32(vA[c], vA[c], vScale);
    k.v_mul_f32(vA[c], vA[c], vT);
    k.v_mul_f32(vB[c], vB[c], vScale);
    k.v_mul_f32(vB[c], vB[c], vU);
  }
  k.s_mov_b64(exec, -1);
  k.bind(no_norm);

  // Rotation of pair i by the table row pos.
  k.s_cmp_eq_u32(sHalfRot, 0);
  k.s_cbranch_scc1(no_rope);
  k.s_lshr_b32(sT, k.arg("n_rot"), 1);
  k.s_mul_i32(sT, sT, sPos);
  set_scaled_address(k, sTab, k.arg("cos"), sT, 1, 2);
  const SGPR sTabSin = scaled_address(k, k.arg("sin"), sT, 1, 2);
  for (int c = 0; c < C; ++c) {
    k.s_mov_b64(exec, sRot[c]);
    k.s_cbranch_execz(no_rope);
    k.v_lshlrev_b32(vOff, 2, vI[c]);
    k.global_load_dword(vCos, vOff, sTab);
    k.global_load_dword(vSin, vOff, sTabSin);
    k.v_mul_f32(vT, vA[c], vCos);
    k.v_mul_f32(vU, vA[c], vSin);
    k.v_fma_f32(vA[c], neg(vB[c]), vSin, vT);
    k.v_fma_f32(vB[c], vB[c], vCos, vU);
  }
  k.bind(no_rope);

  Label half_store = k.label("half_store");
  k.s_cmp_eq_u32(sHalf, 1);
  k.s_cbranch_scc1(half_store);
  for (int c = 0; c < C; ++c) {
    k.s_mov_b64(exec, sValid[c]);
    k.v_mul_lo_u32(vOff, vIa[c], sStride);
    k.global_store_dword(vOff, vA[c], sDst);
    k.v_mul_lo_u32(vOff, vIb[c], sStride);
    k.global_store_dword(vOff, vB[c], sDst);
  }
  k.s_endpgm();
  // f16 caches: element d at (d >> 1) * stride + (d & 1) * 2
  k.bind(half_store);
  for (int c = 0; c < C; ++c) {
    k.s_mov_b64(exec, sValid[c]);
    for (int e = 0; e < 2; ++e) {
      const VGPR idx = e ? vIb[c] : vIa[c];
      k.v_lshrrev_b32(vOff, 1, idx);
      k.v_mul_lo_u32(vOff, vOff, sStride);
      k.v_and_b32(vT, 1, idx);
      k.v_lshl_add_u32(vOff, vT, 1, vOff);
      k.v_cvt_f16_f32(vU, e ? vB[c] : vA[c]);
      k.global_store_short(vOff, vU, sDst);
    }
  }
  k.bind(exit);
  k.s_endpgm();
  return k.build();
}

}  // namespace

// ------------------------------------------------------------------ tests

namespace model_family {

void qkv_rope_reference(const RopeCase& p, const std::vector<float>& qkv, const std::vector<float>& bias,
                        const std::vector<float>& qn, const std::vector<float>& kn, const std::vector<float>& cs,
                        const std::vector<float>& sn, std::vector<float>& q_out, std::vector<float>& kt,
                        std::vector<float>& vc, std::vector<uint16_t>& kt16, std::vector<uint16_t>& vc16, float eps) {
  const int64_t rows = p.n_head + 2 * p.n_kv, half = p.n_rot / 2;
  const bool blocked = (p.mode & 2) != 0, f16 = blocked && (p.mode & 4);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> x(size_t(p.dh));
    for (int64_t d = 0; d < p.dh; ++d)
      x[size_t(d)] = double(qkv[size_t(r * p.dh + d)]) + (p.bias ? double(bias[size_t(r * p.dh + d)]) : 0.0);
    const bool is_q = r < p.n_head, is_k = !is_q && r < p.n_head + p.n_kv;
    if (p.norm && (is_q || is_k)) {
      double s = 0;
      for (double v : x) s += v * v;
      const double scale = 1.0 / std::sqrt(s / double(p.dh) + double(eps));
      for (int64_t d = 0; d < p.dh; ++d) x[size_t(d)] *= scale * double((is_q ? qn : kn)[size_t(d)]);
    }
    if (is_q || is_k)
      for (int64_t i = 0; i < half; ++i) {
        const int64_t a = p.mode & 1 ? i : 2 * i, b = p.mode & 1 ? i + half : 2 * i + 1;
        const double c = cs[size_t(p.pos * half + i)], s = sn[size_t(p.pos * half + i)];
        const double xa = x[size_t(a)], xb = x[size_t(b)];
        x[size_t(a)] = xa * c - xb * s;
        x[size_t(b)] = xa * s + xb * c;
      }
    for (int64_t d = 0; d < p.dh; ++d) {
      const float v = float(x[size_t(d)]);
      if (is_q) q_out[size_t(r * p.dh + d)] = v;
      else if (is_k && f16) {  // the f16 value, and the f32 one it rounds (at the same index) for the check
        const size_t i = size_t(blocked_k_f16_index(r - p.n_head, p.pos, d, p.dh, p.max_len));
        kt16[i] = float_to_half(v);
        kt[i] = v;
      }
      else if (is_k && blocked) kt[size_t(blocked_k_index(r - p.n_head, p.pos, d, p.dh, p.max_len))] = v;
      else if (is_k) kt[size_t(((r - p.n_head) * p.dh + d) * p.max_len + p.pos)] = v;
      else if (f16) {
        const size_t i = size_t(((r - p.n_head - p.n_kv) * p.max_len + p.pos) * p.dh + d);
        vc16[i] = float_to_half(v);
        vc[i] = v;
      }
      else if (blocked) vc[size_t(((r - p.n_head - p.n_kv) * p.max_len + p.pos) * p.dh + d)] = v;
      else vc[size_t(p.pos * p.n_kv * p.dh + (r - p.n_head - p.n_kv) * p.dh + d)] = v;
    }
  }
}

CaseResult compare_written_halves(const std::vector<uint16_t>& got, const std::vector<uint16_t>& before,
                                  const std::vector<uint16_t>& want16, const std::vector<float>& want32,
                                  const Tolerance& t) {
  std::vector<uint32_t> g(got.size()), w(got.size());
  for (size_t i = 0; i < got.size(); ++i) {
    bool ok = got[i] == want16[i];
    if (!ok && want16[i] != before[i]) {
      const double x = want32[i], e = t.abs + t.rel * std::fabs(x);
      const float lo = half_to_float(float_to_half(float(x - e))), hi = half_to_float(float_to_half(float(x + e)));
      const float v = half_to_float(got[i]);
      ok = v >= lo && v <= hi;
    }
    g[i] = ok ? want16[i] : got[i];
    w[i] = want16[i];
  }
  return compare_exact_u32(g, w);
}

void rope_tables(int64_t n_rot, int64_t max_len, std::vector<float>& cs, std::vector<float>& sn) {
  const int64_t half = n_rot / 2;
  cs.assign(size_t(max_len * std::max<int64_t>(half, 1)), 0.f);
  sn.assign(cs.size(), 0.f);
  for (int64_t t = 0; t < max_len; ++t)
    for (int64_t i = 0; i < half; ++i) {
      const double theta = double(t) * std::pow(10000.0, -2.0 * double(i) / double(n_rot));
      cs[size_t(t * half + i)] = float(std::cos(theta));
      sn[size_t(t * half + i)] = float(std::sin(theta));
    }
}

}  // namespace model_family

namespace {



CaseResult run_qkv_rope(TestDevice& dev, const Case& c) {
  const RopeCase p{c["n_head"], c["n_kv"], c["dh"], c["n_rot"], c["max_len"], c["pos"], c["mode"],
                   c["bias"] != 0, c["norm"] != 0};
  const float eps = 1e-6f;
  Rng rng(c.seed);
  const int64_t rows = p.n_head + 2 * p.n_kv;
  auto qkv = rng.uniform(size_t(rows * p.dh), -2.f, 2.f);
  auto bias = rng.uniform(size_t(rows * p.dh));
  auto qn = rng.uniform(size_t(p.dh), 0.5f, 1.5f), kn = rng.uniform(size_t(p.dh), 0.5f, 1.5f);
  std::vector<float> cs, sn;
  rope_tables(p.n_rot, p.max_len, cs, sn);
  // the caches hold earlier columns that must stay as they are
  auto kt = rng.uniform(size_t(p.n_kv * p.dh * p.max_len)), vc = rng.uniform(size_t(p.max_len * p.n_kv * p.dh));
  std::vector<uint16_t> kt16(kt.size()), vc16(vc.size());
  for (size_t i = 0; i < kt.size(); ++i) kt16[i] = float_to_half(kt[i]);
  for (size_t i = 0; i < vc.size(); ++i) vc16[i] = float_to_half(vc[i]);
  const bool f16 = (p.mode & 6) == 6;
  std::vector<float> q_out(size_t(p.n_head * p.dh), std::nanf("")), want_q = q_out, want_kt = kt, want_vc = vc;
  std::vector<uint16_t> want_kt16 = kt16, want_vc16 = vc16;
  qkv_rope_reference(p, qkv, bias, qn, kn, cs, sn, want_q, want_kt, want_vc, want_kt16, want_vc16, eps);
  DeviceBuffer<float> dq(dev, q_out), dkt(dev, kt), dvc(dev, vc), dqkv(dev, qkv), db(dev, bias), dqn(dev, qn),
      dkn(dev, kn), dcs(dev, cs), dsn(dev, sn);
  DeviceBuffer<uint16_t> dkt16(dev, kt16), dvc16(dev, vc16);
  launch(dev, kQkvRope, {uint32_t(rows)}, {uint32_t(c["wg"])},
         {dq.addr(), f16 ? dkt16.addr() : dkt.addr(), f16 ? dvc16.addr() : dvc.addr(), dqkv.addr(),
          p.bias ? db.addr() : uint64_t(0),
          p.norm ? dqn.addr() : uint64_t(0), p.norm ? dkn.addr() : uint64_t(0), dcs.addr(), dsn.addr(), p.n_head,
          p.n_kv, p.dh, p.n_rot, p.max_len, p.pos, p.mode, eps});
  if (f16) {
    return combine({compare(dq.download(), want_q, rope_tolerance()),
                    compare_written_halves(dkt16.download(), kt16, want_kt16, want_kt, rope_tolerance()),
                    compare_written_halves(dvc16.download(), vc16, want_vc16, want_vc, rope_tolerance())});
  }
  return combine({compare(dq.download(), want_q, rope_tolerance()), compare(dkt.download(), want_kt, rope_tolerance()),
                  compare(dvc.download(), want_vc, rope_tolerance())});
}

Case rope_case(int64_t n_head, int64_t n_kv, int64_t dh, int64_t n_rot, int64_t max_len, int64_t pos, int64_t mode,
               int bias, int norm, uint32_t seed, int64_t wg = 64) {
  return make_case({{"n_head", n_head}, {"n_kv", n_kv}, {"dh", dh}, {"n_rot", n_rot}, {"max_len", max_len},
                    {"pos", pos}, {"mode", mode}, {"bias", bias}, {"norm", norm}, {"wg", wg}},
                   seed);
}

void add_qkv_rope(Registry& reg) {
  KernelDef d = generated_kernel("model", kQkvRope, build_qkv_rope);
  d.description =
      "The attention input of one decode step in one launch. The fused Q|K|V projection of a token (n_head query "
      "heads, then n_kv key heads, then n_kv value heads, dh floats each) gets its bias (bias != 0; qwen2), the "
      "per-head RMSNorm of q and k with weights [dh] (q_norm, k_norm != 0; qwen3), rotary embedding of q and k "
      "(mode 0: adjacent pairs (2i, 2i+1) as llama; mode 1: (i, i + n_rot/2) as neox/qwen; pair i < n_rot/2 "
      "uses the caller's cos/sin tables [max_len][n_rot/2] at row pos, dimensions past n_rot pass through), "
      "then q goes to q_out, k into the transposed K cache and v into the V cache at column pos (the layouts "
      "flash_dec_part_k and flash_dec_gqa_part_k read; with mode bit 1 the blocked layouts flash_dec_gqa_k "
      "reads: K in 64-row tiles of K^T, V head-major; bit 2 with bit 1: f16 caches as flash_dec_gqa_f16_k reads, "
      "d pairs in one dword). One wave per head row, two pairs per lane.";
  d.semantics = "x = qkv[r] + bias[r]; q, k rows: x = rmsnorm(x) * w_norm, rotate pairs by (cos, sin)[pos][i]; "
                "q_out[h][d] = x (h < n_head); kt[(g dh + d) max_len + pos] = x (k head g); "
                "vc[pos n_kv dh + g dh + d] = x (v head g); mode bit 1 (blocked): kt[(g max_len + (pos & ~63)) dh + "
                "64 d + (pos & 63)], vc[(g max_len + pos) dh + d]";
  d.geometry = "grid = n_head + 2 n_kv, wg = 64 (waves past the first do nothing)";
  d.launch = "sizes n_head n_kv\nworkgroup = 64\ngrid = n_head + 2 * n_kv";
  d.limits = "dh <= 256 and even (larger dh writes nothing), n_rot even and <= dh, pos < max_len; blocked: max_len % 64 == 0; bit 2 only with bit 1";
  d.tolerance = rope_tolerance();
  d.cases = [](bool sweep) {
    std::vector<Case> c = {rope_case(4, 2, 64, 64, 8, 3, 0, 0, 0, 1), rope_case(4, 2, 64, 64, 8, 5, 1, 1, 0, 2),
                           rope_case(8, 2, 128, 128, 16, 15, 1, 0, 1, 3), rope_case(2, 1, 256, 256, 4, 1, 1, 1, 1, 4),
                           rope_case(3, 3, 96, 64, 10, 7, 1, 0, 0, 5), rope_case(5, 1, 80, 32, 6, 0, 0, 1, 1, 6, 128),
                           rope_case(4, 2, 64, 64, 128, 70, 2, 0, 0, 7), rope_case(8, 2, 128, 128, 192, 127, 3, 1, 1, 8),
                           rope_case(5, 5, 64, 32, 64, 0, 3, 0, 1, 9), rope_case(8, 2, 128, 128, 192, 130, 7, 1, 1, 10),
                           rope_case(4, 4, 64, 64, 64, 63, 6, 0, 0, 11)};
    if (sweep) {
      uint32_t seed = 30;
      for (int64_t dh : {2, 62, 64, 66, 128, 130, 200, 256})
        for (int64_t mode : {0, 1})
          for (int flags = 0; flags < 4; ++flags)
            c.push_back(rope_case(6, 2, dh, dh - 2 * (dh / 8), 12, 11, mode, flags & 1, flags >> 1, seed++));
      for (int64_t pos : {0, 1, 63, 64, 65, 191})
        for (int64_t mode : {3, 7}) c.push_back(rope_case(8, 2, 128, 128, 192, pos, mode, 0, 1, seed++));
    }
    return c;
  };
  d.run = run_qkv_rope;
  d.ideal_bytes = [](const Case& c) {
    const int64_t rows = c["n_head"] + 2 * c["n_kv"];
    return uint64_t(rows * c["dh"] * 4 * (2 + c["bias"]) + c["n_rot"] * 4);
  };
  reg.add(std::move(d));
}

}  // namespace

void register_model_rope_kernels(Registry& r) { add_qkv_rope(r); }

}  // namespace k100::kernels
