// Decode attention with the step's attention input in the same launch:
// flash_dec_gqa_rope_k, flash_dec_gqa_rope_f16_k (f16 caches).
//
// What qkv_rope_append_k (mode bits 1 and 2) followed by flash_dec_gqa_k
// (flash_dec_gqa_f16_k) compute, in one launch: every workgroup (KV head g,
// split s) takes the group's query heads from the Q|K|V projection itself
// (bias, per-head RMSNorm, rotation), and the split that holds row pos puts
// k and v of that row into the caches before it reads its block. Rows
// 0 .. pos are attended to. The generator is the one of flash_dec_gqa_k
// (flash_dec_gqa_fused.cpp); this file holds the kernels' entries and tests.
#include <algorithm>
#include <cmath>

#include "model/flash_dec_reference.h"
#include "model/model_parts.h"

namespace k100::kernels {

namespace {

using namespace codegen;
using namespace model_family;

struct Shape {
  int64_t heads, kv_heads, dh, pos, max_len, cshift, R, n_rot, mode;
  bool bias, norm;
  float inv;
  int64_t group() const { return heads / kv_heads; }
  int64_t nsplit() const { return int64_t(1) << cshift; }
  int64_t rows() const { return std::min(pos + 1, max_len); }
};

Shape shape_of(const Case& c) {
  Shape s{c["heads"], c["kv_heads"], c["dh"],     c["pos"],      c["max_len"], c["cshift"], 0,
          c["n_rot"], c["mode"],     c["bias"] != 0, c["norm"] != 0, 0.f};
  s.R = ((s.rows() + s.nsplit() - 1) / s.nsplit() + c["rpad"] + 15) / 16 * 16;  // whole lines of the K tiles
  s.inv = float(1.0 / std::sqrt(double(s.dh)));
  return s;
}

// The q heads carry the attention input's error (rope_tolerance, relative to
// values of order 1) into scores of dh terms; then the attention's own: one
// f32 exp per score, sums of 64 terms per block, rescaled per block and per
// split, 1/denominator by v_rcp_f32.
Tolerance tolerance() { return Tolerance{4e-5, 4e-5}; }

CaseResult run(TestDevice& dev, const Case& c, bool f16) {
  const Shape s = shape_of(c);
  const float eps = 1e-6f;
  Rng rng(c.seed);
  const int64_t rows = s.heads + 2 * s.kv_heads, cache = s.kv_heads * s.max_len * s.dh;
  auto qkv = rng.uniform(size_t(rows * s.dh), -2.f, 2.f);
  auto bias = rng.uniform(size_t(rows * s.dh));
  auto qn = rng.uniform(size_t(s.dh), 0.5f, 1.5f), kn = rng.uniform(size_t(s.dh), 0.5f, 1.5f);
  std::vector<float> cs, sn;
  rope_tables(s.n_rot, s.max_len, cs, sn);
  // earlier rows of the caches (blocked layouts), which the launch must leave as they are
  auto kt = rng.uniform(size_t(cache)), vc = rng.uniform(size_t(cache));
  std::vector<uint16_t> kt16(f16 ? kt.size() : 0), vc16(f16 ? vc.size() : 0);
  for (size_t i = 0; i < kt16.size(); ++i) {
    kt16[i] = float_to_half(kt[i]);
    vc16[i] = float_to_half(vc[i]);
  }
  // the attention input as qkv_rope_append_k defines it
  std::vector<float> want_q(size_t(s.heads * s.dh)), want_kt = kt, want_vc = vc;
  std::vector<uint16_t> want_kt16 = kt16, want_vc16 = vc16;
  qkv_rope_reference({s.heads, s.kv_heads, s.dh, s.n_rot, s.max_len, s.pos, s.mode | 2 | (f16 ? 4 : 0), s.bias, s.norm},
                     qkv, bias, qn, kn, cs, sn, want_q, want_kt, want_vc, want_kt16, want_vc16, eps);

  // gated attention (the hybrid models): out times sigmoid(gate), applied to the reference below
  const bool gated = c["gate"] != 0;
  const auto gate = rng.uniform(gated ? want_q.size() : 0, -6.f, 6.f);
  const float nan = std::nanf("");
  const size_t parts = size_t(s.heads * s.nsplit());
  DeviceBuffer<float> dkt(dev, kt), dvc(dev, vc), dqkv(dev, qkv), db(dev, bias), dqn(dev, qn), dkn(dev, kn),
      dcs(dev, cs), dsn(dev, sn), dpo(dev, std::vector<float>(parts * size_t(s.dh), nan)),
      dpm(dev, std::vector<float>(parts, nan)), dpl(dev, std::vector<float>(parts, nan)),
      dout(dev, std::vector<float>(want_q.size(), nan));
  DeviceBuffer<uint16_t> dkt16(dev, kt16), dvc16(dev, vc16);
  DeviceBuffer<float> dgate(dev, gate);
  DeviceBuffer<uint32_t> dcount(dev, size_t(s.kv_heads));
  std::vector<CaseResult> checks;
  std::vector<float> out_pass[2];
  // twice (the benchmark: once): the counters are back at 0 after a launch, and appending the row again
  // changes nothing
  const int passes = int(c["passes"]);
  for (int pass = 0; pass < passes; ++pass) {
    launch(dev, gqa_signature(f16, true), {uint32_t(s.kv_heads * s.nsplit())}, {uint32_t(c["wg"])},
           {dout.addr(), dpo.addr(), dpm.addr(), dpl.addr(), dcount.addr(), f16 ? dkt16.addr() : dkt.addr(),
            f16 ? dvc16.addr() : dvc.addr(), dqkv.addr(), s.bias ? db.addr() : uint64_t(0),
            s.norm ? dqn.addr() : uint64_t(0), s.norm ? dkn.addr() : uint64_t(0), dcs.addr(), dsn.addr(), s.pos, s.dh,
            s.R, s.max_len, s.cshift, s.inv, s.group(), s.kv_heads, s.n_rot, s.mode, eps,
            gated ? dgate.addr() : uint64_t(0)});
    out_pass[pass] = dout.download();
    checks.push_back(compare_exact_u32(dcount.download(), std::vector<uint32_t>(size_t(s.kv_heads), 0)));
    if (pass == 0) dout.upload(std::vector<float>(want_q.size(), nan));
  }
  // the caches: row pos as the reference writes it, every other row unchanged
  std::vector<float> got_kt, got_vc;
  if (f16) {
    const auto gk = dkt16.download(), gv = dvc16.download();
    checks.push_back(compare_written_halves(gk, kt16, want_kt16, want_kt, rope_tolerance()));
    checks.push_back(compare_written_halves(gv, vc16, want_vc16, want_vc, rope_tolerance()));
    for (uint16_t h : gk) got_kt.push_back(half_to_float(h));
    for (uint16_t h : gv) got_vc.push_back(half_to_float(h));
  } else {
    got_kt = dkt.download();
    got_vc = dvc.download();
    checks.push_back(compare(got_kt, want_kt, rope_tolerance()));
    checks.push_back(compare(got_vc, want_vc, rope_tolerance()));
  }
  // attention of the reference's q over the caches as written (checked above), rows 0 .. pos
  auto K = [&](int64_t g, int64_t j, int64_t d) {
    return got_kt[size_t(f16 ? blocked_k_f16_index(g, j, d, s.dh, s.max_len) : blocked_k_index(g, j, d, s.dh, s.max_len))];
  };
  auto V = [&](int64_t g, int64_t j, int64_t d) { return got_vc[size_t((g * s.max_len + j) * s.dh + d)]; };
  std::vector<float> po, pm, pl, out;
  split_attention_reference({s.heads, s.kv_heads, s.dh, s.rows(), s.nsplit(), s.R, s.inv}, want_q, K, V, po, pm, pl,
                            out);
  for (size_t i = 0; i < gate.size(); ++i) out[i] = float(double(out[i]) / (1.0 + std::exp(-double(gate[i]))));
  for (int pass = 0; pass < passes; ++pass) checks.push_back(compare(out_pass[pass], out, tolerance()));
  checks.push_back(compare(dpo.download(), po, tolerance()));
  checks.push_back(compare(dpm.download(), pm, tolerance()));
  checks.push_back(compare(dpl.download(), pl, tolerance()));
  return combine(checks);
}

struct Rope {
  int64_t n_rot_less = 0, mode = 1;  // n_rot = dh - n_rot_less
  int bias = 0, norm = 1;
};

Case make(int64_t heads, int64_t kv_heads, int64_t dh, int64_t pos, int64_t max_len, int64_t cshift, uint32_t seed,
          Rope r = {}, int64_t rpad = 0, int64_t wg = 64, int64_t gate = 0, int64_t passes = 2) {
  return make_case({{"heads", heads},
                    {"kv_heads", kv_heads},
                    {"dh", dh},
                    {"pos", pos},
                    {"max_len", max_len},
                    {"cshift", cshift},
                    {"rpad", rpad},
                    {"wg", wg},
                    {"n_rot", dh - r.n_rot_less},
                    {"mode", r.mode},
                    {"bias", r.bias},
                    {"norm", r.norm},
                    {"gate", gate},
                    {"passes", passes}},
                   seed);
}

void add(Registry& reg, bool f16) {
  KernelDef d = generated_kernel("model", gqa_signature(f16, true),
                                 [f16](isa::Target t) { return build_gqa_attention(t, f16, true); });
  d.description =
      std::string("Decode attention with grouped-query heads and the step's attention input in one launch") +
      (f16 ? ", over f16 caches" : "") +
      ": what qkv_rope_append_k (blocked" + (f16 ? ", f16" : "") + " caches) followed by " +
      (f16 ? "flash_dec_gqa_f16_k" : "flash_dec_gqa_k") +
      " computes. Every workgroup (KV head g, split of rows 0 .. pos) takes its group's query heads from the "
      "Q|K|V projection qkv itself (bias, per-head RMSNorm, rotation by the cos/sin tables at row pos, into "
      "LDS); the wave of the split that holds row pos whose block it is puts k and v of the row into the "
      "caches and waits for the writes before it loads that block, so no other workgroup needs the row. "
      "Then the one-launch attention (last split of each KV head combines).";
  d.semantics = std::string("q, k, v = qkv_rope_append_k(qkv, bias, q_norm, k_norm, cos, sin, pos, mode | 2") +
                (f16 ? " | 4" : "") + "): kt, v at row pos as it writes them; out = " +
                (f16 ? "flash_dec_gqa_f16_k" : "flash_dec_gqa_k") +
                "(q, kt, v, n_kv = pos + 1, gate); pm/pl/po the split partials; count[g] unchanged (0)";
  d.geometry = "grid = n_kv_heads << cshift, wg = 64 (waves past the first do nothing, as flash_dec_gqa_k); "
               "count[n_kv_heads] zeroed once before the first launch";
  d.launch = "sizes n_kv_heads splits\nchoose waves = 1\nworkgroup = 64 * waves\ngrid = n_kv_heads * splits\narg cshift = log2_ceil(splits)";
  d.limits = std::string("dh 64 or 128") +
             ", group 1..8, cshift <= 6 (otherwise nothing is written), pos < max_len, rows_per_split << cshift > "
             "pos (row pos is written by the split that holds it), rows_per_split % 16 == 0 (no other split reads "
             "a 64-byte line of row pos into its L1 before the write), max_len % 64 == 0, n_rot even and <= dh, "
             "mode bit 0: neox pairs, inv >= 0";
  d.tolerance = tolerance();
  d.cases = [f16](bool sweep) {
    const int64_t d64 = 64;
    const Rope llama{0, 0, 0, 0}, qwen2{0, 1, 1, 0}, partial{32, 1, 1, 1}, partial_llama{64, 0, 0, 1};
    std::vector<Case> c = {make(4, 2, d64, 0, 64, 0, 1, llama),
                           make(4, 1, d64, 36, 64, 0, 2, qwen2, 3),
                           make(8, 2, 128, 199, 256, 2, 3, {}, 0, 64),
                           make(5, 5, d64, 129, 192, 1, 4, partial, 3),
                           make(40, 8, 128, 299, 512, 3, 5, {}, 64, 128),
                           make(7, 1, 128, 519, 576, 4, 6, partial_llama, 0, 256),
                           make(16, 2, 128, 128, 192, 6, 7, qwen2),
                           make(6, 2, d64, 63, 64, 2, 8, llama, 0, 192),
                           make(24, 3, 128, 449, 512, 2, 9, {}, 0, 128),
                           make(16, 2, 128, 64, 704, 0, 10, qwen2, 0, 128),
                           make(12, 2, 128, 4, 128, 5, 11, {}, 0, 128),
                           // gated attention (as the hybrid models), group 8
                           make(8, 1, 64, 77, 128, 1, 12, qwen2, 0, 128, 1),
                           make(16, 2, 128, 130, 192, 2, 13, partial, 0, 64, 1)};
    if (sweep) {
      uint32_t seed = 40;
      for (int64_t pos : {0, 1, 62, 63, 64, 126, 128, 639})
        for (int64_t cshift : {0, 1, 3, 5})
          for (int64_t group : {1, 5}) {
            const int64_t wg = 64 << (seed % 3);
            const Rope r{seed % 2 ? 0 : 32, int64_t(seed % 2), int(seed % 3 == 0), int(seed % 4 != 1)};
            c.push_back(make(2 * group, 2, pos % 2 ? 128 : 64, pos, 704, cshift, seed, r, cshift, wg, seed % 2));
            ++seed;
          }
    }
    return c;
  };
  d.run = [f16](TestDevice& dev, const Case& c) { return run(dev, c, f16); };
  d.ideal_bytes = [f16](const Case& c) {
    const Shape s = shape_of(c);
    const int64_t e = f16 ? 2 : 4;
    // the cache rows, q|k|v of the step, the attention's output
    return uint64_t(s.kv_heads * s.dh * s.rows() * 2 * e + (s.heads + 2 * s.kv_heads) * s.dh * 4 + s.heads * s.dh * 4);
  };
  // as the decoder launches it
  d.bench_case = [f16] { return make(40, 8, 128, 4095, 4096, 4, 1, {}, 0, 64, 0, 1); };
  reg.add(std::move(d));
}

}  // namespace

void add_gqa_rope(Registry& reg) {
  add(reg, false);
  add(reg, true);
}

}  // namespace k100::kernels
