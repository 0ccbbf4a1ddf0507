// The GEMV layout (gemv_layout.h): geometry, a lossless round trip for every
// type at shapes with row and block tails, and the documented positions of
// the codes the kernels extract, checked against the host codecs' values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "k100/base/error.h"
#include "k100/quant/codec.h"
#include "k100/quant/gemv_layout.h"
#include "k100/quant/half.h"

namespace k100::quant {
namespace {

// Every type with a GEMV layout.
std::vector<TensorType> gemv_types() {
  std::vector<TensorType> out;
  for (const TypeTraits& t : all_types())
    if (has_gemv_layout(t.type)) out.push_back(t.type);
  return out;
}

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::vector<uint8_t> b(n);
  for (auto& x : b) x = uint8_t(g());
  return b;
}

class GemvLayoutType : public ::testing::TestWithParam<TensorType> {};

TEST_P(GemvLayoutType, GroupTranscodingIsABijectionOnBits) {
  const TensorType t = GetParam();
  const GemvLayout l = gemv_layout(t, 1, traits(t).block_elems);
  const size_t group_bytes = size_t(l.blocks_per_group) * size_t(l.block_bytes);
  EXPECT_EQ(size_t(l.lane_dwords()) * 4, group_bytes) << "a row's group takes exactly its GGUF bytes";
  std::vector<uint32_t> lane(size_t(l.lane_dwords()));
  std::vector<uint8_t> back(group_bytes);
  for (uint32_t seed = 1; seed <= 64; ++seed) {
    auto blocks = random_bytes(group_bytes, seed);
    encode_gemv_group(t, blocks.data(), l.blocks_per_group, lane.data());
    decode_gemv_group(t, lane.data(), back.data());
    ASSERT_EQ(back, blocks) << type_name(t) << " seed " << seed;
  }
  // Missing blocks of a partial group are zero.
  auto blocks = random_bytes(group_bytes, 99);
  encode_gemv_group(t, blocks.data(), 1, lane.data());
  decode_gemv_group(t, lane.data(), back.data());
  for (size_t i = 0; i < group_bytes; ++i) ASSERT_EQ(back[i], i < size_t(l.block_bytes) ? blocks[i] : 0) << i;
}

TEST_P(GemvLayoutType, ByteRunsAreTheTranscodingOfTheByteMovingTypes) {
  const TensorType t = GetParam();
  const std::vector<GemvByteRun> runs = gemv_byte_runs(t);
  const bool moves_bytes = t == TensorType::Q8_0 || t == TensorType::IQ2_S || t == TensorType::IQ3_S ||
                           t == TensorType::IQ3_XXS || t == TensorType::IQ2_XXS || t == TensorType::IQ2_XS ||
                           t == TensorType::IQ1_S || t == TensorType::IQ1_M;
  ASSERT_EQ(runs.empty(), !moves_bytes) << type_name(t);
  if (runs.empty()) return;
  const GemvLayout l = gemv_layout(t, 1, traits(t).block_elems);
  const size_t group_bytes = size_t(l.blocks_per_group) * size_t(l.block_bytes);
  auto blocks = random_bytes(group_bytes, 7);
  std::vector<uint32_t> lane(size_t(l.lane_dwords()));
  encode_gemv_group(t, blocks.data(), l.blocks_per_group, lane.data());
  std::vector<uint8_t> moved(group_bytes, 0), covered(group_bytes, 0);
  for (const GemvByteRun& r : runs) {
    ASSERT_EQ(r.lane_byte / 4, (r.lane_byte + r.bytes - 1) / 4) << "a run crosses a lane dword";
    for (int i = 0; i < r.bytes; ++i) {
      moved[size_t(r.lane_byte + i)] = blocks[size_t(r.group_byte + i)];
      ++covered[size_t(r.lane_byte + i)];
    }
  }
  EXPECT_EQ(covered, std::vector<uint8_t>(group_bytes, 1));
  EXPECT_EQ(0, std::memcmp(moved.data(), lane.data(), group_bytes));
}

TEST_P(GemvLayoutType, MatrixRoundTripWithTails) {
  const TensorType t = GetParam();
  const int64_t be = traits(t).block_elems;
  for (auto [rows, blocks] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {64, 8}, {65, 3}, {130, 17}, {200, 2}}) {
    const GemvLayout l = gemv_layout(t, rows, blocks * be);
    EXPECT_EQ(l.tiles, (rows + 63) / 64);
    EXPECT_EQ(l.groups, (blocks + l.blocks_per_group - 1) / l.blocks_per_group);
    EXPECT_EQ(l.bytes(), l.table_bytes + l.tiles * 64 * l.groups * l.blocks_per_group * l.block_bytes);
    auto src = random_bytes(size_t(rows * blocks * l.block_bytes), uint32_t(rows + blocks));
    auto packed = repack_for_gemv(t, rows, blocks * be, src);
    std::vector<uint8_t> back(src.size());
    unpack_from_gemv(l, packed.data(), back.data());
    ASSERT_EQ(back, src) << type_name(t) << " " << rows << " x " << blocks << " blocks";
  }
}

TEST_P(GemvLayoutType, PiecesOfTheRowsAreAdjacent) {
  // Dword j of a piece: the 64 rows' copies are consecutive (one load
  // instruction of the wave reads 64 x width x 4 contiguous bytes).
  const TensorType t = GetParam();
  const GemvLayout l = gemv_layout(t, 64, traits(t).block_elems);
  std::vector<char> used(size_t(l.group_bytes()), 0);
  for (int r = 0; r < 64; ++r)
    for (int d = 0; d < l.lane_dwords(); ++d) {
      const int64_t at = l.lane_dword_offset(r, d);
      ASSERT_GE(at, 0);
      ASSERT_LT(at + 4, l.group_bytes() + 1);
      ASSERT_EQ(at % 4, 0);
      for (int k = 0; k < 4; ++k) ASSERT_FALSE(used[size_t(at + k)]++) << "two lane dwords share byte " << at + k;
      if (r > 0) {
        const int64_t prev = l.lane_dword_offset(r - 1, d);
        const int width = int((at - prev) / 4);
        EXPECT_TRUE(width >= 1 && width <= 4) << "row r follows row r - 1 by one piece width";
      }
    }
}

INSTANTIATE_TEST_SUITE_P(All, GemvLayoutType, ::testing::ValuesIn(gemv_types()),
                         [](const auto& info) { return type_name(info.param); });

TEST(GemvLayout, RejectsBadShapes) {
  EXPECT_THROW(gemv_layout(TensorType::F16, 4, 32), Error);
  EXPECT_THROW(gemv_layout(TensorType::Q4_K, 4, 100), Error);
  EXPECT_THROW(gemv_layout(TensorType::Q4_0, 0, 32), Error);
  EXPECT_THROW(repack_for_gemv(TensorType::Q4_0, 2, 32, std::vector<uint8_t>(35)), Error);
}

// ---- the documented code positions, as the kernels extract them ----------

// f16 half-word bits as the kernels feed them to v_fma_mix_f32: a code c in
// bits 0-9 is the denormal c * 2^-24.
double half_value(uint32_t pair, int high) { return double(f16_to_f32(uint16_t(pair >> (16 * high)))) * 16777216.0; }

// The block codes of one row group, recovered from the host decoder: with
// scale 1 (and min 0) a code is the value plus the format's offset.
std::vector<float> decoded(TensorType t, const std::vector<uint8_t>& blocks) {
  std::vector<float> v(blocks.size() / traits(t).block_bytes * traits(t).block_elems);
  dequantize_row(t, blocks.data(), v.data(), int64_t(v.size()));
  return v;
}

TEST(GemvLayout, Q4_0PairsAreTheDocumentedNibbles) {
  auto blocks = random_bytes(8 * 18, 5);
  for (int b = 0; b < 8; ++b) {
    const uint16_t one = f32_to_f16(1.0f);
    std::memcpy(&blocks[size_t(18 * b)], &one, 2);
  }
  const auto v = decoded(TensorType::Q4_0, blocks);
  std::vector<uint32_t> lane(36);
  encode_gemv_group(TensorType::Q4_0, blocks.data(), 8, lane.data());
  for (int b = 0; b < 8; ++b)
    for (int t = 0; t < 4; ++t) {
      const uint32_t q = lane[size_t(4 + 4 * b + t)];
      const uint32_t pairs[4] = {q & 0x000F000F, (q & 0x00F000F0), (q >> 8) & 0x000F000F, (q >> 8) & 0x00F000F0};
      for (int p = 0; p < 4; ++p)
        for (int h = 0; h < 2; ++h) {
          const double code = half_value(pairs[p], h) / (p % 2 ? 16 : 1);
          EXPECT_EQ(code - 8, v[size_t(32 * b + 8 * t + 2 * p + h)]) << "block " << b << " dword " << t << " pair " << p;
        }
    }
}

TEST(GemvLayout, Q2_0PairsAreTheDocumentedCrumbs) {
  auto blocks = random_bytes(4 * 18, 6);
  for (int b = 0; b < 4; ++b) {
    const uint16_t one = f32_to_f16(1.0f);
    std::memcpy(&blocks[size_t(18 * b)], &one, 2);
  }
  const auto v = decoded(TensorType::Q2_0, blocks);
  std::vector<uint32_t> lane(18);
  encode_gemv_group(TensorType::Q2_0, blocks.data(), 4, lane.data());
  for (int b = 0; b < 4; ++b)
    for (int t = 0; t < 4; ++t)
      for (int a = 0; a < 8; ++a) {
        const uint32_t q = lane[size_t(2 + 4 * b + t)] >> (a < 4 ? 0 : 8);
        const uint32_t pair = q & (0x00030003u << (2 * (a % 4)));
        for (int h = 0; h < 2; ++h) {
          const double code = half_value(pair, h) / std::pow(4.0, a % 4);
          EXPECT_EQ(code - 1, v[size_t(64 * b + 16 * t + 2 * a + h)]) << "block " << b << " dword " << t << " pair " << a;
        }
      }
}

// K-quants with d = 1 and every (scale, min) = (1, 0): values are the codes.
TEST(GemvLayout, Q5_KPairsAreTheDocumentedFields) {
  auto blocks = random_bytes(176, 7);
  const uint16_t one = f32_to_f16(1.0f), zero = 0;
  std::memcpy(&blocks[0], &one, 2);
  std::memcpy(&blocks[2], &zero, 2);
  const uint8_t scales[12] = {1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1};  // sc = 1, m = 0 for all eight
  std::memcpy(&blocks[4], scales, 12);
  const auto v = decoded(TensorType::Q5_K, blocks);
  std::vector<uint32_t> lane(44);
  encode_gemv_group(TensorType::Q5_K, blocks.data(), 1, lane.data());
  for (int s = 0; s < 8; ++s) {
    const uint32_t* dw = &lane[size_t(4 + 5 * s)];
    for (int p = 0; p < 16; ++p) {
      uint32_t pair = 0;
      double scale = 1;
      if (p < 15) {
        const uint32_t q = dw[p / 3] >> (p % 3 == 2 ? 10 : 0);
        pair = q & (p % 3 == 1 ? 0x03E003E0u : 0x001F001Fu);
        scale = p % 3 == 1 ? 32 : 1;
      } else {
        for (int b = 0; b < 5; ++b) pair |= (dw[b] >> (15 - b)) & (0x00010001u << b);
      }
      for (int h = 0; h < 2; ++h) EXPECT_EQ(half_value(pair, h) / scale, v[size_t(32 * s + 2 * p + h)]) << s << " " << p;
    }
  }
}

TEST(GemvLayout, Q6_KPairsAreTheDocumentedFields) {
  auto blocks = random_bytes(2 * 210, 8);
  const uint16_t one = f32_to_f16(1.0f);
  for (int b = 0; b < 2; ++b) {
    std::memcpy(&blocks[size_t(210 * b + 208)], &one, 2);
    for (int i = 0; i < 16; ++i) blocks[size_t(210 * b + 192 + i)] = 1;
  }
  const auto v = decoded(TensorType::Q6_K, blocks);
  std::vector<uint32_t> lane(105);
  encode_gemv_group(TensorType::Q6_K, blocks.data(), 2, lane.data());
  for (int j = 0; j < 16; ++j) {
    const uint32_t* dw = &lane[size_t(9 + 6 * j)];
    for (int q = 0; q < 4; ++q)
      for (int r = 0; r < 4; ++r) {
        uint32_t pair = 0;
        if (r < 3) {
          const int R = 3 * q + r;
          pair = (dw[R / 2] >> (R % 2 ? 8 : 0)) & 0x003F003Fu;
        } else {
          const int shift = q % 2 ? 14 : 6;
          for (int t = 0; t < 3; ++t) pair |= (dw[3 * (q / 2) + t] >> (shift - 2 * t)) & (0x00030003u << (2 * t));
        }
        for (int h = 0; h < 2; ++h)
          EXPECT_EQ(half_value(pair, h) - 32, v[size_t(32 * j + 8 * q + 2 * r + h)]) << j << " " << q << " " << r;
      }
  }
}

}  // namespace
}  // namespace k100::quant
