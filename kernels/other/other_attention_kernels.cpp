// Split decode attention (KERNELS.md §3.9): flash_dec_part_k, flash_dec_comb_k.
// One query row per head against an f32 KV cache: K transposed
// kt[heads][dh][max_len], V row-major v[max_len][vstride] with each head's dh
// columns contiguous. The part kernel computes per-split partials (running
// max, sum of exponentials, unnormalised P*V), the combine kernel merges the
// splits of each head. Their tests also run the pair against single-query
// softmax attention computed on the host.
#include <algorithm>
#include <cmath>
#include <limits>

#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"
#include "other_families.h"

namespace k100::kernels {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

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

// The part kernel's outputs, from its definition (double accumulation).
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
      std::vector<double> sc;
      double m = -INFINITY;
      for (int64_t j = j0; j < j1; ++j) m = std::max(m, sc.emplace_back(score(s, in, h, j)));
      double l = 0;
      std::vector<double> o(size_t(s.dh), 0.0);
      for (int64_t j = j0; j < j1; ++j) {
        double p = std::exp((sc[size_t(j - j0)] - m) * double(s.inv));
        l += p;
        for (int64_t d = 0; d < s.dh; ++d) o[size_t(d)] += p * double(in.v[size_t(j * s.vstride + h * s.dh + d)]);
      }
      pm[size_t(id)] = float(m);
      pl[size_t(id)] = float(l);
      for (int64_t d = 0; d < s.dh; ++d) po[size_t(id * s.dh + d)] = float(o[size_t(d)]);
    }
}

// Single-query softmax attention per head over the rows that exist.
std::vector<float> attention_reference(const AttnShape& s, const AttnInputs& in) {
  std::vector<float> out(size_t(s.heads * s.dh), 0.f);
  for (int64_t h = 0; h < s.heads; ++h) {
    int64_t n = s.rows();
    if (n <= 0) continue;  // no keys: the combine kernel writes 0
    std::vector<double> sc(static_cast<size_t>(n));
    double m = -INFINITY, l = 0;
    for (int64_t j = 0; j < n; ++j) m = std::max(m, sc[size_t(j)] = score(s, in, h, j));
    std::vector<double> o(size_t(s.dh), 0.0);
    for (int64_t j = 0; j < n; ++j) {
      double p = std::exp((sc[size_t(j)] - m) * double(s.inv));
      l += p;
      for (int64_t d = 0; d < s.dh; ++d) o[size_t(d)] += p * double(in.v[size_t(j * s.vstride + h * s.dh + d)]);
    }
    for (int64_t d = 0; d < s.dh; ++d) out[size_t(h * s.dh + d)] = float(o[size_t(d)] / l);
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
  DeviceBuffer<float> dpo(dev, std::vector<float>(size_t(s.heads * ns * s.dh + 1), 12345.f));
  DeviceBuffer<float> dpm(dev, std::vector<float>(size_t(s.heads * ns + 1), 12345.f));
  DeviceBuffer<float> dpl(dev, std::vector<float>(size_t(s.heads * ns + 1), 12345.f));
  DeviceBuffer<float> dout(dev, std::vector<float>(size_t(s.heads * s.dh + 1), 12345.f));
  dev.launch("flash_dec_part_k", {uint32_t(s.heads * ns)}, {64},
             {dpo.addr(), dpm.addr(), dpl.addr(), dq.addr(), dkt.addr(), dv.addr(), u32(s.n_kv), u32(s.dh),
              u32(s.pad), u32(s.max_len), u32(s.cshift), f32(s.inv), u32(s.vstride)});
  std::vector<CaseResult> parts;
  if (s.dh > 512) {
    // unsupported head size: pm = pl = NaN, po untouched
    std::vector<float> nan(size_t(s.heads * ns), std::numeric_limits<float>::quiet_NaN());
    nan.push_back(12345.f);
    return combine({compare(dpm.download(), nan, kPartTolerance), compare(dpl.download(), nan, kPartTolerance),
                    compare(dpo.download(), std::vector<float>(size_t(s.heads * ns * s.dh + 1), 12345.f),
                            kPartTolerance)});
  }
  if (check_parts) {
    std::vector<float> po, pm, pl;
    part_reference(s, in, po, pm, pl);
    po.push_back(12345.f);
    pm.push_back(12345.f);
    pl.push_back(12345.f);
    parts.push_back(compare(dpo.download(), po, kPartTolerance));
    parts.push_back(compare(dpm.download(), pm, kPartTolerance));
    parts.push_back(compare(dpl.download(), pl, kPartTolerance));
  }
  dev.launch("flash_dec_comb_k", {uint32_t(s.heads)}, {64},
             {dout.addr(), dpo.addr(), dpm.addr(), dpl.addr(), u32(s.dh), u32(ns), f32(s.inv)});
  auto want = attention_reference(s, in);
  want.push_back(12345.f);
  parts.push_back(compare(dout.download(), want, kCombTolerance));
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
  KernelDef d;
  d.lookup = "flash_dec_part_k";
  d.family = "other";
  d.source = "other/flash_dec_part_k.s";
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
  KernelDef d;
  d.lookup = "flash_dec_comb_k";
  d.family = "other";
  d.source = "other/flash_dec_comb_k.s";
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
    DeviceBuffer<float> dout(dev, std::vector<float>(size_t(heads * dh + 1), 12345.f));
    dev.launch("flash_dec_comb_k", {uint32_t(heads)}, {64},
               {dout.addr(), dpo.addr(), dpm.addr(), dpl.addr(), u32(dh), u32(ns), f32(inv)});
    auto want = comb_reference(po, pm, pl, heads, dh, ns, inv);
    want.push_back(12345.f);
    return compare(dout.download(), want, kCombTolerance);
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
