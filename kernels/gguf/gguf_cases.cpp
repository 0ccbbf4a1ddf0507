#include "gguf/gguf_cases.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "gguf/gguf_generators.h"
#include "k100/codegen/division.h"
#include "k100/kernels/test_support.h"
#include "k100/quant/block_scales.h"
#include "k100/quant/codec.h"
#include "k100/quant/half.h"
#include "k100/quant/iq_tables.h"

namespace k100::kernels::gguf {

namespace {

using quant::TensorType;


uint32_t ceil_div(uint64_t a, uint64_t b) { return uint32_t((a + b - 1) / b); }


struct Tables {
  std::vector<std::unique_ptr<DeviceBuffer<uint8_t>>> buffers;
  Tables(TestDevice& dev, const BlockFormat& f) {
    for (const TableParam& t : f.tables) {
      const auto bytes = quant::table_bytes(t.source);
      buffers.push_back(std::make_unique<DeviceBuffer<uint8_t>>(dev, std::vector<uint8_t>(bytes.begin(), bytes.end())));
    }
  }
  void append(std::vector<codegen::ArgValue>& argv) const {
    for (const auto& b : buffers) argv.push_back(b->addr());
  }
};

void launch_packed(TestDevice& dev, const codegen::Signature& sig, uint32_t grid, uint32_t wg,
                   const std::vector<codegen::ArgValue>& argv) {
  dev.launch(sig.kernel(), {grid}, {wg}, sig.pack(argv));
}

}  // namespace


const Dequantizer& host_codecs() {
  static const Dequantizer d = [](TensorType type, const uint8_t* src, float* dst, int64_t n) {
    quant::dequantize_row(type, src, dst, n);
  };
  return d;
}

// Sums of up to 256 products of weights of order 1 (decoded from quantised
// Gaussians with outliers) and activations in [-1, 1], fused multiply-adds
// into four partial sums, against a double dot; the row sums add up to 160
// partials in f32. The default cases measure at most 4.6e-6 (partials) and
// the 17408 x 5120 bench case 2.7e-5 (rows); the bound leaves room for rows
// with more cancellation.
Tolerance dot_tolerance() { return Tolerance{1e-4, 1e-5}; }

std::vector<uint8_t> random_blocks(const BlockFormat& f, size_t count, uint32_t seed, bool finite_scales) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> b(count * size_t(f.bytes));
  for (auto& x : b) x = uint8_t(rng());
  if (finite_scales) {
    std::normal_distribution<float> scale(0.0f, 0.05f);
    const int fields = quant::block_scale_count(f.type);
    for (size_t i = 0; i < count; ++i) {
      const float d = scale(rng);
      const float dmin = fields > 1 ? scale(rng) : 0.0f;
      quant::set_block_scales(f.type, &b[i * size_t(f.bytes)], d, dmin);
    }
  }
  return b;
}

std::vector<uint8_t> quantised_blocks(const BlockFormat& f, size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> x(count * size_t(f.elems));
  for (auto& v : x) v = g(rng) * (u(rng) < 0.01f ? 4.0f : 1.0f);
  std::vector<uint8_t> b(count * size_t(f.bytes));
  quant::quantize_row(f.type, x.data(), b.data(), int64_t(x.size()));
  return b;
}

// ------------------------------------------------------------------ decoders

std::vector<Case> dequant_cases(bool sweep) {
  auto mk = [](int64_t n, int64_t wg, int64_t grid, int64_t offset, int64_t bits, uint32_t seed) {
    return make_case({{"nblocks", n}, {"wg", wg}, {"grid", grid}, {"offset", offset}, {"bits", bits}}, seed);
  };
  std::vector<Case> c = {mk(1, 64, 0, 0, 0, 1), mk(300, 64, 0, 2, 0, 2), mk(130, 128, 4, 1, 1, 3),
                         mk(200, 64, 0, 0, 2, 4)};
  if (sweep) {
    // every block count with every alignment, workgroup size and kind of data
    // (not all combinations: the sweep stays short)
    uint32_t seed = 100;
    for (int64_t n : {1, 2, 63, 64, 65, 257, 1000})
      for (int64_t offset : {0, 1, 2, 3})
        for (int64_t bits : {0, 1, 2}) c.push_back(mk(n, 64 << ((offset + bits) % 3), 0, offset, bits, seed++));
    c.push_back(mk(100, 64, 9, 0, 0, seed++));  // idle workgroups past the blocks
  }
  return c;
}

DeviceDecode decode_blocks(TestDevice& dev, const BlockFormat& f, const std::vector<uint8_t>& blocks, int64_t offset,
                           int64_t wg, uint32_t grid) {
  const int64_t n = int64_t(blocks.size()) / f.bytes;
  std::vector<uint8_t> stored(size_t(offset), 0x5a);
  stored.insert(stored.end(), blocks.begin(), blocks.end());
  const size_t count = size_t(n) * size_t(f.elems);
  DeviceBuffer<uint8_t> w(dev, stored);
  DeviceBuffer<float> y(dev, guarded(count));
  const Tables tables(dev, f);
  std::vector<codegen::ArgValue> argv = {w.addr() + uint64_t(offset), y.addr()};
  tables.append(argv);
  argv.push_back(int64_t(n));
  if (!dequant_by_global_id(f)) argv.push_back(int64_t(wg));
  launch_packed(dev, dequant_signature(f), grid ? grid : ceil_div(uint64_t(n), uint64_t(wg)), uint32_t(wg), argv);
  DeviceDecode out{y.download(), {}};
  out.guard = split_guard(out.values, count);
  return out;
}

namespace {
// The blocks of a decoder case: dims nblocks and bits.
std::vector<uint8_t> case_blocks(const BlockFormat& f, const Case& c) {
  const int64_t n = c["nblocks"], bits = dim(c, "bits", 0);
  return bits == 2 ? quantised_blocks(f, size_t(n), c.seed) : random_blocks(f, size_t(n), c.seed, bits == 0);
}
}  // namespace

CaseResult run_dequant(TestDevice& dev, const BlockFormat& f, const Case& c, const Dequantizer& ref) {
  const int64_t n = c["nblocks"];
  const std::vector<uint8_t> blocks = case_blocks(f, c);
  const DeviceDecode got =
      decode_blocks(dev, f, blocks, dim(c, "offset", 0), dim(c, "wg", 64), uint32_t(dim(c, "grid", 0)));
  std::vector<float> want(size_t(n) * size_t(f.elems));
  ref(f.type, blocks.data(), want.data(), int64_t(want.size()));
  return combine({compare_bits(got.values, want), got.guard});
}

CaseResult run_iq4nl_to_i8(TestDevice& dev, const Case& c, const Dequantizer& ref) {
  const BlockFormat& f = block_format(TensorType::IQ4_NL);
  const int64_t n = c["nblocks"], wg = dim(c, "wg", 64), offset = dim(c, "offset", 0);
  const std::vector<uint8_t> blocks = case_blocks(f, c);
  std::vector<uint8_t> stored(size_t(offset), 0x5a);
  stored.insert(stored.end(), blocks.begin(), blocks.end());
  DeviceBuffer<uint8_t> w(dev, stored), out(dev, std::vector<uint8_t>(size_t(32 * n + 4 * kOutputGuardWords), 0xa5));
  DeviceBuffer<float> scale(dev, guarded(size_t(n)));
  const uint32_t grid = uint32_t(dim(c, "grid", 0)) ? uint32_t(dim(c, "grid", 0)) : ceil_div(uint64_t(n), uint64_t(wg));
  launch_packed(dev, iq4nl_to_i8_signature(), grid, uint32_t(wg),
                {w.addr() + uint64_t(offset), out.addr(), scale.addr(), int64_t(n), int64_t(wg)});
  std::vector<float> want(size_t(32 * n));
  ref(f.type, blocks.data(), want.data(), 32 * n);
  const std::vector<uint8_t> codes = out.download();
  std::vector<float> s = scale.download();
  CaseResult guard = split_guard(s, size_t(n));
  // codes * scale is the decode (ggml multiplies the same two numbers)
  std::vector<float> product(size_t(32 * n));
  for (int64_t i = 0; i < 32 * n; ++i) product[size_t(i)] = s[size_t(i / 32)] * float(int8_t(codes[size_t(i)]));
  // the codes themselves: the codebook entry of each nibble
  std::vector<uint32_t> got_codes(size_t(32 * n)), want_codes(size_t(32 * n));
  const auto kv = quant::kvalues_iq4nl();
  for (int64_t b = 0; b < n; ++b)
    for (int j = 0; j < 16; ++j) {
      const uint8_t q = blocks[size_t(b * 18 + 2 + j)];
      want_codes[size_t(b * 32 + j)] = uint32_t(uint8_t(kv[q & 15]));
      want_codes[size_t(b * 32 + 16 + j)] = uint32_t(uint8_t(kv[q >> 4]));
    }
  for (size_t i = 0; i < got_codes.size(); ++i) got_codes[i] = codes[i];
  std::vector<uint32_t> tail(codes.begin() + 32 * n, codes.end()), tail_want(tail.size(), 0xa5);
  return combine({compare_bits(product, want), compare_exact_u32(got_codes, want_codes),
                  compare_exact_u32(tail, tail_want), guard});
}

// ---------------------------------------------------------------------- dots

std::vector<Case> dot_cases(const BlockFormat& f, bool sweep) {
  auto mk = [](int64_t nbpr, int64_t rows, int64_t groups, int64_t slots, int64_t shared, int64_t pad, int64_t wg,
               uint32_t seed) {
    return make_case({{"nbpr", nbpr},
                      {"rows", rows},
                      {"groups", groups},
                      {"slots", slots},
                      {"shared", shared},
                      {"pad", pad},
                      {"wg", wg},
                      {"grid", 0}},
                     seed);
  };
  std::vector<Case> c = {
      mk(5, 37, 1, 1, 1, 0, 64, 1),     // dense, 185 blocks: a partial last wave
      mk(4, 10, 3, 5, 1, 18, 64, 2),    // MoE, one activation row shared by 3 of 5 stored experts
      mk(3, 33, 2, 2, 0, 3, 128, 3),    // MoE, one activation row per expert, ids swapped, odd padding
      mk(20, 7, 1, 1, 1, 0, 64, 4),     // K = 20 blocks
  };
  if (sweep) {
    uint32_t seed = 200;
    int64_t pad = 0;
    // rows of up to 2048 elements (the emulator's time grows with the elements)
    for (int64_t nbpr : {int64_t(2), int64_t(3), int64_t(2048 / f.elems)})
      for (int64_t rows : {2, 65})
        for (auto [groups, slots, shared] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
                 {1, 1, 1}, {2, 3, 1}, {2, 2, 0}, {4, 7, 0}}) {
          c.push_back(mk(nbpr, rows, groups, slots, shared, pad, 64, seed++));
          pad = (pad + 29) % 67;  // 0, 29, 58, 20, ...: odd and even paddings
        }
    for (int64_t wg : {128, 256}) c.push_back(mk(9, 30, 3, 4, 0, 2, wg, seed++));
  }
  return c;
}

Case dot_bench_case(const BlockFormat& f) {
  return make_case({{"nbpr", 5120 / f.elems}, {"rows", 17408}, {"groups", 1}, {"slots", 1}, {"shared", 1},
                    {"pad", 0}, {"wg", 64}, {"grid", 0}});
}

uint64_t dot_ideal_bytes(const BlockFormat& f, const Case& c) {
  const uint64_t nbpr = uint64_t(c["nbpr"]), nrows = uint64_t(c["rows"] * c["groups"]);
  const uint64_t xgroups = c["shared"] ? 1 : uint64_t(c["groups"]);
  // the weights once, the activations once, the partials written once
  return nrows * nbpr * uint64_t(f.bytes) + xgroups * nbpr * uint64_t(f.elems) * 4 + nrows * nbpr * 4;
}

CaseResult run_dot(TestDevice& dev, const BlockFormat& f, const Case& c, const Dequantizer& ref) {
  const int64_t nbpr = c["nbpr"], rows = c["rows"], groups = c["groups"], slots = c["slots"];
  const bool shared = c["shared"] != 0;
  const int64_t pad = c["pad"], wg = dim(c, "wg", 64);
  const int64_t K = nbpr * f.elems, nrows = groups * rows, nblocks = nrows * nbpr;
  const int64_t group_bytes = rows * nbpr * f.bytes, stride = group_bytes + pad;
  const int64_t rows_per_exp = shared ? nrows : rows;
  CaseResult bad;
  const auto m_nbpr = codegen::magic_multiplier(uint32_t(nbpr), uint64_t(nblocks));
  const auto m_rpe = codegen::magic_multiplier(uint32_t(rows_per_exp), uint64_t(nrows));
  const auto m_rpw = codegen::magic_multiplier(uint32_t(rows), uint64_t(nrows));
  if (!m_nbpr || !m_rpe || !m_rpw) {
    bad.note = "test case " + c.describe() + " has a divisor without an exact magic multiplier";
    return bad;
  }
  // weight groups: slots of `stride` bytes, quantised blocks then padding
  std::mt19937 rng(c.seed);
  std::vector<uint8_t> w;
  for (int64_t s = 0; s < slots; ++s) {
    const auto blocks = quantised_blocks(f, size_t(rows * nbpr), c.seed * 131u + uint32_t(s));
    w.insert(w.end(), blocks.begin(), blocks.end());
    for (int64_t p = 0; p < pad; ++p) w.push_back(uint8_t(rng()));
  }
  std::vector<uint32_t> order(static_cast<size_t>(slots));
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), rng);
  const std::vector<uint32_t> ids(order.begin(), order.begin() + groups);
  Rng xr(c.seed + 7);
  const auto x = xr.uniform(size_t((shared ? 1 : groups) * K));

  DeviceBuffer<uint8_t> dw(dev, w);
  DeviceBuffer<float> dx(dev, x), part(dev, guarded(size_t(nblocks))), y(dev, guarded(size_t(nrows)));
  DeviceBuffer<uint32_t> did(dev, ids);
  const Tables tables(dev, f);
  std::vector<codegen::ArgValue> argv = {dw.addr(),         dx.addr(),        part.addr(),         int64_t(nblocks),
                                         int64_t(wg),       int64_t(nbpr),    int64_t(*m_nbpr),    int64_t(rows_per_exp),
                                         int64_t(*m_rpe)};
  tables.append(argv);
  argv.insert(argv.end(), {did.addr(), int64_t(stride), int64_t(rows), int64_t(*m_rpw)});
  const uint32_t grid = uint32_t(dim(c, "grid", 0)) ? uint32_t(dim(c, "grid", 0)) : ceil_div(uint64_t(nblocks), uint64_t(wg));
  launch_packed(dev, dot_signature(f), grid, uint32_t(wg), argv);
  launch_packed(dev, reduce_blocks_signature(), ceil_div(uint64_t(nrows), 64), 64,
                {part.addr(), y.addr(), int64_t(nrows), int64_t(nbpr)});

  // reference: row q1 of weight group ew = q1 / rows at slot ids[ew], decoded
  // one row at a time, dotted in double with activation row q1 / rows_per_exp
  std::vector<float> want_part(static_cast<size_t>(nblocks)), want_y(static_cast<size_t>(nrows)),
      wrow(static_cast<size_t>(K));
  for (int64_t q1 = 0; q1 < nrows; ++q1) {
    const int64_t ew = q1 / rows, e = q1 / rows_per_exp;
    const uint8_t* src = w.data() + ids[size_t(ew)] * uint64_t(stride) + uint64_t((q1 % rows) * nbpr * f.bytes);
    ref(f.type, src, wrow.data(), K);
    double row = 0;
    for (int64_t b = 0; b < nbpr; ++b) {
      double s = 0;
      for (int64_t j = 0; j < f.elems; ++j)
        s += double(wrow[size_t(b * f.elems + j)]) * double(x[size_t(e * K + b * f.elems + j)]);
      want_part[size_t(q1 * nbpr + b)] = float(s);
      row += s;
    }
    want_y[size_t(q1)] = float(row);
  }
  std::vector<float> got_part = part.download(), got_y = y.download();
  CaseResult g1 = split_guard(got_part, size_t(nblocks)), g2 = split_guard(got_y, size_t(nrows));
  return combine({compare(got_part, want_part, dot_tolerance()), compare(got_y, want_y, dot_tolerance()), g1, g2});
}

// -------------------------------------------------------------- reduction

std::vector<Case> reduce_cases(bool sweep) {
  std::vector<Case> c = {make_case({{"nrows", 1}, {"nbpr", 1}}, 1), make_case({{"nrows", 100}, {"nbpr", 20}}, 2),
                         make_case({{"nrows", 65}, {"nbpr", 37}}, 3), make_case({{"nrows", 7}, {"nbpr", 0}}, 4)};
  if (sweep) {
    uint32_t seed = 50;
    for (int64_t nrows : {1, 63, 64, 65, 200})
      for (int64_t nbpr : {0, 1, 2, 15, 16, 17, 32, 33, 160})
        c.push_back(make_case({{"nrows", nrows}, {"nbpr", nbpr}}, seed++));
  }
  return c;
}

CaseResult run_reduce(TestDevice& dev, const Case& c) {
  const int64_t nrows = c["nrows"], nbpr = c["nbpr"];
  Rng rng(c.seed);
  const auto p = rng.normal(size_t(nrows * nbpr), 0.0f, 10.0f);
  DeviceBuffer<float> dp(dev, p), y(dev, guarded(size_t(nrows)));
  launch(dev, reduce_blocks_signature(), {ceil_div(uint64_t(nrows), 64)}, {64},
         {dp.addr(), y.addr(), uint64_t(nrows), uint64_t(nbpr)});
  std::vector<float> want(static_cast<size_t>(nrows));
  for (int64_t r = 0; r < nrows; ++r) {
    float s = 0.0f;
    for (int64_t b = 0; b < nbpr; ++b) s += p[size_t(r * nbpr + b)];
    want[size_t(r)] = s;
  }
  std::vector<float> got = y.download();
  CaseResult guard = split_guard(got, size_t(nrows));
  return combine({compare_exact_u32(bits_of(got), bits_of(want)), guard});
}

// ------------------------------------------------------------ f16 and bf16

std::vector<Case> half_cases(bool sweep) {
  std::vector<Case> c = {make_case({{"n", 65536}, {"offset", 0}, {"wg", 64}}, 1),
                         make_case({{"n", 1}, {"offset", 1}, {"wg", 64}}, 2),
                         make_case({{"n", 1000}, {"offset", 3}, {"wg", 256}}, 3)};
  if (sweep)
    for (int64_t n : {2, 63, 64, 65, 4097})
      for (int64_t wg : {64, 128}) c.push_back(make_case({{"n", n}, {"offset", n % 3}, {"wg", wg}}, uint32_t(n + wg)));
  return c;
}

CaseResult run_half_to_f32(TestDevice& dev, bool bf16, const Case& c, const Dequantizer& ref) {
  const int64_t n = c["n"], offset = c["offset"], wg = dim(c, "wg", 64);
  // every pattern in order when n covers them, else random ones
  std::vector<uint16_t> h(size_t(offset + n));
  std::mt19937 rng(c.seed);
  for (int64_t i = 0; i < n; ++i) h[size_t(offset + i)] = n >= 65536 ? uint16_t(i) : uint16_t(rng());
  DeviceBuffer<uint16_t> dx(dev, h);
  DeviceBuffer<float> y(dev, guarded(size_t(n)));
  launch(dev, half_to_f32_signature(bf16 ? HalfKind::BF16 : HalfKind::F16), {ceil_div(uint64_t(n), uint64_t(wg))},
         {uint32_t(wg)}, {dx.addr() + uint64_t(2 * offset), y.addr(), uint64_t(n)});
  std::vector<float> want(static_cast<size_t>(n));
  ref(bf16 ? TensorType::BF16 : TensorType::F16, reinterpret_cast<const uint8_t*>(h.data() + offset), want.data(), n);
  std::vector<float> got = y.download();
  CaseResult guard = split_guard(got, size_t(n));
  return combine({compare_exact_u32(bits_of(got), bits_of(want)), guard});
}

}  // namespace k100::kernels::gguf
