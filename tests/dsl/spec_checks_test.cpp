// The 19 compiler checks of the kernel-language specification's test list,
// on the emulator with every check on, each against a host computation.
// Where a check is already a test elsewhere, it is named here and not
// repeated:
//    1 vadd                      DslRun.VaddExact
//    2 silu                      DslRun.SiluWithin1e4
//    3 axpy                      DslRun.AxpyF32Scalar (exact)
//    4 loop                      DslRun.UniformForLoop (4 trips among others)
//    7 f32 comparisons           DslMiscompilation.F32ComparisonsAssembleAndAreRightForAllSix
//   11 rounding built-ins        DslRun.LanguageSurface (floor ceil trunc rint fract ubyte, integer max/min)
//   19 embedding example        DslMiscompilation.TemporaryNotReleasedTwiceEmbedF16 (3 shapes, bit-exact)
// Checks 10, 12 and 13 asked for errors that were limits of an earlier
// compiler (`% 3` refused, a varying `while` refused, `break`/`continue` in
// a varying `if` refused). This language allows all three, so those parts
// check that they compile and are right instead.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "dsl_run_support.h"

namespace {

using k100::dsl::testing::cdiv;
using k100::dsl::testing::DslKernel;
using k100::dsl::testing::read_kkl;
using k100::dsl::testing::wobble;
using k100::kernels::DeviceBuffer;

std::string errors_of(const std::string& source) { return k100::dsl::compile(source, "t.kkl").diagnostics; }

// 5: 150 named variables, all live until one sum.
TEST(DslSpecCheck, Check05ManyVariables) {
  const int m = 150;
  std::string src = "def many(x: ptr[f32], y: ptr[f32]):\n    i = gid()\n";
  for (int j = 0; j < m; ++j)
    src += "    a" + std::to_string(j) + " = x[i * 4 + " + std::to_string(j % 4) + "] * " + std::to_string(j + 1) + ".0\n";
  src += "    s = 0.0\n";
  for (int j = 0; j < m; ++j) src += "    s = s + a" + std::to_string(j) + "\n";
  src += "    y[i] = s\n";
  DslKernel k(src);
  ASSERT_TRUE(k.ok());
  auto x = wobble(4 * 64, 61);
  DeviceBuffer<float> dx(k.dev(), x), dy(k.dev(), 64);
  k.launch({1}, {64}, {dx.addr(), dy.addr()});
  auto y = dy.download();
  for (uint32_t i = 0; i < 64; ++i) {
    float s = 0.0f;
    for (int j = 0; j < m; ++j) s += x[i * 4 + uint32_t(j % 4)] * float(j + 1);
    ASSERT_EQ(y[i], s) << i;
  }
}

// 6: a 300-term sum of loads in one statement.
TEST(DslSpecCheck, Check06LongExpression) {
  const int m = 300;
  std::string src = "def longsum(x: ptr[f32], y: ptr[f32]):\n    i = gid()\n    y[i] = x[i]";
  for (int j = 1; j < m; ++j) src += " + x[i + " + std::to_string(j) + "]";
  src += "\n";
  DslKernel k(src);
  ASSERT_TRUE(k.ok());
  auto x = wobble(64 + m, 62);
  DeviceBuffer<float> dx(k.dev(), x), dy(k.dev(), 64);
  k.launch({1}, {64}, {dx.addr(), dy.addr()});
  auto y = dy.download();
  for (uint32_t i = 0; i < 64; ++i) {
    float s = x[i];
    for (int j = 1; j < m; ++j) s += x[i + uint32_t(j)];
    ASSERT_EQ(y[i], s) << i;
  }
}

// 8: varying if/else with min/max, both branches taken within the wave.
TEST(DslSpecCheck, Check08VaryingIfElseWithMinMax) {
  DslKernel k(R"(
def branch(x: ptr[f32], y: ptr[f32], lo: f32):
    i = gid()
    v = x[i]
    if v > 0.0:
        r = min(v, 2.5) * 2.0
    else:
        r = max(v, lo) - 1.0
    y[i] = r
)");
  ASSERT_TRUE(k.ok());
  auto x = wobble(64, 63);
  const float lo = -4.0f;
  DeviceBuffer<float> dx(k.dev(), x), dy(k.dev(), 64);
  k.launch({1}, {64}, {dx.addr(), dy.addr(), lo});
  auto y = dy.download();
  int pos = 0;
  for (uint32_t i = 0; i < 64; ++i) {
    pos += x[i] > 0.0f;
    ASSERT_EQ(y[i], x[i] > 0.0f ? std::min(x[i], 2.5f) * 2.0f : std::max(x[i], lo) - 1.0f) << i;
  }
  ASSERT_TRUE(pos > 0 && pos < 64) << "both branches within the wave";
}

// 9: unary minus with & | ^ >>, nested varying if/else, += -= *= /=, both
// range forms, `and` of two varying masks, `or` mixing uniform and varying.
TEST(DslSpecCheck, Check09LanguageSurface) {
  DslKernel k(R"(
def surface(x: ptr[f32], u: ptr[s32], y: ptr[f32], n: u32):
    i = gid()
    v = x[i]
    s = u[i]
    b = (-s & 0xff0) | (-s ^ 7) >> 2
    f = v
    f += 1.5
    f -= 0.25
    f *= 3.0
    f /= 2.0
    t = 0.0
    for j in range(4):
        t = t + f32(j)
    for j in range(2, 5):
        t = t * 2.0 + f32(j)
    if v > 0.0 and s > 0:
        if v > 3.0:
            c = 1.0
        else:
            c = 2.0
    else:
        if v < -3.0 or n > 100:
            c = 3.0
        else:
            c = 4.0
    y[4 * i] = f32(b)
    y[4 * i + 1] = f
    y[4 * i + 2] = t
    y[4 * i + 3] = c
)");
  ASSERT_TRUE(k.ok());
  auto x = wobble(64, 64);
  std::vector<int32_t> u(64);
  for (int i = 0; i < 64; ++i) u[size_t(i)] = (i * 977) % 301 - 150;
  float t = 0.0f;
  for (int j = 0; j < 4; ++j) t += float(j);
  for (int j = 2; j < 5; ++j) t = t * 2.0f + float(j);
  for (uint32_t n : {5u, 200u}) {
    DeviceBuffer<float> dx(k.dev(), x), dy(k.dev(), 256);
    DeviceBuffer<int32_t> du(k.dev(), u);
    k.launch({1}, {64}, {dx.addr(), du.addr(), dy.addr(), n});
    auto y = dy.download();
    for (uint32_t i = 0; i < 64; ++i) {
      const float v = x[i];
      const int32_t s = u[i];
      const int32_t b = (-s & 0xff0) | ((-s ^ 7) >> 2);
      float f = v;
      f += 1.5f, f -= 0.25f, f *= 3.0f;
      f = f * (1.0f / 2.0f);  // a literal divisor: the product with its reciprocal
      float c = (v > 0.0f && s > 0) ? (v > 3.0f ? 1.0f : 2.0f) : ((v < -3.0f || n > 100) ? 3.0f : 4.0f);
      ASSERT_EQ(y[4 * i], float(b)) << s;
      ASSERT_EQ(y[4 * i + 1], f) << i;
      ASSERT_EQ(y[4 * i + 2], t) << i;
      ASSERT_EQ(y[4 * i + 3], c) << i << " n " << n;
    }
  }
}

// 10: the twelve comparisons are DslMiscompilation.IntegerComparisonsAllSix;
// here `/ 4`, `% 8`, and `% 3` (refused by an earlier compiler: a division
// by any value is exact here), per lane and uniform.
TEST(DslSpecCheck, Check10IntegerDivision) {
  DslKernel k(R"(
def divs(a: ptr[u32], s: ptr[s32], out: ptr[u32], n: u32):
    i = gid()
    x = a[i]
    q = s[i]
    out[6 * i] = x / 4
    out[6 * i + 1] = x % 8
    out[6 * i + 2] = x % 3
    out[6 * i + 3] = u32(q % 3)
    out[6 * i + 4] = u32(q // 4)
    out[6 * i + 5] = n % 3 + (n / 4) * 10
)");
  ASSERT_TRUE(k.ok());
  std::vector<uint32_t> a(64);
  std::vector<int32_t> s(64);
  for (uint32_t i = 0; i < 64; ++i) a[i] = i * 0x9e3779b9u, s[i] = int32_t(i * 7919u) - 250000;
  const uint32_t n = 1000003;
  DeviceBuffer<uint32_t> da(k.dev(), a), dout(k.dev(), 6 * 64);
  DeviceBuffer<int32_t> ds(k.dev(), s);
  k.launch({1}, {64}, {da.addr(), ds.addr(), dout.addr(), n});
  auto out = dout.download();
  auto fdiv = [](int64_t p, int64_t q) { return p / q - ((p % q != 0 && (p < 0) != (q < 0)) ? 1 : 0); };
  for (uint32_t i = 0; i < 64; ++i) {
    ASSERT_EQ(out[6 * i], a[i] / 4) << i;
    ASSERT_EQ(out[6 * i + 1], a[i] % 8) << i;
    ASSERT_EQ(out[6 * i + 2], a[i] % 3) << i;
    ASSERT_EQ(int32_t(out[6 * i + 3]), int32_t(s[i] - fdiv(s[i], 3) * 3)) << s[i];  // Python: sign of the divisor
    ASSERT_EQ(int32_t(out[6 * i + 4]), int32_t(fdiv(s[i], 4))) << s[i];
    ASSERT_EQ(out[6 * i + 5], n % 3 + (n / 4) * 10);
  }
}

// 12: while with a uniform counter, with break, with continue, `while 1`
// + break, and a varying condition (refused by an earlier compiler; each
// lane leaves when its own condition fails).
TEST(DslSpecCheck, Check12While) {
  DslKernel k(R"(
def loops(x: ptr[u32], out: ptr[u32], n: u32):
    i = gid()
    v = x[i]
    a = 0
    while a < n:
        a = a + 1
    b = 0
    c = 0
    while b < n:
        b = b + 1
        if b == 3:
            continue
        if b > 6:
            break
        c = c + b
    d = 0
    while 1:
        d = d + 2
        if d >= n:
            break
    w = v
    steps = v & 0
    while w > 1:
        w = w >> 1
        steps = steps + 1
    out[5 * i] = a
    out[5 * i + 1] = b
    out[5 * i + 2] = c
    out[5 * i + 3] = d
    out[5 * i + 4] = steps
)");
  ASSERT_TRUE(k.ok());
  std::vector<uint32_t> x(64);
  for (uint32_t i = 0; i < 64; ++i) x[i] = i * i * 1237u;
  for (uint32_t n : {1u, 9u}) {
    DeviceBuffer<uint32_t> dx(k.dev(), x), dout(k.dev(), 5 * 64);
    k.launch({1}, {64}, {dx.addr(), dout.addr(), n});
    auto out = dout.download();
    uint32_t b = 0, c = 0, d = 0;
    while (b < n) {
      ++b;
      if (b == 3) continue;
      if (b > 6) break;
      c += b;
    }
    do d += 2;
    while (d < n);
    for (uint32_t i = 0; i < 64; ++i) {
      uint32_t w = x[i], steps = 0;
      while (w > 1) w >>= 1, ++steps;
      ASSERT_EQ(out[5 * i], n) << i;
      ASSERT_EQ(out[5 * i + 1], b) << i;
      ASSERT_EQ(out[5 * i + 2], c) << i;
      ASSERT_EQ(out[5 * i + 3], d) << i;
      ASSERT_EQ(out[5 * i + 4], steps) << x[i];
    }
  }
}

// 13: the region rule. A per-lane f32 counter is right, a scalar created and
// updated in one region is allowed, a scalar assigned from another region is
// refused; `break` and `continue` under a varying `if` (refused by an
// earlier compiler) leave or skip for those lanes only.
TEST(DslSpecCheck, Check13RegionRule) {
  const std::string err = errors_of(read_kkl("count_positive.kkl"));
  EXPECT_NE(err.find("uniform variable 'hits' (created at line 4) cannot be assigned here"), std::string::npos) << err;
  DslKernel k(R"(
def region(x: ptr[f32], out: ptr[f32], n: u32):
    i = gid()
    hits = 0.0
    if i < n:
        if x[i] > 0.0:
            hits = hits + 1.0
        m = n * 2
        m = m + 1
        out[3 * i + 1] = f32(m)
    acc = 0.0
    for j in range(8):
        if x[i] + f32(j) > 6.0:
            break
        if (i + j) % 3 == 0:
            continue
        acc = acc + f32(j)
    out[3 * i] = hits
    out[3 * i + 2] = acc
)");
  ASSERT_TRUE(k.ok());
  const uint32_t n = 50;
  auto x = wobble(64, 65);
  DeviceBuffer<float> dx(k.dev(), x), dout(k.dev(), 3 * 64);
  k.launch({1}, {64}, {dx.addr(), dout.addr(), n});
  auto out = dout.download();
  for (uint32_t i = 0; i < 64; ++i) {
    float acc = 0.0f;
    for (uint32_t j = 0; j < 8; ++j) {
      if (x[i] + float(j) > 6.0f) break;
      if ((i + j) % 3 == 0) continue;
      acc += float(j);
    }
    ASSERT_EQ(out[3 * i], (i < n && x[i] > 0.0f) ? 1.0f : 0.0f) << i;
    ASSERT_EQ(out[3 * i + 1], i < n ? float(2 * n + 1) : 0.0f) << i;
    ASSERT_EQ(out[3 * i + 2], acc) << i;
  }
}

// 14: int/f32 promotion by value in 14 places, and an all-uniform
// `while a < 3 and b < 5`.
TEST(DslSpecCheck, Check14MixedTypes) {
  DslKernel k(R"(
def mixed(x: ptr[f32], y: ptr[f32], m: u32, d: u32, sv: s32):
    i = gid()
    v = x[i]
    y[16 * i] = v + 1
    y[16 * i + 1] = v * m
    y[16 * i + 2] = v / d
    y[16 * i + 3] = 2
    y[16 * i + 4] = 1.0 if v > 3 else 0.0
    y[16 * i + 5] = min(v, 3)
    y[16 * i + 6] = max(v, 1)
    y[16 * i + 7] = sqrt(4)
    y[16 * i + 8] = rsqrt(4)
    y[16 * i + 9] = fma(v, 2, 1)
    y[16 * i + 10] = fabs(-1)
    y[16 * i + 11] = floor(2)
    y[16 * i + 12] = rint(2)
    y[16 * i + 13] = v * sv
    a = 0
    b = 0
    while a < 3 and b < 5:
        a = a + 1
        b = b + 2
    y[16 * i + 14] = f32(a * 10 + b)
)");
  ASSERT_TRUE(k.ok());
  auto x = wobble(64, 66);
  const uint32_t m = 3, d = 5;
  const int32_t sv = -7;
  DeviceBuffer<float> dx(k.dev(), x), dy(k.dev(), 16 * 64);
  k.launch({1}, {64}, {dx.addr(), dy.addr(), m, d, sv});
  auto y = dy.download();
  for (uint32_t i = 0; i < 64; ++i) {
    const float v = x[i];
    const float* o = &y[16 * i];
    ASSERT_EQ(o[0], v + 1.0f);
    ASSERT_EQ(o[1], v * 3.0f);
    ASSERT_EQ(o[2], v * (1.0f / 5.0f));  // the hardware reciprocal (exact on the emulator) times v
    ASSERT_EQ(o[3], 2.0f);
    ASSERT_EQ(o[4], v > 3.0f ? 1.0f : 0.0f);
    ASSERT_EQ(o[5], std::min(v, 3.0f));
    ASSERT_EQ(o[6], std::max(v, 1.0f));
    ASSERT_EQ(o[7], 2.0f);
    ASSERT_EQ(o[8], 0.5f);
    ASSERT_EQ(o[9], std::fma(v, 2.0f, 1.0f));
    ASSERT_EQ(o[10], 1.0f);
    ASSERT_EQ(o[11], 2.0f);
    ASSERT_EQ(o[12], 2.0f);
    ASSERT_EQ(o[13], v * -7.0f);
    ASSERT_EQ(o[14], 36.0f);  // a = 3, b = 6
  }
}

// 15: sqrt, rsqrt, exp, reciprocal and constant division right after the
// VALU writes their operands, nine cases.
TEST(DslSpecCheck, Check15TranscendentalHazards) {
  DslKernel k(R"(
def trans(x: ptr[f32], y: ptr[f32]):
    i = gid()
    v = fabs(x[i]) + 0.5
    y[9 * i] = sqrt(v)
    y[9 * i + 1] = sqrt(v * 3.0)
    y[9 * i + 2] = rsqrt(v)
    y[9 * i + 3] = rsqrt(v + 7.0)
    y[9 * i + 4] = exp(v * 0.5)
    y[9 * i + 5] = exp(-v)
    y[9 * i + 6] = 1.0 / v
    y[9 * i + 7] = 2.0 / (v * v)
    y[9 * i + 8] = v / 3.0
)");
  ASSERT_TRUE(k.ok());
  auto x = wobble(128, 67);
  DeviceBuffer<float> dx(k.dev(), x), dy(k.dev(), 9 * 128);
  k.launch({2}, {64}, {dx.addr(), dy.addr()});
  auto y = dy.download();
  auto rel = [](double got, double want) { return std::fabs(got - want) / std::fabs(want); };
  for (uint32_t i = 0; i < 128; ++i) {
    const double v = double(std::fabs(x[i]) + 0.5f);
    const double want[9] = {std::sqrt(v), std::sqrt(v * 3.0), 1.0 / std::sqrt(v), 1.0 / std::sqrt(v + 7.0),
                            std::exp(v * 0.5), std::exp(-v), 1.0 / v, 2.0 / (v * v), v / 3.0};
    for (int c = 0; c < 9; ++c)
      EXPECT_LT(rel(y[9 * i + uint32_t(c)], want[c]), c == 4 || c == 5 ? 1e-5 : 1e-6) << "case " << c << " lane " << i;
  }
}

// 16: LDS. Lane reversal (per-lane index), a single-lane sum (constant
// indices), the transpose example on six shapes bit-exact with its declared
// LDS size, and the four errors.
TEST(DslSpecCheck, Check16Lds) {
  DslKernel k(R"(
def ldsk(x: ptr[f32], y: ptr[f32]):
    i = gid()
    l = lane()
    buf = lds(64)
    buf[l] = x[i]
    barrier()
    y[2 * i] = buf[63 - l]
    if l == 0:
        y[2 * i + 1] = buf[0] + buf[1] + buf[2] + buf[63]
)");
  ASSERT_TRUE(k.ok());
  auto x = wobble(64, 68);
  DeviceBuffer<float> dx(k.dev(), x), dy(k.dev(), 128);
  k.launch({1}, {64}, {dx.addr(), dy.addr()});
  auto y = dy.download();
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(y[2 * i], x[63 - i]) << i;
  ASSERT_EQ(y[1], x[0] + x[1] + x[2] + x[63]);

  DslKernel t(read_kkl("vt_scatter_k.kkl"));
  ASSERT_TRUE(t.ok());
  EXPECT_GE(t.kernel().object.kernels.at(0).descriptor.group_segment_fixed_size, 64u * 65u * 4u);
  struct Shape {
    uint32_t rows, dim, vstride, ystride, y0, cshift;
  };
  for (Shape s : {Shape{64, 64, 64, 64, 0, 0}, Shape{1, 64, 70, 10, 3, 0}, Shape{65, 64, 64, 80, 7, 0},
                  Shape{100, 128, 130, 120, 5, 1}, Shape{130, 256, 256, 140, 0, 2}, Shape{7, 128, 200, 9, 1, 1}}) {
    auto v = wobble(s.rows * s.vstride, 69 + s.rows);
    DeviceBuffer<float> dv(t.dev(), v), dvt(t.dev(), s.dim * s.ystride);
    t.launch({cdiv(s.rows, 64) * (s.dim / 64)}, {64},
             {dvt.addr(), dv.addr(), s.rows, s.dim, s.vstride, s.ystride, s.y0, s.cshift});
    auto vt = dvt.download();
    std::vector<float> want(s.dim * s.ystride, 0.0f);
    for (uint32_t r = 0; r < s.rows; ++r)
      for (uint32_t d = 0; d < s.dim; ++d)
        if (s.y0 + r < s.ystride) want[d * s.ystride + s.y0 + r] = v[r * s.vstride + d];
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(vt[i], want[i]) << s.rows << "x" << s.dim << " at " << i;
  }

  const std::string head = "def e(x: ptr[f32], n: u32):\n    i = gid()\n";
  EXPECT_NE(errors_of(head + "    a = lds(n)\n").find("the size of lds() must be a compile-time constant"),
            std::string::npos);
  EXPECT_NE(errors_of(head + "    a = lds(8)\n    x[i] = a[8]\n").find("index 8 is outside LDS array 'a'"),
            std::string::npos);
  EXPECT_NE(errors_of(head + "    a = lds(16000)\n    b = lds(400)\n").find("LDS array 'b'"), std::string::npos);
  EXPECT_NE(errors_of(head + "    y = barrier()\n").find("this call has no value to assign"), std::string::npos);
}

// 17: the RoPE example on four shapes, dim = 192 among them, bit-exact
// against the same f32 operations (the check asks for 1e-6 relative).
TEST(DslSpecCheck, Check17RopeFourShapes) {
  DslKernel k(read_kkl("rope_apply_k.kkl"));
  ASSERT_TRUE(k.ok());
  for (auto [rows, dim] : {std::pair{1u, 2u}, std::pair{3u, 64u}, std::pair{4u, 192u}, std::pair{2u, 258u}}) {
    const uint32_t tsh = 1, tbase = 1, half = dim / 2, trows = (rows >> tsh) + tbase + 1;
    auto x = wobble(rows * dim, 70), cs = wobble(trows * half, 71), sn = wobble(trows * half, 72);
    DeviceBuffer<float> dx(k.dev(), x), dcs(k.dev(), cs), dsn(k.dev(), sn), dy(k.dev(), rows * dim);
    k.launch({rows}, {64}, {dy.addr(), dx.addr(), dcs.addr(), dsn.addr(), rows, dim, tsh, tbase});
    auto y = dy.download();
    for (uint32_t r = 0; r < rows; ++r) {
      const uint32_t tr = (r >> tsh) + tbase;
      for (uint32_t j = 0; j < half; ++j) {
        const float x0 = x[r * dim + j], x1 = x[r * dim + j + half], c = cs[tr * half + j], s = sn[tr * half + j];
        const float a = x0 * c, b = x1 * s, e = x0 * s, f = x1 * c;  // the kernel's f32 operations
        ASSERT_EQ(y[r * dim + j], a - b) << dim << " " << r << "," << j;
        ASSERT_EQ(y[r * dim + j + half], e + f) << dim << " " << r << "," << j;
      }
    }
  }
}

// 18: 230 distinct variables live at once spill (the assembly has spill
// stores and loads) and stay right.
TEST(DslSpecCheck, Check18Spilling) {
  const int m = 230;
  std::string src = "def spill(x: ptr[f32], y: ptr[f32]):\n    i = gid()\n";
  for (int j = 0; j < m; ++j) src += "    v" + std::to_string(j) + " = x[i * 8 + " + std::to_string(j % 8) + "] + " +
                                     std::to_string(j) + ".0\n";
  src += "    s = 0.0\n";
  for (int j = 0; j < m; ++j) src += "    s = s * 0.75 + v" + std::to_string(j) + "\n";
  src += "    y[i] = s\n";
  DslKernel k(src);
  ASSERT_TRUE(k.ok());
  EXPECT_TRUE(k100::dsl::testing::spills_with_traffic(k.kernel())) << k.kernel().vgpr_spills << " dwords spilled";
  auto x = wobble(8 * 64, 73);
  DeviceBuffer<float> dx(k.dev(), x), dy(k.dev(), 64);
  k.launch({1}, {64}, {dx.addr(), dy.addr()});
  auto y = dy.download();
  for (uint32_t i = 0; i < 64; ++i) {
    float s = 0.0f;
    for (int j = 0; j < m; ++j) s = s * 0.75f + (x[i * 8 + uint32_t(j % 8)] + float(j));
    ASSERT_EQ(y[i], s) << i;
  }
}

}  // namespace
