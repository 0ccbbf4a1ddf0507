// Compiled DSL kernels run on the emulator (every check on) against host
// computations written here: the example kernels, each control-flow form of
// the language, integer division, and one case per silent miscompilation
// class the earlier compiler had.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "dsl_run_support.h"

namespace {

using k100::dsl::testing::DslKernel;
using k100::dsl::testing::read_kkl;
using k100::kernels::DeviceBuffer;

std::vector<float> ramp(size_t n, float lo, float hi) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = lo + (hi - lo) * float(i) / float(n > 1 ? n - 1 : 1);
  return v;
}

// A deterministic spread of values with both signs, not on a grid.
std::vector<float> wobble(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    v[i] = float(int32_t(s >> 8) % 2001 - 1000) / 97.0f;
  }
  return v;
}

uint32_t cdiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

TEST(DslRun, VaddExact) {
  DslKernel k(read_kkl("vadd.kkl"));
  ASSERT_TRUE(k.ok());
  const uint32_t n = 1024;
  auto a = wobble(n, 1), b = wobble(n, 2);
  DeviceBuffer<float> da(k.dev(), a), db(k.dev(), b), dout(k.dev(), n + 64);
  k.launch({cdiv(n, 64)}, {64}, {da.addr(), db.addr(), dout.addr(), n});
  auto out = dout.download();
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], a[i] + b[i]) << i;
  for (uint32_t i = n; i < n + 64; ++i) ASSERT_EQ(out[i], 0.0f) << "written past n at " << i;
}

TEST(DslRun, AxpyF32Scalar) {
  DslKernel k(read_kkl("axpy.kkl"));
  ASSERT_TRUE(k.ok());
  const uint32_t n = 300;
  const float alpha = -1.75f;
  auto x = wobble(n, 3), y = wobble(n, 4);
  DeviceBuffer<float> dx(k.dev(), x), dy(k.dev(), y);
  k.launch({cdiv(n, 64)}, {64}, {dx.addr(), dx.addr(), dy.addr(), n, alpha});
  auto out = dy.download();
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], std::fma(alpha, x[i], y[i])) << i;
}

TEST(DslRun, SiluWithin1e4) {
  DslKernel k(read_kkl("silu.kkl"));
  ASSERT_TRUE(k.ok());
  const uint32_t n = 512;
  auto x = ramp(n, -4.0f, 4.0f);
  DeviceBuffer<float> dx(k.dev(), x), dy(k.dev(), n);
  k.launch({cdiv(n, 64)}, {64}, {dx.addr(), dy.addr(), n});
  auto y = dy.download();
  for (uint32_t i = 0; i < n; ++i) {
    double want = double(x[i]) / (1.0 + std::exp(-double(x[i])));
    ASSERT_LT(std::fabs(y[i] - want), 1e-4) << "x " << x[i];
  }
}

TEST(DslRun, ClampScale) {
  DslKernel k(read_kkl("clamp_scale.kkl"));
  ASSERT_TRUE(k.ok());
  const uint32_t n = 200;
  const float lo = -2.5f, hi = 3.0f, s = 1.5f;
  auto x = wobble(n, 5);
  DeviceBuffer<float> dx(k.dev(), x), dy(k.dev(), n);
  k.launch({cdiv(n, 64)}, {64}, {dx.addr(), dy.addr(), n, lo, hi, s});
  auto y = dy.download();
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(y[i], std::min(std::max(x[i] * s, lo), hi)) << i;
}

TEST(DslRun, RowSumsqWithLdsAndBarrier) {
  DslKernel k(read_kkl("row_sumsq.kkl"));
  ASSERT_TRUE(k.ok());
  const uint32_t rows = 3, cols = 200;
  auto x = wobble(rows * cols, 6);
  DeviceBuffer<float> dx(k.dev(), x), dout(k.dev(), rows);
  k.launch({rows}, {64}, {dx.addr(), dout.addr(), cols});
  auto out = dout.download();
  for (uint32_t r = 0; r < rows; ++r) {
    double want = 0;
    for (uint32_t c = 0; c < cols; ++c) want += double(x[r * cols + c]) * x[r * cols + c];
    ASSERT_LT(std::fabs(out[r] - want), 1e-5 * want) << "row " << r;
  }
}

float half_to_float(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  const float sign = (h & 0x8000) ? -1.0f : 1.0f;
  if (e == 0) return sign * std::ldexp(float(m), -24);
  if (e == 31) return m ? std::numeric_limits<float>::quiet_NaN() : sign * std::numeric_limits<float>::infinity();
  return sign * std::ldexp(float(m + 1024), e - 25);
}

TEST(DslRun, WidenF16) {
  DslKernel k(read_kkl("widen_f16.kkl"));
  ASSERT_TRUE(k.ok());
  const uint32_t n = 130;
  std::vector<uint16_t> h(n);
  for (uint32_t i = 0; i < n; ++i) h[i] = uint16_t((i * 523u + 7) & 0x7bff) | uint16_t((i & 1) << 15);
  std::vector<uint8_t> bytes(2 * n);
  std::memcpy(bytes.data(), h.data(), bytes.size());
  DeviceBuffer<uint8_t> dsrc(k.dev(), bytes);
  DeviceBuffer<float> dy(k.dev(), n);
  k.launch({cdiv(n, 64)}, {64}, {dsrc.addr(), dy.addr(), n});
  auto y = dy.download();
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(y[i], half_to_float(h[i])) << "half 0x" << std::hex << h[i];
}

// Both paths of each branch are taken by lanes of one wave.
TEST(DslRun, NestedVaryingIfElse) {
  DslKernel k(R"(
def nest(x: ptr[f32], y: ptr[f32], n: u32):
    i = gid()
    if i < n:
        v = x[i]
        if v > 0.0:
            if (i & 1) == 1:
                r = v * 2.0
            else:
                r = v + 100.0
        elif v < -3.0:
            r = 0.0 - v
        else:
            if i > 10:
                r = v - 1.0
            else:
                r = 7.0
        y[i] = r
)");
  ASSERT_TRUE(k.ok());
  const uint32_t n = 100;
  auto x = wobble(n, 7);
  DeviceBuffer<float> dx(k.dev(), x), dy(k.dev(), n);
  k.launch({cdiv(n, 64)}, {64}, {dx.addr(), dy.addr(), n});
  auto y = dy.download();
  for (uint32_t i = 0; i < n; ++i) {
    float v = x[i], r;
    if (v > 0.0f)
      r = (i & 1) ? v * 2.0f : v + 100.0f;
    else if (v < -3.0f)
      r = 0.0f - v;
    else
      r = i > 10 ? v - 1.0f : 7.0f;
    ASSERT_EQ(y[i], r) << i;
  }
}

TEST(DslRun, UniformForLoop) {
  DslKernel k(R"(
def powers(x: ptr[f32], y: ptr[f32], reps: u32, base: u32):
    i = gid()
    acc = x[i]
    total = 0
    for j in range(base, base + reps):
        acc = acc * 1.5
        total = total + j
    y[i] = acc + f32(total)
)");
  ASSERT_TRUE(k.ok());
  for (uint32_t reps : {0u, 1u, 4u}) {
    auto x = wobble(64, 8);
    DeviceBuffer<float> dx(k.dev(), x), dy(k.dev(), 64);
    k.launch({1}, {64}, {dx.addr(), dy.addr(), reps, 3u});
    auto y = dy.download();
    for (uint32_t i = 0; i < 64; ++i) {
      float acc = x[i];
      uint32_t total = 0;
      for (uint32_t j = 3; j < 3 + reps; ++j) acc *= 1.5f, total += j;
      ASSERT_EQ(y[i], acc + float(total)) << "reps " << reps << " lane " << i;
    }
  }
}

// A per-lane trip count, a varying break and a varying continue.
TEST(DslRun, VaryingWhileWithBreakAndContinue) {
  DslKernel k(R"(
def collatz(x: ptr[u32], y: ptr[u32], limit: u32):
    i = gid()
    v = x[i]
    steps = i * 0            # per lane: updated under varying control
    while v != 1:
        if steps >= limit:
            break
        steps = steps + 1
        if (v & 1) == 0:
            v = v >> 1
            continue
        v = 3 * v + 1
    y[i] = steps * 1000 + v
)");
  ASSERT_TRUE(k.ok());
  std::vector<uint32_t> x(128);
  for (uint32_t i = 0; i < 128; ++i) x[i] = i + 1;
  DeviceBuffer<uint32_t> dx(k.dev(), x), dy(k.dev(), 128);
  const uint32_t limit = 40;
  k.launch({2}, {64}, {dx.addr(), dy.addr(), limit});
  auto y = dy.download();
  for (uint32_t i = 0; i < 128; ++i) {
    uint32_t v = x[i], steps = 0;
    while (v != 1) {
      if (steps >= limit) break;
      ++steps;
      if ((v & 1) == 0) {
        v >>= 1;
        continue;
      }
      v = 3 * v + 1;
    }
    ASSERT_EQ(y[i], steps * 1000 + v) << i;
  }
}

// `return` at the top level and from inside a loop, for some lanes only.
TEST(DslRun, EarlyReturn) {
  DslKernel k(R"(
def early(x: ptr[f32], y: ptr[f32], n: u32):
    i = gid()
    if i >= n:
        return
    v = x[i]
    y[i] = -1.0
    if v < 0.0:
        return
    acc = 0.0
    for j in range(0, 8):
        acc = acc + v
        if acc > 20.0:
            y[i] = acc
            return
    y[i] = acc + 0.5
)");
  ASSERT_TRUE(k.ok());
  const uint32_t n = 120;
  auto x = wobble(128, 9);
  DeviceBuffer<float> dx(k.dev(), x);
  DeviceBuffer<float> dy(k.dev(), std::vector<float>(128, 42.0f));
  k.launch({2}, {64}, {dx.addr(), dy.addr(), n});
  auto y = dy.download();
  for (uint32_t i = 0; i < 128; ++i) {
    float want;
    if (i >= n) {
      want = 42.0f;
    } else if (x[i] < 0.0f) {
      want = -1.0f;
    } else {
      float acc = 0.0f;
      want = NAN;
      for (int j = 0; j < 8; ++j) {
        acc += x[i];
        if (acc > 20.0f) {
          want = acc;
          break;
        }
      }
      if (std::isnan(want)) want = acc + 0.5f;
    }
    ASSERT_EQ(y[i], want) << i;
  }
}

// u32 and s32 (floored, as in Python) division and remainder by per-lane
// and uniform divisors, exact.
TEST(DslRun, IntegerDivisionByRuntimeValues) {
  DslKernel k(R"(
def divmod_k(a: ptr[u32], b: ptr[u32], sa: ptr[s32], sb: ptr[s32], out: ptr[u32], d: u32, sd: s32):
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
    DeviceBuffer<uint32_t> da(k.dev(), a), db(k.dev(), b), dout(k.dev(), 8 * n);
    DeviceBuffer<int32_t> dsa(k.dev(), sa), dsb(k.dev(), sb);
    k.launch({2}, {64}, {da.addr(), db.addr(), dsa.addr(), dsb.addr(), dout.addr(), d, sd});
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
    }
  }
}

// Miscompilation class: f32 comparisons (all six, equal pairs and NaN).
TEST(DslRun, F32ComparisonsAllSix) {
  DslKernel k(R"(
def cmp6(a: ptr[f32], b: ptr[f32], out: ptr[u32]):
    i = gid()
    x = a[i]
    y = b[i]
    r = i & 0                # per lane: updated under varying control
    if x < y:
        r = r | 1
    if x <= y:
        r = r | 2
    if x > y:
        r = r | 4
    if x >= y:
        r = r | 8
    if x == y:
        r = r | 16
    if x != y:
        r = r | 32
    out[i] = r
)");
  ASSERT_TRUE(k.ok());
  std::vector<float> a(64), b(64);
  for (int i = 0; i < 64; ++i) {
    a[size_t(i)] = float(i % 5) - 2.0f;
    b[size_t(i)] = float((i / 5) % 5) - 2.0f;
  }
  a[60] = NAN;
  b[61] = NAN;
  a[62] = -0.0f;
  b[62] = 0.0f;
  DeviceBuffer<float> da(k.dev(), a), db(k.dev(), b);
  DeviceBuffer<uint32_t> dout(k.dev(), 64);
  k.launch({1}, {64}, {da.addr(), db.addr(), dout.addr()});
  auto out = dout.download();
  for (size_t i = 0; i < 64; ++i) {
    const float x = a[i], y = b[i];
    uint32_t want = (x < y ? 1 : 0) | (x <= y ? 2 : 0) | (x > y ? 4 : 0) | (x >= y ? 8 : 0) | (x == y ? 16 : 0) |
                    (x != y ? 32 : 0);
    ASSERT_EQ(out[i], want) << x << " vs " << y;
  }
}

// Miscompilation class: an integer literal in f32 context is converted by
// value, not taken as a bit pattern.
TEST(DslRun, IntLiteralInF32Context) {
  DslKernel k(R"(
def lit(x: ptr[f32], y: ptr[f32], m: u32):
    i = gid()
    v = x[i]
    y[4 * i] = v + 1
    y[4 * i + 1] = 2
    y[4 * i + 2] = max(v, 3) * m
    y[4 * i + 3] = fma(v, 2, 1) - sqrt(4)
)");
  ASSERT_TRUE(k.ok());
  auto x = wobble(64, 10);
  DeviceBuffer<float> dx(k.dev(), x), dy(k.dev(), 256);
  k.launch({1}, {64}, {dx.addr(), dy.addr(), 5u});
  auto y = dy.download();
  for (size_t i = 0; i < 64; ++i) {
    ASSERT_EQ(y[4 * i], x[i] + 1.0f);
    ASSERT_EQ(y[4 * i + 1], 2.0f);
    ASSERT_EQ(y[4 * i + 2], std::max(x[i], 3.0f) * 5.0f);
    ASSERT_EQ(y[4 * i + 3], std::fma(x[i], 2.0f, 1.0f) - 2.0f);
  }
}

// Miscompilation class: a transcendental reading a value a VALU instruction
// has just written (the wait states are the layer's), across all 64 lanes.
TEST(DslRun, TranscendentalRightAfterValuWrite) {
  DslKernel k(R"(
def trans(x: ptr[f32], y: ptr[f32]):
    i = gid()
    v = x[i]
    y[4 * i] = sqrt(v * v + 1.0)
    y[4 * i + 1] = rsqrt(v * v + 2.0)
    y[4 * i + 2] = exp(v * 0.25)
    y[4 * i + 3] = 3.0 / (v * v + 0.5)
)");
  ASSERT_TRUE(k.ok());
  auto x = wobble(128, 11);
  DeviceBuffer<float> dx(k.dev(), x), dy(k.dev(), 512);
  k.launch({2}, {64}, {dx.addr(), dy.addr()});
  auto y = dy.download();
  auto rel = [](double got, double want) { return std::fabs(got - want) / std::fabs(want); };
  for (size_t i = 0; i < 128; ++i) {
    const double v = x[i];
    EXPECT_LT(rel(y[4 * i], std::sqrt(double(float(v * v)) + 1.0)), 1e-6) << i;
    EXPECT_LT(rel(y[4 * i + 1], 1.0 / std::sqrt(double(float(v * v)) + 2.0)), 1e-6) << i;
    EXPECT_LT(rel(y[4 * i + 2], std::exp(v * 0.25)), 1e-5) << i;
    EXPECT_LT(rel(y[4 * i + 3], 3.0 / (double(float(v * v)) + 0.5)), 1e-6) << i;
  }
}

// Miscompilation class: temporaries reused within one statement (a long
// expression whose parts are all live at once, and a variable read after it
// is overwritten in the same statement).
TEST(DslRun, TemporariesInOneStatement) {
  DslKernel k(R"(
def temps(a: ptr[f32], b: ptr[f32], y: ptr[f32]):
    i = gid()
    p = a[i]
    q = b[i]
    p = (p + q) * (p - q) + (p * q - (p + q)) * (q - p) + f16_to_f32((i & 15) << 10) * (p + 1.0)
    y[i] = p * q - (p + q) + p
)");
  ASSERT_TRUE(k.ok());
  auto a = wobble(64, 12), b = wobble(64, 13);
  DeviceBuffer<float> da(k.dev(), a), db(k.dev(), b), dy(k.dev(), 64);
  k.launch({1}, {64}, {da.addr(), db.addr(), dy.addr()});
  auto y = dy.download();
  for (uint32_t i = 0; i < 64; ++i) {
    float p = a[i], q = b[i];
    float h = half_to_float(uint16_t((i & 15) << 10));
    p = (p + q) * (p - q) + (p * q - (p + q)) * (q - p) + h * (p + 1.0f);
    ASSERT_EQ(y[i], p * q - (p + q) + p) << i;
  }
}

TEST(DslRun, ExampleKernelsAgreeOnDivergence) {
  for (const char* f : {"vadd.kkl", "axpy.kkl", "silu.kkl", "clamp_scale.kkl", "row_sumsq.kkl", "widen_f16.kkl",
                        "embed_f16_k.kkl", "rope_apply_k.kkl", "vt_scatter_k.kkl", "vt_scatter_v_k.kkl"})
    EXPECT_EQ(k100::dsl::testing::divergence_disagreements(read_kkl(f)), "") << f;
}

TEST(DslRun, NotYetSupportedBuiltinsAreNamedDiagnostics) {
  auto r = k100::dsl::compile(R"(
def s(x: ptr[f32], y: ptr[f32]):
    i = gid()
    m = ballot(x[i] > 0.0)
    y[i] = f32(u32(m))
)",
                              "t.kkl");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.diagnostics.find("t.kkl:4:9: error: the built-in 'ballot' is not yet supported by the code generator"),
            std::string::npos)
      << r.diagnostics;
  auto r2 = k100::dsl::compile("def s(x: ptr[f32], y: ptr[f32]):\n    y[0] = x[0]\n", "t.kkl", {.only = "nope"});
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.diagnostics.find("no kernel named 'nope' (the file has: s)"), std::string::npos) << r2.diagnostics;
}

}  // namespace

namespace {

// Uniform while (with `while 1:` and break), a for loop counting down with
// continue, conditional expressions, and/or mixing uniform and varying
// conditions, an inlined helper with an early return, integer min/max and
// the rounding built-ins.
TEST(DslRun, LanguageSurface) {
  DslKernel k(R"(
@inline
def clampi(v: s32, lo: s32) -> s32:
    if v < lo:
        return lo
    return v

def surface(x: ptr[f32], y: ptr[f32], n: u32):
    i = gid()
    v = x[i]
    a = 0
    while a < n:
        a = a + 3
    b = 0
    while 1:
        b = b + 1
        if b * b > n:
            break
    s = 0.0
    for j in range(10, 0, -2):
        if j == 6:
            continue
        s = s + f32(j)
    w = 1.0 if v > 0.0 else -1.0
    c = 0.0
    if v > 1.0 and n > 5:
        c = c + 1.0
    if v < -1.0 or n > 100:
        c = c + 2.0
    m = f32(clampi(s32(v), -2)) + f32(max(u32(i), 20)) + f32(min(s32(i) - 40, 3))
    y[8 * i] = f32(a + b)
    y[8 * i + 1] = s
    y[8 * i + 2] = w + c
    y[8 * i + 3] = m
    y[8 * i + 4] = floor(v) + ceil(v) * 10.0
    y[8 * i + 5] = trunc(v) + rint(v) * 10.0
    y[8 * i + 6] = fract(v) + fabs(v)
    y[8 * i + 7] = ubyte(i * 37) + f32(s8(i * 37))
)");
  ASSERT_TRUE(k.ok());
  for (uint32_t n : {7u, 200u}) {
    auto x = wobble(64, 14 + n);
    x[0] = 2.5f;
    x[1] = -2.5f;
    x[2] = 0.5f;
    DeviceBuffer<float> dx(k.dev(), x), dy(k.dev(), 512);
    k.launch({1}, {64}, {dx.addr(), dy.addr(), n});
    auto y = dy.download();
    uint32_t a = 0, b = 0;
    while (a < n) a += 3;
    for (;;) {
      ++b;
      if (b * b > n) break;
    }
    float s = 0;
    for (int j = 10; j > 0; j -= 2)
      if (j != 6) s += float(j);
    for (uint32_t i = 0; i < 64; ++i) {
      const float v = x[i];
      const float w = v > 0.0f ? 1.0f : -1.0f;
      float c = 0;
      if (v > 1.0f && n > 5) c += 1.0f;
      if (v < -1.0f || n > 100) c += 2.0f;
      const int32_t t = int32_t(v);
      const float m = float(t < -2 ? -2 : t) + float(std::max(i, 20u)) + float(std::min(int32_t(i) - 40, 3));
      ASSERT_EQ(y[8 * i], float(a + b)) << i;
      ASSERT_EQ(y[8 * i + 1], s) << i;
      ASSERT_EQ(y[8 * i + 2], w + c) << i;
      ASSERT_EQ(y[8 * i + 3], m) << i;
      ASSERT_EQ(y[8 * i + 4], std::floor(v) + std::ceil(v) * 10.0f) << v;
      ASSERT_EQ(y[8 * i + 5], std::trunc(v) + std::nearbyint(v) * 10.0f) << v;
      ASSERT_EQ(y[8 * i + 6], (v - std::floor(v)) + std::fabs(v)) << v;
      ASSERT_EQ(y[8 * i + 7], float((i * 37) & 255) + float(int8_t(uint8_t(i * 37)))) << i;
    }
  }
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

}  // namespace

namespace {

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

}  // namespace

namespace {

TEST(DslRun, EmbedF16Example) {
  DslKernel k(read_kkl("embed_f16_k.kkl"));
  ASSERT_TRUE(k.ok());
  for (auto [rows, dim] : {std::pair{3u, 64u}, std::pair{5u, 200u}}) {
    const uint32_t vocab = 7;
    std::vector<uint16_t> tab(vocab * dim);
    for (uint32_t i = 0; i < tab.size(); ++i) tab[i] = uint16_t((i * 2741u + 5) & 0x7bff) ^ uint16_t((i & 2) << 14);
    std::vector<uint32_t> ids(rows);
    for (uint32_t r = 0; r < rows; ++r) ids[r] = (r * 5 + 3) % vocab;
    DeviceBuffer<uint16_t> dtab(k.dev(), tab);
    DeviceBuffer<uint32_t> dids(k.dev(), ids);
    DeviceBuffer<float> dy(k.dev(), rows * dim);
    k.launch({rows}, {64}, {dy.addr(), dids.addr(), dtab.addr(), rows, dim});
    auto y = dy.download();
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t c = 0; c < dim; ++c)
        ASSERT_EQ(y[r * dim + c], half_to_float(tab[ids[r] * dim + c])) << r << "," << c;
  }
}

TEST(DslRun, VtScatterExample) {
  DslKernel k(read_kkl("vt_scatter_k.kkl"));
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k.kernel().object.kernels.at(0).descriptor.group_segment_fixed_size % 256, 0u);
  const uint32_t rows = 70, dim = 128, vstride = 130, ystride = 80, y0 = 5, cshift = 1;
  auto v = wobble(rows * vstride, 15);
  DeviceBuffer<float> dv(k.dev(), v), dvt(k.dev(), dim * ystride);
  k.launch({cdiv(rows, 64) * (dim / 64)}, {64}, {dvt.addr(), dv.addr(), rows, dim, vstride, ystride, y0, cshift});
  auto vt = dvt.download();
  std::vector<float> want(dim * ystride, 0.0f);
  for (uint32_t t = 0; t < rows; ++t)
    for (uint32_t d = 0; d < dim; ++d)
      if (y0 + t < ystride) want[d * ystride + y0 + t] = v[t * vstride + d];
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(vt[i], want[i]) << i;
}

TEST(DslRun, RopeExample) {
  DslKernel k(read_kkl("rope_apply_k.kkl"));
  ASSERT_TRUE(k.ok());
  for (uint32_t dim : {64u, 192u}) {
    const uint32_t rows = 4, tsh = 1, tbase = 2, half = dim / 2, trows = (rows >> tsh) + tbase + 1;
    auto x = wobble(rows * dim, 16), cs = wobble(trows * half, 17), sn = wobble(trows * half, 18);
    DeviceBuffer<float> dx(k.dev(), x), dcs(k.dev(), cs), dsn(k.dev(), sn), dy(k.dev(), rows * dim);
    k.launch({rows}, {64}, {dy.addr(), dx.addr(), dcs.addr(), dsn.addr(), rows, dim, tsh, tbase});
    auto y = dy.download();
    for (uint32_t r = 0; r < rows; ++r) {
      const uint32_t t = (r >> tsh) + tbase;
      for (uint32_t j = 0; j < half; ++j) {
        const float x0 = x[r * dim + j], x1 = x[r * dim + j + half], c = cs[t * half + j], s = sn[t * half + j];
        const float a = x0 * c, b = x1 * s, e = x0 * s, f = x1 * c;
        ASSERT_EQ(y[r * dim + j], a - b) << r << "," << j;
        ASSERT_EQ(y[r * dim + j + half], e + f) << r << "," << j;
      }
    }
  }
}

// A for loop with per-lane bounds, left early by some lanes.
TEST(DslRun, VaryingForLoop) {
  DslKernel k(R"(
def vfor(cnt: ptr[u32], y: ptr[u32]):
    i = gid()
    s = 0 * i
    for j in range(i & 7, cnt[i]):
        if j == 11:
            break
        if (j & 1) == 1:
            continue
        s = s + j
    y[i] = s
)");
  ASSERT_TRUE(k.ok());
  std::vector<uint32_t> cnt(64);
  for (uint32_t i = 0; i < 64; ++i) cnt[i] = (i * 7) % 17;
  DeviceBuffer<uint32_t> dc(k.dev(), cnt), dy(k.dev(), 64);
  k.launch({1}, {64}, {dc.addr(), dy.addr()});
  auto y = dy.download();
  for (uint32_t i = 0; i < 64; ++i) {
    uint32_t s = 0;
    for (uint32_t j = i & 7; j < cnt[i]; ++j) {
      if (j == 11) break;
      if (j & 1) continue;
      s += j;
    }
    ASSERT_EQ(y[i], s) << i;
  }
}

}  // namespace

namespace {

// Register pressure: 300 f32 values live at once (all loaded before any is
// used) compile with the layer's spilling and stay correct.
TEST(DslRun, ThreeHundredLiveValuesSpill) {
  const int m = 300;
  std::string src = "def many(x: ptr[f32], y: ptr[f32]):\n    i = gid()\n    b = i * " + std::to_string(m) + "\n";
  for (int j = 0; j < m; ++j) src += "    v" + std::to_string(j) + " = x[b + " + std::to_string(j) + "]\n";
  src += "    s = 0.0\n";
  for (int j = m - 1; j >= 0; --j) src += "    s = s * 0.5 + v" + std::to_string(j) + " * " + std::to_string(j % 7 + 1) + ".0\n";
  src += "    y[i] = s\n";
  DslKernel k(src);
  ASSERT_TRUE(k.ok());
  EXPECT_GT(k.kernel().vgpr_spills, 0);
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

}  // namespace

namespace {

int32_t nibble(uint32_t w, int j) { return int32_t(w << (28 - 4 * j)) >> 28; }

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

}  // namespace

namespace {

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

namespace {

// `return` from two loops deep, a uniform `return` of the whole wave, and a
// helper's early `return` under varying control.
TEST(DslRun, ReturnFromNestedLoopsAndHelpers) {
  DslKernel k(R"(
@inline
def first_above(v: f32, t: f32) -> u32:
    if v > t:
        return 1
    return 2

def nested(x: ptr[f32], y: ptr[u32], stop_all: u32):
    i = gid()
    if stop_all == 1:
        return
    v = x[i]
    y[i] = first_above(v, 0.0) * 100
    for a in range(0, 4):
        for b in range(0, 4):
            if v * f32(a * 4 + b) > 30.0:
                y[i] = y[i] + a * 4 + b
                return
    y[i] = 7
)");
  ASSERT_TRUE(k.ok());
  auto x = wobble(128, 21);
  for (uint32_t stop_all : {0u, 1u}) {
    DeviceBuffer<float> dx(k.dev(), x);
    DeviceBuffer<uint32_t> dy(k.dev(), std::vector<uint32_t>(128, 5));
    k.launch({2}, {64}, {dx.addr(), dy.addr(), stop_all});
    auto y = dy.download();
    for (uint32_t i = 0; i < 128; ++i) {
      uint32_t want = 5;
      if (stop_all != 1) {
        want = (x[i] > 0.0f ? 1u : 2u) * 100;
        bool left = false;
        for (uint32_t a = 0; a < 4 && !left; ++a)
          for (uint32_t b = 0; b < 4 && !left; ++b)
            if (x[i] * float(a * 4 + b) > 30.0f) want += a * 4 + b, left = true;
        if (!left) want = 7;
      }
      ASSERT_EQ(y[i], want) << i << " stop_all " << stop_all;
    }
  }
}

}  // namespace

namespace {

// range() takes its bounds once: the body changing the variables they were
// computed from does not change the trip count.
TEST(DslRun, RangeBoundsAreEvaluatedOnce) {
  DslKernel k(R"(
def once(y: ptr[u32], n: u32):
    i = gid()
    m = n
    trips = 0
    for j in range(0, m):
        m = m + 1
        trips = trips + 1
    k = i * 0 + n
    ktrips = i * 0
    for j in range(1, k):
        k = k - 1
        ktrips = ktrips + 1
    y[i] = trips * 1000 + ktrips
)");
  ASSERT_TRUE(k.ok());
  DeviceBuffer<uint32_t> dy(k.dev(), 64);
  k.launch({1}, {64}, {dy.addr(), 6u});
  auto y = dy.download();
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(y[i], 6u * 1000 + 5u) << i;
}

}  // namespace
