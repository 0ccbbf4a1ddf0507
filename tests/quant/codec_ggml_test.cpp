// The host codecs against ggml's own: decoding bit-exact on random blocks and
// on blocks ggml quantised, ggml decoding our blocks exactly as we do, our
// quantisation error next to ggml's, the type table, and the f16/bf16
// conversions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "codec_test_data.h"
#include "ggml_oracle.h"
#include "k100/quant/codec.h"
#include "k100/quant/half.h"

namespace k100::quant {
namespace {

using test::GgmlOracle;

// Every block type with a host codec.
std::vector<TensorType> block_types() {
  std::vector<TensorType> out;
  for (TensorType t : host_codec_types())
    if (traits(t).block_elems > 1) out.push_back(t);
  return out;
}

class BlockType : public ::testing::TestWithParam<TensorType> {};

std::string param_name(const ::testing::TestParamInfo<TensorType>& p) { return type_name(p.param); }

// Index of the first element whose bits differ, or -1.
long first_difference(const std::vector<float>& a, const std::vector<float>& b, bool nan_equal) {
  if (a.size() != b.size()) return 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (nan_equal && std::isnan(a[i]) && std::isnan(b[i])) continue;
    if (std::memcmp(&a[i], &b[i], 4) != 0) return long(i);
  }
  return -1;
}

int ggml_id(const GgmlOracle* g, TensorType t) {
  const int id = g->type_id(type_name(t));
  EXPECT_EQ(id, int(t)) << type_name(t) << ": ggml's id differs";
  return id;
}

std::vector<float> ggml_decode(const GgmlOracle* g, TensorType t, const std::vector<uint8_t>& blocks) {
  const auto& tr = traits(t);
  std::vector<float> out(blocks.size() / tr.block_bytes * tr.block_elems);
  g->dequantize(ggml_id(g, t), blocks.data(), out.data(), int64_t(out.size()));
  return out;
}

TEST_P(BlockType, DecodesRandomBlocksBitExactlyLikeGgml) {
  K100_REQUIRE_GGML(g);
  const TensorType t = GetParam();
  for (uint32_t seed : {1u, 2u, 3u}) {
    const auto blocks = test::random_blocks(t, 512, seed, true);
    const auto ours = dequantize(t, blocks);
    const auto theirs = ggml_decode(g, t, blocks);
    const long d = first_difference(ours, theirs, false);
    EXPECT_EQ(d, -1) << type_name(t) << " seed " << seed << ": element " << d << " (block "
                     << d / long(traits(t).block_elems) << "): ours " << ours[size_t(std::max(d, 0L))] << ", ggml "
                     << theirs[size_t(std::max(d, 0L))];
  }
}

TEST_P(BlockType, DecodesBlocksWithAnyScaleBitsLikeGgml) {
  // scales with every f16 pattern, infinities and NaNs included: equal bits,
  // except that NaN payloads may differ
  K100_REQUIRE_GGML(g);
  const TensorType t = GetParam();
  const auto blocks = test::random_blocks(t, 4096, 11, false);
  const auto ours = dequantize(t, blocks);
  const auto theirs = ggml_decode(g, t, blocks);
  const long d = first_difference(ours, theirs, true);
  EXPECT_EQ(d, -1) << type_name(t) << ": element " << d;
}

// How much larger our quantisers' error may be than ggml's on the same
// ordinary weight-like rows (measured ratios 0.69 to 1.01; docs/GGUF.md).
constexpr double kErrorRatioBound = 1.1;

// The mean over rows of (RMS error / RMS value), rows of zeros left out, so
// that rows of every scale count alike.
double relative_error(const std::vector<float>& x, const std::vector<float>& y, size_t n) {
  double sum = 0.0;
  int rows = 0;
  for (size_t r = 0; r * n < x.size(); ++r) {
    double e = 0.0, v = 0.0;
    for (size_t i = r * n; i < (r + 1) * n; ++i) {
      e += (double(x[i]) - y[i]) * (double(x[i]) - y[i]);
      v += double(x[i]) * x[i];
    }
    if (v > 0.0) sum += std::sqrt(e / v), ++rows;
  }
  return sum / rows;
}

// ggml quantises weight-like rows (its IQ2_S set-up takes seconds, so one
// test does all that needs ggml's quantiser): we decode its blocks
// bit-exactly, also those of its reference quantiser, and our own
// quantiser's error on the same rows is within a stated factor of ggml's.
TEST_P(BlockType, GgmlQuantisedBlocksDecodeBitExactlyAndOurErrorIsNearGgmls) {
  K100_REQUIRE_GGML(g);
  const TensorType t = GetParam();
  const size_t rows = 8, n = 1024;
  const auto x = test::weight_like(rows, n, 7);
  std::vector<uint8_t> blocks(row_bytes(t, rows * n));
  const size_t written = g->quantize_chunk(ggml_id(g, t), x.data(), blocks.data(), int64_t(rows), int64_t(n));
  ASSERT_EQ(written, blocks.size());
  const auto theirs = ggml_decode(g, t, blocks);
  EXPECT_EQ(first_difference(dequantize(t, blocks), theirs, false), -1) << type_name(t);
  // ggml's reference quantiser (its i-quant tables are set up by now), for the types that have one
  std::vector<uint8_t> ref(blocks.size());
  if (g->quantize_ref(ggml_id(g, t), x.data(), ref.data(), int64_t(x.size()))) {
    EXPECT_EQ(first_difference(dequantize(t, ref), ggml_decode(g, t, ref), false), -1) << type_name(t);
  }

  // the error comparison on ordinary rows only (the special rows measure the
  // format's limits, not the quantiser)
  const auto w = test::weight_like(rows, n, 8, false);
  std::vector<uint8_t> wq(blocks.size());
  g->quantize_chunk(ggml_id(g, t), w.data(), wq.data(), int64_t(rows), int64_t(n));
  const double ours_err = relative_error(w, dequantize(t, quantize(t, w)), n);
  const double theirs_err = relative_error(w, ggml_decode(g, t, wq), n);
  RecordProperty("relative_error_ours", std::to_string(ours_err));
  RecordProperty("relative_error_ggml", std::to_string(theirs_err));
  std::printf("%-8s relative error: ours %.5f, ggml %.5f (ratio %.3f)\n", type_name(t).c_str(), ours_err,
              theirs_err, ours_err / theirs_err);
  EXPECT_LE(ours_err, kErrorRatioBound * theirs_err) << type_name(t);
}

TEST_P(BlockType, GgmlDecodesOurBlocksAsWeDo) {
  K100_REQUIRE_GGML(g);
  const TensorType t = GetParam();
  const auto x = test::weight_like(8, 1024, 9);
  const auto q = quantize(t, x);
  EXPECT_EQ(first_difference(dequantize(t, q), ggml_decode(g, t, q), false), -1) << type_name(t);
}

INSTANTIATE_TEST_SUITE_P(Ggml, BlockType, ::testing::ValuesIn(block_types()), param_name);

TEST(TypeTable, EveryTypeHasGgmlsIdNameAndGeometry) {
  K100_REQUIRE_GGML(g);
  for (const TypeTraits& t : all_types()) {
    const int id = g->type_id(t.name);
    EXPECT_EQ(id, int(t.type)) << t.name;
    if (id < 0) continue;
    EXPECT_EQ(g->block_size(id), int64_t(t.block_elems)) << t.name;
    EXPECT_EQ(g->type_size(id), size_t(t.block_bytes)) << t.name;
  }
  // and every id ggml names (other than removed ones) is in the table
  for (int id = 0; id < 43; ++id) {
    const std::string name = g->type_name(id);
    if (name == "DEPRECATED" || name.find("REMOVED") != std::string::npos) {
      EXPECT_EQ(find_type(uint32_t(id)), nullptr) << id;
      continue;
    }
    ASSERT_NE(find_type(uint32_t(id)), nullptr) << "ggml type " << id << " " << name;
    EXPECT_EQ(name, find_type(uint32_t(id))->name);
  }
}

TEST(HalfConversions, WideningEqualsGgmlForEveryBitPattern) {
  K100_REQUIRE_GGML(g);
  for (uint32_t h = 0; h < 65536; ++h) {
    const float a = f16_to_f32(uint16_t(h)), b = g->fp16_to_fp32(uint16_t(h));
    ASSERT_EQ(std::memcmp(&a, &b, 4), 0) << "f16 " << h;
    const float c = bf16_to_f32(uint16_t(h)), d = g->bf16_to_fp32(uint16_t(h));
    ASSERT_EQ(std::memcmp(&c, &d, 4), 0) << "bf16 " << h;
  }
}

TEST(HalfConversions, NarrowingEqualsGgmlOnRandomAndEdgeValues) {
  K100_REQUIRE_GGML(g);
  std::mt19937 rng(5);
  std::vector<float> x;
  for (int i = 0; i < 200000; ++i) {
    uint32_t bits = rng();
    float f;
    std::memcpy(&f, &bits, 4);
    if (!std::isnan(f)) x.push_back(f);
  }
  // around every f16 rounding boundary and the subnormal / overflow edges
  for (uint32_t h = 0; h < 0x7c00; h += 7) {
    const float lo = f16_to_f32(uint16_t(h)), hi = f16_to_f32(uint16_t(h + 1));
    x.push_back(lo + (hi - lo) / 2), x.push_back(-(lo + (hi - lo) / 2));
    x.push_back(std::nextafter(lo + (hi - lo) / 2, 0.0f)), x.push_back(std::nextafter(lo + (hi - lo) / 2, 1e9f));
  }
  for (float v : {0.0f, -0.0f, 65504.0f, 65519.99f, 65520.0f, 1e-8f, 2.98e-8f, 5.96e-8f, INFINITY, -INFINITY})
    x.push_back(v);
  std::vector<uint16_t> theirs(x.size()), theirs_bf(x.size());
  g->fp32_to_fp16_row(x.data(), theirs.data(), int64_t(x.size()));
  g->fp32_to_bf16_row_ref(x.data(), theirs_bf.data(), int64_t(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(f32_to_f16(x[i]), theirs[i]) << "f32 " << x[i];
    ASSERT_EQ(f32_to_bf16(x[i]), theirs_bf[i]) << "f32 " << x[i];
  }
}

}  // namespace
}  // namespace k100::quant
