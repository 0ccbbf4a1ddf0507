#include "attention/flash_decode_operands.h"

#include <algorithm>
#include <cmath>

namespace k100::kernels::flash_decode {

namespace {
constexpr float kCodeScale = 0.004f;  // q and k scales: scores of a few units
}  // namespace

PackedCache random_cache(int64_t kv_heads, int64_t kv_cap, int64_t n_kv, uint32_t seed) {
  PackedCache c(kv_heads, kv_cap);
  Rng rng(seed);
  for (auto& w : c.kc) w = uint32_t(rng.engine()());
  for (auto& w : c.vc) w = uint32_t(rng.engine()());
  // -128 is not a code of the format
  auto no_min = [](uint32_t& w) {
    for (int i = 0; i < 4; ++i)
      if (((w >> (8 * i)) & 0xff) == 0x80) w ^= 1u << (8 * i);
  };
  for (auto& w : c.kc) no_min(w);
  for (auto& w : c.vc) no_min(w);
  const float nan = std::nanf("");
  auto ks = rng.uniform(c.ksc.size(), 0.5f, 1.5f);
  for (size_t i = 0; i < ks.size(); ++i) c.ksc[i] = int64_t(i) % kv_cap < n_kv ? ks[i] * kCodeScale : nan;
  auto vs = rng.uniform(c.vsc.size(), 0.5f, 1.5f);
  const int64_t tiles = (n_kv + kTileKeys - 1) / kTileKeys;
  for (size_t i = 0; i < vs.size(); ++i)
    c.vsc[i] = int64_t(i) / kHeadDim % (kv_cap / kTileKeys) < tiles ? vs[i] / 127.f : nan;
  return c;
}

PackedQueries random_queries(const QueryLayout& l, uint32_t seed) {
  PackedQueries q;
  q.row_stride = kRowWords;
  q.dw_stride = l.rows * kRowWords + l.dw_pad;
  q.sc_row_step = l.sc_row_step;
  q.sc_row = l.rows * l.sc_row_step;
  q.sc_stride = 2 * q.sc_row + l.sc_pad;
  Rng rng(seed);
  q.q.resize(size_t(l.n_heads * q.dw_stride));
  for (auto& w : q.q) {
    w = uint32_t(rng.engine()());
    for (int i = 0; i < 4; ++i)
      if (((w >> (8 * i)) & 0xff) == 0x80) w ^= 1u << (8 * i);
  }
  q.qsc = rng.uniform(size_t(l.n_heads * q.sc_stride), 0.5f, 1.5f);
  for (auto& s : q.qsc) s *= kCodeScale;
  return q;
}

Launch contract_launch(TestDevice& dev, const std::string& lookup, const std::map<std::string, int64_t>& sizes,
                       const std::map<std::string, int64_t>& choices, const std::map<std::string, uint64_t>& given) {
  const LaunchContract lc = dev.launch_contract(lookup);
  const Launch l = lc.evaluate(sizes, choices);
  launch(dev, lookup, l, lc.argv(l, given));
  return l;
}

CaseResult compare_partials(const SplitPartials& got, const SplitPartials& want, const Tolerance& tol) {
  const size_t slots = want.psum.size();
  std::vector<float> g_o, w_o, g_l, w_l;
  for (size_t s = 0; s < slots; ++s) {
    const float n = want.psum[s] > 0 ? want.psum[s] : 1.f;
    g_l.push_back(got.psum[s] / n);
    w_l.push_back(want.psum[s] / n);
    for (int64_t d = 0; d < kHeadDim; ++d) {
      g_o.push_back(got.pout[s * kHeadDim + size_t(d)] / n);
      w_o.push_back(want.pout[s * kHeadDim + size_t(d)] / n);
    }
  }
  return combine({compare(g_o, w_o, tol), compare(g_l, w_l, tol), compare(got.pmax, want.pmax, tol)});
}

}  // namespace k100::kernels::flash_decode
