// HIP kernels (tests/emu/hip/kernels.hip) compiled by Debian's hipcc for
// gfx906 as code object v4 and v5, run on the emulator and compared with host
// references (exact for integers; stated tolerances for floats).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>

#include "kernel_runner.h"

namespace k100::emu::test {

namespace {

class Hip : public ::testing::TestWithParam<int> {
 protected:
  std::string stem() const { return "kernels_v" + std::to_string(GetParam()); }
  Device& dev() { return shared_device(); }
};

#define LOAD_HIP(var) K100_LOAD_KERNELS(var, stem(), true)

float h2f(uint16_t h) {
  uint32_t e = (h >> 10) & 31, m = h & 0x3ff;
  float f = e == 0 ? std::ldexp(float(m), -24) : std::ldexp(1.0f + float(m) / 1024.0f, int(e) - 15);
  return (h & 0x8000) ? -f : f;
}
uint16_t f2h(double x) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  x = std::fabs(x);
  if (x < std::ldexp(1.0, -25)) return sign;
  int e;
  std::frexp(x, &e);
  int exp = e - 1;
  if (exp < -14) return uint16_t(sign | uint16_t(std::nearbyint(x * std::ldexp(1.0, 24))));
  double mant = std::nearbyint(std::ldexp(x, -exp) * 1024.0);
  if (mant >= 2048) {
    mant /= 2;
    ++exp;
  }
  if (exp > 15) return sign | 0x7c00;
  return uint16_t(sign | uint16_t((exp + 15) << 10) | (uint16_t(mant) & 0x3ff));
}

TEST_P(Hip, VectorAdd) {
  LOAD_HIP(p);
  Rng rng(101);
  const int n = 1000;
  auto a = rng.floats(n, -10, 10), b = rng.floats(n, -10, 10);
  Buffers buf(dev());
  uint64_t da = buf.upload(a), db = buf.upload(b), dc = buf.zeros(n * 4);
  run_kernel(*p, "vector_add", LaunchConfig::groups({4, 1, 1}, {256, 1, 1}), Args().add(da).add(db).add(dc).add(n));
  auto c = buf.download<float>(dc, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(c[size_t(i)], a[size_t(i)] + b[size_t(i)]) << i;
}

TEST_P(Hip, GridStrideWithGridDim) {
  LOAD_HIP(p);
  Rng rng(102);
  const int n = 5000;
  auto in = rng.floats(n, -1, 1);
  Buffers buf(dev());
  uint64_t di = buf.upload(in), dout = buf.zeros(n * 4);
  run_kernel(*p, "grid_stride_scale", LaunchConfig::groups({3, 1, 1}, {128, 1, 1}), Args().add(di).add(dout).add(n).add(2.5f));
  auto o = buf.download<float>(dout, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(o[size_t(i)], in[size_t(i)] * 2.5f) << i;
}

TEST_P(Hip, ReduceShared) {
  LOAD_HIP(p);
  Rng rng(103);
  const int n = 1000, blocks = 4;
  auto in = rng.ints(n, -100000, 100000);
  Buffers buf(dev());
  uint64_t di = buf.upload(in), dout = buf.zeros(blocks * 4);
  run_kernel(*p, "reduce_shared", LaunchConfig::groups({blocks, 1, 1}, {256, 1, 1}), Args().add(di).add(dout).add(n));
  auto o = buf.download<int32_t>(dout, blocks);
  for (int b = 0; b < blocks; ++b) {
    int32_t s = 0;
    for (int t = 0; t < 256 && b * 256 + t < n; ++t) s += in[size_t(b * 256 + t)];
    EXPECT_EQ(o[size_t(b)], s) << b;
  }
}

TEST_P(Hip, WarpShuffles) {
  LOAD_HIP(p);
  Rng rng(104);
  const int n = 256;
  auto in = rng.ints(n, -1000, 1000);
  Buffers buf(dev());
  uint64_t di = buf.upload(in), dout = buf.zeros(n * 8);
  run_kernel(*p, "warp_shuffle", LaunchConfig::groups({2, 1, 1}, {128, 1, 1}), Args().add(di).add(dout));
  auto o = buf.download<int32_t>(dout, 2 * n);
  for (int w = 0; w < n; w += 64) {
    int32_t sum = 0;
    for (int l = 0; l < 64; ++l) sum += in[size_t(w + l)];
    for (int l = 0; l < 64; ++l) {
      // __shfl_down past the end of the wave returns the lane's own value.
      ASSERT_EQ(o[size_t(2 * (w + l))], l + 3 < 64 ? in[size_t(w + l + 3)] : in[size_t(w + l)]) << w + l;
      ASSERT_EQ(o[size_t(2 * (w + l) + 1)], sum) << w + l;
    }
  }
}

TEST_P(Hip, AtomicAddFloat) {
  LOAD_HIP(p);
  const int n = 2000;
  std::vector<float> in(n);
  float want = 0;
  for (int i = 0; i < n; ++i) {
    in[size_t(i)] = float(i % 17) - 8.0f;  // integers: exact in any order
    want += in[size_t(i)];
  }
  Buffers buf(dev());
  uint64_t di = buf.upload(in), ds = buf.zeros(4);
  run_kernel(*p, "atomic_add_float", LaunchConfig::groups({8, 1, 1}, {256, 1, 1}), Args().add(di).add(ds).add(n));
  EXPECT_EQ(buf.download<float>(ds, 1)[0], want);
}

TEST_P(Hip, Matmul2dBlocks) {
  LOAD_HIP(p);
  Rng rng(105);
  const int M = 20, N = 27, K = 13;
  auto A = rng.floats(size_t(M * K), -1, 1), B = rng.floats(size_t(K * N), -1, 1);
  Buffers buf(dev());
  uint64_t dA = buf.upload(A), dB = buf.upload(B), dC = buf.zeros(size_t(M * N) * 4);
  run_kernel(*p, "matmul_2d", LaunchConfig::groups({4, 3, 1}, {8, 8, 1}), Args().add(dA).add(dB).add(dC).add(M).add(N).add(K));
  auto C = buf.download<float>(dC, size_t(M * N));
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      float acc = 0;
      for (int k = 0; k < K; ++k) acc = std::fma(A[size_t(r * K + k)], B[size_t(k * N + c)], acc);
      ASSERT_EQ(C[size_t(r * N + c)], acc) << r << "," << c;
    }
}

TEST_P(Hip, DynamicSharedMemory) {
  LOAD_HIP(p);
  Rng rng(106);
  const int n = 500;
  auto in = rng.floats(n, -1, 1);
  Buffers buf(dev());
  uint64_t di = buf.upload(in), dout = buf.zeros(n * 4);
  run_kernel(*p, "dynamic_shared", LaunchConfig::groups({4, 1, 1}, {128, 1, 1}), Args().add(di).add(dout).add(n), 0,
             128 * sizeof(float));
  auto o = buf.download<float>(dout, n);
  for (int i = 0; i < n; ++i) {
    int b = i / 128, t = i % 128, src = b * 128 + 127 - t;
    ASSERT_EQ(o[size_t(i)], src < n ? in[size_t(src)] : 0.0f) << i;
  }
  // Without the dynamic LDS the same kernel runs past its LDS: a fault, not a crash.
  DispatchResult r = dev().dispatch(*p, "dynamic_shared", LaunchConfig::groups({4, 1, 1}, {128, 1, 1}),
                                    Args().add(di).add(dout).add(n).bytes());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault->kind, FaultKind::LdsOutOfRange);
}

TEST_P(Hip, HalfArithmetic) {
  LOAD_HIP(p);
  Rng rng(107);
  const int n = 300;
  std::vector<uint16_t> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[size_t(i)] = f2h(rng.uniform(-8, 8));
    b[size_t(i)] = f2h(rng.uniform(-8, 8));
  }
  Buffers buf(dev());
  uint64_t da = buf.upload(a), db = buf.upload(b), dc = buf.zeros(size_t(n) * 2);
  run_kernel(*p, "half_ops", LaunchConfig::groups({5, 1, 1}, {64, 1, 1}), Args().add(da).add(db).add(dc).add(n));
  auto c = buf.download<uint16_t>(dc, size_t(n));
  // hipcc contracts __hadd(__hmul(a, b), a) into v_fma_f16: one rounding of the
  // exact a*b + a (exact in double for halves).
  for (int i = 0; i < n; ++i) {
    double x = h2f(a[size_t(i)]), y = h2f(b[size_t(i)]);
    ASSERT_EQ(c[size_t(i)], f2h(x * y + x)) << i;
  }
}

TEST_P(Hip, MathFunctions) {
  LOAD_HIP(p);
  Rng rng(108);
  const int n = 400;
  auto x = rng.floats(n, -20, 20);
  Buffers buf(dev());
  uint64_t dx = buf.upload(x), dout = buf.zeros(size_t(n) * 16);
  run_kernel(*p, "math_ops", LaunchConfig::groups({7, 1, 1}, {64, 1, 1}), Args().add(dx).add(dout).add(n));
  auto o = buf.download<float>(dout, size_t(4 * n));
  // HIP's accuracy (CUDA's table): expf 2 ulp, sinf 2 ulp, sqrtf correctly rounded... within 1, logf 1 ulp;
  // we allow the OpenCL bounds (3/4/3/3) to stay independent of library versions.
  for (int i = 0; i < n; ++i) {
    double v = x[size_t(i)];
    EXPECT_ULP(o[size_t(4 * i)], std::exp(v), 3.0, "expf " << v);
    EXPECT_ULP(o[size_t(4 * i + 1)], double(std::sin((long double)v)), 4.0, "sinf " << v);
    EXPECT_ULP(o[size_t(4 * i + 2)], std::sqrt(std::fabs(v)), 3.0, "sqrtf " << v);
    EXPECT_ULP(o[size_t(4 * i + 3)], std::log(double(std::fabs(x[size_t(i)]) + 1.0f)), 3.0, "logf " << v);
  }
}

TEST_P(Hip, Int64) {
  LOAD_HIP(p);
  Rng rng(109);
  const int n = 200;
  std::vector<int64_t> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[size_t(i)] = int64_t(uint64_t(rng.next()) << 32 | rng.next());
    b[size_t(i)] = int64_t(uint64_t(rng.next()) << 32 | rng.next()) >> (rng.next() % 62);
  }
  b[0] = 0;
  Buffers buf(dev());
  uint64_t da = buf.upload(a), db = buf.upload(b), dout = buf.zeros(size_t(n) * 24);
  run_kernel(*p, "int64_ops", LaunchConfig::groups({4, 1, 1}, {64, 1, 1}), Args().add(da).add(db).add(dout).add(n));
  auto o = buf.download<int64_t>(dout, size_t(3 * n));
  for (int i = 0; i < n; ++i) {
    int64_t x = a[size_t(i)], y = b[size_t(i)], d = y == 0 ? 3 : y;
    ASSERT_EQ(uint64_t(o[size_t(3 * i)]), uint64_t(x) * uint64_t(y)) << i;
    ASSERT_EQ(o[size_t(3 * i + 1)], x / d) << i;
    ASSERT_EQ(uint64_t(o[size_t(3 * i + 2)]), uint64_t(x) >> (i & 63)) << i;
  }
}

TEST_P(Hip, Block3dIds) {
  LOAD_HIP(p);
  const Dim3 groups{3, 2, 2}, block{4, 4, 4};
  const size_t total = groups.volume() * block.volume();
  Buffers buf(dev());
  uint64_t dout = buf.zeros(total * 8);
  run_kernel(*p, "block3d_ids", LaunchConfig::groups(groups, block), Args().add(dout));
  auto o = buf.download<uint32_t>(dout, 2 * total);
  for (uint32_t bz = 0; bz < 2; ++bz)
    for (uint32_t by = 0; by < 2; ++by)
      for (uint32_t bx = 0; bx < 3; ++bx)
        for (uint32_t tz = 0; tz < 4; ++tz)
          for (uint32_t ty = 0; ty < 4; ++ty)
            for (uint32_t tx = 0; tx < 4; ++tx) {
              uint32_t blk = (bz * 2 + by) * 3 + bx, idx = blk * 64 + (tz * 4 + ty) * 4 + tx;
              ASSERT_EQ(o[2 * idx], tx | ty << 8 | tz << 16) << idx;
              ASSERT_EQ(o[2 * idx + 1], bx | by << 8 | bz << 16 | 3u << 24) << idx;
            }
}

TEST_P(Hip, BallotAnyAll) {
  LOAD_HIP(p);
  Rng rng(110);
  const int n = 128;
  auto in = rng.ints(n, -5, 20);
  in[10] = 7;
  for (int i = 64; i < 128; ++i) in[size_t(i)] = std::abs(in[size_t(i)]);
  Buffers buf(dev());
  uint64_t di = buf.upload(in), dout = buf.zeros(size_t(n) * 16);
  run_kernel(*p, "ballot_vote", LaunchConfig::groups({1, 1, 1}, {128, 1, 1}), Args().add(di).add(dout));
  auto o = buf.download<uint64_t>(dout, size_t(2 * n));
  for (int w = 0; w < n; w += 64) {
    uint64_t ballot = 0;
    bool any = false, all = true;
    for (int l = 0; l < 64; ++l) {
      if (in[size_t(w + l)] > 0) ballot |= uint64_t(1) << l;
      any = any || in[size_t(w + l)] == 7;
      all = all && in[size_t(w + l)] >= 0;
    }
    for (int l = 0; l < 64; ++l) {
      ASSERT_EQ(o[size_t(2 * (w + l))], ballot) << w + l;
      ASSERT_EQ(o[size_t(2 * (w + l) + 1)], uint64_t(std::popcount(ballot) + any * 1000 + all * 100000)) << w + l;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(CodeObject, Hip, ::testing::Values(4, 5),
                         [](const ::testing::TestParamInfo<int>& i) { return "v" + std::to_string(i.param); });

}  // namespace
}  // namespace k100::emu::test
