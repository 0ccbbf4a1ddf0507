#include "int4/int4_dot_cases.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "int4/int4_dot_generators.h"
#include "k100/codegen/division.h"
#include "k100/kernels/test_support.h"
#include "k100/quant/half.h"
#include "k100/quant/w4_formats.h"

namespace k100::kernels::int4 {

namespace {


uint32_t ceil_div(uint64_t a, uint64_t b) { return uint32_t((a + b - 1) / b); }



// bf16 scales of `count` blocks, little-endian bytes: finite ones in [lo, hi)
// with a random sign, or (random_bits) any 16-bit pattern.
std::vector<uint8_t> random_scales(size_t count, std::mt19937& rng, bool random_bits, float lo = 0.05f, float hi = 0.25f) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<uint8_t> s(2 * count);
  for (size_t i = 0; i < count; ++i) {
    uint16_t b = random_bits ? uint16_t(rng()) : quant::f32_to_bf16(u(rng) * ((rng() & 1) ? -1.0f : 1.0f));
    s[2 * i] = uint8_t(b);
    s[2 * i + 1] = uint8_t(b >> 8);
  }
  return s;
}

std::vector<uint8_t> random_bytes(size_t n, std::mt19937& rng) {
  std::vector<uint8_t> b(n);
  for (auto& x : b) x = uint8_t(rng());
  return b;
}

}  // namespace

quant::W4Matrix ct_int4_matrix(int64_t n, int64_t k, std::span<const uint8_t> codes, std::span<const uint8_t> scales,
                               const std::string& what) {
  quant::W4Matrix m;
  m.format = &quant::kCompressedTensorsInt4;
  m.n = n;
  m.k = k;
  m.codes = codes;
  m.scales = scales;
  m.check(what);
  return m;
}

// ------------------------------------------------------------ dequantiser

std::vector<Case> dequant_cases(bool sweep) {
  auto mk = [](int64_t words, int64_t wg, int64_t grid, int64_t bits, uint32_t seed) {
    return make_case({{"words", words}, {"wg", wg}, {"grid", grid}, {"bits", bits}}, seed);
  };
  // one block; several blocks with a partial last wave; random scale bits;
  // a partial last block; a larger workgroup and idle workgroups past the words
  std::vector<Case> c = {mk(16, 64, 0, 0, 1), mk(16 * 37, 64, 0, 0, 2), mk(16 * 20, 64, 0, 1, 3),
                         mk(16 * 5 + 7, 64, 0, 0, 4), mk(16 * 9, 128, 6, 0, 5)};
  if (sweep) {
    uint32_t seed = 100;
    for (int64_t words : {1, 15, 16, 17, 63, 64, 65, 1000})
      for (int64_t bits : {0, 1}) c.push_back(mk(words, 64 << (words % 3), 0, bits, seed++));
  }
  return c;
}

CaseResult run_dequant(TestDevice& dev, const Case& c) {
  const int64_t words = c["words"], wg = dim(c, "wg", 64), blocks = (words + 15) / 16;
  std::mt19937 rng(c.seed);
  const std::vector<uint8_t> codes = random_bytes(size_t(blocks * kBlockBytes), rng);
  const std::vector<uint8_t> scales = random_scales(size_t(blocks), rng, dim(c, "bits", 0) != 0);
  DeviceBuffer<uint8_t> dw(dev, codes), ds(dev, scales);
  DeviceBuffer<float> dy(dev, guarded(size_t(words * 8)));
  const uint32_t grid = uint32_t(dim(c, "grid", 0)) ? uint32_t(dim(c, "grid", 0)) : ceil_div(uint64_t(words), uint64_t(wg));
  launch(dev, int4_dequant_signature(), {grid}, {uint32_t(wg)},
         {dw.addr(), ds.addr(), dy.addr(), uint64_t(words), uint64_t(wg)});
  std::vector<float> got = dy.download();
  CaseResult guard = split_guard(got, size_t(words * 8));
  // reference: the blocks as a [blocks, 128] compressed-tensors matrix
  std::vector<float> want = ct_int4_matrix(blocks, kBlockElems, codes, scales, "int4_dequant_k test matrix").dequantize();
  want.resize(size_t(words * 8));
  return combine({compare_bits(got, want), guard});
}

// -------------------------------------------------------------------- dot

// Sums of 128 products (code - 8) * x, |code - 8| <= 8, |x| <= 1, scales of
// 0.05..0.25 (weights of order 1), in four f32 accumulators against a double
// dot; row sums add up to 40 partials in f32 (reduce_blocks_k). The default
// cases measure at most 4.8e-6, the sweep 9.6e-6 (partials and rows); the
// bound leaves room for rows with more cancellation.
Tolerance dot_tolerance() { return Tolerance{1e-4, 1e-5}; }

std::vector<Case> dot_cases(bool sweep) {
  auto mk = [](int64_t nbpr, int64_t rows, int64_t groups, int64_t slots, int64_t shared, int64_t pad, int64_t wg,
               uint32_t seed) {
    return make_case({{"nbpr", nbpr}, {"rows", rows}, {"groups", groups}, {"slots", slots}, {"shared", shared},
                      {"pad", pad}, {"wg", wg}},
                     seed);
  };
  std::vector<Case> c = {
      mk(5, 37, 1, 1, 1, 0, 64, 1),      // dense, 185 blocks: a partial last wave
      mk(4, 10, 3, 5, 1, 128, 64, 2),    // MoE, one activation row shared by 3 of 5 stored experts
      mk(3, 33, 2, 2, 0, 64, 128, 3),    // MoE, one activation row per expert, padded slots
      mk(12, 7, 1, 1, 1, 0, 64, 4),      // K = 1536
  };
  if (sweep) {
    uint32_t seed = 200;
    for (int64_t nbpr : {2, 3, 16})
      for (int64_t rows : {2, 65})
        for (auto [groups, slots, shared] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
                 {1, 1, 1}, {2, 3, 1}, {2, 2, 0}, {4, 7, 0}}) {
          const int64_t pad = 64 * (seed % 3);
          c.push_back(mk(nbpr, rows, groups, slots, shared, pad, 64, seed++));
        }
    for (int64_t wg : {128, 256}) c.push_back(mk(9, 30, 3, 4, 0, 64, wg, seed++));
  }
  return c;
}

Case dot_bench_case() {
  return make_case({{"nbpr", 5120 / kBlockElems}, {"rows", 17408}, {"groups", 1}, {"slots", 1}, {"shared", 1},
                    {"pad", 0}, {"wg", 64}});
}

uint64_t dot_ideal_bytes(const Case& c) {
  const uint64_t nbpr = uint64_t(c["nbpr"]), nrows = uint64_t(c["rows"] * c["groups"]);
  const uint64_t xgroups = c["shared"] ? 1 : uint64_t(c["groups"]);
  // codes and scales once, the activations once, the partials written once
  return nrows * nbpr * (kBlockBytes + 2) + xgroups * nbpr * kBlockElems * 4 + nrows * nbpr * 4;
}

CaseResult run_dot(TestDevice& dev, const Case& c) {
  const int64_t nbpr = c["nbpr"], rows = c["rows"], groups = c["groups"], slots = c["slots"];
  const bool shared = c["shared"] != 0;
  const int64_t pad = c["pad"], wg = dim(c, "wg", 64);
  const int64_t K = nbpr * kBlockElems, nrows = groups * rows, nblocks = nrows * nbpr;
  const int64_t group_blocks = rows * nbpr, stride = group_blocks * kBlockBytes + pad;
  const int64_t rows_per_exp = shared ? nrows : rows;
  const auto m_nbpr = codegen::magic_multiplier(uint32_t(nbpr), uint64_t(nblocks));
  const auto m_rpe = codegen::magic_multiplier(uint32_t(rows_per_exp), uint64_t(nrows));
  const auto m_rpw = codegen::magic_multiplier(uint32_t(rows), uint64_t(nrows));
  if (!m_nbpr || !m_rpe || !m_rpw || pad % 64) {
    CaseResult bad;
    bad.note = "test case " + c.describe() + " has a divisor without an exact magic multiplier or a pad not a multiple of 64";
    return bad;
  }
  // weight groups: slots of `stride` bytes of codes (blocks, then padding),
  // and of stride / 32 bytes of scales (the blocks' scales, then padding)
  std::mt19937 rng(c.seed);
  std::vector<uint8_t> w, s;
  for (int64_t g = 0; g < slots; ++g) {
    for (uint8_t b : random_bytes(size_t(stride), rng)) w.push_back(b);
    const std::vector<uint8_t> sc = random_scales(size_t(group_blocks), rng, false);
    s.insert(s.end(), sc.begin(), sc.end());
    for (int64_t p = 0; p < pad / 32; ++p) s.push_back(uint8_t(rng()));
  }
  std::vector<uint32_t> order(static_cast<size_t>(slots));
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), rng);
  const std::vector<uint32_t> ids(order.begin(), order.begin() + groups);
  Rng xr(c.seed + 7);
  const std::vector<float> x = xr.uniform(size_t((shared ? 1 : groups) * K));

  DeviceBuffer<uint8_t> dw(dev, w), ds(dev, s);
  DeviceBuffer<float> dx(dev, x), part(dev, guarded(size_t(nblocks))), y(dev, guarded(size_t(nrows)));
  DeviceBuffer<uint32_t> did(dev, ids);
  launch(dev, int4_dot_signature(), {ceil_div(uint64_t(nblocks), uint64_t(wg))}, {uint32_t(wg)},
         {dw.addr(), dx.addr(), part.addr(), uint64_t(nblocks), uint64_t(wg), uint64_t(nbpr), uint64_t(*m_nbpr),
          uint64_t(rows_per_exp), uint64_t(*m_rpe), ds.addr(), did.addr(), uint64_t(stride), uint64_t(rows),
          uint64_t(*m_rpw)});
  dev.launch("reduce_blocks_k", {ceil_div(uint64_t(nrows), 64)}, {64},
             {part.addr(), y.addr(), uint64_t(nrows), uint64_t(nbpr)});

  // reference: weight group ew is the [rows, K] matrix of slot ids[ew]
  std::vector<float> want_part(static_cast<size_t>(nblocks)), want_y(static_cast<size_t>(nrows));
  for (int64_t ew = 0; ew < groups; ++ew) {
    const uint64_t slot = ids[size_t(ew)];
    const quant::W4Matrix m =
        ct_int4_matrix(rows, K, std::span<const uint8_t>(w.data() + slot * uint64_t(stride), size_t(group_blocks * kBlockBytes)),
                       std::span<const uint8_t>(s.data() + slot * uint64_t(stride / 32), size_t(group_blocks * 2)),
                       "int4_dot_k test matrix");
    const int64_t e = shared ? 0 : ew;
    const std::span<const float> xe(x.data() + e * K, size_t(K));
    const std::vector<float> yr = quant::gemv_reference(m, xe, 1);
    for (int64_t r = 0; r < rows; ++r) {
      want_y[size_t(ew * rows + r)] = yr[size_t(r)];
      for (int64_t b = 0; b < nbpr; ++b) {
        double acc = 0;
        for (int64_t j = 0; j < kBlockElems; ++j)
          acc += double(m.weight(r, b * kBlockElems + j)) * double(xe[size_t(b * kBlockElems + j)]);
        want_part[size_t((ew * rows + r) * nbpr + b)] = float(acc);
      }
    }
  }
  std::vector<float> got_part = part.download(), got_y = y.download();
  CaseResult g1 = split_guard(got_part, size_t(nblocks)), g2 = split_guard(got_y, size_t(nrows));
  return combine({compare(got_part, want_part, dot_tolerance()), compare(got_y, want_y, dot_tolerance()), g1, g2});
}

}  // namespace k100::kernels::int4
