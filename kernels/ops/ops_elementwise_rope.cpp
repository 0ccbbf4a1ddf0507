// Rotary position embeddings: rope_apply_k (caller-supplied cos/sin tables,
// one workgroup per row; written in the DSL, kernels/dsl/rope_apply_k.kkl)
// and rope_k (angles computed in the kernel, in place, grid-stride over
// rotation pairs).
//
// Both rotate pairs (j, j + half) ("rotate half", HF/NeoX), not interleaved
// pairs, and evaluate y_j = a c - b s and y_(j+half) = a s + b c with every
// product rounded separately (no fused multiply-add), so rope_apply_k is
// bit-exact against a NumPy/float32 evaluation of the formula.
#include <bit>
#include <cmath>
#include <numbers>

#include "dsl/dsl_build.h"
#include "ops_elementwise_parts.h"

namespace k100::kernels {

namespace {

using namespace codegen;

const Signature kRopeApply("rope_apply_k", {out("y", "f32"), in("x", "f32"), in("cos", "f32"), in("sin", "f32"),
                                            value("rows", "u32"), value("dim", "u32"), value("tsh", "u32"),
                                            value("tbase", "u32")},
                           codeobj::HiddenArgLayout::Compact);
const Signature kRope("rope_k", {inout("q", "f32"), inout("k", "f32"), in("pos", "i32"), value("pos0", "i32"),
                                 value("n_q", "i32"), value("n_kv", "i32"), value("nq_head", "i32"),
                                 value("nkv_head", "i32"), value("D", "i32"), value("rot", "i32"),
                                 value("theta", "f32")},
                      codeobj::HiddenArgLayout::Full);

// lo = a c - b s, hi = a s + b c, each product rounded; t is 4 temporaries,
// so lo and hi may be any of a, b, c, s.
void rotate(Kernel& k, VGPR lo, VGPR hi, VGPR a, VGPR b, VGPR c, VGPR s, VGPR t) {
  k.v_mul_f32(t[0], a, c);
  k.v_mul_f32(t[1], b, s);
  k.v_mul_f32(t[2], a, s);
  k.v_mul_f32(t[3], b, c);
  k.v_sub_f32(lo, t[0], t[1]);
  k.v_add_f32(hi, t[2], t[3]);
}

// rope_k(q, k, pos, pos0, n_q, n_kv, nq_head, nkv_head, D, rot, theta), in place.
//
// Heads of one token share the angles, so a work unit is (token, group of up
// to 8 heads, pair i): the angle is computed once per unit and applied to the
// group's heads, whose 16 loads are all issued before the first rotation. Units
// are numbered ((token * groups) + group) * half + i, so consecutive lanes take
// consecutive pairs of the same heads (coalesced). q's units come first, then
// k's; each part is a grid-stride loop.
codeobj::CodeObject build_rope(isa::Target target) {
  Kernel k(kRope, target, ops::options(0, 4));
  constexpr int kGroup = 8;
  const SGPR pos = k.arg("pos"), pos0 = k.arg("pos0"), D = k.arg("D"), rot = k.arg("rot"), hid = hidden_block(k);
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  const SGPR half = s1("half"), hi = s1("hi"), cexp = s1("cexp"), c_hi = s1("1/2pi hi"), c_lo = s1("1/2pi lo"),
             carry = k.sgpr(2, "carry"), d4 = s1("4 D"), count[2] = {s1("q units"), s1("k units")},
             heads[2] = {s1("q heads"), s1("k heads")}, groups[2] = {s1("q groups"), s1("k groups")},
             lo_base = k.sgpr(2, "lo base"), hi_base = k.sgpr(2, "hi base");
  std::vector<SGPR> mask;
  for (int j = 0; j < kGroup; ++j) mask.push_back(k.sgpr(2, "head mask"));
  auto v1 = [&](const char* n) { return k.vgpr(1, n); };
  const VGPR it = v1("unit index"), left = v1("heads left"), pp = k.vgpr(2, "pos address"), p = v1("position"),
             f = v1("frequency"), ahi = v1("angle hi"), alo = v1("angle lo"), rhi = v1("revolutions hi"),
             rlo = v1("revolutions lo"), vc = v1("cos"), vs = v1("sin"), tmp = k.vgpr(4, "t"),
             off = k.vgpr(kGroup, "offsets"), va = k.vgpr(kGroup, "a"), vb = k.vgpr(kGroup, "b");
  Label exit = k.exit();
  const double inv2pi = 1.0 / (2.0 * std::numbers::pi);
  const float inv2pi_hi = float(inv2pi), inv2pi_lo = float(inv2pi - double(inv2pi_hi));
  // 2 <= rot <= D (signed), else nothing to do.
  k.s_cmp_lt_i32(rot, 2);
  k.s_cbranch_scc1(exit);
  k.s_cmp_gt_i32(rot, D);
  k.s_cbranch_scc1(exit);
  k.s_lshr_b32(half, rot, 1);
  k.s_lshl_b32(d4, D, 2);
  const Grid g = grid_geometry(k, hid);
  // Units per part: tokens * ceil(heads / 8) * half; more than 2^32 is not supported (part skipped).
  const SGPR tokens_arg[2] = {k.arg("n_q"), k.arg("n_kv")}, heads_arg[2] = {k.arg("nq_head"), k.arg("nkv_head")};
  for (int pi = 0; pi < 2; ++pi) {
    Label ok = k.label("count_ok");
    k.s_max_i32(heads[pi], heads_arg[pi], 0);
    k.s_add_u32(groups[pi], heads[pi], kGroup - 1);
    k.s_lshr_b32(groups[pi], groups[pi], 3);
    k.s_max_i32(count[pi], tokens_arg[pi], 0);
    k.s_mul_i32(count[pi], count[pi], groups[pi]);
    k.s_mul_hi_u32(hi, count[pi], half);
    k.s_mul_i32(count[pi], count[pi], half);
    k.s_cmp_eq_u32(hi, 0);
    k.s_cbranch_scc1(ok);
    k.s_mov_b32(count[pi], 0);
    k.bind(ok);
  }
  // Waves past both parts end here.
  k.s_max_u32(hi, count[0], count[1]);
  k.s_cmp_ge_u32(g.first, hi);
  k.s_cbranch_scc1(exit);
  // cexp = -2 log2(theta) / rot: pair i turns by position * 2^(i cexp) radians.
  k.v_log_f32(tmp[0], k.arg("theta"));
  k.v_cvt_f32_i32(tmp[1], rot);
  k.v_rcp_f32(tmp[1], tmp[1]);
  k.v_mul_f32(tmp[0], tmp[0], tmp[1]);
  k.v_mul_f32(tmp[0], -2.0f, tmp[0]);
  k.v_readfirstlane_b32(cexp, tmp[0]);
  k.s_mov_b32(c_hi, std::bit_cast<uint32_t>(inv2pi_hi));
  k.s_mov_b32(c_lo, std::bit_cast<uint32_t>(inv2pi_lo));
  const Divider by_half = make_divider(k, half);

  auto part = [&](int pi, SGPR ptr, bool with_pos) {
    Label skip = k.label("part_skip");
    k.s_cmp_ge_u32(g.first, count[pi]);
    k.s_cbranch_scc1(skip);
    const Divider by_groups = make_divider(k, groups[pi]);
    k.s_mov_b64(lo_base, ptr);
    k.s_lshl_b32(hi, half, 2);
    k.s_add_u32(hi_base[0], ptr[0], hi);
    k.s_addc_u32(hi_base[1], ptr[1], 0);
    stride_loop(
        k, count[pi], g,
        [&](SGPR index) {
          k.v_add_u32(it, index, g.lane);
          const auto [unit, iq] = divide(k, by_half, it);  // unit = token * groups + group
          const auto [token, grp] = divide(k, by_groups, unit);
          if (with_pos) {
            k.v_mad_u64_u32(pp, carry, token, 4, pos);
            k.global_load_dword(p, pp, as::off);
          }
          // First head row of the group: token * heads + 8 group; heads left in it.
          k.v_lshlrev_b32(grp, 3, grp);
          k.v_sub_u32(left, heads[pi], grp);
          k.v_mul_lo_u32(tmp[1], token, heads[pi]);
          k.v_add_u32(tmp[1], tmp[1], grp);
          k.v_mul_lo_u32(tmp[1], tmp[1], D);
          k.v_add_u32(tmp[1], tmp[1], iq);
          k.v_lshlrev_b32(off[0], 2, tmp[1]);
          // Heads past the group's last one re-read the last head (a valid address, so every
          // load runs with the full EXEC and counts in vmcnt) and are not stored.
          for (int j = 1; j < kGroup; ++j) {
            k.v_add_u32(off[j], d4, off[j - 1]);
            k.v_cmp_lt_u32(vcc, j, left);
            k.s_and_b64(mask[size_t(j)], exec, vcc);
            k.v_cndmask_b32(off[j], off[j - 1], off[j], vcc);
          }
          for (int j = 0; j < kGroup; ++j) {
            k.global_load_dword(va[j], off[j], lo_base);
            k.global_load_dword(vb[j], off[j], hi_base);
          }
          // 2^(i cexp) radians per position step.
          k.v_cvt_f32_u32(f, iq);
          k.v_mul_f32(f, cexp, f);
          k.v_exp_f32(f, f);
          if (with_pos) {
          } else {
            k.v_add_u32(p, pos0, token);
          }
          k.v_cvt_f32_i32(p, p);
          // Angle in revolutions without losing its fraction: the product
          // p f split exactly (hi + lo), times 1/(2 pi) as two floats.
          k.v_mul_f32(ahi, p, f);
          k.v_fma_f32(alo, p, f, neg(ahi));
          k.v_mul_f32(rhi, c_hi, ahi);
          k.v_fma_f32(rlo, ahi, c_hi, neg(rhi));
          k.v_fma_f32(rlo, ahi, c_lo, rlo);
          k.v_fma_f32(rlo, alo, c_hi, rlo);
          k.v_fract_f32(rhi, rhi);  // v_sin/v_cos take revolutions in [-256, 256] on hardware
          k.v_add_f32(rhi, rhi, rlo);
          k.v_cos_f32(vc, rhi);
          k.v_sin_f32(vs, rhi);
          for (int j = 0; j < kGroup; ++j) rotate(k, va[j], vb[j], va[j], vb[j], vc, vs, tmp);
          k.s_mov_b64(mask[0], exec);
          for (int j = 0; j < kGroup; ++j) {
            k.s_mov_b64(exec, mask[size_t(j)]);
            k.global_store_dword(off[j], va[j], lo_base);
            k.global_store_dword(off[j], vb[j], hi_base);
          }
        },
        [] {});
    k.bind(skip);
  };
  Label no_pos = k.label("no_pos");
  k.s_or_b32(hi, pos[0], pos[1]);
  k.s_cmp_eq_u32(hi, 0);
  k.s_cbranch_scc1(no_pos);
  part(0, k.arg("q"), true);
  part(1, k.arg("k"), true);
  k.s_branch(exit);
  k.bind(no_pos);
  part(0, k.arg("q"), false);
  part(1, k.arg("k"), false);
  return k.build();
}

// ------------------------------------------------------------------ tests

// The formula with float32 roundings (each product rounded, then the sum).
void rotate_ref(float a, float b, float c, float s, float& lo, float& hi) {
  float ac = a * c, bs = b * s, as_ = a * s, bc = b * c;
  lo = ac - bs;
  hi = as_ + bc;
}

void add_rope_apply(Registry& reg) {
  // Built from its DSL source: MODELED within 1.1x of the hand-written generator it replaced.
  KernelDef d = generated_kernel("ops", kRopeApply, dsl_package::dsl_generator("rope_apply_k", kRopeApply));
  d.description =
      "Rotate-half RoPE with caller-supplied cos/sin tables ([max_len][dim/2] f32): pairs (j, j + dim/2) of row r "
      "turn by table row (r >> tsh) + tbase (the multi-head trick: rows = heads of one token, tsh = log2(heads), "
      "tbase = position). Products are rounded separately (no fma), so the result is bit-exact against a float32 "
      "evaluation of the formula. Written in the DSL (kernels/dsl/rope_apply_k.kkl): one workgroup per row, the "
      "first wave's lanes take the pairs 64 at a time; an odd dim's last element is copied.";
  d.semantics =
      "half = dim/2, t = (r >> tsh) + tbase; for j < half: y[r][j] = a c - b s, y[r][j+half] = a s + b c with "
      "a = x[r][j], b = x[r][j+half], c = cos[t][j], s = sin[t][j]; odd dim: y[r][dim-1] = x[r][dim-1]";
  d.geometry = "grid = rows (workgroups past rows do nothing), wg = 64 (any size from 64 to 256: waves past the first "
               "do nothing)";
  d.launch = "sizes rows dim\nworkgroup = 64\ngrid = rows\narg rows = rows\narg dim = dim";
  d.limits = "table rows (r >> tsh) + tbase must exist (not checked); tsh >= 32 acts as r >> tsh = 0; wg >= 64 (the "
             "first wave's 64 lanes cover the row)";
  d.cases = [](bool sweep) {
    std::vector<Case> c = case_table({"rows", "dim", "tsh", "tbase", "wg"}, {{1, 128, 0, 0, 64}, {5, 64, 0, 3, 64},
                                                                            {16, 128, 2, 5, 64}, {3, 130, 1, 0, 96},
                                                                            {2, 7, 0, 1, 64}});
    if (sweep) {
      uint32_t seed = 60;
      for (int64_t dim : {1, 2, 3, 6, 8, 63, 64, 128, 130, 200, 256, 1000, 5120})
        for (int64_t wg : {64, 128, 256})
          for (int64_t tsh : {0, 3, 40})
            c.push_back(make_case({{"rows", 9}, {"dim", dim}, {"tsh", tsh}, {"tbase", 2}, {"wg", wg}}, seed++));
    }
    return c;
  };
  d.run = [](TestDevice& dev, const Case& c) {
    const int64_t rows = c["rows"], dim = c["dim"], tsh = c["tsh"], tbase = c["tbase"], half = dim / 2;
    auto table_row = [&](int64_t r) { return (tsh >= 32 ? 0 : r >> tsh) + tbase; };
    const int64_t trows = table_row(rows - 1) + 1;
    Rng rng(c.seed);
    auto x = rng.normal(size_t(rows * dim));
    auto cs = rng.uniform(size_t(std::max<int64_t>(trows * half, 1))), sn = rng.uniform(cs.size());
    std::vector<float> want(x.size());
    for (int64_t r = 0; r < rows; ++r) {
      const float* xr = &x[size_t(r * dim)];
      for (int64_t j = 0; j < half; ++j) {
        size_t ti = size_t(table_row(r) * half + j);
        rotate_ref(xr[j], xr[j + half], cs[ti], sn[ti], want[size_t(r * dim + j)], want[size_t(r * dim + j + half)]);
      }
      if (dim % 2) want[size_t(r * dim + dim - 1)] = xr[dim - 1];
    }
    DeviceBuffer<float> y(dev, with_guard(std::vector<float>(x.size(), 0.f))), dx(dev, x), dc(dev, cs), ds(dev, sn);
    launch(dev, kRopeApply, {uint32_t(rows)}, {uint32_t(c["wg"])},
               {y.addr(), dx.addr(), dc.addr(), ds.addr(), rows, dim, tsh, tbase});
    return compare_guarded(y.download(), want, Tolerance{});
  };
  d.ideal_bytes = [](const Case& c) {
    int64_t rows = c["rows"], dim = c["dim"], tsh = c["tsh"];
    int64_t trows = (tsh >= 32 ? 0 : (rows - 1) >> tsh) + 1;
    return uint64_t(rows * dim * 8 + trows * (dim / 2) * 8);
  };
  // Decode step of 64 heads x 128 (multi-head trick), 32 tokens laid out as rows.
  d.bench_case = [] { return make_case({{"rows", 2048}, {"dim", 128}, {"tsh", 6}, {"tbase", 100}, {"wg", 64}}); };
  reg.add(std::move(d));
}

// Tolerance of rope_k: the angle p * theta^(-2i/rot) is formed in f32 (v_log_f32 and v_exp_f32 of an f32
// exponent, about 2.5e-7 relative error in the frequency), so its error grows with the position: at most about
// 2.5e-7 rad per unit of p, 1e-3 at the test positions (below 4096); the sweep measures ~1.6e-4.
Tolerance rope_tolerance() { return Tolerance{1e-3, 0}; }

void add_rope(Registry& reg) {
  KernelDef d = generated_kernel("ops", kRope, build_rope);
  d.description =
      "In-place partial rotate-half RoPE on the first rot dims of every head of q [n_q][nq_head][D] and k "
      "[n_kv][nkv_head][D], angles computed in the kernel: position p = pos[token] (or pos0 + token when pos is "
      "null), pair i < rot/2 turns by p * theta^(-2i/rot) (inv. frequency 2^(i * (-2 log2(theta)/rot)) with "
      "v_exp_f32; the angle's fraction of a turn is kept exactly with fma splits and a two-float 1/(2 pi), then "
      "v_fract_f32 before v_sin_f32/v_cos_f32, whose hardware domain is +-256 turns). Grid-stride over the "
      "(n_q nq_head + n_kv nkv_head) rot/2 pairs (q pairs, then k pairs), any grid. Accuracy is that of an f32 "
      "angle: the error grows with the position (~1e-7 rad per unit of p).";
  d.semantics =
      "for every head row h of q and k (token = h / heads) and i < rot/2: a = x[h][i], b = x[h][i + rot/2], "
      "ang = p(token) * theta^(-2i/rot); x[h][i] = a cos - b sin, x[h][i + rot/2] = a sin + b cos";
  d.geometry = "grid-stride: grid = ceil(total/256), wg = 256 (any grid and workgroup size)";
  d.launch = "sizes total\nworkgroup = 256\ngrid = ceil_div(total, 256)";
  d.limits =
      "2 <= rot <= D (otherwise nothing is written); theta > 0; each part below 2^32 pairs and q, k below 2^32 "
      "floats; pos[token] must exist for token < max(n_q, n_kv) when pos is not null; tolerance stated for positions "
      "below 4096 and |x| <= 1 (the angle error grows with the position)";
  d.tolerance = rope_tolerance();
  d.cases = [](bool sweep) {
    const std::vector<std::string> dims = {"n_q",     "n_kv", "nq_head", "nkv_head", "D",  "rot",
                                           "theta",   "use_pos", "pos0", "grid",    "wg", "seed"};
    std::vector<std::vector<int64_t>> rows = {{1, 1, 4, 2, 128, 128, 10000, 0, 5, 0, 256, 1},
                                              {3, 3, 8, 2, 64, 32, 10000, 1, 0, 0, 256, 2},
                                              {5, 2, 3, 1, 80, 80, 1000000, 0, 3000, 1, 64, 3},
                                              {2, 4, 2, 3, 33, 31, 500000, 1, 0, 3, 100, 4},
                                              {2, 2, 2, 2, 16, 32, 10000, 0, 0, 0, 256, 5}};
    int64_t seed = 70;
    if (sweep)
      for (auto [qh, kh] : std::vector<std::pair<int64_t, int64_t>>{{5, 2}, {8, 8}, {9, 1}, {17, 3}})
        for (auto [D, rot] : std::vector<std::pair<int64_t, int64_t>>{
                 {2, 2}, {64, 16}, {64, 64}, {128, 128}, {128, 64}, {80, 79}, {256, 256}, {96, 100}})
          for (int64_t grid : {0, 1, 7})
            rows.push_back({4, 3, qh, kh, D, rot, grid == 1 ? 1000000 : 10000, grid % 2, 4000, grid,
                            grid == 7 ? 64 : 256, seed++});
    return case_table(dims, rows);
  };
  d.run = [](TestDevice& dev, const Case& c) {
    const int64_t nq = c["n_q"], nkv = c["n_kv"], qh = c["nq_head"], kh = c["nkv_head"], D = c["D"],
                  rot = c["rot"], pos0 = c["pos0"];
    const float theta = float(c["theta"]);
    const bool use_pos = c["use_pos"] != 0;
    Rng rng(c.seed);
    auto q = rng.uniform(size_t(nq * qh * D)), k = rng.uniform(size_t(nkv * kh * D));
    auto pos = rng.integers(size_t(std::max(nq, nkv)), 0, 4095);
    auto rotate_all = [&](std::vector<float> x, int64_t heads) {
      if (rot < 2 || rot > D) return x;
      const int64_t half = rot / 2;
      for (size_t h = 0; h < x.size() / size_t(D); ++h) {
        const int64_t token = int64_t(h) / heads;
        const double p = use_pos ? double(pos[size_t(token)]) : double(pos0 + token);
        float* row = &x[h * size_t(D)];
        for (int64_t i = 0; i < half; ++i) {
          double ang = p * std::pow(double(theta), -2.0 * double(i) / double(rot));
          double a = row[i], b = row[i + half];
          row[i] = float(a * std::cos(ang) - b * std::sin(ang));
          row[i + half] = float(a * std::sin(ang) + b * std::cos(ang));
        }
      }
      return x;
    };
    auto want_q = rotate_all(q, qh), want_k = rotate_all(k, kh);
    DeviceBuffer<float> dq(dev, with_guard(q)), dk(dev, with_guard(k));
    DeviceBuffer<int32_t> dp(dev, pos);
    const int64_t total = (rot >= 2 && rot <= D) ? (nq * qh + nkv * kh) * (rot / 2) : 1;
    uint32_t grid = uint32_t(c["grid"] ? c["grid"] : std::max<int64_t>(1, (total + 255) / 256));
    launch(dev, kRope, {grid}, {uint32_t(c["wg"])},
               {dq.addr(), dk.addr(), use_pos ? dp.addr() : 0, pos0, nq, nkv, qh, kh,
                D, rot, theta});
    return combine({compare_guarded(dq.download(), want_q, rope_tolerance()),
                    compare_guarded(dk.download(), want_k, rope_tolerance())});
  };
  d.ideal_bytes = [](const Case& c) {
    // The rotated floats, read and written back in place.
    return uint64_t((c["n_q"] * c["nq_head"] + c["n_kv"] * c["nkv_head"]) * c["rot"] * 8);
  };
  // Prefill of 512 tokens, 64 query heads and 8 KV heads of 128 at positions 0..511.
  d.bench_case = [] {
    return make_case({{"n_q", 512}, {"n_kv", 512}, {"nq_head", 64}, {"nkv_head", 8}, {"D", 128}, {"rot", 128},
                      {"theta", 10000}, {"use_pos", 0}, {"pos0", 0}, {"grid", 0}, {"wg", 256}});
  };
  reg.add(std::move(d));
}

}  // namespace

void register_ops_elementwise_rope_kernels(Registry& reg) {
  add_rope_apply(reg);
  add_rope(reg);
}

}  // namespace k100::kernels
