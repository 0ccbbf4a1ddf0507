// Split decode attention (KERNELS.md §3.9): flash_dec_part_k, flash_dec_comb_k.
// One query row per head against an f32 KV cache: K transposed
// kt[heads][dh][max_len], V row-major v[max_len][vstride] with each head's dh
// columns contiguous. The part kernel computes per-split partials (running
// max, sum of exponentials, unnormalised P*V), the combine kernel merges the
// splits of each head. Their tests also run the pair against single-query
// softmax attention computed on the host.
//
// Both are one wave per workgroup (waves past the first do nothing) and share
// the weighted row sum with the weights in LDS (lds_weighted_rows: sixteen
// rows in flight, the weights read back as broadcasts) and the walk over
// 64-wide slices of d (over_slices).
//
// flash_dec_part_k: workgroup id -> head h = id >> cshift, split s = id &
// (2^cshift - 1); the split covers rows [s R, s R + R), R = pad >> cshift,
// below n_kv and max_len. It walks them 64 at a time with an online maximum:
// lanes over rows compute the scores (q broadcast from SGPRs by
// s_load_dwordx16, sixteen kt rows in flight); the block maximum (DPP)
// updates the running m and earlier sums are rescaled by exp((m_old - m) *
// inv); the block's p_j go to LDS and, per slice of d, lanes over d
// accumulate p_j * v rows into accumulators kept in LDS (256 bytes of p plus
// 4 * 512 bytes: dh <= 512; larger dh writes pm = pl = NaN).
//
// flash_dec_comb_k: one wave per head; lanes over splits give M and the
// denominator (DPP reductions); then per slice of d the weights of up to 64
// splits in LDS (computed once when nsplit <= 64, per slice otherwise) and
// the po rows. exp(t) = v_exp_f32(t * log2 e); 1/den by v_rcp_f32 (1 ulp).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "other_families.h"

namespace k100::kernels {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// ---------------------------------------------------------------- generators

using namespace codegen;

constexpr uint32_t kNegInfBits = 0xff800000u;

Signature part_signature() {
  return Signature("flash_dec_part_k", {out("po", "f32"), out("pm", "f32"), out("pl", "f32"), in("q", "f32"),
                                        in("kt", "f32"), in("v", "f32"), value("n_kv", "u32"), value("dh", "u32"),
                                        value("pad", "u32"), value("max_len", "u32"), value("cshift", "u32"),
                                        value("inv", "f32"), value("vstride", "u32")});
}
Signature comb_signature() {
  return Signature("flash_dec_comb_k", {out("out", "f32"), in("po", "f32"), in("pm", "f32"), in("pl", "f32"),
                                        value("dh", "u32"), value("nsplit", "u32"), value("inv", "f32")});
}

// What both kernels start with: waves past the first exit, the lane's byte
// offset 4 * lane, the launched lanes (`all`) and c = inv * log2 e, so that
// exp((x - m) * inv) = v_exp_f32((x - m) * c).
struct Prologue {
  VGPR lane, l4, c;
  SGPR all;
};
Prologue prologue(Kernel& k, Label exit) {
  Prologue p{k.local_id(), k.vgpr(1, "4 lane"), k.vgpr(1, "inv log2e"), k.sgpr(2, "all lanes")};
  exit_unless_first_wave(k, exit);
  k.v_lshlrev_b32(p.l4, 2, p.lane);
  k.s_mov_b64(p.all, exec);
  k.v_mov_b32(p.c, kLog2E);
  k.v_mul_f32(p.c, k.arg("inv"), p.c);
  return p;
}

// acc += sum over `count` rows j of w_j * row_j[voff]: the f32 weights w_j at
// the LDS address `wlds` (uniform: read as broadcasts, four b128 reads per 16
// rows), row j at ptr + j * step. Sixteen rows in flight, then single rows;
// wlds and ptr advance, count ends at 0. w and rows (16 VGPRs each) are
// scratch; the caller passes them, so that a kernel reuses them elsewhere
// (the layer keeps a register written in a loop live through the loop).
void lds_weighted_rows(Kernel& k, VGPR acc, VGPR wlds, VGPR voff, SGPR ptr, SGPR step, SGPR count, VGPR w,
                       VGPR rows) {
  countdown_groups(k, count, {16, 1}, [&](int n) {
    if (n == 16)
      for (int i = 0; i < 4; ++i) k.ds_read_b128(w.sub(4 * i, 4), wlds, offset(16 * i));
    else
      k.ds_read_b32(w[0], wlds);
    for (int i = 0; i < n; ++i) {
      k.global_load_dword(rows[i], voff, ptr);
      add64_pair(k, ptr, step);
    }
    k.v_add_u32(wlds, 4 * n, wlds);
    for (int i = 0; i < n; ++i) k.v_fmac_f32(acc, w[i], rows[i]);
  });
}

// For each of the `slices` 64-wide slices of d < dh: EXEC = the all-lanes mask and lanes with
// 64 slice + lane < dh, body(a) with a = 4 (64 slice + lane); EXEC restored.
void over_slices(Kernel& k, const Prologue& p, SGPR dh, SGPR slices, const std::function<void(VGPR a)>& body) {
  const SGPR slice = k.sgpr(1, "slice"), lim = k.sgpr(1, "d left");
  const VGPR a = k.vgpr(1, "slice address");
  Label top = k.label("slice"), done = k.label("slices_done");
  k.v_mov_b32(a, p.l4);
  k.s_mov_b32(slice, 0);
  k.bind(top);
  k.s_cmp_ge_u32(slice, slices);
  k.s_cbranch_scc1(done);
  k.s_lshl_b32(lim, slice, 6);
  k.s_sub_u32(lim, dh, lim);
  k.v_cmp_gt_u32(vcc, lim, p.lane);
  k.s_and_b64(exec, p.all, vcc);
  body(a);
  k.s_mov_b64(exec, p.all);
  k.v_add_u32(a, 0x100, a);
  k.s_add_u32(slice, slice, 1);
  k.s_branch(top);
  k.bind(done);
}

codeobj::CodeObject build_part(isa::Target target) {
  Kernel k(part_signature(), target, {.waves_per_simd = 5, .lds_bytes = 256 + 4 * 512});
  Label exit = k.exit(), bad_dh = k.label("bad_dh"), finish = k.label("finish"), block = k.label("block");
  const Prologue p = prologue(k, exit);
  const SGPR id = k.workgroup_id(), dh = k.arg("dh"), cshift = k.arg("cshift");
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  const SGPR head = s1("head"), split = s1("split"), R = s1("R"), j0 = s1("j0"), end = s1("end"), rows = s1("rows"),
             m = s1("m"), hd = s1("h dh"), nb = s1("block rows"), bmax = s1("block max"), mnew = s1("new m"),
             alpha = s1("alpha"), left = s1("left"), live = k.sgpr(2, "live rows"), ktr = k.sgpr(2, "kt row"),
             qp = k.sgpr(2, "q"), vr = k.sgpr(2, "v row"), qv = k.sgpr(16, "q values");
  const VGPR zero = k.vgpr(1, "zero"), psum = k.vgpr(1, "sum of p"), ninf = k.vgpr(1, "-inf"),
             score = k.vgpr(1, "score"), t = k.vgpr(1, "t"), kv = k.vgpr(16, "rows"), w16 = k.vgpr(16, "weights"),
             acc = k.vgpr(1, "acc"),
             wlds = k.vgpr(1, "p address");
  k.v_mov_b32(zero, 0);
  k.v_mov_b32(psum, 0);
  k.v_mov_b32(ninf, kNegInfBits);
  k.s_lshr_b32(head, id, cshift);
  k.s_lshl_b32(split, 1, cshift);
  k.s_add_u32(split, split, -1);
  k.s_and_b32(split, id, split);
  k.s_lshr_b32(R, k.arg("pad"), cshift);
  k.s_mul_i32(j0, split, R);  // first row of the split
  k.s_add_u32(end, j0, R);
  k.s_cselect_b32(end, -1, end);  // j0 + R, saturated
  k.s_min_u32(end, end, k.arg("n_kv"));
  k.s_min_u32(end, end, k.arg("max_len"));
  k.s_sub_u32(rows, end, j0);
  k.s_cmp_gt_u32(end, j0);
  k.s_cselect_b32(rows, rows, 0);  // rows of the split
  k.s_mov_b32(m, kNegInfBits);     // running maximum
  const SGPR pm = offset_address(k, k.arg("pm"), id, 2), pl = offset_address(k, k.arg("pl"), id, 2),
             po = scaled_address(k, k.arg("po"), id, dh, 2);
  k.s_cmp_gt_u32(dh, 0x200);
  k.s_cbranch_scc1(bad_dh);
  const SGPR slices = ceil_shift(k, dh, 6);
  over_slices(k, p, dh, slices, [&](VGPR a) { k.ds_write_b32(a, zero, offset(256)); });  // accumulators LDS[256 + 4 d] = 0
  k.s_cmp_eq_u32(rows, 0);
  k.s_cbranch_scc1(finish);  // no rows: pm = -inf, pl = 0, po = 0
  k.s_mul_i32(hd, head, dh);
  const SGPR q = offset_address(k, k.arg("q"), hd, 2);
  const SGPR kt = element_address(k, k.arg("kt"), hd, k.arg("max_len"), j0, 2), ktstep = widen_shifted(k, k.arg("max_len"), 2);
  const SGPR v = element_address(k, k.arg("v"), j0, k.arg("vstride"), hd, 2), vstep = widen_shifted(k, k.arg("vstride"), 2),
             vblock = widen_shifted(k, k.arg("vstride"), 8);
  k.bind(block);
  k.s_min_u32(nb, rows, 64);
  // scores, lane l = row l of the block: q broadcast from SGPRs, 16 kt rows in flight
  k.v_cmp_gt_u32(live, nb, p.lane);
  k.s_mov_b64(exec, live);
  k.v_mov_b32(score, 0);
  k.s_mov_b64(ktr, kt);
  k.s_mov_b64(qp, q);
  k.s_mov_b32(left, dh);
  countdown_groups(k, left, {16, 1}, [&](int n) {
    if (n == 16) k.s_load_dwordx16(qv, qp, 0);
    else k.s_load_dword(qv[0], qp, 0);
    add64(k, qp, 4 * n);
    for (int i = 0; i < n; ++i) {
      k.global_load_dword(kv[i], p.l4, ktr);
      add64_pair(k, ktr, ktstep);
    }
    for (int i = 0; i < n; ++i) k.v_fmac_f32(score, qv[i], kv[i]);
  });
  k.s_mov_b64(exec, p.all);
  k.v_cndmask_b32(score, ninf, score, live);  // rows past the end: -inf
  // the block maximum updates m; alpha = exp((m_old - m) * inv) rescales what
  // was accumulated (0 before the first block)
  k.v_mov_b32(t, score);
  lane_reduce(k, {{ReduceOp::Max, t}});
  k.v_readlane_b32(bmax, t, 63);
  k.v_mov_b32(t, bmax);
  k.v_max_f32(t, m, t);
  k.v_readfirstlane_b32(mnew, t);
  Label alpha_done = k.label("alpha_done");
  k.s_mov_b32(alpha, 0);
  k.s_cmp_eq_u32(m, kNegInfBits);
  k.s_cbranch_scc1(alpha_done);
  k.v_mov_b32(t, m);
  exp2_scaled_difference(k, t, t, mnew, p.c);  // exp((m - m_new) * inv)
  k.v_readfirstlane_b32(alpha, t);
  k.bind(alpha_done);
  k.s_mov_b32(m, mnew);
  // p = exp((s - m) * inv) for the block's rows (0 past the end), to LDS[4 row]
  exp2_scaled_difference(k, score, score, m, p.c);
  k.v_cndmask_b32(score, 0, score, live);
  k.v_fma_f32(psum, psum, alpha, score);
  k.ds_write_b32(p.l4, score);
  k.s_barrier();
  // acc[d] = alpha * acc[d] + sum_j p_j v[j][h dh + d], lanes over d
  over_slices(k, p, dh, slices, [&](VGPR a) {
    k.ds_read_b32(acc, a, offset(256));
    k.v_mov_b32(wlds, 0);
    k.s_mov_b64(vr, v);
    k.s_mov_b32(left, nb);
    k.v_mul_f32(acc, alpha, acc);
    lds_weighted_rows(k, acc, wlds, a, vr, vstep, left, w16, kv);
    k.ds_write_b32(a, acc, offset(256));
  });
  k.s_barrier();  // p was read before the next block writes it
  k.s_sub_u32(rows, rows, nb);
  k.s_cmp_eq_u32(rows, 0);
  k.s_cbranch_scc1(finish);
  add64(k, kt, 0x100);  // 64 rows on
  add64_pair(k, v, vblock);
  k.s_branch(block);
  k.bind(finish);
  // pl = the sum of p over the lanes (lane 63), pm = m; po[d] = acc[d]
  lane_reduce(k, {{ReduceOp::Add, psum}});
  k.v_mov_b32(t, m);
  k.s_mov_b32(exec_lo, 0);
  k.s_mov_b32(exec_hi, 0x80000000u);
  k.global_store_dword(zero, psum, pl);
  k.global_store_dword(zero, t, pm);
  k.s_mov_b64(exec, p.all);
  over_slices(k, p, dh, slices, [&](VGPR a) {
    k.ds_read_b32(acc, a, offset(256));
    k.global_store_dword(a, acc, po);
  });
  k.s_branch(exit);
  k.bind(bad_dh);  // dh > 512 is not supported: pm = pl = NaN makes the combined result NaN
  k.v_mov_b32(t, 0x7fc00000u);
  k.s_mov_b64(exec, 1);
  k.global_store_dword(zero, t, pm);
  k.global_store_dword(zero, t, pl);
  return k.build();
}

codeobj::CodeObject build_comb(isa::Target target) {
  Kernel k(comb_signature(), target, {.waves_per_simd = 6, .lds_bytes = 256});
  Label exit = k.exit();
  const Prologue p = prologue(k, exit);
  const SGPR h = k.workgroup_id(), dh = k.arg("dh"), ns = k.arg("nsplit");
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  const SGPR hn = s1("h nsplit"), M = s1("M"), rden = s1("1 / den"), den = s1("den"), left = s1("left"),
             group = s1("group"), gleft = s1("group left"), step64 = s1("step"), pmp = k.sgpr(2, "pm split"),
             plp = k.sgpr(2, "pl split"), pop = k.sgpr(2, "po row");
  const VGPR x = k.vgpr(1, "pm"), y = k.vgpr(1, "pl"), w = k.vgpr(1, "weight"), r = k.vgpr(1, "reduced"),
             acc = k.vgpr(1, "acc"), wlds = k.vgpr(1, "weight address"), w16 = k.vgpr(16, "weights"),
             rows = k.vgpr(16, "rows");
  k.s_mul_i32(hn, h, ns);
  const SGPR pm = offset_address(k, k.arg("pm"), hn, 2), pl = offset_address(k, k.arg("pl"), hn, 2),
             po = scaled_address(k, k.arg("po"), hn, dh, 2), out = scaled_address(k, k.arg("out"), h, dh, 2),
             postep = widen_shifted(k, dh, 2), slices = ceil_shift(k, dh, 6);
  // Lanes over splits, 64 at a time from pm (and pl): each(loads) after the loads.
  auto over_splits = [&](bool with_pl, const std::function<void()>& each) {
    Label top = k.label("splits"), done = k.label("splits_done");
    k.s_mov_b64(pmp, pm);
    if (with_pl) k.s_mov_b64(plp, pl);
    k.s_mov_b32(left, ns);
    k.bind(top);
    k.s_cmp_eq_u32(left, 0);
    k.s_cbranch_scc1(done);
    k.v_cmp_gt_u32(vcc, left, p.lane);
    k.s_and_b64(exec, p.all, vcc);
    k.global_load_dword(x, p.l4, pmp);
    if (with_pl) k.global_load_dword(y, p.l4, plp);
    k.s_min_u32(step64, left, 64);
    k.s_sub_u32(left, left, step64);
    add64(k, pmp, 0x100);
    if (with_pl) add64(k, plp, 0x100);
    each();
    k.s_mov_b64(exec, p.all);
    k.s_branch(top);
    k.bind(done);
  };
  // w = exp((pm - M) * inv), 0 for an empty split (pm = -inf, also for inv = 0), to LDS[4 lane]
  auto weight = [&]() {
    exp2_scaled_difference(k, w, x, M, p.c);
    k.v_cmp_neq_f32(vcc, kNegInfBits, x);
    k.v_cndmask_b32(w, 0, w, vcc);
    k.ds_write_b32(p.l4, w);
  };
  // M = max_s pm[s]
  k.v_mov_b32(r, kNegInfBits);
  over_splits(false, [&] { k.v_max_f32(r, r, x); });
  lane_reduce(k, {{ReduceOp::Max, r}});
  k.v_readlane_b32(M, r, 63);
  k.s_cmp_eq_u32(M, kNegInfBits);
  k.s_cselect_b32(M, 0, M);  // every split empty: M = 0, all weights 0
  // den = sum_s w_s pl[s]; the weights stay in LDS when nsplit <= 64
  k.v_mov_b32(r, 0);
  over_splits(true, [&] {
    weight();
    k.v_fmac_f32(r, w, y);
  });
  k.s_barrier();
  lane_reduce(k, {{ReduceOp::Add, r}});
  k.v_readlane_b32(den, r, 63);
  k.v_rcp_f32(w, den);
  k.v_readfirstlane_b32(rden, w);
  k.s_cmp_eq_u32(den, 0);
  k.s_cselect_b32(rden, 0, rden);  // 1 / den, 0 when nothing was accumulated
  // out[d] = rden * sum_s w_s po[s][d], lanes over d, groups of up to 64 splits
  over_slices(k, p, dh, slices, [&](VGPR a) {
    Label top = k.label("group"), done = k.label("groups_done"), ready = k.label("weights_ready");
    const SGPR lanes = k.sgpr(2, "slice lanes");
    k.s_mov_b64(lanes, exec);
    k.s_mov_b64(exec, p.all);  // the weights' v_cmp below needs every lane
    k.v_mov_b32(acc, 0);
    k.s_mov_b64(pmp, pm);
    k.s_mov_b64(pop, po);
    k.s_mov_b32(left, ns);
    k.bind(top);
    k.s_cmp_eq_u32(left, 0);
    k.s_cbranch_scc1(done);
    k.s_min_u32(group, left, 64);
    k.s_cmp_le_u32(ns, 64);
    k.s_cbranch_scc1(ready);  // one group: its weights are in LDS already
    k.v_cmp_gt_u32(vcc, group, p.lane);
    k.s_and_b64(exec, p.all, vcc);
    k.global_load_dword(x, p.l4, pmp);
    weight();
    k.s_barrier();
    k.bind(ready);
    k.s_mov_b64(exec, lanes);
    k.v_mov_b32(wlds, 0);
    k.s_mov_b32(gleft, group);
    lds_weighted_rows(k, acc, wlds, a, pop, postep, gleft, w16, rows);
    k.s_mov_b64(exec, p.all);
    k.s_sub_u32(left, left, group);
    add64(k, pmp, 0x100);
    k.s_barrier();  // the weights were read before the next group writes them
    k.s_branch(top);
    k.bind(done);
    k.s_mov_b64(exec, lanes);
    k.v_mul_f32(acc, rden, acc);
    k.global_store_dword(a, acc, out);
  });
  return k.build();
}

struct AttnShape {
  int64_t heads, dh, n_kv, max_len, cshift, pad, vstride;
  float inv;
  int64_t nsplit() const { return int64_t(1) << cshift; }
  // rows the splits cover: below n_kv, max_len and nsplit * R
  int64_t rows() const { return std::min({n_kv, max_len, (pad >> cshift) << cshift}); }
};

AttnShape shape_of(const Case& c) {
  AttnShape s;
  s.heads = c["heads"];
  s.dh = c["dh"];
  s.n_kv = c["n_kv"];
  s.max_len = c["max_len"];
  s.cshift = c["cshift"];
  s.pad = c["pad"];
  s.vstride = s.heads * s.dh + c["vpad"];
  s.inv = float(1.0 / std::sqrt(double(s.dh)));
  return s;
}

struct AttnInputs {
  std::vector<float> q, kt, v;
};

AttnInputs make_inputs(const AttnShape& s, uint32_t seed) {
  Rng rng(seed);
  AttnInputs in;
  // q scaled up so that the scores spread over several units after inv
  in.q = rng.uniform(size_t(s.heads * s.dh), -3.f, 3.f);
  in.kt = rng.uniform(size_t(s.heads * s.dh * s.max_len));
  in.v = rng.uniform(size_t(s.max_len * s.vstride));
  return in;
}

double score(const AttnShape& s, const AttnInputs& in, int64_t h, int64_t j) {
  double acc = 0;
  for (int64_t d = 0; d < s.dh; ++d)
    acc += double(in.q[size_t(h * s.dh + d)]) * double(in.kt[size_t((h * s.dh + d) * s.max_len + j)]);
  return acc;
}

// Head h over the key rows [j0, j1): the largest score m, l = sum_j p_j and
// o[d] = sum_j p_j v[j][h dh + d], p_j = exp((s_j - m) inv), in double.
struct SoftmaxRows {
  double m = -INFINITY, l = 0;
  std::vector<double> o;
};
SoftmaxRows softmax_rows(const AttnShape& s, const AttnInputs& in, int64_t h, int64_t j0, int64_t j1) {
  SoftmaxRows r{-INFINITY, 0, std::vector<double>(size_t(s.dh), 0.0)};
  std::vector<double> sc;
  for (int64_t j = j0; j < j1; ++j) r.m = std::max(r.m, sc.emplace_back(score(s, in, h, j)));
  for (int64_t j = j0; j < j1; ++j) {
    double p = std::exp((sc[size_t(j - j0)] - r.m) * double(s.inv));
    r.l += p;
    for (int64_t d = 0; d < s.dh; ++d) r.o[size_t(d)] += p * double(in.v[size_t(j * s.vstride + h * s.dh + d)]);
  }
  return r;
}

// The part kernel's outputs, from its definition.
void part_reference(const AttnShape& s, const AttnInputs& in, std::vector<float>& po, std::vector<float>& pm,
                    std::vector<float>& pl) {
  int64_t ns = s.nsplit(), R = s.pad >> s.cshift;
  po.assign(size_t(s.heads * ns * s.dh), 0.f);
  pm.assign(size_t(s.heads * ns), kNegInf);
  pl.assign(size_t(s.heads * ns), 0.f);
  for (int64_t h = 0; h < s.heads; ++h)
    for (int64_t sp = 0; sp < ns; ++sp) {
      int64_t id = h * ns + sp, j0 = sp * R, j1 = std::min(j0 + R, s.rows());
      if (j0 >= j1) continue;
      const SoftmaxRows r = softmax_rows(s, in, h, j0, j1);
      pm[size_t(id)] = float(r.m);
      pl[size_t(id)] = float(r.l);
      for (int64_t d = 0; d < s.dh; ++d) po[size_t(id * s.dh + d)] = float(r.o[size_t(d)]);
    }
}

// Single-query softmax attention per head over the rows that exist (none:
// the combine kernel writes 0).
std::vector<float> attention_reference(const AttnShape& s, const AttnInputs& in) {
  std::vector<float> out(size_t(s.heads * s.dh), 0.f);
  for (int64_t h = 0; h < s.heads && s.rows() > 0; ++h) {
    const SoftmaxRows r = softmax_rows(s, in, h, 0, s.rows());
    for (int64_t d = 0; d < s.dh; ++d) out[size_t(h * s.dh + d)] = float(r.o[size_t(d)] / r.l);
  }
  return out;
}

// The combine kernel's output from its definition, for given partials.
std::vector<float> comb_reference(const std::vector<float>& po, const std::vector<float>& pm,
                                  const std::vector<float>& pl, int64_t heads, int64_t dh, int64_t ns, float inv) {
  std::vector<float> out(size_t(heads * dh), 0.f);
  for (int64_t h = 0; h < heads; ++h) {
    double m = -INFINITY;
    for (int64_t s = 0; s < ns; ++s) m = std::max(m, double(pm[size_t(h * ns + s)]));
    if (m == -INFINITY) continue;
    double den = 0;
    std::vector<double> o(size_t(dh), 0.0);
    for (int64_t s = 0; s < ns; ++s) {
      double pms = pm[size_t(h * ns + s)];
      double w = pms == -INFINITY ? 0.0 : std::exp((pms - m) * double(inv));
      den += w * double(pl[size_t(h * ns + s)]);
      for (int64_t d = 0; d < dh; ++d) o[size_t(d)] += w * double(po[size_t((h * ns + s) * dh + d)]);
    }
    for (int64_t d = 0; d < dh; ++d) out[size_t(h * dh + d)] = den == 0 ? 0.f : float(o[size_t(d)] / den);
  }
  return out;
}

const Tolerance kPartTolerance{2e-5, 2e-5};
const Tolerance kCombTolerance{2e-5, 2e-5};

// Launches the part kernel (and the combine kernel when `combine`), compares
// the partials with part_reference and the combined output with attention.
CaseResult run_attention(TestDevice& dev, const AttnShape& s, uint32_t seed, bool check_parts) {
  auto in = make_inputs(s, seed);
  int64_t ns = s.nsplit();
  DeviceBuffer<float> dq(dev, in.q), dkt(dev, in.kt), dv(dev, in.v);
  // outputs with a guard element past each end
  DeviceBuffer<float> dpo(dev, guarded(size_t(s.heads * ns * s.dh))), dpm(dev, guarded(size_t(s.heads * ns))),
      dpl(dev, guarded(size_t(s.heads * ns))), dout(dev, guarded(size_t(s.heads * s.dh)));
  launch(dev, part_signature(), {uint32_t(s.heads * ns)}, {64},
         {dpo.addr(), dpm.addr(), dpl.addr(), dq.addr(), dkt.addr(), dv.addr(), s.n_kv, s.dh, s.pad, s.max_len,
          s.cshift, s.inv, s.vstride});
  std::vector<CaseResult> parts;
  if (s.dh > 512) {
    // unsupported head size: pm = pl = NaN, po untouched
    const auto nan = guarded(std::vector<float>(size_t(s.heads * ns), std::numeric_limits<float>::quiet_NaN()));
    return combine({compare(dpm.download(), nan, kPartTolerance), compare(dpl.download(), nan, kPartTolerance),
                    compare(dpo.download(), guarded(size_t(s.heads * ns * s.dh)), kPartTolerance)});
  }
  if (check_parts) {
    std::vector<float> po, pm, pl;
    part_reference(s, in, po, pm, pl);
    parts.push_back(compare(dpo.download(), guarded(po), kPartTolerance));
    parts.push_back(compare(dpm.download(), guarded(pm), kPartTolerance));
    parts.push_back(compare(dpl.download(), guarded(pl), kPartTolerance));
  }
  launch(dev, comb_signature(), {uint32_t(s.heads)}, {64},
         {dout.addr(), dpo.addr(), dpm.addr(), dpl.addr(), s.dh, ns, s.inv});
  parts.push_back(compare(dout.download(), guarded(attention_reference(s, in)), kCombTolerance));
  return combine(parts);
}

Case attn_case(int64_t heads, int64_t dh, int64_t n_kv, int64_t max_len, int64_t cshift, int64_t pad, int64_t vpad,
               uint32_t seed) {
  return make_case({{"heads", heads}, {"dh", dh}, {"n_kv", n_kv}, {"max_len", max_len}, {"cshift", cshift},
                    {"pad", pad}, {"vpad", vpad}},
                   seed);
}

std::vector<Case> part_cases(bool sweep) {
  std::vector<Case> c = {
      attn_case(2, 64, 100, 128, 1, 128, 0, 801),     // R = 64, second split partial
      attn_case(1, 128, 1, 64, 2, 256, 3, 802),       // one key, three empty splits
      attn_case(3, 80, 300, 320, 1, 320, 5, 803),     // R = 160 (2.5 blocks), dh not a multiple of 16
      attn_case(2, 128, 1000, 1024, 3, 1024, 0, 804)  // R = 128
  };
  if (sweep) {
    uint32_t seed = 850;
    for (int64_t dh : {1, 16, 17, 64, 96, 128, 256, 512})
      for (int64_t n_kv : {1, 63, 64, 65, 500})
        for (int64_t cshift : {0, 2}) {
          // R = ceil(1.25 n_kv / nsplit): the last split reaches past n_kv, R % 64 varies
          int64_t ns = int64_t(1) << cshift;
          int64_t pad = std::max<int64_t>((n_kv * 5 / 4 + ns - 1) / ns, 1) * ns;
          c.push_back(attn_case(2, dh, n_kv, n_kv + 7, cshift, pad, dh % 3, seed++));
        }
    c.push_back(attn_case(4, 128, 4096, 4096, 6, 4096, 0, seed++));   // R = 64, realistic
    c.push_back(attn_case(2, 64, 4096, 4096, 0, 4096, 0, seed++));    // one split of 4096 rows (64 blocks)
    c.push_back(attn_case(2, 64, 5000, 8192, 1, 8192, 0, seed++));    // R = 4096 (> 4096 rows total)
    c.push_back(attn_case(1, 64, 3000, 2000, 2, 4000, 0, seed++));    // n_kv > max_len: rows past max_len unused
    c.push_back(attn_case(2, 64, 0, 64, 1, 128, 0, seed++));          // n_kv = 0: every split empty, out = 0
    c.push_back(attn_case(1, 40, 300, 300, 2, 300, 1, seed++));       // R = 75
    c.push_back(attn_case(1, 600, 10, 16, 0, 16, 0, seed++));         // dh > 512: pm = pl = NaN
  }
  return c;
}

void register_flash_dec_part(Registry& r) {
  KernelDef d = generated_kernel("other", part_signature(), build_part);
  d.description =
      "Multi-head f32 decode attention, split part: one wave per (head, split) walks its rows 64 at a time with "
      "an online maximum. Lanes over rows compute the scores (each K^T row segment one 256-byte load, q "
      "broadcast from SGPRs, sixteen loads in flight); the block maximum (DPP) updates the running maximum and "
      "rescales what was accumulated; the block's p_j go to LDS and lanes over d accumulate p_j * V rows "
      "(256-byte loads, sixteen rows in flight) in LDS accumulators. Any R (the reference required R % 64 == 0 "
      "and R <= 4096 for its 16640-byte LDS score buffer); LDS 2304 bytes (p plus accumulators for dh <= 512). "
      "Rows at or past n_kv or max_len are not read.";
  d.semantics =
      "id = workgroup, h = id >> cshift, s = id & (2^cshift-1), R = pad >> cshift, rows j in [s*R, min(s*R+R, "
      "n_kv, max_len)); s_j = sum_d q[h*dh+d] * kt[(h*dh+d)*max_len + j]; m = max_j s_j; p_j = exp((s_j - m)*inv); "
      "pm[id] = m, pl[id] = sum_j p_j, po[id*dh + d] = sum_j p_j * v[j*vstride + h*dh + d]; a split without rows "
      "writes pm = -inf, pl = 0, po = 0";
  d.geometry = "grid = n_heads * 2^cshift, wg = 64 (extra waves do nothing)";
  d.launch = "sizes n_heads splits\nworkgroup = 64\ngrid = n_heads * splits\narg cshift = log2_ceil(splits)";
  d.limits =
      "dh <= 512 (larger dh writes pm = pl = NaN, which the combine turns into NaN); inv >= 0 (the softmax scale, "
      "as f32 bits); any R = pad >> cshift (swept 1 ... 4096 rows per split, dh 1 ... 512); vstride >= "
      "n_heads * dh; po holds n_heads * 2^cshift * dh floats, pm and pl n_heads * 2^cshift";
  d.tolerance = kPartTolerance;
  d.cases = part_cases;
  d.run = [](TestDevice& dev, const Case& c) { return run_attention(dev, shape_of(c), c.seed, true); };
  d.ideal_bytes = [](const Case& c) {
    auto s = shape_of(c);
    return uint64_t(2 * s.heads * s.dh * s.rows() + s.heads * s.dh + s.heads * s.nsplit() * (s.dh + 2)) * 4;
  };
  d.bench_case = [] { return attn_case(32, 128, 4096, 4096, 6, 4096, 0, 1); };
  r.add(std::move(d));
}

void register_flash_dec_comb(Registry& r) {
  KernelDef d = generated_kernel("other", comb_signature(), build_comb);
  d.description =
      "Combines the split partials of flash_dec_part_k, one wave per head: lanes over splits give the maximum "
      "and the denominator (DPP reductions); then, for each 64-wide slice of d, the weights of up to 64 splits "
      "go to LDS (256 bytes, read back as broadcasts) and lanes over d accumulate the po rows (256-byte loads, "
      "sixteen splits in flight). Any nsplit (the reference unrolled by 4 with a tail; tested to 12) and any dh. "
      "Empty splits (pm = -inf) weigh 0; a head with no key at all (n_kv = 0) gets out = 0 instead of 0/0. "
      "LDS: 256 bytes (the reference used none).";
  d.semantics =
      "M = max_s pm[h][s]; w_s = exp((pm[h][s] - M)*inv) (0 for pm = -inf); out[h][d] = sum_s w_s*po[h][s][d] / "
      "sum_s w_s*pl[h][s] (0 when the denominator is 0)";
  d.geometry = "grid = n_heads, wg = 64 (extra waves do nothing)";
  d.launch = "sizes n_heads splits\nworkgroup = 64\ngrid = n_heads\narg nsplit = splits";
  d.limits = "inv >= 0 and equal to the part kernel's; any nsplit (swept 0 ... 300) and dh (swept 1 ... 1000)";
  d.tolerance = kCombTolerance;
  d.cases = [](bool sweep) {
    std::vector<Case> c = {make_case({{"heads", 2}, {"dh", 64}, {"nsplit", 1}}, 901),
                           make_case({{"heads", 3}, {"dh", 128}, {"nsplit", 12}}, 902),
                           make_case({{"heads", 1}, {"dh", 100}, {"nsplit", 70}}, 903),
                           make_case({{"heads", 2}, {"dh", 64}, {"nsplit", 5}, {"all_empty", 1}}, 904),
                           // the part + combine pair against single-query attention
                           make_case({{"e2e", 1}, {"heads", 4}, {"dh", 64}, {"n_kv", 777}, {"max_len", 1024},
                                      {"cshift", 4}, {"pad", 1024}, {"vpad", 0}},
                                     905)};
    if (sweep)
      for (int64_t dh : {1, 17, 64, 65, 128, 256, 1000})
        for (int64_t ns : {0, 1, 2, 3, 4, 15, 16, 17, 63, 64, 65, 300})
          c.push_back(make_case({{"heads", 3}, {"dh", dh}, {"nsplit", ns}}, uint32_t(910 + dh * 7 + ns)));
    return c;
  };
  d.run = [](TestDevice& dev, const Case& c) {
    if (c.dims.count("e2e")) return run_attention(dev, shape_of(c), c.seed, false);
    int64_t heads = c["heads"], dh = c["dh"], ns = c["nsplit"];
    bool all_empty = c.dims.count("all_empty") > 0;
    Rng rng(c.seed);
    auto pm = rng.uniform(size_t(heads * ns), -6.f, 6.f);
    auto pl = rng.uniform(size_t(heads * ns), 0.5f, 40.f);
    auto po = rng.uniform(size_t(heads * ns * dh), -20.f, 20.f);
    // empty splits as flash_dec_part_k writes them (every third, or all)
    for (int64_t i = 0; i < heads * ns; ++i)
      if (all_empty || i % 3 == 2) {
        pm[size_t(i)] = kNegInf;
        pl[size_t(i)] = 0.f;
        for (int64_t d = 0; d < dh; ++d) po[size_t(i * dh + d)] = 0.f;
      }
    float inv = rng.uniform(1, 0.05f, 1.f)[0];
    DeviceBuffer<float> dpo(dev, po), dpm(dev, pm), dpl(dev, pl);
    DeviceBuffer<float> dout(dev, guarded(size_t(heads * dh)));
    launch(dev, comb_signature(), {uint32_t(heads)}, {64}, {dout.addr(), dpo.addr(), dpm.addr(), dpl.addr(), dh, ns, inv});
    return compare(dout.download(), guarded(comb_reference(po, pm, pl, heads, dh, ns, inv)), kCombTolerance);
  };
  d.ideal_bytes = [](const Case& c) {
    int64_t heads = c["heads"], dh = c["dh"];
    int64_t ns = c.dims.count("e2e") ? (int64_t(1) << c["cshift"]) : c["nsplit"];
    return uint64_t(heads * ns * (dh + 2) + heads * dh) * 4;
  };
  d.bench_case = [] { return make_case({{"heads", 32}, {"dh", 128}, {"nsplit", 64}}); };
  r.add(std::move(d));
}

}  // namespace

void register_other_attention_kernels(Registry& r) {
  register_flash_dec_part(r);
  register_flash_dec_comb(r);
}

}  // namespace k100::kernels
