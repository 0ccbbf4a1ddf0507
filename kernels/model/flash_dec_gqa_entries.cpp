// The one-launch grouped-query decode attention, flash_dec_gqa_k and
// flash_dec_gqa_f16_k: registry entries and tests (the generator is in
// flash_dec_gqa_fused.cpp).
#include <algorithm>
#include <cmath>
#include <limits>

#include "model/flash_dec_reference.h"
#include "model/model_parts.h"

namespace k100::kernels {

namespace {

using namespace codegen;
using namespace model_family;

struct Shape {
  int64_t heads, kv_heads, dh, n_kv, max_len, cshift, R;
  float inv;
  int64_t group() const { return heads / kv_heads; }
  int64_t nsplit() const { return int64_t(1) << cshift; }
};

Shape shape_of(const Case& c) {
  Shape s{c["heads"], c["kv_heads"], c["dh"], c["n_kv"], c["max_len"], c["cshift"], 0, 0.f};
  s.R = (std::min(s.n_kv, s.max_len) + s.nsplit() - 1) / s.nsplit() + c["rpad"];
  s.inv = float(1.0 / std::sqrt(double(s.dh)));
  return s;
}

// One f32 exp per score, sums of 64 terms per block, rescaled per block and
// per split; 1/denominator by v_rcp_f32 (1 ulp).
Tolerance tolerance() { return Tolerance{2e-5, 2e-5}; }

CaseResult run(TestDevice& dev, const Case& c, bool f16) {
  const Shape s = shape_of(c);
  Rng rng(c.seed);
  auto q = rng.uniform(size_t(s.heads * s.dh), -3.f, 3.f);
  auto kl = rng.uniform(size_t(s.kv_heads * s.max_len * s.dh));  // logical K[g][j][d]
  auto vl = rng.uniform(size_t(s.kv_heads * s.max_len * s.dh));  // V[g][j][d], also the head-major layout
  std::vector<float> kt(kl.size());
  std::vector<uint16_t> kt16(f16 ? kl.size() : 0), v16(f16 ? vl.size() : 0);
  for (int64_t g = 0; g < s.kv_heads; ++g)
    for (int64_t j = 0; j < s.max_len; ++j)
      for (int64_t d = 0; d < s.dh; ++d) {
        const size_t at = size_t((g * s.max_len + j) * s.dh + d);
        if (f16) {  // the reference sees the values the cache holds
          kt16[size_t(blocked_k_f16_index(g, j, d, s.dh, s.max_len))] = float_to_half(kl[at]);
          kl[at] = half_to_float(float_to_half(kl[at]));
          v16[at] = float_to_half(vl[at]);
          vl[at] = half_to_float(v16[at]);
        } else {
          kt[size_t(blocked_k_index(g, j, d, s.dh, s.max_len))] = kl[at];
        }
      }
  auto at = [&](const std::vector<float>& x) {
    return [&x, &s](int64_t g, int64_t j, int64_t d) { return x[size_t((g * s.max_len + j) * s.dh + d)]; };
  };
  std::vector<float> po, pm, pl, out;
  split_attention_reference({s.heads, s.kv_heads, s.dh, std::min(s.n_kv, s.max_len), s.nsplit(), s.R, s.inv}, q,
                            at(kl), at(vl), po, pm, pl, out);
  // gated attention: out times sigmoid(gate)
  const bool gated = c["gate"] != 0;
  const auto gate = rng.uniform(gated ? out.size() : 0, -6.f, 6.f);
  for (size_t i = 0; i < gate.size(); ++i) out[i] = float(double(out[i]) / (1.0 + std::exp(-double(gate[i]))));
  const float nan = std::nanf("");
  DeviceBuffer<uint16_t> dkt16(dev, kt16), dv16(dev, v16);
  DeviceBuffer<float> dq(dev, q), dkt(dev, kt), dv(dev, vl), dpo(dev, std::vector<float>(po.size(), nan)),
      dpm(dev, std::vector<float>(pm.size(), nan)), dpl(dev, std::vector<float>(pl.size(), nan)),
      dout(dev, std::vector<float>(out.size(), nan));
  DeviceBuffer<float> dgate(dev, gate);
  DeviceBuffer<uint32_t> dcount(dev, size_t(s.kv_heads));
  std::vector<CaseResult> parts;
  // twice (the benchmark: once): the counters must be back at 0 after a launch
  for (int pass = 0; pass < c["passes"]; ++pass) {
    launch(dev, gqa_signature(f16, false), {uint32_t(s.kv_heads * s.nsplit())}, {uint32_t(c["wg"])},
           {dout.addr(), dpo.addr(), dpm.addr(), dpl.addr(), dcount.addr(), dq.addr(),
            f16 ? dkt16.addr() : dkt.addr(), f16 ? dv16.addr() : dv.addr(), s.n_kv,
            s.dh, s.R, s.max_len, s.cshift, s.inv, s.group(), gated ? dgate.addr() : uint64_t(0)});
    parts.push_back(compare(dout.download(), out, tolerance()));
    parts.push_back(compare_exact_u32(dcount.download(), std::vector<uint32_t>(size_t(s.kv_heads), 0)));
    if (pass == 0) dout.upload(std::vector<float>(out.size(), nan));
  }
  parts.push_back(compare(dpo.download(), po, tolerance()));
  parts.push_back(compare(dpm.download(), pm, tolerance()));
  parts.push_back(compare(dpl.download(), pl, tolerance()));
  return combine(parts);
}

Case make(int64_t heads, int64_t kv_heads, int64_t dh, int64_t n_kv, int64_t max_len, int64_t cshift, uint32_t seed,
          int64_t rpad = 0, int64_t wg = 128, int64_t gate = 0, int64_t passes = 2) {
  return make_case({{"heads", heads}, {"kv_heads", kv_heads}, {"dh", dh}, {"n_kv", n_kv}, {"max_len", max_len},
                    {"cshift", cshift}, {"rpad", rpad}, {"wg", wg}, {"gate", gate}, {"passes", passes}},
                   seed);
}

void add_gqa(Registry& reg, bool f16) {
  KernelDef d = generated_kernel("model", gqa_signature(f16, false),
                                 [f16](isa::Target t) { return build_gqa_attention(t, f16, false); });
  d.description =
      std::string("Decode attention with grouped-query heads in one launch") +
      (f16 ? ", over f16 caches (scores and P V in f32 by v_fma_mix_f32)" : "") +
      ": one workgroup (one wave) per KV head and split of its rows scores them for all the group's query heads (each K and V line read once), keeps online-softmax "
      "partials, and the last split of each KV head (an atomic count that wraps back to 0) combines them into "
      "softmax(q K^T inv) V. Caches in the blocked layout (qkv_rope_append_k mode bit 1" +
      (f16 ? " and bit 2" : "") + "): K in 64-row tiles of K^T" + (f16 ? " (d pairs in one dword)" : "") +
      ", V head-major. Loads in contiguous 4 KiB runs: the next 16 K rows of the tile (" + (f16 ? "32" : "16") +
      " d) and the next 4 KiB of V rows in flight; a body per (dh, group). With gate != 0 the output is "
      "multiplied by sigmoid(gate) (gated attention) before it is written.";
  d.semantics = std::string("h = g group + i; t_j = q[h] . K_g[j], ") +
                (f16 ? "K_g[j][d] = kt[(g max_len + (j & ~63)) dh + 128 (d >> 1) + 2 (j & 63) + (d & 1)] (halves)"
                     : "K_g[j][d] = kt[(g max_len + (j & ~63)) dh + 64 d + (j & 63)]") +
                ", V_g[j][d] = v[(g max_len + j) dh + d]; out[h][d] = sum_j softmax_j(t inv) V_g[j][d] over j < "
                "min(n_kv, max_len), times 1 / (1 + exp(-gate[h dh + d])) when gate != 0; pm/pl/po[h S + s] the "
                "split partials (as flash_dec_gqa_part_k); count[g] unchanged (0) after the launch";
  d.geometry = "grid = n_kv_heads << cshift, wg = 64 (waves past the first do nothing); count[n_kv_heads] zeroed "
               "once before the first launch";
  d.launch = "sizes n_kv_heads splits\nchoose waves = 1\nworkgroup = 64 * waves\ngrid = n_kv_heads * splits\narg cshift = log2_ceil(splits)";
  d.limits = std::string("dh 64, 128 or 256") +
             ", group 1..8, cshift <= 6 (otherwise nothing is written), max_len % 64 == 0, inv >= 0";
  d.tolerance = tolerance();
  d.cases = [f16](bool sweep) {
    std::vector<Case> c = {make(4, 2, 64, 1, 64, 0, 1),            make(4, 1, 64, 37, 64, 0, 2, 3),
                           make(8, 2, 128, 200, 256, 2, 3, 0, 64),  make(5, 5, 64, 130, 192, 1, 4, 3),
                           make(40, 8, 128, 300, 512, 3, 5, 64),    make(7, 1, 128, 520, 576, 4, 6, 0, 256),
                           make(16, 2, 128, 129, 192, 6, 7),        make(6, 2, 64, 64, 64, 2, 8, 0, 192),
                           make(24, 3, 128, 450, 512, 2, 9),        make(16, 2, 128, 700, 704, 0, 10, 0, 320),
                           // heads of 256 (the Qwen3.5 group of 6), context 1, the gate folded in, group 8
                           make(6, 1, 256, 1, 64, 0, 11, 0, 64, 1), make(12, 2, 256, 131, 192, 2, 12, 5, 128, 1),
                           make(8, 1, 256, 200, 256, 3, 13, 0, 64), make(3, 3, 256, 70, 128, 1, 14, 0, 128),
                           make(16, 2, 64, 99, 128, 2, 15, 0, 64, 1), make(2, 1, 128, 65, 128, 5, 16, 0, 128, 1)};
    if (sweep) {
      uint32_t seed = 40;
      for (int64_t n_kv : {1, 2, 63, 64, 65, 127, 129, 640})
        for (int64_t cshift : {0, 1, 3, 5})
          for (int64_t group : {1, 5}) {
            const int64_t wg = 64 << (seed % 3);
            c.push_back(make(2 * group, 2, 64 << (seed % 3), n_kv, 704, cshift, seed, cshift, wg, seed % 2));
            ++seed;
          }
    }
    return c;
  };
  d.run = [f16](TestDevice& dev, const Case& c) { return run(dev, c, f16); };
  d.ideal_bytes = [f16](const Case& c) {
    const Shape s = shape_of(c);
    return uint64_t(s.kv_heads * s.dh * std::min(s.n_kv, s.max_len) * 2 * (f16 ? 2 : 4) + s.heads * s.dh * 8);
  };
  // 32 query heads of 128 over 8 KV heads at 4096 rows, one launch (the split count the decoder picks)
  d.bench_case = [f16] { return make(32, 8, 128, 4096, 4096, 4, 1, 0, 64, 0, 1); };
  reg.add(std::move(d));
}

}  // namespace

void add_gqa_one_launch(Registry& reg) {
  add_gqa(reg, false);
  add_gqa(reg, true);
}

}  // namespace k100::kernels
