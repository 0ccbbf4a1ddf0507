// Compiled DSL kernels run on the emulator (every check on) against host
// computations written here: the example kernels and each control-flow form
// of the language (varying if/else, uniform and varying loops with break and
// continue, early return).
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
using k100::dsl::testing::ramp;
using k100::dsl::testing::read_kkl;
using k100::dsl::testing::wobble;
using k100::kernels::DeviceBuffer;

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

TEST(DslRun, ExampleKernelsAgreeOnDivergence) {
  for (const char* f : {"vadd.kkl", "axpy.kkl", "silu.kkl", "clamp_scale.kkl", "row_sumsq.kkl", "widen_f16.kkl",
                        "embed_f16_k.kkl", "rope_apply_k.kkl", "vt_scatter_k.kkl", "vt_scatter_v_k.kkl"})
    EXPECT_EQ(k100::dsl::testing::divergence_disagreements(read_kkl(f)), "") << f;
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

}  // namespace
