// The host codecs on their own: element order and values of hand-built
// blocks (from the layouts of FORMATS.md section 6), zero blocks, error
// bounds of the quantisers, non-finite inputs, the tables, and the errors for
// bad sizes and types without a codec.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <algorithm>

#include "codec_test_data.h"
#include "k100/base/error.h"
#include "k100/quant/codec.h"
#include "k100/quant/half.h"
#include "k100/quant/iq_tables.h"

namespace k100::quant {
namespace {

constexpr uint16_t kOne = 0x3c00;   // f16 1.0
constexpr uint16_t kHalf = 0x3800;  // f16 0.5

class CodecType : public ::testing::TestWithParam<TensorType> {};
std::string param_name(const ::testing::TestParamInfo<TensorType>& p) { return type_name(p.param); }

TEST_P(CodecType, ZeroBlocksDecodeToZeros) {
  const TensorType t = GetParam();
  std::vector<uint8_t> zeros(3 * traits(t).block_bytes, 0);
  for (float v : dequantize(t, zeros)) ASSERT_EQ(v, 0.0f) << type_name(t);
}

// Relative RMS error bounds of our quantisers on ordinary weight-like rows
// (measured values are about 0.7 of these; see docs/GGUF.md).
double relative_error_bound(TensorType t) {
  switch (t) {
    case TensorType::F32: return 0.0;
    case TensorType::F16: return 1e-3;
    case TensorType::BF16: return 5e-3;
    case TensorType::Q8_0: return 0.012;
    case TensorType::Q6_K: return 0.035;
    case TensorType::Q5_K: return 0.065;
    case TensorType::Q4_K: return 0.13;
    case TensorType::Q4_0: case TensorType::IQ4_NL: case TensorType::IQ4_XS: return 0.15;
    case TensorType::IQ3_S: return 0.25;
    case TensorType::IQ3_XXS: return 0.32;
    case TensorType::IQ2_S: return 0.5;
    case TensorType::Q2_0: return 0.6;
    case TensorType::Q5_1: return 0.065;
    case TensorType::Q5_0: return 0.1;
    case TensorType::Q4_1: return 0.13;
    case TensorType::MXFP4: return 0.21;
    case TensorType::Q3_K: return 0.26;
    case TensorType::Q2_K: return 0.4;
    case TensorType::IQ2_XS: return 0.52;
    case TensorType::IQ2_XXS: return 0.66;
    case TensorType::IQ1_M: return 0.66;
    case TensorType::IQ1_S: return 0.8;
    case TensorType::TQ2_0: return 0.87;
    case TensorType::TQ1_0: return 1.0;
    default: return 0.0;
  }
}

TEST_P(CodecType, QuantiseThenDecodeStaysWithinTheTypesErrorBound) {
  const TensorType t = GetParam();
  const size_t n = 1024;
  const auto x = test::weight_like(4, n, 21, false);
  const auto y = dequantize(t, quantize(t, x));
  ASSERT_EQ(y.size(), x.size());
  double e = 0.0, v = 0.0;
  for (size_t i = 0; i < x.size(); ++i) e += (double(x[i]) - y[i]) * (double(x[i]) - y[i]), v += double(x[i]) * x[i];
  const double rel = std::sqrt(e / v);
  RecordProperty("relative_error", std::to_string(rel));
  EXPECT_LE(rel, relative_error_bound(t)) << type_name(t);
  if (t == TensorType::F32) {
    EXPECT_EQ(x, y);
  }
}

TEST_P(CodecType, SpecialRowsEncodeWithoutBlowingUp) {
  // all zero, constant, tiny, large and single-spike rows: finite output,
  // zeros stay zero, and the spike is kept within 25 %
  const TensorType t = GetParam();
  const size_t n = 512;
  const auto x = test::weight_like(6, n, 3, true);
  const auto y = dequantize(t, quantize(t, x));
  for (size_t i = 0; i < y.size(); ++i) ASSERT_TRUE(std::isfinite(y[i])) << type_name(t) << " element " << i;
  for (size_t i = n; i < 2 * n; ++i) ASSERT_EQ(y[i], 0.0f) << type_name(t);
  EXPECT_NEAR(y[5 * n + n / 3], 40.0f, 10.0f) << type_name(t);
}

TEST_P(CodecType, NonFiniteInputsAreEncodedAsZero) {
  const TensorType t = GetParam();
  const size_t n = traits(t).block_elems == 1 ? 64 : traits(t).block_elems;
  std::vector<float> x(n, 0.0f);
  x[1] = 0.5f;
  x[3] = NAN;
  x[5] = INFINITY;
  x[6] = -INFINITY;
  const auto y = dequantize(t, quantize(t, x));
  if (t == TensorType::F32 || t == TensorType::F16 || t == TensorType::BF16) {
    EXPECT_TRUE(std::isnan(y[3]));  // plain types keep their values
    EXPECT_EQ(y[5], INFINITY);
    return;
  }
  for (float v : y) ASSERT_TRUE(std::isfinite(v)) << type_name(t);
  EXPECT_NEAR(y[1], 0.5f, 0.26f) << type_name(t);  // the finite value still dominates the block
  EXPECT_LE(std::fabs(y[5]), 0.26f) << type_name(t);
}

TEST_P(CodecType, RowSizeAndPartialBlocks) {
  const TensorType t = GetParam();
  const auto& tr = traits(t);
  EXPECT_EQ(row_bytes(t, 4 * tr.block_elems), 4u * tr.block_bytes);
  if (tr.block_elems > 1) {
    std::vector<float> x(tr.block_elems + 1);
    std::vector<uint8_t> q(2 * tr.block_bytes);
    EXPECT_THROW(quantize_row(t, x.data(), q.data(), int64_t(x.size())), Error);
    EXPECT_THROW(dequantize_row(t, q.data(), x.data(), int64_t(x.size())), Error);
    EXPECT_THROW(dequantize(t, std::vector<uint8_t>(tr.block_bytes + 1)), Error);
  }
}

TEST_P(CodecType, BlocksAtOddAddressesCodeAsAligned) {
  // tensors in a GGUF with alignment 1 may start at any byte
  const TensorType t = GetParam();
  const auto x = test::weight_like(1, 200 * traits(t).block_elems, 4, false);
  const auto q = quantize(t, x);
  std::vector<uint8_t> shifted(q.size() + 1);
  std::memcpy(shifted.data() + 1, q.data(), q.size());
  std::vector<float> y(x.size());
  dequantize_row(t, shifted.data() + 1, y.data(), int64_t(y.size()));
  EXPECT_EQ(y, dequantize(t, q));
  std::vector<uint8_t> out(q.size() + 1);
  quantize_row(t, x.data(), out.data() + 1, int64_t(x.size()));
  EXPECT_TRUE(std::equal(q.begin(), q.end(), out.begin() + 1));
}

INSTANTIATE_TEST_SUITE_P(Host, CodecType, ::testing::ValuesIn(host_codec_types()), param_name);

TEST(Codec, TypesWithoutAHostCodecAreNamedErrors) {
  std::vector<uint8_t> q(292);
  std::vector<float> y(256);
  try {
    dequantize_row(TensorType::Q8_1, q.data(), y.data(), 32);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("q8_1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(quantize_row(TensorType::Q8_K, y.data(), q.data(), 256), Error);
  EXPECT_THROW(dequantize_row(TensorType::Q4_0, q.data(), y.data(), -32), Error);
}

// Hand-built blocks, values from the layout descriptions.
TEST(Codec, Q4_0ElementOrder) {
  BlockQ4_0 b{};
  b.d = kHalf;
  for (int j = 0; j < 16; ++j) b.qs[j] = uint8_t(j | ((15 - j) << 4));
  float y[32];
  dequantize(&b, 1, y);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(y[j], 0.5f * float(j - 8));
    EXPECT_EQ(y[j + 16], 0.5f * float(7 - j));
  }
}

TEST(Codec, Q2_0CodesAreLowBitsFirst) {
  BlockQ2_0 b{};
  b.d = kOne;
  for (int i = 0; i < 16; ++i) b.qs[i] = 0b11100100;  // codes 0, 1, 2, 3
  float y[64];
  dequantize(&b, 1, y);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(y[i], float(i % 4 - 1));
}

TEST(Codec, Q4_KScalesAndMinsUnpackAsSpecified) {
  // sc(j) = j + 1 (j < 4) / 40 + j (j >= 4), m(j) = 2j; every code 1
  BlockQ4_K b{};
  b.d = kOne;
  b.dmin = kHalf;
  int sc[8], m[8];
  for (int j = 0; j < 8; ++j) sc[j] = j < 4 ? j + 1 : 40 + j, m[j] = 2 * j;
  for (int k = 0; k < 4; ++k) {
    b.scales[k] = uint8_t(sc[k] | ((sc[k + 4] >> 4) << 6));
    b.scales[k + 4] = uint8_t(m[k] | ((m[k + 4] >> 4) << 6));
    b.scales[k + 8] = uint8_t((sc[k + 4] & 15) | ((m[k + 4] & 15) << 4));
  }
  std::memset(b.qs, 0x11, sizeof b.qs);
  float y[256];
  dequantize(&b, 1, y);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(y[i], float(sc[i / 32]) - 0.5f * float(m[i / 32])) << i;
}

TEST(Codec, Q6_KScalesCoverSixteenConsecutiveElements) {
  BlockQ6_K b{};
  b.d = kOne;
  for (int t = 0; t < 16; ++t) b.scales[t] = int8_t(t - 8);
  std::memset(b.ql, 0x11, sizeof b.ql);  // low nibbles 1
  std::memset(b.qh, 0xaa, sizeof b.qh);  // high bits 2 -> q = 1 + 32 - 32 = 1
  float y[256];
  dequantize(&b, 1, y);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(y[i], float(i / 16 - 8)) << i;
}

TEST(Codec, IQ3_XXSSignsHaveEvenParity) {
  // quantising values with one negative element per group must store an even
  // number of negatives: one sign flips, on the smallest element
  std::vector<float> x(256);
  for (int i = 0; i < 256; ++i) x[size_t(i)] = (i % 8 == 0 ? -1.0f : 1.0f) * (1.0f + float(i % 8));
  const auto y = dequantize(TensorType::IQ3_XXS, quantize(TensorType::IQ3_XXS, x));
  for (int g = 0; g < 32; ++g) {
    int negatives = 0;
    for (int j = 0; j < 8; ++j) negatives += y[size_t(8 * g + j)] < 0.0f;
    EXPECT_EQ(negatives % 2, 0) << "group " << g;
  }
}

TEST(Tables, ShapesAndStatedProperties) {
  EXPECT_EQ(table_bytes("iq2s_grid").size(), 8192u);
  EXPECT_EQ(table_bytes("iq3s_grid").size(), 2048u);
  EXPECT_EQ(table_bytes("iq3xxs_grid").size(), 1024u);
  EXPECT_EQ(table_bytes("ksigns_iq2xs").size(), 128u);
  EXPECT_TRUE(table_bytes("nope").empty());
  for (size_t i = 0; i < 128; ++i) {
    const uint8_t s = ksigns_iq2xs()[i];
    EXPECT_EQ(s & 127, int(i));
    EXPECT_EQ(std::popcount(unsigned(s)) % 2, 0) << i;
  }
  for (size_t j = 0; j < 8; ++j) EXPECT_EQ(kmask_iq2xs()[j], 1u << j);
  const int8_t codebook[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ(kvalues_iq4nl()[i], codebook[i]);
  auto magnitudes_in = [](uint64_t entry, int n, std::initializer_list<int> allowed) {
    for (int j = 0; j < n; ++j) {
      const int v = int((entry >> (8 * j)) & 0xff);
      if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) return false;
    }
    return true;
  };
  for (uint64_t e : iq2s_grid()) EXPECT_TRUE(magnitudes_in(e, 8, {8, 25, 43}));
  for (uint32_t e : iq3s_grid()) EXPECT_TRUE(magnitudes_in(e, 4, {1, 3, 5, 7, 9, 11, 13, 15}));
  for (uint32_t e : iq3xxs_grid()) EXPECT_TRUE(magnitudes_in(e, 4, {4, 12, 20, 28, 36, 44, 52, 62}));
}

TEST(Half, RoundTripAndRounding) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = f16_to_f32(uint16_t(h));
    if (std::isnan(f)) continue;
    ASSERT_EQ(f32_to_f16(f), h) << h;
  }
  EXPECT_EQ(f32_to_f16(65520.0f), 0x7c00);  // rounds up to infinity
  EXPECT_EQ(f32_to_f16(65519.0f), 0x7bff);
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -25)), 0x0000);  // half the smallest subnormal: ties to even
  EXPECT_EQ(f32_to_f16(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(f32_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);  // tie to even
  EXPECT_EQ(f32_to_bf16(1.0f + std::ldexp(3.0f, -8)), 0x3f82);
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(NAN))));
}

}  // namespace
}  // namespace k100::quant
