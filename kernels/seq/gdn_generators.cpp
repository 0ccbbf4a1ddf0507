// Generators of the gated delta-rule kernels gdn_k and gdn_k2<32>
// (KERNELS.md §3.8); their entries and tests are in gdn_kernels.cpp.
//
// Per token t and value head h (key head kh), with the D x D state S[i][col]:
//   decay = exp(g[t][h]); kv[col] = sum_i S[i][col] k[i];
//   u[col] = beta[t][h] (v[col] - decay kv[col]);
//   S[i][col] = decay S[i][col] + k[i] u[col];  out[col] = sum_i S[i][col] q[i] / sqrt(D)
// (the decay is applied once, folded into kv, which equals decaying the
// state first).
//
// gdn_k: one lane per state column, its D state values in VGPRs for the
// whole call (state [Hv][col][i]: a lane's values are contiguous, loaded with
// dwordx4); k and q of the token are the same for every lane, read with
// scalar loads 16 floats at a time. D in 16..128, a multiple of 16: chunks of
// 16 rows past D are skipped by scalar branches.
//
// gdn_k2<32>: D = 128, state [Hv][i][col]; workgroup (h, y) holds columns
// 32y .. 32y+31, thread tid the column 32y + (tid & 31) for the 32 rows of its
// slice s = tid >> 5. The four slices' partial sums meet in LDS: kv in region
// A, out in region B, each written, then a barrier, then read in slice order
// (deterministic); a token's B barrier separates its reads of A from the next
// token's writes of A, and the next token's A barrier does the same for B.
#include "gdn_generators.h"
#include "seq_blocks.h"

namespace k100::kernels::seq {

using namespace codegen;

const Signature& gdn_signature() {
  static const Signature s("gdn_k", {out("out", "f32"), in("q", "f32"), in("k", "f32"), in("v", "f32"),
                                     in("g", "f32"), in("beta", "f32"), inout("state", "f32"), value("T", "i32"),
                                     value("Hk", "i32"), value("Hv", "i32"), value("D", "i32"), value("rep", "i32"),
                                     value("khmod", "i32")},
                           HiddenArgLayout::Full);
  return s;
}

const Signature& gdn2_signature() {
  static const Signature s("gdn_k2<32>", {out("out", "f32"), in("q", "f32"), in("k", "f32"), in("v", "f32"),
                                          in("g", "f32"), in("beta", "f32"), inout("state", "f32"),
                                          out("snap", "f32"), value("T", "i32"), value("Hk", "i32"),
                                          value("Hv", "i32"), value("D", "i32"), value("rep", "i32")});
  return s;
}

namespace {

// The token walk both kernels share: scalar pointers to token t's k and q
// rows (of key head kh), v and out rows (of value head h), g and beta.
struct TokenRows {
  SGPR k, q, v, out, g, beta;   // 64-bit cursors
  SGPR kstep, vstep, gstep;     // 64-bit strides per token
  void advance(Kernel& kk) const {
    add64_pair(kk, k, kstep);
    add64_pair(kk, q, kstep);
    add64_pair(kk, v, vstep);
    add64_pair(kk, out, vstep);
    add64_pair(kk, g, gstep);
    add64_pair(kk, beta, gstep);
  }
};

TokenRows token_rows(Kernel& k, SGPR h, SGPR kh, SGPR D) {
  TokenRows r;
  const SGPR Hk = k.arg("Hk"), Hv = k.arg("Hv"), tmp = k.sgpr(1, "row length");
  r.k = scaled_address(k, k.arg("k"), kh, D, 2);
  r.q = scaled_address(k, k.arg("q"), kh, D, 2);
  r.v = scaled_address(k, k.arg("v"), h, D, 2);
  r.out = scaled_address(k, k.arg("out"), h, D, 2);
  r.g = offset_address(k, k.arg("g"), h, 2);
  r.beta = offset_address(k, k.arg("beta"), h, 2);
  k.s_mul_i32(tmp, Hk, D);
  r.kstep = widen_shifted(k, tmp, 2);
  const SGPR tmp2 = k.sgpr(1, "value row length");
  k.s_mul_i32(tmp2, Hv, D);
  r.vstep = widen_shifted(k, tmp2, 2);
  r.gstep = widen_shifted(k, Hv, 2);
  return r;
}

// Scalar loop over the T tokens: body() then the cursors advance.
void token_loop(Kernel& k, SGPR T, const TokenRows& rows, const std::function<void()>& body) {
  const SGPR t = k.sgpr(1, "token");
  k.s_mov_b32(t, 0);
  k.loop_();
  k.s_cmp_ge_u32(t, T);
  k.break_(Cond::Scc1);
  body();
  rows.advance(k);
  k.s_add_u32(t, t, 1);
  k.end_loop();
}

// decay = exp(g), from the token's g.
void token_decay(Kernel& k, VGPR decay, SGPR g) {
  k.v_mov_b32(decay, g);
  k.v_mul_f32(decay, kLog2E, decay);
  k.v_exp_f32(decay, decay);
}

}  // namespace

codeobj::CodeObject build_gdn(isa::Target target) {
  Kernel k(gdn_signature(), target, {.waves_per_simd = 1, .max_workgroup = 1024, .workgroup_dims = 2});
  Label exit = k.exit();
  const SGPR h = k.workgroup_id(0), y = k.workgroup_id(1), T = k.arg("T"), Hk = k.arg("Hk"), Hv = k.arg("Hv"),
             D = k.arg("D"), rep = k.arg("rep"), khmod = k.arg("khmod");
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  const SGPR sDiv = s1("D mod 16"), sDD = s1("D D"),
             sCol0 = s1("first column"), sG = s1("g"), sB = s1("beta"), sK = k.sgpr(16, "k"), sQ = k.sgpr(16, "q");
  constexpr int kChunks = 8;  // of 16 rows: D <= 128
  std::vector<VGPR> S;
  for (int c = 0; c < kChunks; ++c) S.push_back(k.vgpr(16, "state rows " + std::to_string(16 * c)));
  const VGPR col = k.vgpr(1, "column"), soff = k.vgpr(1, "state offset"), coff = k.vgpr(1, "column offset"),
             vV = k.vgpr(1, "v"), decay = k.vgpr(1, "decay"), kv0 = k.vgpr(1, "kv even"), kv1 = k.vgpr(1, "kv odd"),
             u = k.vgpr(1, "u"), o0 = k.vgpr(1, "out even"), o1 = k.vgpr(1, "out odd"), ku = k.vgpr(1, "k u"),
             rs = k.vgpr(1, "1/sqrt(D)");
  // limits (the contract refuses them by name; here nothing is written)
  k.s_cmp_lt_i32(T, 1);
  k.s_cbranch_scc1(exit);
  k.s_cmp_lt_i32(Hk, 1);
  k.s_cbranch_scc1(exit);
  k.s_cmp_ge_u32(h, Hv);
  k.s_cbranch_scc1(exit);
  k.s_cmp_lt_i32(D, 16);
  k.s_cbranch_scc1(exit);
  k.s_cmp_gt_i32(D, 16 * kChunks);
  k.s_cbranch_scc1(exit);
  k.s_and_b32(sDiv, D, 15);
  k.s_cmp_lg_u32(sDiv, 0);
  k.s_cbranch_scc1(exit);
  const SGPR sKh = key_head(k, h, Hk, rep, khmod, exit).kh;
  const WorkgroupWaves ww = workgroup_waves(k, exit);
  k.s_mul_i32(sCol0, y, ww.threads);
  k.v_add_u32(col, sCol0, k.local_id());
  k.v_cmp_gt_u32(vcc, D, col);
  k.if_(vcc);
  k.s_mul_i32(sDD, D, D);
  const SGPR base = scaled_address(k, k.arg("state"), h, sDD, 2);
  k.v_mul_lo_u32(soff, col, D);
  k.v_lshlrev_b32(soff, 2, soff);
  k.v_lshlrev_b32(coff, 2, col);
  k.v_cvt_f32_u32(rs, D);
  k.v_rsq_f32(rs, rs);
  // chunk c (rows 16c .. 16c+15) exists when D > 16c
  auto per_chunk = [&](const std::function<void(int c)>& body) {
    for (int c = 0; c < kChunks; ++c) {
      k.s_cmp_gt_u32(D, 16 * c);
      k.if_(Cond::Scc1);
      body(c);
      k.end_if();
    }
  };
  per_chunk([&](int c) {
    for (int m = 0; m < 4; ++m) k.global_load_dwordx4(S[size_t(c)].sub(4 * m, 4), soff, base, offset(64 * c + 16 * m));
  });
  const TokenRows rows = token_rows(k, h, sKh, D);
  token_loop(k, T, rows, [&] {
    k.s_load_dword(sG, rows.g, 0);
    k.s_load_dword(sB, rows.beta, 0);
    k.global_load_dword(vV, coff, rows.v);
    k.v_mov_b32(kv0, 0);
    k.v_mov_b32(kv1, 0);
    per_chunk([&](int c) {
      k.s_load_dwordx16(sK, rows.k, 64 * c);
      for (int j = 0; j < 16; ++j) k.v_fmac_f32(j % 2 ? kv1 : kv0, sK[j], S[size_t(c)][j]);
    });
    token_decay(k, decay, sG);
    k.v_add_f32(kv0, kv0, kv1);
    k.v_fma_f32(u, neg(decay), kv0, vV);  // v - decay kv
    k.v_mul_f32(u, sB, u);
    k.v_mov_b32(o0, 0);
    k.v_mov_b32(o1, 0);
    per_chunk([&](int c) {
      k.s_load_dwordx16(sK, rows.k, 64 * c);
      k.s_load_dwordx16(sQ, rows.q, 64 * c);
      for (int j = 0; j < 16; ++j) {
        const VGPR s = S[size_t(c)][j];
        k.v_mul_f32(ku, sK[j], u);
        k.v_fma_f32(s, s, decay, ku);
        k.v_fmac_f32(j % 2 ? o1 : o0, sQ[j], s);
      }
    });
    k.v_add_f32(o0, o0, o1);
    k.v_mul_f32(o0, o0, rs);
    k.global_store_dword(coff, o0, rows.out);
  });
  per_chunk([&](int c) {
    for (int m = 0; m < 4; ++m)
      k.global_store_dwordx4(soff, S[size_t(c)].sub(4 * m, 4), base, offset(64 * c + 16 * m));
  });
  k.end_if();
  return k.build();
}

codeobj::CodeObject build_gdn2(isa::Target target) {
  constexpr int kD = SliceRule::kD;
  Kernel k(gdn2_signature(), target,
           {.waves_per_simd = 2, .lds_bytes = 1024, .max_workgroup = 128, .dispatch_ptr = true,
            .workgroup_dims = 2});
  Label exit = k.exit();
  const SGPR h = k.workgroup_id(0), y = k.workgroup_id(1), T = k.arg("T"), Hk = k.arg("Hk"), Hv = k.arg("Hv"),
             D = k.arg("D"), rep = k.arg("rep"), snap = k.arg("snap");
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  const SGPR sG = s1("g"), sB = s1("beta"), has_snap = s1("snap given"), sIndex = s1("t Hv + h"),
             sSnap = k.sgpr(2, "snapshot base"), sT = s1("snapshot token");
  const VGPR coff = k.vgpr(1, "column offset"), kqoff = k.vgpr(1, "slice offset"), vV = k.vgpr(1, "v"),
             decay = k.vgpr(1, "decay"), o = k.vgpr(1, "out"), rs = k.vgpr(1, "1/sqrt(D)");
  exit_unless_workgroup_128(k, exit);
  k.s_cmp_lg_u32(D, kD);
  k.s_cbranch_scc1(exit);
  k.s_cmp_lt_i32(T, 1);
  k.s_cbranch_scc1(exit);
  k.s_cmp_ge_u32(h, Hv);
  k.s_cbranch_scc1(exit);
  k.s_cmp_ge_u32(y, kD / SliceRule::kSlice);
  k.s_cbranch_scc1(exit);
  k.s_cmp_lt_i32(rep, 1);
  k.s_cbranch_scc1(exit);
  const SGPR kh = divide_scalar(k, make_divider(k, rep), h);
  k.s_cmp_ge_u32(kh, Hk);
  k.s_cbranch_scc1(exit);
  k.s_or_b32(has_snap, snap[0], snap[1]);
  SliceRule rule(k, k.arg("state"), h, y, 0, 512);
  k.v_lshlrev_b32(coff, 2, rule.col);
  k.v_lshlrev_b32(kqoff, 7, rule.slice);  // 32 floats per slice
  k.v_mov_b32(rs, 1.0f / 11.313708498984761f);  // 1/sqrt(128)
  rule.load(rule.base);
  const TokenRows rows = token_rows(k, h, kh, D);
  k.s_mov_b32(sT, 0);
  token_loop(k, T, rows, [&] {
    k.s_load_dword(sG, rows.g, 0);
    k.s_load_dword(sB, rows.beta, 0);
    for (int m = 0; m < 4; ++m) {
      k.global_load_dwordx4(rule.k_rows.sub(4 * m, 4), kqoff, rows.k, offset(16 * m));
      k.global_load_dwordx4(rule.k_rows2.sub(4 * m, 4), kqoff, rows.k, offset(64 + 16 * m));
    }
    k.global_load_dword(vV, coff, rows.v);
    for (int m = 0; m < 4; ++m) {
      k.global_load_dwordx4(rule.q_rows.sub(4 * m, 4), kqoff, rows.q, offset(16 * m));
      k.global_load_dwordx4(rule.q_rows2.sub(4 * m, 4), kqoff, rows.q, offset(64 + 16 * m));
    }
    token_decay(k, decay, sG);
    rule.step(decay, sB, vV, o);
    k.v_mul_f32(o, o, rs);
    k.v_cmp_gt_u32(vcc, SliceRule::kSlice, rule.tid);  // slice 0 stores the column's output
    k.if_(vcc);
    k.global_store_dword(coff, o, rows.out);
    k.end_if();
    k.s_cmp_lg_u32(has_snap, 0);
    k.if_(Cond::Scc1);
    k.s_mul_i32(sIndex, sT, Hv);
    k.s_add_u32(sIndex, sIndex, h);
    set_offset_address(k, sSnap, snap, sIndex, 16);  // snap[t][h]: D D 4 bytes each
    rule.store(sSnap);
    k.end_if();
    k.s_add_u32(sT, sT, 1);
  });
  rule.store(rule.base);
  return k.build();
}

}  // namespace k100::kernels::seq
