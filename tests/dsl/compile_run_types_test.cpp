// Compiled DSL kernels on the emulator (every check on), exact against host
// computations: u64 ballot masks (uniform and per lane, inside varying
// branches) and f16/bf16 values (loads, stores, conversions, f16
// arithmetic), with the rounding reproduced by k100::quant's half routines.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "dsl_run_support.h"
#include "k100/quant/half.h"

namespace {

using k100::dsl::testing::DslKernel;
using k100::dsl::testing::read_kkl;
using k100::dsl::testing::six_comparison_bits;
using k100::dsl::testing::six_comparisons;
using k100::dsl::testing::wobble;
using k100::kernels::DeviceBuffer;
using k100::quant::bf16_to_f32;
using k100::quant::f16_to_f32;
using k100::quant::f32_to_bf16;
using k100::quant::f32_to_f16;

uint32_t lo(uint64_t m) { return uint32_t(m); }
uint32_t hi(uint64_t m) { return uint32_t(m >> 32); }

TEST(DslRunTypes, BallotMasks) {
  DslKernel k(R"(
def ballots(x: ptr[f32], out: ptr[u32], n: u32):
    i = gid()
    l = lane()
    v = x[i]
    m = ballot(v > 0.0)
    big = ballot(v > 1.0)
    out[20 * i] = u32(m)
    out[20 * i + 1] = u32(m >> 32)
    w = (m & ~big) ^ (m << 3)
    out[20 * i + 2] = u32(w)
    out[20 * i + 3] = u32(w >> 32)
    s = m + big - 1
    s = s - (big << 40)
    out[20 * i + 4] = u32(s)
    out[20 * i + 5] = u32(s >> 32)
    out[20 * i + 6] = 1 if m == 0 else (2 if m != big else 3)
    t = m >> l
    out[20 * i + 7] = u32(t & 1)
    z = (t + (m | 1)) ^ -t
    out[20 * i + 8] = u32(z)
    out[20 * i + 9] = u32(z >> 32)
    out[20 * i + 10] = 1 if t == (m >> 1) else 0
    out[20 * i + 11] = u32(~t >> 32)
    acc = ballot(l == 0)
    for j in range(3):
        acc = acc | ballot(l == j * 7 + 5)
    out[20 * i + 12] = u32(acc)
    if v < 0.5:
        b = ballot(v < 0.0)
        out[20 * i + 13] = u32(b) + u32(b >> 32)
        out[20 * i + 14] = u32(ballot(v > -100.0) >> 32)
    out[20 * i + 15] = u32(ballot(l < 70))
    out[20 * i + 16] = u32(ballot(n > 3) >> 32)
    out[20 * i + 17] = u32(ballot(not (v > 0.0)) >> 32)
)");
  ASSERT_TRUE(k.ok());
  const uint32_t waves = 2, total = 64 * waves;
  auto x = wobble(total, 31);
  for (uint32_t i = 64; i < 128; ++i) x[i] = std::fabs(x[i]) + 0.25f;  // wave 1: every lane positive
  for (uint32_t n : {2u, 9u}) {
    DeviceBuffer<float> dx(k.dev(), x);
    DeviceBuffer<uint32_t> dout(k.dev(), 20 * total);
    k.launch({waves}, {64}, {dx.addr(), dout.addr(), n});
    auto out = dout.download();
    for (uint32_t wv = 0; wv < waves; ++wv) {
      uint64_t m = 0, big = 0, neg = 0, low = 0, notpos = 0;
      for (uint32_t l = 0; l < 64; ++l) {
        const float v = x[64 * wv + l];
        m |= uint64_t(v > 0.0f) << l;
        big |= uint64_t(v > 1.0f) << l;
        neg |= uint64_t(v < 0.5f && v < 0.0f) << l;
        low |= uint64_t(v < 0.5f) << l;
        notpos |= uint64_t(!(v > 0.0f)) << l;
      }
      for (uint32_t l = 0; l < 64; ++l) {
        const uint32_t i = 64 * wv + l;
        const uint32_t* o = &out[20 * i];
        const uint64_t w = (m & ~big) ^ (m << 3);
        const uint64_t s = m + big - 1 - (big << 40);
        const uint64_t t = m >> l;
        const uint64_t z = (t + (m | 1)) ^ (0 - t);
        ASSERT_EQ(o[0], lo(m)) << i;
        ASSERT_EQ(o[1], hi(m)) << i;
        ASSERT_EQ(o[2], lo(w)) << i;
        ASSERT_EQ(o[3], hi(w)) << i;
        ASSERT_EQ(o[4], lo(s)) << i;
        ASSERT_EQ(o[5], hi(s)) << i;
        ASSERT_EQ(o[6], m == 0 ? 1u : (m != big ? 2u : 3u)) << i;
        ASSERT_EQ(o[7], lo(t & 1)) << i;
        ASSERT_EQ(o[8], lo(z)) << i;
        ASSERT_EQ(o[9], hi(z)) << i;
        ASSERT_EQ(o[10], t == (m >> 1) ? 1u : 0u) << i;
        ASSERT_EQ(o[11], hi(~t)) << i;
        ASSERT_EQ(o[12], 1u | (1u << 5) | (1u << 12) | (1u << 19)) << i;
        if ((low >> l) & 1) {
          ASSERT_EQ(o[13], lo(neg) + hi(neg)) << "only the lanes inside the branch, lane " << i;
          ASSERT_EQ(o[14], hi(low)) << i;
        } else {
          ASSERT_EQ(o[13], 0u) << i;
          ASSERT_EQ(o[14], 0u) << i;
        }
        ASSERT_EQ(o[15], 0xffffffffu) << i;
        ASSERT_EQ(o[16], n > 3 ? 0xffffffffu : 0u) << i;
        ASSERT_EQ(o[17], hi(notpos)) << "inactive lanes are not in a negated mask, lane " << i;
      }
    }
  }
}

// A partial last wave: ballot sees only the lanes that run.
TEST(DslRunTypes, BallotOfAPartialWave) {
  DslKernel k(R"(
def part(out: ptr[u32], n: u32):
    i = gid()
    if i < n:
        m = ballot(i >= 0)
        out[2 * i] = u32(m)
        out[2 * i + 1] = u32(m >> 32)
)");
  ASSERT_TRUE(k.ok());
  const uint32_t n = 40;
  DeviceBuffer<uint32_t> dout(k.dev(), 2 * 64);
  k.launch({1}, {64}, {dout.addr(), n});
  auto out = dout.download();
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(out[2 * i], 0xffffffffu) << i;
    ASSERT_EQ(out[2 * i + 1], (1u << (n - 32)) - 1) << i;
  }
}

bool same_half(uint16_t got, uint16_t want) {
  const bool nan_w = (want & 0x7c00) == 0x7c00 && (want & 0x3ff);
  const bool nan_g = (got & 0x7c00) == 0x7c00 && (got & 0x3ff);
  return nan_w ? nan_g : got == want;
}

uint16_t h(float x) { return f32_to_f16(x); }
float f(uint16_t b) { return f16_to_f32(b); }

// The f16 nearest to a finite double, ties to even: the f32 route's result
// or one of its neighbours (rounding through f32 first may land one off).
uint16_t h_of_double(double d) {
  const uint16_t h0 = h(float(d));
  uint16_t best = h0;
  for (int delta : {-1, 1}) {
    const uint16_t c = uint16_t(h0 + delta);
    if ((c & 0x7c00) == 0x7c00 || ((c ^ h0) & 0x8000)) continue;  // past the finite range or the sign
    const double ec = std::fabs(double(f(c)) - d), eb = std::fabs(double(f(best)) - d);
    if (ec < eb || (ec == eb && (c & 1) == 0)) best = c;
  }
  return best;
}

bool same_float(float got, float want) { return std::isnan(want) ? std::isnan(got) : got == want; }

// f16 values: loads and stores, + - * fma min max natively, / and sqrt
// through f32, int literals in f16 context, the six comparisons,
// conversions to and from f32, s32 and bf16.
TEST(DslRunTypes, HalfPrecisionValues) {
  DslKernel k(R"(
def halves(a: ptr[f16], b: ptr[f16], c: ptr[f16], y: ptr[f16], fo: ptr[f32], u: ptr[u32], bi: ptr[bf16], bo: ptr[bf16], n: u32):
    i = gid()
    if i < n:
        x = a[i]
        z = b[i]
        w = c[i]
        y[10 * i] = x + z
        y[10 * i + 1] = x - z
        y[10 * i + 2] = x * z
        y[10 * i + 3] = fma(x, z, w)
        y[10 * i + 4] = max(x, z) - min(x, w)
        y[10 * i + 5] = -x / z
        y[10 * i + 6] = sqrt(fabs(x))
        y[10 * i + 7] = x * 3 + 1
        y[10 * i + 8] = f16(f32(x) * 1.7)
        y[10 * i + 9] = f16(i * 37)
        fo[3 * i] = f32(x) + f32(z)
        fo[3 * i + 1] = x + 0.1
        fo[3 * i + 2] = f32(s32(x * z))
        r = i & 0
)" + six_comparisons("x", "z", "r", 0, "        ") + R"(        u[i] = r
        bo[3 * i] = bf16(f32(x) * 3.3)
        bo[3 * i + 1] = bf16(f32(bi[i]) * 2.0 + 1.0)
        bo[3 * i + 2] = bf16(x)
)");
  ASSERT_TRUE(k.ok());
  const uint32_t n = 120;
  auto wa = wobble(n, 41), wb = wobble(n, 42), wc = wobble(n, 43);
  std::vector<uint16_t> a(n), b(n), c(n), bi(n);
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = h(wa[i]);
    b[i] = h(wb[i]);
    c[i] = h(wc[i]);
    bi[i] = f32_to_bf16(wc[i] * 77.7f);
  }
  // equal pairs, signed zeros, an infinity, a NaN, a subnormal, an overflow
  a[0] = b[0] = h(1.5f);
  a[1] = 0x8000, b[1] = 0x0000;
  a[2] = 0x7c00;
  a[3] = 0x7e00;
  b[4] = 0x7e00;
  a[5] = 0x0003;
  a[6] = h(300.0f), b[6] = h(400.0f);
  DeviceBuffer<uint16_t> da(k.dev(), a), db(k.dev(), b), dc(k.dev(), c), dy(k.dev(), 10 * n + 64);
  DeviceBuffer<uint16_t> dbi(k.dev(), bi), dbo(k.dev(), 3 * n);
  DeviceBuffer<float> dfo(k.dev(), 3 * n);
  DeviceBuffer<uint32_t> du(k.dev(), n);
  k.launch({2}, {64}, {da.addr(), db.addr(), dc.addr(), dy.addr(), dfo.addr(), du.addr(), dbi.addr(), dbo.addr(), n});
  auto y = dy.download();
  auto fo = dfo.download();
  auto u = du.download();
  auto bo = dbo.download();
  for (uint32_t i = 0; i < n; ++i) {
    const float x = f(a[i]), z = f(b[i]), w = f(c[i]);
    // f16 + - * / and sqrt computed in f32 and rounded once more are the
    // correctly rounded f16 results (f32 has more than 2 * 11 + 2 bits).
    EXPECT_TRUE(same_half(y[10 * i], h(x + z))) << i;
    EXPECT_TRUE(same_half(y[10 * i + 1], h(x - z))) << i;
    EXPECT_TRUE(same_half(y[10 * i + 2], h(x * z))) << i;
    if (i >= 7) {  // moderate operands: the product plus w is exact in double
      const double exact = double(x) * double(z) + double(w);
      EXPECT_TRUE(same_half(y[10 * i + 3], h_of_double(exact))) << "fma rounds once, lane " << i;
      EXPECT_TRUE(same_half(y[10 * i + 4], h(std::fmax(x, z) - std::fmin(x, w)))) << i;
    }
    EXPECT_TRUE(same_half(y[10 * i + 5], h(-x * (1.0f / z)))) << i;
    EXPECT_TRUE(same_half(y[10 * i + 6], h(std::sqrt(std::fabs(x))))) << i;
    EXPECT_TRUE(same_half(y[10 * i + 7], h(f(h(x * 3.0f)) + 1.0f))) << "x * 3 + 1 in f16, lane " << i;
    EXPECT_TRUE(same_half(y[10 * i + 8], h(x * 1.7f))) << i;
    EXPECT_EQ(y[10 * i + 9], h(float(i * 37))) << i;
    EXPECT_TRUE(same_float(fo[3 * i], x + z)) << i;
    EXPECT_TRUE(same_float(fo[3 * i + 1], x + 0.1f)) << i;
    if (std::isfinite(x * z) && std::fabs(f(h(x * z))) < 2e9f) {
      EXPECT_EQ(fo[3 * i + 2], float(int32_t(f(h(x * z))))) << i;
    }
    EXPECT_EQ(u[i], six_comparison_bits(x, z)) << x << " vs " << z;
    EXPECT_EQ(bo[3 * i], f32_to_bf16(x * 3.3f)) << i;
    EXPECT_EQ(bo[3 * i + 1], f32_to_bf16(bf16_to_f32(bi[i]) * 2.0f + 1.0f)) << i;
    EXPECT_EQ(bo[3 * i + 2], f32_to_bf16(x)) << i;
  }
  for (uint32_t i = 10 * n; i < 10 * n + 64; ++i) ASSERT_EQ(y[i], 0u) << "written past the end at " << i;
}

// bf16 rounding on the boundaries: ties to even both ways, a carry into the
// exponent, the largest finite values, infinities and NaN; and f16 → bf16.
TEST(DslRunTypes, Bf16RoundsToNearestEven) {
  DslKernel k(R"(
def tobf(x: ptr[f32], y: ptr[bf16], back: ptr[f32]):
    i = gid()
    v = x[i]
    b = bf16(v)
    y[i] = b
    back[i] = f32(b)
)");
  ASSERT_TRUE(k.ok());
  std::vector<uint32_t> bits = {0x3f808000u, 0x3f818000u, 0x3f808001u, 0x3f80ffffu, 0x3fff8000u, 0x7f7fffffu,
                                0x7f7f7fffu, 0xff800000u, 0x7fc00001u, 0xffa00000u, 0x00008000u, 0x80018000u};
  while (bits.size() < 64) bits.push_back(uint32_t(bits.size()) * 0x0badf00du);
  std::vector<float> x(64);
  for (size_t i = 0; i < 64; ++i) x[i] = std::bit_cast<float>(bits[i]);
  DeviceBuffer<float> dx(k.dev(), x), dback(k.dev(), 64);
  DeviceBuffer<uint16_t> dy(k.dev(), 64);
  k.launch({1}, {64}, {dx.addr(), dy.addr(), dback.addr()});
  auto y = dy.download();
  auto back = dback.download();
  for (size_t i = 0; i < 64; ++i) {
    ASSERT_EQ(y[i], f32_to_bf16(x[i])) << std::hex << bits[i];
    ASSERT_EQ(std::bit_cast<uint32_t>(back[i]), uint32_t(y[i]) << 16) << std::hex << bits[i];
  }
}

// bf16 arithmetic: computed in f32 and rounded to nearest even; int
// literals in f16/bf16 context take the value of that type (257 is 256 in
// bf16, 3001 is 3000 and 2051 is 2052 in f16, 70000 is infinity) also when
// folded further into f32.
TEST(DslRunTypes, Bf16ArithmeticThroughF32) {
  DslKernel k(R"(
def bfarith(a: ptr[bf16], b: ptr[bf16], hp: ptr[f16], y: ptr[bf16], fo: ptr[f32], u: ptr[u32]):
    i = gid()
    x = a[i]
    z = b[i]
    y[8 * i] = x + z
    y[8 * i + 1] = x - z
    y[8 * i + 2] = x * z
    y[8 * i + 3] = x / z
    y[8 * i + 4] = fma(x, z, x)
    y[8 * i + 5] = max(x, z) + min(x, 3)
    y[8 * i + 6] = -x * 257
    y[8 * i + 7] = sqrt(fabs(x))
    fo[3 * i] = f32(bf16(257)) + f32(f16(3001))
    fo[3 * i + 1] = x + hp[i]
    fo[3 * i + 2] = f32(f16(70000))
    u[64 + i] = u32(f32(f16(2051)))
    u[i] = (1 if x < z else 0) | (2 if x == z else 0) | (4 if x >= 1 else 0) | (8 if x != z else 0)
    y[8 * 64 + 2 * i] = x / 5
    y[8 * 64 + 2 * i + 1] = f16(x) / 5
)");
  ASSERT_TRUE(k.ok());
  auto wa = wobble(64, 51), wb = wobble(64, 52), wh = wobble(64, 53);
  std::vector<uint16_t> a(64), b(64), hp(64);
  for (size_t i = 0; i < 64; ++i) {
    a[i] = f32_to_bf16(wa[i] * 13.0f);
    b[i] = f32_to_bf16(wb[i]);
    hp[i] = h(wh[i]);
  }
  b[0] = a[0];
  b[1] = 0x7fc0;  // NaN
  DeviceBuffer<uint16_t> da(k.dev(), a), db(k.dev(), b), dh(k.dev(), hp), dy(k.dev(), 10 * 64);
  DeviceBuffer<float> dfo(k.dev(), 3 * 64);
  DeviceBuffer<uint32_t> du(k.dev(), 128);
  k.launch({1}, {64}, {da.addr(), db.addr(), dh.addr(), dy.addr(), dfo.addr(), du.addr()});
  auto y = dy.download();
  auto fo = dfo.download();
  auto u = du.download();
  auto bf = [](float v) { return f32_to_bf16(v); };
  for (size_t i = 0; i < 64; ++i) {
    const float x = bf16_to_f32(a[i]), z = bf16_to_f32(b[i]);
    EXPECT_EQ(y[8 * i], bf(x + z)) << i;
    EXPECT_EQ(y[8 * i + 1], bf(x - z)) << i;
    EXPECT_EQ(y[8 * i + 2], bf(x * z)) << i;
    EXPECT_EQ(y[8 * i + 3], bf(x * (1.0f / z))) << i;
    EXPECT_EQ(y[8 * i + 4], bf(std::fma(x, z, x))) << i;
    EXPECT_EQ(y[8 * i + 5], bf(bf16_to_f32(bf(std::fmax(x, z))) + std::fmin(x, 3.0f))) << i;
    EXPECT_EQ(y[8 * i + 6], bf(-x * 256.0f)) << i;
    EXPECT_EQ(y[8 * i + 7], bf(std::sqrt(std::fabs(x)))) << i;
    EXPECT_EQ(y[8 * 64 + 2 * i], bf(x * (1.0f / 5.0f))) << "a literal divisor, lane " << i;
    EXPECT_EQ(y[8 * 64 + 2 * i + 1], bf(f(h(f(h(x)) * (1.0f / 5.0f))))) << "f16 by a literal, stored as bf16, lane " << i;
    EXPECT_EQ(fo[3 * i], 256.0f + 3000.0f) << i;
    EXPECT_TRUE(same_float(fo[3 * i + 1], x + f(hp[i]))) << i;
    EXPECT_EQ(fo[3 * i + 2], INFINITY) << "70000 is past the f16 range, lane " << i;
    EXPECT_EQ(u[64 + i], 2052u) << "2051 is a tie between 2050 and 2052: even, lane " << i;
    const uint32_t want = (x < z ? 1 : 0) | (x == z ? 2 : 0) | (x >= 1.0f ? 4 : 0) | (x != z ? 8 : 0);
    EXPECT_EQ(u[i], want) << x << " vs " << z;
  }
}

// Packed f16 arithmetic: pack_f16 puts two f16 in a u32 (the first in the
// low half), dot2 multiplies two such pairs into an f32 accumulator.
TEST(DslRunTypes, PackedHalfDot) {
  DslKernel k(R"(
def dots(a: ptr[f16], b: ptr[f16], out: ptr[f32], w: ptr[u32]):
    i = gid()
    p = pack_f16(a[2 * i], a[2 * i + 1])
    q = pack_f16(b[2 * i], f32(b[2 * i + 1]))
    w[2 * i] = p
    w[2 * i + 1] = pack_f16(3, 0.5)
    out[i] = dot2(p, q, 0.5)
)");
  ASSERT_TRUE(k.ok());
  std::vector<uint16_t> a(128), b(128);
  for (size_t i = 0; i < 128; ++i) {
    a[i] = h(float(int(i % 17) - 8) * 0.25f);
    b[i] = h(float(int(i % 13) - 6) * 1.5f);
  }
  DeviceBuffer<uint16_t> da(k.dev(), a), db(k.dev(), b);
  DeviceBuffer<float> dout(k.dev(), 64);
  DeviceBuffer<uint32_t> dw(k.dev(), 128);
  k.launch({1}, {64}, {da.addr(), db.addr(), dout.addr(), dw.addr()});
  auto out = dout.download();
  auto w = dw.download();
  for (size_t i = 0; i < 64; ++i) {
    ASSERT_EQ(w[2 * i], uint32_t(a[2 * i]) | uint32_t(a[2 * i + 1]) << 16) << i;
    ASSERT_EQ(w[2 * i + 1], uint32_t(h(3.0f)) | uint32_t(h(0.5f)) << 16) << i;
    // small multiples of 1/4 and 3/2: every product and sum is exact
    ASSERT_EQ(out[i], 0.5f + f(a[2 * i]) * f(b[2 * i]) + f(a[2 * i + 1]) * f(b[2 * i + 1])) << i;
  }
}

// The example kernels of tests/dsl/kkl that use these types.
TEST(DslRunTypes, HalfAxpyAndWaveFlagsExamples) {
  DslKernel k(read_kkl("half_axpy.kkl"));
  ASSERT_TRUE(k.ok());
  const uint32_t n = 150;
  const float alpha = -0.3f;
  auto wx = wobble(n, 81), wy = wobble(n, 82);
  std::vector<uint16_t> x(n), y(n);
  for (uint32_t i = 0; i < n; ++i) x[i] = h(wx[i]), y[i] = h(wy[i]);
  DeviceBuffer<uint16_t> dx(k.dev(), x), dy(k.dev(), y);
  k.launch({3}, {64}, {dx.addr(), dy.addr(), n, alpha});
  auto out = dy.download();
  const float a = f(h(alpha));
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], h(f(h(a * f(x[i]))) + f(y[i]))) << i;

  DslKernel w(read_kkl("wave_flags.kkl"));
  ASSERT_TRUE(w.ok());
  auto v = wobble(n, 83);
  DeviceBuffer<float> dv(w.dev(), v);
  DeviceBuffer<uint32_t> dflags(w.dev(), 6);
  w.launch({3}, {64}, {dv.addr(), dflags.addr(), n});
  auto flags = dflags.download();
  for (uint32_t wave = 0; wave < 3; ++wave) {
    uint64_t m = 0;
    for (uint32_t l = 0; l < 64 && 64 * wave + l < n; ++l) m |= uint64_t(v[64 * wave + l] > 0.0f) << l;
    ASSERT_EQ(flags[2 * wave], lo(m)) << wave;
    ASSERT_EQ(flags[2 * wave + 1], hi(m)) << wave;
  }
}

// f16 atomic_add on global memory: compare-and-swap of the dword holding
// the element, so lanes adding into both halves of one dword and lanes of
// several waves (interleaved at random) all land; each lane gets a distinct
// old value. Other f16/bf16 atomics are refused by name.
TEST(DslRunTypes, HalfAtomicAdd) {
  DslKernel k(R"(
def hadd(x: ptr[f16], olds: ptr[f16]):
    i = gid()
    olds[i] = atomic_add(x, i & 3, 1.0)
    atomic_add(x, 4 + (i & 1), f16(i & 7) * 0.5)
)");
  ASSERT_TRUE(k.ok());
  const uint32_t n = 192;
  const float start[6] = {0.5f, 10.0f, 20.0f, -30.0f, 1.25f, -2.0f};
  std::vector<uint16_t> x(6);
  for (int c = 0; c < 6; ++c) x[size_t(c)] = h(start[c]);
  DeviceBuffer<uint16_t> dx(k.dev(), x), dolds(k.dev(), n);
  k.dev().options().schedule = {k100::emu::Schedule::Random, 11};
  k.launch({3}, {64}, {dx.addr(), dolds.addr()});
  auto got = dx.download();
  auto olds = dolds.download();
  for (int c = 0; c < 4; ++c) ASSERT_EQ(f(got[size_t(c)]), start[c] + float(n / 4)) << c;  // small integers: exact
  float add[2] = {0, 0};
  for (uint32_t i = 0; i < n; ++i) add[i & 1] += float(i & 7) * 0.5f;
  ASSERT_EQ(f(got[4]), start[4] + add[0]);
  ASSERT_EQ(f(got[5]), start[5] + add[1]);
  std::vector<int> seen(4 * (n / 4), 0);
  for (uint32_t i = 0; i < n; ++i) {
    const float d = f(olds[i]) - start[i & 3];
    ASSERT_TRUE(d >= 0 && d < float(n / 4) && d == std::floor(d)) << i << " saw " << f(olds[i]);
    ++seen[(i & 3) * (n / 4) + uint32_t(d)];
  }
  for (int s : seen) ASSERT_EQ(s, 1);

  for (const char* bad : {"    atomic_max(x, 0, v[i])\n", "    atomic_add(b, 0, bf16(1.0))\n"}) {
    auto r = k100::dsl::compile(std::string("def acc(x: ptr[f16], v: ptr[f16], b: ptr[bf16]):\n    i = gid()\n") + bad,
                                "t.kkl");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.diagnostics.find("works on 32-bit elements (u32, s32, f32), not ptr["), std::string::npos)
        << r.diagnostics;
  }
}

}  // namespace
