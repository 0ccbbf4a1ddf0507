// Compiled DSL kernels run on the emulator (every check on) against host
// computations written here: integer division, 2D grids and narrow types,
// atomics, cross-lane and dot built-ins, register pressure, scalar
// instructions with two literals and a file without the kernel asked for
// (the classes of silent miscompilation: miscompilation_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "dsl_run_support.h"

namespace {

using k100::dsl::testing::cdiv;
using k100::dsl::testing::DslKernel;
using k100::dsl::testing::half_to_float;
using k100::dsl::testing::read_kkl;
using k100::dsl::testing::wobble;
using k100::kernels::DeviceBuffer;

int32_t nibble(uint32_t w, int j) { return int32_t(w << (28 - 4 * j)) >> 28; }

// u32 and s32 (floored, as in Python) division and remainder by per-lane
// and uniform divisors, exact.
TEST(DslRun, IntegerDivisionByRuntimeValues) {
  DslKernel k(R"(
def divmod_k(a: ptr[u32], b: ptr[u32], sa: ptr[s32], sb: ptr[s32], out: ptr[u32], d: u32, sd: s32, n: u32):
    i = gid()
    x = a[i]
    y = b[i]
    out[8 * i] = x / y
    out[8 * i + 1] = x % y
    out[8 * i + 2] = x // d
    out[8 * i + 3] = x % d
    p = sa[i]
    q = sb[i]
    out[8 * i + 4] = u32(p // q)
    out[8 * i + 5] = u32(p % q)
    out[8 * i + 6] = u32(p // sd)
    out[8 * i + 7] = (d * 7 + 3) / d + (d * 7 + 3) % d
    out[8 * n + 4 * i] = x / 8 + (x % 8) * 1000
    out[8 * n + 4 * i + 1] = x / 7
    out[8 * n + 4 * i + 2] = x % 10 + (x / 641) * 16 + x % 641
    out[8 * n + 4 * i + 3] = d / 16 + d % 16
)");
  ASSERT_TRUE(k.ok());
  const uint32_t n = 128;
  std::vector<uint32_t> a(n), b(n);
  std::vector<int32_t> sa(n), sb(n);
  uint32_t s = 12345;
  for (uint32_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    a[i] = i < 4 ? std::vector<uint32_t>{0xffffffffu, 0x80000000u, 0, 1}[i] : s;
    s = s * 1664525u + 1013904223u;
    b[i] = i < 4 ? std::vector<uint32_t>{1u, 0xffffffffu, 7u, 0x80000001u}[i] : (i % 3 == 0 ? s : (s >> (i % 29)) | 1);
    sa[i] = int32_t(a[i] ^ (i * 977u));
    sb[i] = int32_t(b[i]) == 0 ? 3 : (i % 4 == 0 ? -int32_t(i + 1) : int32_t(b[i] >> (i % 31)) | 1);
    if (sa[i] == std::numeric_limits<int32_t>::min() && sb[i] == -1) sb[i] = 2;
  }
  for (auto [d, sd] : {std::pair{7u, -5}, std::pair{0x9e3779b9u, 3}, std::pair{1u, 1}}) {
    DeviceBuffer<uint32_t> da(k.dev(), a), db(k.dev(), b), dout(k.dev(), 12 * n);
    DeviceBuffer<int32_t> dsa(k.dev(), sa), dsb(k.dev(), sb);
    k.launch({2}, {64}, {da.addr(), db.addr(), dsa.addr(), dsb.addr(), dout.addr(), d, sd, n});
    auto out = dout.download();
    auto floordiv = [](int64_t p, int64_t q) {
      int64_t t = p / q;
      return (p % q != 0 && ((p < 0) != (q < 0))) ? t - 1 : t;
    };
    for (uint32_t i = 0; i < n; ++i) {
      const int64_t p = sa[i], q = sb[i];
      ASSERT_EQ(out[8 * i], a[i] / b[i]) << i;
      ASSERT_EQ(out[8 * i + 1], a[i] % b[i]) << i;
      ASSERT_EQ(out[8 * i + 2], a[i] / d) << i;
      ASSERT_EQ(out[8 * i + 3], a[i] % d) << i;
      ASSERT_EQ(int32_t(out[8 * i + 4]), int32_t(floordiv(p, q))) << p << " // " << q;
      ASSERT_EQ(int32_t(out[8 * i + 5]), int32_t(p - floordiv(p, q) * q)) << p << " % " << q;
      ASSERT_EQ(int32_t(out[8 * i + 6]), int32_t(floordiv(p, sd))) << p << " // " << sd;
      const uint32_t u = d * 7 + 3;
      ASSERT_EQ(out[8 * i + 7], u / d + u % d) << d;
      ASSERT_EQ(out[8 * n + 4 * i], a[i] / 8 + (a[i] % 8) * 1000) << i;
      ASSERT_EQ(out[8 * n + 4 * i + 1], a[i] / 7) << a[i];
      ASSERT_EQ(out[8 * n + 4 * i + 2], a[i] % 10 + (a[i] / 641) * 16 + a[i] % 641) << a[i];  // 641: exact multiplier
      ASSERT_EQ(out[8 * n + 4 * i + 3], d / 16 + d % 16) << d;
    }
  }
}

// Scalar instructions take one literal: uniform operations on two constants
// the front end leaves unfolded (a conditional expression, max) still compile.
TEST(DslRun, UniformOperationsOnTwoLiterals) {
  DslKernel k(R"(
def lit(y: ptr[u32], n: u32):
    i = gid()
    x = 1000 if n > 2 else 2000
    z = max(n, 3000)
    y[i] = x + z
)");
  ASSERT_TRUE(k.ok());
  for (uint32_t n : {1u, 5u, 4000u}) {
    DeviceBuffer<uint32_t> dy(k.dev(), 64);
    k.launch({1}, {64}, {dy.addr(), n});
    auto y = dy.download();
    for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(y[i], (n > 2 ? 1000u : 2000u) + std::max(n, 3000u)) << n;
  }
}

// Selecting a kernel that the file does not have is an error naming the ones it has.
TEST(DslRun, UnknownKernelNameIsADiagnostic) {
  auto r2 = k100::dsl::compile("def s(x: ptr[f32], y: ptr[f32]):\n    y[0] = x[0]\n", "t.kkl", {.only = "nope"});
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.diagnostics.find("no kernel named 'nope' (the file has: s)"), std::string::npos) << r2.diagnostics;
}

// 2D grids: gid/bid/lid in x and y, a negative s32 index, narrow element
// types loaded (zero- and sign-extended) and stored, an LDS array read at a
// per-lane index.
TEST(DslRun, TwoDimensionsNarrowTypesAndLds) {
  DslKernel k(R"(
def grid2(b8: ptr[u8], s8p: ptr[s8], h16: ptr[s16], out: ptr[u32], o8: ptr[u8], end: ptr[u32], width: u32):
    x = gid(0)
    y = gid(1)
    t = lid(0) + lid(1) * 8
    p = y * width + x
    buf = lds(64, u32)
    buf[t] = p
    barrier()
    back = buf[63 - t]
    neg: s32 = s32(p) - s32(width * width)
    out[4 * p] = back
    out[4 * p + 1] = u32(b8[p]) + 1000 * bid(1)
    out[4 * p + 2] = u32(s8p[p] + h16[p])
    out[4 * p + 3] = end[neg]
    o8[p] = b8[p] + 1
)");
  ASSERT_TRUE(k.ok());
  const uint32_t width = 16, height = 16, n = width * height;  // 2x2 workgroups of 8x8
  std::vector<uint8_t> b8(n), o8(n);
  std::vector<int8_t> s8v(n);
  std::vector<int16_t> h16(n);
  for (uint32_t i = 0; i < n; ++i) {
    b8[i] = uint8_t(i * 7 + 200);
    s8v[i] = int8_t(i * 13);
    h16[i] = int16_t(-int32_t(i) * 97);
  }
  std::vector<uint32_t> tail(n);
  for (uint32_t i = 0; i < n; ++i) tail[i] = 0xabc00000u + i;
  DeviceBuffer<uint8_t> db8(k.dev(), b8), do8(k.dev(), n);
  DeviceBuffer<int8_t> ds8(k.dev(), s8v);
  DeviceBuffer<int16_t> dh16(k.dev(), h16);
  DeviceBuffer<uint32_t> dout(k.dev(), 4 * n), dtail(k.dev(), tail);
  // `end` points just past dtail: end[p - n] (a negative s32 index) is dtail[p]
  k.launch({2, 2}, {8, 8}, {db8.addr(), ds8.addr(), dh16.addr(), dout.addr(), do8.addr(), dtail.addr() + 4 * n, width});
  auto out = dout.download();
  auto o = do8.download();
  for (uint32_t y = 0; y < height; ++y)
    for (uint32_t x = 0; x < width; ++x) {
      const uint32_t p = y * width + x;
      const uint32_t t = (x % 8) + (y % 8) * 8, r = 63 - t;
      const uint32_t back = ((y / 8) * 8 + r / 8) * width + (x / 8) * 8 + r % 8;
      ASSERT_EQ(out[4 * p], back) << x << "," << y;
      ASSERT_EQ(out[4 * p + 1], uint32_t(b8[p]) + 1000 * (y / 8)) << p;
      ASSERT_EQ(out[4 * p + 2], uint32_t(int32_t(s8v[p]) + int32_t(h16[p]))) << p;
      ASSERT_EQ(out[4 * p + 3], 0xabc00000u + p) << p;
      ASSERT_EQ(o[p], uint8_t(b8[p] + 1)) << p;
    }
}

// Atomics on global memory and LDS: counts, extremes, one winner of a
// compare-and-swap, and the old values each lane gets back.
TEST(DslRun, AtomicsGlobalAndLds) {
  DslKernel k(R"(
def atoms(cnt: ptr[u32], ext: ptr[s32], flag: ptr[u32], olds: ptr[u32], out: ptr[f32]):
    i = gid()
    l = lid()
    o = atomic_add(cnt, i & 3, 1)
    atomic_max(ext, 0, s32(i) - 50)
    atomic_min(ext, 1, s32(i) - 50)
    w = atomic_cas(flag, 0, 0, i + 1)
    olds[i] = w
    acc = lds(1, f32)
    cells = lds(4, u32)
    if l == 0:
        acc[0] = 0.0
        cells[0] = 0
        cells[1] = 1000
    barrier()
    atomic_add(acc, 0, f32(l))
    atomic_add(cells, 0, 1)
    atomic_min(cells, 1, l + 7)
    x = atomic_xchg(cells, 2, l)
    barrier()
    if l == 0:
        out[2 * bid()] = acc[0]
        out[2 * bid() + 1] = f32(cells[0] + cells[1] * 1000)
    cnt[4 + i] = o
)");
  ASSERT_TRUE(k.ok());
  const uint32_t n = 128;
  DeviceBuffer<uint32_t> dcnt(k.dev(), 4 + n), dflag(k.dev(), 1), dolds(k.dev(), n);
  DeviceBuffer<int32_t> dext(k.dev(), std::vector<int32_t>{-1000, 1000});
  DeviceBuffer<float> dout(k.dev(), 4);
  k.launch({2}, {64}, {dcnt.addr(), dext.addr(), dflag.addr(), dolds.addr(), dout.addr()});
  auto cnt = dcnt.download();
  auto ext = dext.download();
  auto olds = dolds.download();
  auto out = dout.download();
  for (int j = 0; j < 4; ++j) ASSERT_EQ(cnt[size_t(j)], n / 4) << j;
  // the old values of each counter are 0 .. n/4 - 1, each once
  std::vector<int> seen(4 * (n / 4), 0);
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_LT(cnt[4 + i], n / 4);
    ++seen[(i & 3) * (n / 4) + cnt[4 + i]];
  }
  for (int s : seen) ASSERT_EQ(s, 1);
  EXPECT_EQ(ext[0], int32_t(n) - 1 - 50);
  EXPECT_EQ(ext[1], -50);
  // exactly one lane found the flag at 0 and wrote its id + 1
  int winners = 0;
  for (uint32_t i = 0; i < n; ++i) winners += olds[i] == 0;
  ASSERT_EQ(winners, 1);
  uint32_t winner = 0;
  for (uint32_t i = 0; i < n; ++i)
    if (olds[i] == 0) winner = i;
  EXPECT_EQ(dflag.download()[0], winner + 1);
  for (uint32_t i = 0; i < n; ++i)
    if (i != winner) {
      ASSERT_EQ(olds[i], winner + 1) << i;
    }
  for (int g = 0; g < 2; ++g) {
    EXPECT_EQ(out[size_t(2 * g)], 63.0f * 64.0f / 2.0f);  // integers: exact in any order
    EXPECT_EQ(out[size_t(2 * g + 1)], float(64 + 7 * 1000));
  }
}

TEST(DslRun, GlobalF32AtomicAddRetriesUntilItSwaps) {
  DslKernel k(R"(
def fadd(x: ptr[f32], olds: ptr[f32]):
    i = gid()
    olds[i] = atomic_add(x, i & 3, 1.0)
)");
  ASSERT_TRUE(k.ok());
  const uint32_t n = 128;
  DeviceBuffer<float> dx(k.dev(), std::vector<float>{0.5f, 10.0f, 20.0f, 30.0f}), dolds(k.dev(), n);
  k.dev().options().schedule = {k100::emu::Schedule::Random, 7};  // waves interleaved at random
  k.launch({2}, {64}, {dx.addr(), dolds.addr()});
  auto x = dx.download();
  auto olds = dolds.download();
  const float start[4] = {0.5f, 10.0f, 20.0f, 30.0f};
  for (int c = 0; c < 4; ++c) ASSERT_EQ(x[size_t(c)], start[c] + float(n / 4)) << c;
  // each lane saw a distinct old value of its cell: start, start + 1, ...
  std::vector<int> seen(4 * (n / 4), 0);
  for (uint32_t i = 0; i < n; ++i) {
    const float d = olds[i] - start[i & 3];
    ASSERT_TRUE(d >= 0 && d < float(n / 4) && d == std::floor(d)) << i << " saw " << olds[i];
    ++seen[(i & 3) * (n / 4) + uint32_t(d)];
  }
  for (int s : seen) ASSERT_EQ(s, 1);
}

// Register pressure: 300 f32 values live at once (all loaded before any is
// used) compile with the layer's spilling (scratch stores and loads in the
// assembly) and stay correct.
TEST(DslRun, ThreeHundredLiveValuesSpill) {
  const int m = 300;
  std::string src = "def many(x: ptr[f32], y: ptr[f32]):\n    i = gid()\n    b = i * " + std::to_string(m) + "\n";
  for (int j = 0; j < m; ++j) src += "    v" + std::to_string(j) + " = x[b + " + std::to_string(j) + "]\n";
  src += "    s = 0.0\n";
  for (int j = m - 1; j >= 0; --j) src += "    s = s * 0.5 + v" + std::to_string(j) + " * " + std::to_string(j % 7 + 1) + ".0\n";
  src += "    y[i] = s\n";
  DslKernel k(src);
  ASSERT_TRUE(k.ok());
  EXPECT_TRUE(k100::dsl::testing::spills_with_traffic(k.kernel())) << k.kernel().vgpr_spills << " dwords spilled";
  auto x = wobble(64 * m, 19);
  DeviceBuffer<float> dx(k.dev(), x), dy(k.dev(), 64);
  k.launch({1}, {64}, {dx.addr(), dy.addr()});
  auto y = dy.download();
  for (uint32_t i = 0; i < 64; ++i) {
    float s = 0.0f;
    for (int j = m - 1; j >= 0; --j) {
      const float t = x[i * m + size_t(j)] * float(j % 7 + 1);
      s = s * 0.5f + t;
    }
    ASSERT_EQ(y[i], s) << i;
  }
}

TEST(DslRun, DotBuiltins) {
  DslKernel k(R"(
def dots(a: ptr[u32], b: ptr[u32], out: ptr[s32], fo: ptr[f32]):
    i = gid()
    x = a[i]
    y = b[i]
    out[2 * i] = dot4(x, y, s32(i) - 7)
    out[2 * i + 1] = dot8(x, y, 5)
    fo[i] = dot2(x & 0x3bff3bff, y & 0x3bff3bff, 0.25)
)");
  ASSERT_TRUE(k.ok());
  std::vector<uint32_t> a(64), b(64);
  uint32_t s = 99;
  for (int i = 0; i < 64; ++i) {
    s = s * 1664525u + 1013904223u;
    a[size_t(i)] = s;
    s = s * 1664525u + 1013904223u;
    b[size_t(i)] = s;
  }
  DeviceBuffer<uint32_t> da(k.dev(), a), db(k.dev(), b);
  DeviceBuffer<int32_t> dout(k.dev(), 128);
  DeviceBuffer<float> dfo(k.dev(), 64);
  k.launch({1}, {64}, {da.addr(), db.addr(), dout.addr(), dfo.addr()});
  auto out = dout.download();
  auto fo = dfo.download();
  for (uint32_t i = 0; i < 64; ++i) {
    int32_t d4 = int32_t(i) - 7, d8 = 5;
    for (int j = 0; j < 4; ++j) d4 += int32_t(int8_t(a[i] >> (8 * j))) * int32_t(int8_t(b[i] >> (8 * j)));
    for (int j = 0; j < 8; ++j) d8 += nibble(a[i], j) * nibble(b[i], j);
    ASSERT_EQ(out[2 * i], d4) << i;
    ASSERT_EQ(out[2 * i + 1], d8) << i;
    const uint32_t x = a[i] & 0x3bff3bffu, y = b[i] & 0x3bff3bffu;
    const double want = 0.25 + double(half_to_float(uint16_t(x))) * half_to_float(uint16_t(y)) +
                        double(half_to_float(uint16_t(x >> 16))) * half_to_float(uint16_t(y >> 16));
    ASSERT_LT(std::fabs(fo[i] - want), 1e-6 * std::max(1.0, std::fabs(want))) << i;
  }
}

// Cross-lane built-ins on the whole wave and inside a varying branch, where
// they see the active lanes only.
TEST(DslRun, CrossLaneBuiltins) {
  DslKernel k(R"(
def lanes(x: ptr[f32], u: ptr[u32], out: ptr[u32], fo: ptr[f32], src: u32):
    i = gid()
    l = lane()
    v = x[i]
    w = u[i]
    fo[4 * i] = shuffle(v, (l + 1) & 63)
    out[4 * i] = broadcast(w, src)
    fo[4 * i + 1] = wave_sum(v)
    out[4 * i + 1] = u32(wave_max(s32(w) - 1000))
    if (w & 1) == 1:
        out[4 * i + 2] = wave_sum(w)
        fo[4 * i + 2] = wave_min(v)
        fo[4 * i + 3] = shuffle(v, l ^ 1)
        out[4 * i + 3] = broadcast(l, src)
)");
  ASSERT_TRUE(k.ok());
  auto x = wobble(64, 20);
  std::vector<uint32_t> u(64);
  for (uint32_t i = 0; i < 64; ++i) u[i] = (i * 2654435761u) >> 20;
  const uint32_t src = 13;
  ASSERT_EQ(u[src] & 1, 1u) << "the broadcast lane must be active in the branch";
  DeviceBuffer<float> dx(k.dev(), x), dfo(k.dev(), 256);
  DeviceBuffer<uint32_t> du(k.dev(), u), dout(k.dev(), 256);
  k.launch({1}, {64}, {dx.addr(), du.addr(), dout.addr(), dfo.addr(), src});
  auto out = dout.download();
  auto fo = dfo.download();
  float fsum = 0.0f;
  int32_t smax = INT32_MIN;
  uint32_t odd_sum = 0;
  float odd_min = INFINITY;
  for (uint32_t i = 0; i < 64; ++i) {
    fsum += x[i];
    smax = std::max(smax, int32_t(u[i]) - 1000);
    if (u[i] & 1) odd_sum += u[i], odd_min = std::min(odd_min, x[i]);
  }
  for (uint32_t i = 0; i < 64; ++i) {
    ASSERT_EQ(fo[4 * i], x[(i + 1) & 63]) << i;
    ASSERT_EQ(out[4 * i], u[src]) << i;
    ASSERT_EQ(fo[4 * i + 1], fsum) << i;
    ASSERT_EQ(int32_t(out[4 * i + 1]), smax) << i;
    if (u[i] & 1) {
      ASSERT_EQ(out[4 * i + 2], odd_sum) << i;
      ASSERT_EQ(fo[4 * i + 2], odd_min) << i;
      ASSERT_EQ(fo[4 * i + 3], (u[i ^ 1] & 1) ? x[i ^ 1] : 0.0f) << "inactive source lanes read 0, lane " << i;
      ASSERT_EQ(out[4 * i + 3], src) << i;
    } else {
      ASSERT_EQ(out[4 * i + 2], 0u) << i;
    }
  }
}

}  // namespace
