// OpenCL C kernels (tests/emu/opencl/*.cl) compiled by clang-15 with the ROCm
// device libraries for gfx906, as code object v4 and v5, loaded through the
// code-object reader and run on the emulator; each result is compared with a
// host reference: exactly for integer paths, within a stated tolerance for
// floating point (ULPs of the reference, per OpenCL's accuracy table where the
// device libraries are involved).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "kernel_runner.h"

namespace k100::emu::test {

namespace {

class OpenCl : public ::testing::TestWithParam<int> {
 protected:
  std::string stem(const std::string& file) const { return file + "_v" + std::to_string(GetParam()); }
  Device& dev() { return shared_device(); }
};

#define LOAD(var, file) K100_LOAD_KERNELS(var, stem(file), false)

uint32_t u(int32_t v) { return uint32_t(v); }
float bits_f(uint32_t b) { float f; std::memcpy(&f, &b, 4); return f; }

// IEEE binary16 helpers for the f16 references.
float h2f(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, e = (h >> 10) & 31, m = h & 0x3ff;
  if (e == 31) { uint32_t b = sign | 0x7f800000u | m << 13; return bits_f(b); }
  float f = e == 0 ? std::ldexp(float(m), -24) : std::ldexp(1.0f + float(m) / 1024.0f, int(e) - 15);
  return sign ? -f : f;
}
uint16_t f2h(double x) {  // round to nearest even
  if (std::isnan(x)) return 0x7e00;
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  x = std::fabs(x);
  if (x >= 65520.0) return sign | 0x7c00;
  if (x < std::ldexp(1.0, -25)) return sign;
  int e;
  std::frexp(x, &e);  // x = f * 2^e, f in [0.5,1)
  int exp = e - 1;
  if (exp < -14) {  // subnormal: units of 2^-24
    double q = std::nearbyint(x * std::ldexp(1.0, 24));
    return uint16_t(sign | uint16_t(q));
  }
  double mant = std::nearbyint(std::ldexp(x, -exp) * 1024.0);  // 1024..2048
  if (mant >= 2048) { mant /= 2; ++exp; }
  if (exp > 15) return sign | 0x7c00;
  return uint16_t(sign | uint16_t((exp + 15) << 10) | (uint16_t(mant) & 0x3ff));
}
double half_ulp(double x) {
  x = std::fabs(x);
  if (x < std::ldexp(1.0, -14)) return std::ldexp(1.0, -24);
  int e;
  std::frexp(x, &e);
  return std::ldexp(1.0, e - 1 - 10);
}
double double_ulp(double x) {
  x = std::fabs(x);
  return std::nextafter(x, INFINITY) - x;
}

// ------------------------------------------------------------ elementwise ---

TEST_P(OpenCl, VaddF32) {
  LOAD(p, "elementwise");
  Rng rng(1);
  const uint32_t n = 1000;
  auto a = rng.floats(n, -100, 100), b = rng.floats(n, -100, 100);
  Buffers buf(dev());
  uint64_t da = buf.upload(a), db = buf.upload(b), dc = buf.zeros(n * 4);
  run_kernel(*p, "vadd_f32", global({n, 1, 1}, {256, 1, 1}), Args().add(da).add(db).add(dc).add(n));
  auto c = buf.download<float>(dc, n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
}

TEST_P(OpenCl, Saxpy) {
  LOAD(p, "elementwise");
  Rng rng(2);
  const uint32_t n = 777;
  auto x = rng.floats(n, -10, 10), y = rng.floats(n, -10, 10);
  Buffers buf(dev());
  uint64_t dx = buf.upload(x), dy = buf.upload(y);
  run_kernel(*p, "saxpy", global({n, 1, 1}, {128, 1, 1}), Args().add(1.5f).add(dx).add(dy).add(n));
  auto r = buf.download<float>(dy, n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(r[i], std::fma(1.5f, x[i], y[i])) << i;
}

TEST_P(OpenCl, IntOps) {
  LOAD(p, "elementwise");
  Rng rng(3);
  const uint32_t n = 512;
  auto a = rng.ints(n, INT_MIN / 2, INT_MAX / 2), b = rng.ints(n, -100000, 100000);
  Buffers buf(dev());
  uint64_t da = buf.upload(a), db = buf.upload(b), dout = buf.zeros(n * 16);
  run_kernel(*p, "int_ops", global({n, 1, 1}, {64, 1, 1}), Args().add(da).add(db).add(dout).add(n));
  auto o = buf.download<int32_t>(dout, 4 * n);
  for (uint32_t i = 0; i < n; ++i) {
    int32_t x = a[i], y = b[i];
    uint32_t r0 = u(x) * u(y) + u(x >> 3) - (u(y) << 2);
    uint32_t r1 = u((x ^ y) | (x & 0x0ff0));
    uint32_t r2 = uint32_t(int64_t(x & 0x7fffff) * int64_t(y & 0x7fff)) + u(int32_t((int64_t(x) * y) >> 32) + 7);
    uint32_t ad = x > y ? uint32_t(int64_t(x) - y) : uint32_t(int64_t(y) - x);
    int64_t s = int64_t(x) + y;
    int32_t sat = s > INT_MAX ? INT_MAX : s < INT_MIN ? INT_MIN : int32_t(s);
    uint32_t r3 = ad + u(sat / 3);
    ASSERT_EQ(u(o[4 * i]), r0) << i;
    ASSERT_EQ(u(o[4 * i + 1]), r1) << i;
    ASSERT_EQ(u(o[4 * i + 2]), r2) << i;
    ASSERT_EQ(u(o[4 * i + 3]), r3) << i;
  }
}

TEST_P(OpenCl, UintDivmod) {
  LOAD(p, "elementwise");
  Rng rng(4);
  const uint32_t n = 600;
  auto a = rng.words(n), b = rng.words(n);
  for (uint32_t i = 0; i < n; i += 3) b[i] >>= (i % 31);
  Buffers buf(dev());
  uint64_t da = buf.upload(a), db = buf.upload(b), dq = buf.zeros(n * 4), dr = buf.zeros(n * 4);
  run_kernel(*p, "uint_divmod", global({n, 1, 1}, {64, 1, 1}), Args().add(da).add(db).add(dq).add(dr).add(n));
  auto q = buf.download<uint32_t>(dq, n), r = buf.download<uint32_t>(dr, n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t d = b[i] | 1;
    ASSERT_EQ(q[i], a[i] / d) << i;
    ASSERT_EQ(r[i], a[i] % d) << i;
  }
}

TEST_P(OpenCl, IntDivmod) {
  LOAD(p, "elementwise");
  Rng rng(5);
  const uint32_t n = 600;
  auto a = rng.ints(n, INT_MIN + 1, INT_MAX), b = rng.ints(n, -1000, 1000);
  Buffers buf(dev());
  uint64_t da = buf.upload(a), db = buf.upload(b), dq = buf.zeros(n * 8);
  run_kernel(*p, "int_divmod", global({n, 1, 1}, {64, 1, 1}), Args().add(da).add(db).add(dq).add(n));
  auto q = buf.download<int32_t>(dq, 2 * n);
  for (uint32_t i = 0; i < n; ++i) {
    int32_t d = b[i] == 0 ? 3 : b[i];
    ASSERT_EQ(q[2 * i], a[i] / d) << i;
    ASSERT_EQ(q[2 * i + 1], a[i] % d) << i;
  }
}

TEST_P(OpenCl, Conversions) {
  LOAD(p, "elementwise");
  Rng rng(6);
  const uint32_t n = 300;
  auto f = rng.floats(n, -3e6f, 3e6f);
  f[0] = -0.5f; f[1] = 2.5f; f[2] = 1e-3f; f[3] = -7.75f;
  auto k = rng.ints(n, INT_MIN, INT_MAX);
  Buffers buf(dev());
  uint64_t df = buf.upload(f), dk = buf.upload(k), doi = buf.zeros(n * 16), dof = buf.zeros(n * 8);
  run_kernel(*p, "conversions", global({n, 1, 1}, {64, 1, 1}), Args().add(df).add(dk).add(doi).add(dof).add(n));
  auto oi = buf.download<int32_t>(doi, 4 * n);
  auto of = buf.download<float>(dof, 2 * n);
  auto sat_rte = [](float x) {
    double r = std::nearbyint(double(x));
    return r >= 2147483647.0 ? INT_MAX : r <= -2147483648.0 ? INT_MIN : int32_t(r);
  };
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(oi[4 * i], int32_t(std::trunc(f[i]))) << i;
    ASSERT_EQ(oi[4 * i + 1], sat_rte(f[i] * 1000.0f)) << i;
    uint32_t us = f[i] <= 0 ? 0u : f[i] >= 4294967295.0f ? 0xffffffffu : uint32_t(f[i]);
    ASSERT_EQ(u(oi[4 * i + 2]), us) << i;
    ASSERT_EQ(oi[4 * i + 3], int32_t(std::floor(f[i]))) << i;
    ASSERT_EQ(of[2 * i], float(k[i])) << i;
    ASSERT_EQ(of[2 * i + 1], float(uint32_t(k[i]))) << i;
  }
}

TEST_P(OpenCl, MinmaxSelect) {
  LOAD(p, "elementwise");
  Rng rng(7);
  const uint32_t n = 256;
  auto a = rng.floats(n, -3, 3), b = rng.floats(n, -3, 3);
  a[5] = -0.0f; b[5] = 0.0f;
  Buffers buf(dev());
  uint64_t da = buf.upload(a), db = buf.upload(b), dout = buf.zeros(n * 16);
  run_kernel(*p, "minmax_select", global({n, 1, 1}, {64, 1, 1}), Args().add(da).add(db).add(dout).add(n));
  auto o = buf.download<float>(dout, 4 * n);
  for (uint32_t i = 0; i < n; ++i) {
    float x = a[i], y = b[i];
    ASSERT_EQ(o[4 * i], std::fmin(x, y)) << i;
    ASSERT_EQ(o[4 * i + 1], std::fmax(x, y)) << i;
    ASSERT_EQ(o[4 * i + 2], std::min(std::max(x, -1.0f), 1.0f)) << i;
    float s = x < y ? y : x;
    ASSERT_EQ(o[4 * i + 3], (s + std::fabs(x)) - std::copysign(1.5f, y)) << i;
  }
}

TEST_P(OpenCl, BitOps) {
  LOAD(p, "elementwise");
  Rng rng(8);
  const uint32_t n = 300;
  auto a = rng.words(n);
  a[0] = 0;
  a[1] = 1;
  Buffers buf(dev());
  uint64_t da = buf.upload(a), dout = buf.zeros(n * 16);
  run_kernel(*p, "bit_ops", global({n, 1, 1}, {64, 1, 1}), Args().add(da).add(dout).add(n));
  auto o = buf.download<uint32_t>(dout, 4 * n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t x = a[i];
    ASSERT_EQ(o[4 * i], uint32_t(std::popcount(x))) << i;
    ASSERT_EQ(o[4 * i + 1], uint32_t(std::countl_zero(x))) << i;
    ASSERT_EQ(o[4 * i + 2], std::rotl(x, int(i & 31))) << i;
    ASSERT_EQ(o[4 * i + 3], uint32_t((uint64_t(x) * 0x9e3779b1u) >> 32) + x) << i;
  }
}

// ------------------------------------------------------------- reductions ---

TEST_P(OpenCl, ReduceSumF32) {
  LOAD(p, "reductions");
  Rng rng(9);
  const uint32_t n = 1000, groups = 4;
  auto in = rng.floats(n, -1, 1);
  auto out = run_in_out<float>(*p, "reduce_sum_f32", global({groups * 256, 1, 1}, {256, 1, 1}), in, n, groups);
  for (uint32_t g = 0; g < groups; ++g) {
    float t[256];
    for (uint32_t l = 0; l < 256; ++l) t[l] = g * 256 + l < n ? in[g * 256 + l] : 0.0f;
    for (uint32_t s = 128; s > 0; s >>= 1)
      for (uint32_t l = 0; l < s; ++l) t[l] += t[l + s];
    EXPECT_EQ(out[g], t[0]) << "group " << g;  // same tree, same rounding
  }
}

TEST_P(OpenCl, ReduceMaxI32) {
  LOAD(p, "reductions");
  Rng rng(10);
  const uint32_t n = 5000, groups = 6;
  auto in = rng.ints(n, INT_MIN, INT_MAX);
  auto out = run_in_out<int32_t>(*p, "reduce_max_i32", global({groups * 128, 1, 1}, {128, 1, 1}), in, n, groups);
  for (uint32_t g = 0; g < groups; ++g) {
    int32_t m = INT_MIN;
    for (uint32_t l = 0; l < 128; ++l)
      for (uint32_t i = g * 128 + l; i < n; i += groups * 128) m = std::max(m, in[i]);
    EXPECT_EQ(out[g], m) << g;
  }
}

TEST_P(OpenCl, BlockScan) {
  LOAD(p, "reductions");
  Rng rng(11);
  const uint32_t n = 256 * 5;
  auto in = rng.words(n);
  Buffers buf(dev());
  uint64_t di = buf.upload(in), dout = buf.zeros(n * 4);
  run_kernel(*p, "block_scan", global({n, 1, 1}, {256, 1, 1}), Args().add(di).add(dout));
  auto out = buf.download<uint32_t>(dout, n);
  for (uint32_t b = 0; b < n / 256; ++b) {
    uint32_t acc = 0;
    for (uint32_t l = 0; l < 256; ++l) {
      acc += in[b * 256 + l];
      ASSERT_EQ(out[b * 256 + l], acc) << b << " " << l;
    }
  }
}

TEST_P(OpenCl, Histogram) {
  LOAD(p, "reductions");
  Rng rng(12);
  const uint32_t n = 10000;
  std::vector<uint8_t> data(n);
  for (auto& x : data) x = uint8_t(rng.next());
  Buffers buf(dev());
  uint64_t dd = buf.upload(data), dh = buf.zeros(64 * 4);
  run_kernel(*p, "histogram", global({1024, 1, 1}, {256, 1, 1}), Args().add(dd).add(n).add(dh));
  auto h = buf.download<uint32_t>(dh, 64);
  std::vector<uint32_t> want(64, 0);
  for (uint8_t x : data) ++want[x & 63];
  EXPECT_EQ(h, want);
}

TEST_P(OpenCl, MatmulTiled2dPartial) {
  LOAD(p, "reductions");
  Rng rng(13);
  const int M = 37, N = 45, K = 29;
  auto A = rng.floats(size_t(M) * K, -1, 1), B = rng.floats(size_t(K) * N, -1, 1);
  Buffers buf(dev());
  uint64_t dA = buf.upload(A), dB = buf.upload(B), dC = buf.zeros(size_t(M) * N * 4);
  // --grid in groups: ceil(N/16) x ceil(M/16) groups of 16x16 (partial tiles at the edges).
  run_kernel(*p, "matmul_tiled", LaunchConfig::groups({3, 3, 1}, {16, 16, 1}), Args().add(dA).add(dB).add(dC).add(M).add(N).add(K));
  auto C = buf.download<float>(dC, size_t(M) * N);
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      float acc = 0.0f;
      for (int k = 0; k < K; ++k) acc = std::fma(A[size_t(r) * K + size_t(k)], B[size_t(k) * N + size_t(c)], acc);
      ASSERT_EQ(C[size_t(r) * N + size_t(c)], acc) << r << "," << c;
    }
}

TEST_P(OpenCl, TransposeTiledPartial) {
  LOAD(p, "reductions");
  Rng rng(14);
  const int rows = 50, cols = 35;
  auto in = rng.floats(size_t(rows) * cols, -5, 5);
  Buffers buf(dev());
  uint64_t di = buf.upload(in), dout = buf.zeros(size_t(rows) * cols * 4);
  // Uniform 16x16 workgroups covering the matrix; edge tiles are partly outside it.
  run_kernel(*p, "transpose_tiled", LaunchConfig::groups({3, 4, 1}, {16, 16, 1}),
             Args().add(di).add(dout).add(rows).add(cols));
  auto out = buf.download<float>(dout, size_t(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) ASSERT_EQ(out[size_t(c) * rows + size_t(r)], in[size_t(r) * cols + size_t(c)]) << r << "," << c;
}

// ---------------------------------------------------------------- atomics ---

TEST_P(OpenCl, AtomicCounter) {
  LOAD(p, "atomics");
  Rng rng(15);
  const uint32_t n = 3000;
  auto in = rng.ints(n, -1000, 1000);
  Buffers buf(dev());
  uint64_t di = buf.upload(in), dc = buf.zeros(3 * 4);
  run_kernel(*p, "atomic_counter", global({n, 1, 1}, {256, 1, 1}), Args().add(di).add(dc).add(n));
  auto c = buf.download<int32_t>(dc, 3);
  int32_t sum = 0, neg = 0;
  for (int32_t v : in) {
    sum += v;
    if (v < 0) neg -= v;
  }
  EXPECT_EQ(c[0], sum);
  EXPECT_EQ(c[1], int32_t(n));
  EXPECT_EQ(c[2], neg);
}

TEST_P(OpenCl, AtomicMinMax) {
  LOAD(p, "atomics");
  Rng rng(16);
  const uint32_t n = 2000;
  auto in = rng.ints(n, INT_MIN, INT_MAX);
  Buffers buf(dev());
  std::vector<int32_t> init = {INT_MAX, INT_MIN, -1, 0};
  uint64_t di = buf.upload(in), dout = buf.upload(init);
  run_kernel(*p, "atomic_minmax", global({n, 1, 1}, {128, 1, 1}), Args().add(di).add(dout).add(n));
  auto o = buf.download<int32_t>(dout, 4);
  EXPECT_EQ(o[0], *std::min_element(in.begin(), in.end()));
  EXPECT_EQ(o[1], *std::max_element(in.begin(), in.end()));
  uint32_t umin = 0xffffffffu, umax = 0;
  for (int32_t v : in) {
    umin = std::min(umin, u(v));
    umax = std::max(umax, u(v));
  }
  EXPECT_EQ(u(o[2]), umin);
  EXPECT_EQ(u(o[3]), umax);
}

TEST_P(OpenCl, AtomicBits) {
  LOAD(p, "atomics");
  Rng rng(17);
  const uint32_t n = 500;
  auto in = rng.words(n);
  for (auto& v : in) v &= 0x0f0f0f3f;
  Buffers buf(dev());
  std::vector<uint32_t> init = {0, 0xffffffffu, 0x12345678};
  uint64_t di = buf.upload(in), dout = buf.upload(init);
  run_kernel(*p, "atomic_bits", global({n, 1, 1}, {64, 1, 1}), Args().add(di).add(dout).add(n));
  auto o = buf.download<uint32_t>(dout, 3);
  uint32_t orv = 0, andv = 0xffffffffu, xorv = 0x12345678;
  for (uint32_t v : in) {
    orv |= v;
    andv &= ~(1u << (v & 31));
    xorv ^= v;
  }
  EXPECT_EQ(o[0], orv);
  EXPECT_EQ(o[1], andv);
  EXPECT_EQ(o[2], xorv);
}

TEST_P(OpenCl, AtomicFloatCas) {
  LOAD(p, "atomics");
  Rng rng(18);
  const uint32_t n = 1000;
  std::vector<float> in(n);
  float want = 0;
  for (auto& v : in) {
    v = float(rng.range(-50, 50));  // small integers: any summation order is exact
    want += v;
  }
  Buffers buf(dev());
  uint64_t di = buf.upload(in), ds = buf.zeros(4);
  run_kernel(*p, "atomic_float_cas", global({n, 1, 1}, {256, 1, 1}), Args().add(di).add(ds).add(n));
  EXPECT_EQ(buf.download<float>(ds, 1)[0], want);
}

TEST_P(OpenCl, LocalAtomics) {
  LOAD(p, "atomics");
  Rng rng(19);
  const uint32_t n = 1000, groups = 4;
  auto in = rng.words(n);
  for (auto& v : in) v %= 100000;
  auto o = run_in_out<uint32_t>(*p, "local_atomics", global({groups * 256, 1, 1}, {256, 1, 1}), in, n, 3 * groups);
  for (uint32_t g = 0; g < groups; ++g) {
    uint32_t cnt = 0, mn = 0xffffffffu, tot = 0;
    for (uint32_t l = 0; l < 256 && g * 256 + l < n; ++l) {
      uint32_t v = in[g * 256 + l];
      cnt += v & 1;
      mn = std::min(mn, v);
      tot += v;
    }
    EXPECT_EQ(o[3 * g], cnt) << g;
    EXPECT_EQ(o[3 * g + 1], mn) << g;
    EXPECT_EQ(o[3 * g + 2], tot) << g;
  }
}

TEST_P(OpenCl, AtomicInt64) {
  LOAD(p, "atomics");
  Rng rng(20);
  const uint32_t n = 700;
  std::vector<int64_t> in(n);
  for (auto& v : in) v = int64_t(uint64_t(rng.next()) << 32 | rng.next()) >> 8;
  Buffers buf(dev());
  std::vector<int64_t> init = {0, INT64_MIN, INT64_MAX};
  uint64_t di = buf.upload(in), dout = buf.upload(init);
  run_kernel(*p, "atomic_int64", global({n, 1, 1}, {64, 1, 1}), Args().add(di).add(dout).add(n));
  auto o = buf.download<int64_t>(dout, 3);
  uint64_t sum = 0;
  for (int64_t v : in) sum += uint64_t(v);
  EXPECT_EQ(uint64_t(o[0]), sum);
  EXPECT_EQ(o[1], *std::max_element(in.begin(), in.end()));
  EXPECT_EQ(o[2], *std::min_element(in.begin(), in.end()));
}

TEST_P(OpenCl, ProgramScopeGlobalVariable) {
  LOAD(p, "atomics");
  const uint32_t n = 300;
  std::vector<int32_t> in(n);
  int32_t sum = 100;
  for (uint32_t i = 0; i < n; ++i) sum += in[i] = int32_t(i % 13) - 6;
  Buffers buf(dev());
  uint64_t di = buf.upload(in), dout = buf.zeros(4);
  run_kernel(*p, "add_to_global", global({n, 1, 1}, {64, 1, 1}), Args().add(di).add(n));
  run_kernel(*p, "read_global", global({1, 1, 1}, {1, 1, 1}), Args().add(dout));
  EXPECT_EQ(buf.download<int32_t>(dout, 1)[0], sum);  // .data persists across dispatches of one program
}

// ------------------------------------------------------------- cross-lane ---

TEST_P(OpenCl, BpermuteRotate) {
  LOAD(p, "crosslane");
  Rng rng(21);
  const uint32_t n = 256;
  auto in = rng.ints(n, INT_MIN, INT_MAX);
  Buffers buf(dev());
  uint64_t di = buf.upload(in), dout = buf.zeros(n * 4);
  run_kernel(*p, "bpermute_rotate", global({n, 1, 1}, {128, 1, 1}), Args().add(di).add(dout).add(int32_t(5)));
  auto o = buf.download<int32_t>(dout, n);
  for (uint32_t g = 0; g < n; ++g) ASSERT_EQ(o[g], in[(g & ~63u) + ((g + 5) & 63)]) << g;
}

TEST_P(OpenCl, DppRowShrAndQuadPerm) {
  LOAD(p, "crosslane");
  Rng rng(22);
  const uint32_t n = 128;
  auto in = rng.ints(n, INT_MIN, INT_MAX);
  Buffers buf(dev());
  uint64_t di = buf.upload(in), dout = buf.zeros(n * 8);
  run_kernel(*p, "dpp_row_shr", global({n, 1, 1}, {64, 1, 1}), Args().add(di).add(dout));
  auto o = buf.download<int32_t>(dout, 2 * n);
  for (uint32_t g = 0; g < n; ++g) {
    ASSERT_EQ(o[2 * g], g % 16 == 0 ? 0 : in[g - 1]) << g;
    ASSERT_EQ(o[2 * g + 1], in[(g & ~3u) + 3 - (g & 3)]) << g;
  }
}

TEST_P(OpenCl, DsSwizzle) {
  LOAD(p, "crosslane");
  Rng rng(23);
  const uint32_t n = 128;
  auto in = rng.ints(n, INT_MIN, INT_MAX);
  Buffers buf(dev());
  uint64_t di = buf.upload(in), dout = buf.zeros(n * 8);
  run_kernel(*p, "swizzle", global({n, 1, 1}, {64, 1, 1}), Args().add(di).add(dout));
  auto o = buf.download<int32_t>(dout, 2 * n);
  for (uint32_t g = 0; g < n; ++g) {
    ASSERT_EQ(o[2 * g], in[(g & ~3u) + 3 - (g & 3)]) << g;
    ASSERT_EQ(o[2 * g + 1], in[(g & ~31u) + 31 - (g & 31)]) << g;
  }
}

TEST_P(OpenCl, ReadLanes) {
  LOAD(p, "crosslane");
  Rng rng(24);
  const uint32_t n = 192;
  auto in = rng.ints(n, -100000, 100000);
  Buffers buf(dev());
  uint64_t di = buf.upload(in), dout = buf.zeros(n * 8);
  run_kernel(*p, "readlanes", global({n, 1, 1}, {192, 1, 1}), Args().add(di).add(dout));
  auto o = buf.download<int32_t>(dout, 2 * n);
  for (uint32_t g = 0; g < n; ++g) {
    uint32_t w = g & ~63u;
    ASSERT_EQ(o[2 * g], in[w] + in[w + 5]) << g;
    ASSERT_EQ(o[2 * g + 1], in[w + 63] * 3) << g;
  }
}

TEST_P(OpenCl, SubgroupReduceScanBroadcast) {
  LOAD(p, "crosslane");
  Rng rng(25);
  const uint32_t n = 256;
  auto in = rng.ints(n, -1000000, 1000000);
  Buffers buf(dev());
  uint64_t di = buf.upload(in), dout = buf.zeros(n * 16), dfo = buf.zeros(n * 4);
  run_kernel(*p, "subgroup_reduce", global({n, 1, 1}, {256, 1, 1}), Args().add(di).add(dout).add(dfo));
  auto o = buf.download<int32_t>(dout, 4 * n);
  auto fo = buf.download<float>(dfo, n);
  for (uint32_t w = 0; w < n; w += 64) {
    int32_t sum = 0, mx = INT_MIN, scan = 0;
    float fs = 0;
    for (uint32_t l = 0; l < 64; ++l) {
      sum += in[w + l];
      mx = std::max(mx, in[w + l]);
      fs += float(in[w + l] & 255);
    }
    for (uint32_t l = 0; l < 64; ++l) {
      scan += in[w + l];
      ASSERT_EQ(o[4 * (w + l)], sum) << w + l;
      ASSERT_EQ(o[4 * (w + l) + 1], mx) << w + l;
      ASSERT_EQ(o[4 * (w + l) + 2], scan) << w + l;
      ASSERT_EQ(o[4 * (w + l) + 3], in[w + 7]) << w + l;
      ASSERT_EQ(fo[w + l], fs) << w + l;  // integers: exact in any order
    }
  }
}

TEST_P(OpenCl, SubgroupMasked) {
  LOAD(p, "crosslane");
  Rng rng(26);
  const uint32_t n = 128;
  auto in = rng.ints(n, 0, 5000);
  in[70] = 42;
  in[3] = -5;
  Buffers buf(dev());
  uint64_t di = buf.upload(in), dout = buf.zeros(n * 4);
  run_kernel(*p, "subgroup_masked", global({n, 1, 1}, {128, 1, 1}), Args().add(di).add(dout));
  auto o = buf.download<int32_t>(dout, n);
  for (uint32_t w = 0; w < n; w += 64) {
    int32_t mn = INT_MAX;
    bool any = false, all = true;
    for (uint32_t l = 0; l < 64; ++l) {
      if (l & 1) mn = std::min(mn, in[w + l]);
      any = any || in[w + l] == 42;
      all = all && in[w + l] >= 0;
    }
    for (uint32_t l = 0; l < 64; ++l)
      ASSERT_EQ(o[w + l], mn + int32_t(any) * 1000 + int32_t(all) * 10000) << w + l;
  }
}

// ------------------------------------------------------------------ grids ---

TEST_P(OpenCl, Grid2dPartialWorkgroups) {
  LOAD(p, "grids");
  const uint32_t W = 100, H = 37;
  Buffers buf(dev());
  uint64_t dout = buf.zeros(W * H * 16);
  run_kernel(*p, "grid2d_ids", global({W, H, 1}, {16, 8, 1}), Args().add(dout).add(W).add(H));
  auto o = buf.download<uint32_t>(dout, 4 * W * H);
  for (uint32_t y = 0; y < H; ++y)
    for (uint32_t x = 0; x < W; ++x) {
      uint32_t i = y * W + x, gx = x / 16, gy = y / 8;
      uint32_t lsx = std::min(16u, W - gx * 16), lsy = std::min(8u, H - gy * 8);
      ASSERT_EQ(o[4 * i], (x % 16) | (y % 8) << 16) << x << "," << y;
      ASSERT_EQ(o[4 * i + 1], gx | gy << 16) << x << "," << y;
      ASSERT_EQ(o[4 * i + 2], lsx | lsy << 16) << x << "," << y;
      ASSERT_EQ(o[4 * i + 3], W | H << 16) << x << "," << y;
    }
}

TEST_P(OpenCl, Grid3dPartialWorkgroups) {
  LOAD(p, "grids");
  const uint32_t X = 13, Y = 7, Z = 5;
  Buffers buf(dev());
  uint64_t dout = buf.zeros(X * Y * Z * 16);
  run_kernel(*p, "grid3d_ids", global({X, Y, Z}, {4, 4, 2}), Args().add(dout).add(X).add(Y).add(Z));
  auto o = buf.download<uint32_t>(dout, 4 * X * Y * Z);
  for (uint32_t z = 0; z < Z; ++z)
    for (uint32_t y = 0; y < Y; ++y)
      for (uint32_t x = 0; x < X; ++x) {
        uint32_t i = (z * Y + y) * X + x;
        uint32_t lx = std::min(4u, X - x / 4 * 4), ly = std::min(4u, Y - y / 4 * 4), lz = std::min(2u, Z - z / 2 * 2);
        ASSERT_EQ(o[4 * i], (x % 4) | (y % 4) << 8 | (z % 2) << 16) << i;
        ASSERT_EQ(o[4 * i + 1], (x / 4) | (y / 4) << 8 | (z / 2) << 16) << i;
        ASSERT_EQ(o[4 * i + 2], lx | ly << 8 | lz << 16) << i;
        ASSERT_EQ(o[4 * i + 3], 4u | 2u << 8 | 3u << 16 | 3u << 24) << i;
      }
}

TEST_P(OpenCl, GlobalOffset) {
  LOAD(p, "grids");
  const uint32_t W = 40, H = 10;
  Buffers buf(dev());
  uint64_t dout = buf.zeros(W * H * 8);
  LaunchConfig l = global({W, H, 1}, {8, 2, 1});
  l.global_offset = {5, 3, 0};
  run_kernel(*p, "global_offset", l, Args().add(dout));
  auto o = buf.download<uint32_t>(dout, 2 * W * H);
  for (uint32_t y = 0; y < H; ++y)
    for (uint32_t x = 0; x < W; ++x) {
      ASSERT_EQ(o[2 * (y * W + x)], x + 5);
      ASSERT_EQ(o[2 * (y * W + x) + 1], y + 3);
    }
}

TEST_P(OpenCl, LinearIdsAndEnqueuedSize) {
  LOAD(p, "grids");
  const uint32_t n = 150;
  Buffers buf(dev());
  uint64_t dout = buf.zeros(n * 8);
  run_kernel(*p, "linear_ids", global({n, 1, 1}, {64, 1, 1}), Args().add(dout));
  auto o = buf.download<uint32_t>(dout, 2 * n);
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(o[2 * i], i % 64) << i;
    ASSERT_EQ(o[2 * i + 1], 64u * 1000 + std::min(64u, n - i / 64 * 64)) << i;
  }
}

// ------------------------------------------------------------ f16, packed ---

TEST_P(OpenCl, HalfFma) {
  LOAD(p, "half");
  Rng rng(27);
  const uint32_t n = 300;
  std::vector<uint16_t> a(n), b(n), c(n);
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = f2h(rng.uniform(-8, 8));
    b[i] = f2h(rng.uniform(-8, 8));
    c[i] = f2h(rng.uniform(-8, 8));
  }
  Buffers buf(dev());
  uint64_t da = buf.upload(a), db = buf.upload(b), dc = buf.upload(c);
  run_kernel(*p, "half_fma", global({n, 1, 1}, {64, 1, 1}), Args().add(da).add(db).add(dc).add(n));
  auto r = buf.download<uint16_t>(dc, n);
  // Tolerance: the compiler may contract the final add into an fma: 1 ulp of f16.
  for (uint32_t i = 0; i < n; ++i) {
    double x = h2f(a[i]), y = h2f(b[i]), z = h2f(c[i]);
    double want = h2f(f2h(h2f(f2h(x * y + z)) + 0.5 * x));
    ASSERT_LE(std::fabs(h2f(r[i]) - want), half_ulp(want) * 1.0001) << i;
  }
}

TEST_P(OpenCl, Half2Packed) {
  LOAD(p, "half");
  Rng rng(28);
  const uint32_t n = 200;
  std::vector<uint16_t> a(2 * n), b(2 * n);
  for (uint32_t i = 0; i < 2 * n; ++i) {
    a[i] = f2h(rng.uniform(-4, 4));
    b[i] = f2h(rng.uniform(-4, 4));
  }
  Buffers buf(dev());
  uint64_t da = buf.upload(a), db = buf.upload(b), dc = buf.zeros(n * 4);
  run_kernel(*p, "half2_ops", global({n, 1, 1}, {64, 1, 1}), Args().add(da).add(db).add(dc).add(n));
  auto r = buf.download<uint16_t>(dc, 2 * n);
  // x*y + x - max(x,y), possibly contracted: within 1 ulp of each rounding step's magnitude.
  for (uint32_t i = 0; i < 2 * n; ++i) {
    double x = h2f(a[i]), y = h2f(b[i]);
    double t = x * y + x, want = t - std::max(x, y);
    double tol = half_ulp(t) + half_ulp(want) + half_ulp(x * y);
    ASSERT_LE(std::fabs(h2f(r[i]) - want), tol) << i << " x=" << x << " y=" << y;
  }
}

TEST_P(OpenCl, HalfConvert) {
  LOAD(p, "half");
  Rng rng(29);
  const uint32_t n = 400;
  auto f = rng.floats(n, -70000, 70000);
  for (uint32_t i = 0; i < 100; ++i) f[i] = rng.uniform(-1e-4f, 1e-4f);  // subnormal halves
  Buffers buf(dev());
  uint64_t df = buf.upload(f), dh = buf.zeros(n * 2), db = buf.zeros(n * 4);
  run_kernel(*p, "half_convert", global({n, 1, 1}, {64, 1, 1}), Args().add(df).add(dh).add(db).add(n));
  auto h = buf.download<uint16_t>(dh, n);
  auto back = buf.download<float>(db, n);
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(h[i], f2h(f[i])) << i << " " << f[i];
    ASSERT_EQ(back[i], h2f(f2h(f[i])) * 2.0f) << i;
  }
}

// -------------------------------------------------------------- dot products ---

int32_t sext(uint32_t v, int bits) { return int32_t(v << (32 - bits)) >> (32 - bits); }

TEST_P(OpenCl, IntegerDotProducts) {
  LOAD(p, "dot");
  Rng rng(30);
  const uint32_t n = 256;
  auto a = rng.words(n), b = rng.words(n);
  Buffers buf(dev());
  uint64_t da = buf.upload(a), db = buf.upload(b), dout = buf.zeros(n * 4);
  auto run = [&](const char* k) {
    run_kernel(*p, k, global({n, 1, 1}, {64, 1, 1}), Args().add(da).add(db).add(dout).add(n));
    return buf.download<int32_t>(dout, n);
  };
  auto o = run("dot4_i8");
  for (uint32_t i = 0; i < n; ++i) {
    int32_t s = int32_t(i);
    for (int k = 0; k < 4; ++k) s += sext(a[i] >> (8 * k), 8) * sext(b[i] >> (8 * k), 8);
    ASSERT_EQ(o[i], s) << "dot4_i8 " << i;
  }
  o = run("dot4_u8");
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t s = i;
    for (int k = 0; k < 4; ++k) s += ((a[i] >> (8 * k)) & 255) * ((b[i] >> (8 * k)) & 255);
    ASSERT_EQ(u(o[i]), s) << "dot4_u8 " << i;
  }
  o = run("dot8_i4");
  for (uint32_t i = 0; i < n; ++i) {
    int32_t s = -int32_t(i);
    for (int k = 0; k < 8; ++k) s += sext(a[i] >> (4 * k), 4) * sext(b[i] >> (4 * k), 4);
    ASSERT_EQ(o[i], s) << "dot8_i4 " << i;
  }
  o = run("dot2_i16");
  for (uint32_t i = 0; i < n; ++i) {
    int32_t s = 100 + sext(a[i], 16) * sext(b[i], 16) + sext(a[i] >> 16, 16) * sext(b[i] >> 16, 16);
    ASSERT_EQ(o[i], s) << "dot2_i16 " << i;
  }
}

TEST_P(OpenCl, DotF16) {
  LOAD(p, "dot");
  Rng rng(31);
  const uint32_t n = 256;
  std::vector<uint16_t> a(2 * n), b(2 * n);
  for (uint32_t i = 0; i < 2 * n; ++i) {
    a[i] = f2h(rng.uniform(-10, 10));
    b[i] = f2h(rng.uniform(-10, 10));
  }
  Buffers buf(dev());
  uint64_t da = buf.upload(a), db = buf.upload(b), dout = buf.zeros(n * 4);
  run_kernel(*p, "dot2_f16", global({n, 1, 1}, {64, 1, 1}), Args().add(da).add(db).add(dout).add(n));
  auto o = buf.download<float>(dout, n);
  // Products of halves are exact in f32; allow 1 ulp for the sum.
  for (uint32_t i = 0; i < n; ++i) {
    double want = double(h2f(a[2 * i])) * h2f(b[2 * i]) + double(h2f(a[2 * i + 1])) * h2f(b[2 * i + 1]) + 1.0;
    EXPECT_ULP(o[i], want, 1.0, "dot2_f16 " << i);
  }
}

// --------------------------------------------------------------------- math ---

TEST_P(OpenCl, ExpLog) {
  LOAD(p, "math");
  Rng rng(32);
  const uint32_t n = 512;
  auto x = rng.floats(n, -80, 80);
  Buffers buf(dev());
  uint64_t dx = buf.upload(x), dout = buf.zeros(n * 16);
  run_kernel(*p, "exp_log", global({n, 1, 1}, {64, 1, 1}), Args().add(dx).add(dout).add(n));
  auto o = buf.download<float>(dout, 4 * n);
  // OpenCL accuracy: exp, exp2, log, log2 within 3 ulp.
  for (uint32_t i = 0; i < n; ++i) {
    double v = x[i];
    EXPECT_ULP(o[4 * i], std::exp(v), 3.0, "exp(" << v << ")");
    EXPECT_ULP(o[4 * i + 1], std::log(double(std::fabs(x[i]) + 1e-3f)), 3.0, "log " << v);
    EXPECT_ULP(o[4 * i + 2], std::exp2(double(x[i] * 0.5f)), 3.0, "exp2 " << v);
    EXPECT_ULP(o[4 * i + 3], std::log2(double(std::fabs(x[i]) + 0.5f)), 3.0, "log2 " << v);
  }
}

TEST_P(OpenCl, SqrtRsqrtRecip) {
  LOAD(p, "math");
  Rng rng(33);
  const uint32_t n = 512;
  auto x = rng.floats(n, -1e6, 1e6);
  Buffers buf(dev());
  uint64_t dx = buf.upload(x), dout = buf.zeros(n * 12);
  run_kernel(*p, "sqrt_rsqrt", global({n, 1, 1}, {64, 1, 1}), Args().add(dx).add(dout).add(n));
  auto o = buf.download<float>(dout, 3 * n);
  for (uint32_t i = 0; i < n; ++i) {
    double v = std::fabs(x[i]);
    EXPECT_ULP(o[3 * i], std::sqrt(v), 3.0, "sqrt " << v);
    EXPECT_ULP(o[3 * i + 1], 1.0 / std::sqrt(double(float(v) + 1.0f)), 2.0, "rsqrt " << v);
    EXPECT_ULP(o[3 * i + 2], 1.0 / double(float(v) + 2.0f), 1.0, "native_recip " << v);
  }
}

TEST_P(OpenCl, SinCosWithLargeArguments) {
  LOAD(p, "math");
  Rng rng(34);
  const uint32_t n = 600;
  auto x = rng.floats(n, -10, 10);
  for (uint32_t i = 0; i < 200; ++i) x[i] = rng.uniform(-1e5f, 1e5f);  // Payne-Hanek range
  Buffers buf(dev());
  uint64_t dx = buf.upload(x), dout = buf.zeros(n * 12);
  run_kernel(*p, "sin_cos", global({n, 1, 1}, {64, 1, 1}), Args().add(dx).add(dout).add(n));
  auto o = buf.download<float>(dout, 3 * n);
  // OpenCL accuracy: sin and cos within 4 ulp over the whole range.
  for (uint32_t i = 0; i < n; ++i) {
    long double v = x[i];
    EXPECT_ULP(o[3 * i], double(std::sin(v)), 4.0, "sin " << x[i]);
    EXPECT_ULP(o[3 * i + 1], double(std::sin(v)), 4.0, "sincos.sin " << x[i]);
    EXPECT_ULP(o[3 * i + 2], double(std::cos(v)), 4.0, "sincos.cos " << x[i]);
  }
}

TEST_P(OpenCl, PowTanhErf) {
  LOAD(p, "math");
  Rng rng(35);
  const uint32_t n = 400;
  auto x = rng.floats(n, -6, 6);
  Buffers buf(dev());
  uint64_t dx = buf.upload(x), dout = buf.zeros(n * 12);
  run_kernel(*p, "pow_tanh", global({n, 1, 1}, {64, 1, 1}), Args().add(dx).add(dout).add(n));
  auto o = buf.download<float>(dout, 3 * n);
  // OpenCL accuracy: pow 16 ulp, tanh 5 ulp, erf 16 ulp.
  for (uint32_t i = 0; i < n; ++i) {
    EXPECT_ULP(o[3 * i], std::pow(double(std::fabs(x[i]) + 0.1f), 1.7), 16.0, "pow " << x[i]);
    EXPECT_ULP(o[3 * i + 1], std::tanh(double(x[i])), 5.0, "tanh " << x[i]);
    EXPECT_ULP(o[3 * i + 2], std::erf(double(x[i] * 0.3f)), 16.0, "erf " << x[i]);
  }
}

TEST_P(OpenCl, DoublePrecision) {
  LOAD(p, "math");
  Rng rng(36);
  const uint32_t n = 300;
  std::vector<double> x(n);
  for (auto& v : x) v = double(rng.uniform(-1000, 1000)) + double(rng.next()) * 1e-12;
  Buffers buf(dev());
  uint64_t dx = buf.upload(x), dout = buf.zeros(n * 24);
  run_kernel(*p, "math_f64", global({n, 1, 1}, {64, 1, 1}), Args().add(dx).add(dout).add(n));
  auto o = buf.download<double>(dout, 3 * n);
  for (uint32_t i = 0; i < n; ++i) {
    double v = x[i];
    EXPECT_EQ(o[3 * i], std::sqrt(std::fabs(v))) << "sqrt is correctly rounded, " << v;
    EXPECT_LE(std::fabs(o[3 * i + 1] - std::exp(v * 0.01)), 3 * double_ulp(std::exp(v * 0.01))) << "exp " << v;
    EXPECT_EQ(o[3 * i + 2], std::fma(v, v, 1.0) / (std::fabs(v) + 1.0)) << "division is correctly rounded, " << v;
  }
}

// ------------------------------------------------------------------- int64 ---

TEST_P(OpenCl, Int64Arithmetic) {
  LOAD(p, "int64");
  Rng rng(37);
  const uint32_t n = 400;
  std::vector<int64_t> a(n), b(n);
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = int64_t(uint64_t(rng.next()) << 32 | rng.next());
    b[i] = int64_t(uint64_t(rng.next()) << 32 | rng.next()) >> (rng.next() % 60);
  }
  a[0] = INT64_MIN + 1;
  b[1] = 0;
  Buffers buf(dev());
  uint64_t da = buf.upload(a), db = buf.upload(b), dout = buf.zeros(n * 48);
  run_kernel(*p, "int64_arith", global({n, 1, 1}, {64, 1, 1}), Args().add(da).add(db).add(dout).add(n));
  auto o = buf.download<int64_t>(dout, 6 * n);
  for (uint32_t i = 0; i < n; ++i) {
    int64_t x = a[i], y = b[i], d = y == 0 ? 7 : y;
    ASSERT_EQ(uint64_t(o[6 * i]), uint64_t(x) * uint64_t(y) + uint64_t(x >> 17)) << i;
    ASSERT_EQ(o[6 * i + 1], x / d) << i;
    ASSERT_EQ(o[6 * i + 2], x % d) << i;
    ASSERT_EQ(uint64_t(o[6 * i + 3]), uint64_t(x) / uint64_t(d | 1)) << i;
    ASSERT_EQ(uint64_t(o[6 * i + 4]), (uint64_t(x) << (y & 63)) ^ (uint64_t(x) >> (i & 63))) << i;
    int64_t r5 = x < y ? int64_t(uint64_t(x) - uint64_t(y)) : int64_t(uint64_t(std::max(x, y)) + uint64_t(std::min(x, y)));
    ASSERT_EQ(o[6 * i + 5], r5) << i;
  }
}

TEST_P(OpenCl, Int64Bits) {
  LOAD(p, "int64");
  Rng rng(38);
  const uint32_t n = 200;
  std::vector<uint64_t> a(n);
  for (auto& v : a) v = uint64_t(rng.next()) << 32 | rng.next();
  a[0] = 0;
  a[1] = 1;
  Buffers buf(dev());
  uint64_t da = buf.upload(a), dout = buf.zeros(n * 32);
  run_kernel(*p, "int64_bits", global({n, 1, 1}, {64, 1, 1}), Args().add(da).add(dout).add(n));
  auto o = buf.download<uint64_t>(dout, 4 * n);
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t x = a[i];
    ASSERT_EQ(o[4 * i], uint64_t(std::popcount(x))) << i;
    ASSERT_EQ(o[4 * i + 1], uint64_t(std::countl_zero(x))) << i;
    ASSERT_EQ(o[4 * i + 2], uint64_t((unsigned __int128)x * 0x9e3779b97f4a7c15ull >> 64)) << i;
    ASSERT_EQ(o[4 * i + 3], std::rotl(x, int(i % 64))) << i;
  }
}

// ------------------------------------------------------------ control flow ---

TEST_P(OpenCl, DivergentIf) {
  LOAD(p, "control");
  Rng rng(39);
  const uint32_t n = 500;
  auto in = rng.ints(n, -100000, 100000);
  auto o = run_in_out<int32_t>(*p, "divergent_if", global({n, 1, 1}, {64, 1, 1}), in, n, n);
  for (uint32_t i = 0; i < n; ++i) {
    int32_t v = in[i], r;
    if (v & 1) r = (v & 2) ? v * 3 : v - 100;
    else if (v % 3 == 0) r = -v;
    else r = std::max(v ^ 0x5a5a, 0);
    ASSERT_EQ(o[i], r) << i;
  }
}

TEST_P(OpenCl, LoopsWithPerLaneTripCounts) {
  LOAD(p, "control");
  Rng rng(40);
  const uint32_t n = 300;
  auto in = rng.words(n);
  Buffers buf(dev());
  uint64_t di = buf.upload(in), dout = buf.zeros(n * 4);
  auto r = run_kernel(*p, "loops_variable", global({n, 1, 1}, {64, 1, 1}), Args().add(di).add(dout).add(n));
  auto o = buf.download<uint32_t>(dout, n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t count = in[i] % 97, acc = 1;
    for (uint32_t k = 0; k < count; ++k) {
      acc = acc * 31 + k;
      if (acc % 11 == 0) continue;
      acc ^= k << 3;
    }
    ASSERT_EQ(o[i], acc) << i;
  }
  EXPECT_LT(r.profile.valu_utilization(), 0.9) << "divergent loops leave lanes idle";
}

TEST_P(OpenCl, SwitchCase) {
  LOAD(p, "control");
  Rng rng(41);
  const uint32_t n = 256;
  auto in = rng.ints(n, -1000000, 1000000);
  auto o = run_in_out<int32_t>(*p, "switch_case", global({n, 1, 1}, {64, 1, 1}), in, n, n);
  for (uint32_t i = 0; i < n; ++i) {
    int32_t v = in[i], r;
    switch (v & 7) {
      case 0: r = 10; break;
      case 1: r = int32_t(u(v) * 2); break;
      case 2: r = v / 3; break;
      case 3: r = -1; break;
      case 5: r = int32_t(u(v) << 4); break;
      case 6: r = 77; break;
      default: r = v;
    }
    ASSERT_EQ(o[i], r) << i;
  }
}

TEST_P(OpenCl, Collatz) {
  LOAD(p, "control");
  Rng rng(42);
  const uint32_t n = 256;
  auto in = rng.words(n);
  auto o = run_in_out<uint32_t>(*p, "collatz", global({n, 1, 1}, {64, 1, 1}), in, n, n);
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t x = in[i] % 10000 + 1;
    uint32_t s = 0;
    while (x != 1) {
      x = (x & 1) ? 3 * x + 1 : x >> 1;
      ++s;
    }
    ASSERT_EQ(o[i], s) << i;
  }
}

TEST_P(OpenCl, FunctionCalls) {
  LOAD(p, "control");
  Rng rng(43);
  const uint32_t n = 200;
  auto in = rng.ints(n, -1000, 1000);
  Buffers buf(dev());
  uint64_t di = buf.upload(in), dout = buf.zeros(n * 4), dfo = buf.zeros(n * 4);
  run_kernel(*p, "calls", global({n, 1, 1}, {64, 1, 1}), Args().add(di).add(dout).add(dfo).add(n));
  auto o = buf.download<int32_t>(dout, n);
  auto fo = buf.download<float>(dfo, n);
  std::function<float(float, float, int)> mix = [&](float a, float b, int d) { return d <= 0 ? a + b : mix(a * 0.5f, b + 1.0f, d - 1); };
  for (uint32_t i = 0; i < n; ++i) {
    int32_t x = in[i] & 15, acc = 0;
    for (int j = 0; j <= int(i % 5); ++j) acc = int32_t(u(acc) * u(x) + u(j));
    ASSERT_EQ(o[i], acc) << i;
    ASSERT_EQ(fo[i], mix(float(in[i]), 1.0f, int(i % 4))) << i;
  }
}

// ------------------------------------------------------------------ private ---

TEST_P(OpenCl, PrivateArrayInScratch) {
  LOAD(p, "private");
  Rng rng(44);
  const uint32_t n = 300;
  auto in = rng.words(n);
  auto o = run_in_out<uint32_t>(*p, "private_array", global({n, 1, 1}, {64, 1, 1}), in, n, n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t arr[64];
    for (uint32_t k = 0; k < 64; ++k) arr[k] = in[i] * (k + 1) + k;
    uint32_t idx = in[i] % 64, acc = 0;
    for (int k = 0; k < 16; ++k) {
      acc += arr[idx];
      arr[(idx * 7 + 3) % 64] ^= acc;
      idx = (idx + arr[idx]) % 64;
    }
    ASSERT_EQ(o[i], acc) << i;
  }
}

TEST_P(OpenCl, PrivateThroughGenericPointer) {
  LOAD(p, "private");
  Rng rng(45);
  const uint32_t n = 200;
  auto in = rng.words(n);
  auto o = run_in_out<uint32_t>(*p, "private_generic", global({n, 1, 1}, {64, 1, 1}), in, n, n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t b[24];
    for (uint32_t k = 0; k < 24; ++k) b[k] = in[i] * 2654435761u + k;
    uint32_t acc = 0;
    for (uint32_t k = 0; k < 24; k += 1 + (in[i] & 1)) acc ^= b[(k * 5 + in[i]) % 24];
    ASSERT_EQ(o[i], acc) << i;
  }
}

TEST_P(OpenCl, RegisterSpills) {
  LOAD(p, "private");
  Rng rng(46);
  const uint32_t n = 128;
  auto in = rng.floats(n, -1, 1);
  auto o = run_in_out<float>(*p, "private_spill", global({n, 1, 1}, {64, 1, 1}), in, n, n);
  // The final weighted sum may be contracted into fmas: relative tolerance 1e-5.
  for (uint32_t i = 0; i < n; ++i) {
    float v[40];
    for (int k = 0; k < 40; ++k) v[k] = in[(i + uint32_t(k)) % n] * float(k + 1);
    for (int r = 0; r < 4; ++r)
      for (int k = 0; k < 40; ++k) v[k] = v[k] * 0.5f + v[(k + 7) % 40];
    double s = 0, mag = 0;
    for (int k = 0; k < 40; ++k) {
      s += double(v[k]) * (k & 3);
      mag += std::fabs(double(v[k]) * (k & 3));
    }
    ASSERT_NEAR(o[i], s, 1e-5 * mag + 1e-6) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(CodeObject, OpenCl, ::testing::Values(4, 5),
                         [](const ::testing::TestParamInfo<int>& i) { return "v" + std::to_string(i.param); });

}  // namespace
}  // namespace k100::emu::test
