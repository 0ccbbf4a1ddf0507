// The K-quant dequantisers written in the DSL (kernels/dsl/q4k_dequant.kkl,
// q5k_dequant.kkl, q6k_dequant.kkl) on the emulator with every check on,
// bit for bit against the quant module's host dequantisers, on block counts
// that leave a partial last wave and blocks of random bytes (finite scales).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "dsl_run_support.h"
#include "k100/quant/block_scales.h"
#include "k100/quant/codec.h"

namespace {

using k100::dsl::testing::cdiv;
using k100::dsl::testing::DslKernel;
using k100::kernels::DeviceBuffer;
using k100::quant::TensorType;

struct KQuant {
  const char* file;
  TensorType type;
  uint32_t bytes;
};

// Random bytes with finite f16 scales of moderate size (random scale bits
// would give infinities and NaNs, which compare as NaN on both sides).
std::vector<uint8_t> random_blocks(const KQuant& q, uint32_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> b(size_t(n) * q.bytes);
  for (auto& x : b) x = uint8_t(rng());
  std::normal_distribution<float> scale(0.0f, 0.05f);
  for (uint32_t i = 0; i < n; ++i) {
    const float d = scale(rng), dmin = scale(rng);
    k100::quant::set_block_scales(q.type, &b[size_t(i) * q.bytes], d, dmin);
  }
  return b;
}

class DslKQuant : public ::testing::TestWithParam<KQuant> {};

TEST_P(DslKQuant, BitExactAgainstHostDequantiser) {
  const KQuant& q = GetParam();
  DslKernel k(k100::dsl::testing::read_package_kkl(q.file));
  ASSERT_TRUE(k.ok());
  for (uint32_t n : {1u, 63u, 70u}) {
    const std::vector<uint8_t> blocks = random_blocks(q, n, n + 11);
    std::vector<float> want(size_t(n) * 256);
    k100::quant::dequantize_row(q.type, blocks.data(), want.data(), int64_t(want.size()));
    DeviceBuffer<uint8_t> dw(k.dev(), blocks);
    DeviceBuffer<float> dy(k.dev(), want.size() + 64);
    k.launch({cdiv(n, 64)}, {64}, {dw.addr(), dy.addr(), n});
    const std::vector<float> got = dy.download();
    for (size_t i = 0; i < want.size(); ++i) {
      uint32_t g, w;
      std::memcpy(&g, &got[i], 4);
      std::memcpy(&w, &want[i], 4);
      ASSERT_EQ(g, w) << q.file << " blocks " << n << ": value " << i << " (block " << i / 256 << ") is " << got[i]
                      << ", want " << want[i];
    }
    for (size_t i = want.size(); i < got.size(); ++i) ASSERT_EQ(got[i], 0.0f) << "written past the blocks at " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(KQuants, DslKQuant,
                         ::testing::Values(KQuant{"q4k_dequant.kkl", TensorType::Q4_K, 144},
                                           KQuant{"q5k_dequant.kkl", TensorType::Q5_K, 176},
                                           KQuant{"q6k_dequant.kkl", TensorType::Q6_K, 210}),
                         [](const auto& info) { return std::string(info.param.file).substr(0, 3); });

}  // namespace
