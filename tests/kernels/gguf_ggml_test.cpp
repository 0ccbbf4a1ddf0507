// The GGUF block kernels on the emulator against ggml (llama.cpp's tensor
// library, the test oracle of tests/quant): every decoder bit for bit with
// ggml's dequantiser on random blocks, blocks with any scale bits and blocks
// ggml's own quantiser wrote (every block type); every fused dot and its reduce_blocks_k row
// sums within the stated tolerance of double-precision dots over ggml's
// decode, at dense and MoE shapes with tails; iq4nl_to_i8_k and the f16 /
// bf16 converters likewise. The same runs against the host codecs are the
// registry's self-test (kernels_test); without the oracle these tests are
// skipped (a failure under CI=true).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ggml_oracle.h"
#include "gguf/gguf_cases.h"
#include "k100/kernels/emu_test_device.h"
#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"

namespace k100::kernels::gguf {
namespace {

EmuTestDevice& device() {
  static EmuTestDevice dev(registry(), std::string(K100_SOURCE_DIR) + "/kernels", EmuTestDevice::OnFirstLaunch{});
  return dev;
}

Dequantizer ggml_decode(const test::GgmlOracle* g) {
  return [g](quant::TensorType type, const uint8_t* src, float* dst, int64_t n) {
    const int id = g->type_id(quant::type_name(type));
    if (id < 0) throw Error("the ggml oracle has no type " + quant::type_name(type));
    g->dequantize(id, src, dst, n);
  };
}

void expect_pass(const CaseResult& r, const std::string& what) {
  EXPECT_TRUE(r.pass) << what << ": " << r.note << " (max abs " << r.max_abs << ", max rel " << r.max_rel << ")";
  EXPECT_GT(r.compared, 0u) << what << " compared nothing";
}

class GgufKernelVsGgml : public ::testing::TestWithParam<quant::TensorType> {
 protected:
  const BlockFormat& format() const { return block_format(GetParam()); }
};

TEST_P(GgufKernelVsGgml, DecoderIsBitExactWithGgml) {
  K100_REQUIRE_GGML(g);
  const BlockFormat& f = format();
  for (const Case& c : dequant_cases(false)) expect_pass(run_dequant(device(), f, c, ggml_decode(g)), c.describe());
}

TEST_P(GgufKernelVsGgml, DecoderIsBitExactWithGgmlOnBlocksGgmlQuantised) {
  K100_REQUIRE_GGML(g);
  const BlockFormat& f = format();
  const int id = g->type_id(quant::type_name(f.type));
  ASSERT_GE(id, 0);
  // weight-like rows: Gaussian with a per-row scale and outliers, one zero row
  constexpr int64_t rows = 6, per_row = 1024;
  std::mt19937 rng(17);
  std::normal_distribution<float> gauss(0.0f, 1.0f);
  std::vector<float> x(size_t(rows * per_row));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < per_row; ++i) x[size_t(r * per_row + i)] = r == 1 ? 0.0f : gauss(rng) * 0.02f * float(r + 1);
  std::vector<uint8_t> blocks(size_t(rows * per_row / f.elems * f.bytes));
  ASSERT_EQ(g->quantize_chunk(id, x.data(), blocks.data(), rows, per_row), blocks.size());
  const DeviceDecode got = decode_blocks(device(), f, blocks, 2, 64, 0);
  std::vector<float> want(x.size());
  g->dequantize(id, blocks.data(), want.data(), int64_t(want.size()));
  expect_pass(combine({compare_bits(got.values, want), got.guard}), "ggml-quantised rows");
}

class GgufDotVsGgml : public GgufKernelVsGgml {};

TEST_P(GgufDotVsGgml, DotIsWithinToleranceOfDoubleDotOverGgmlDecode) {
  K100_REQUIRE_GGML(g);
  const BlockFormat& f = format();
  for (const Case& c : dot_cases(f, false)) expect_pass(run_dot(device(), f, c, ggml_decode(g)), c.describe());
  // more MoE shapes: 4 of 6 stored experts with their own activations, and a
  // grid of workgroups of 256
  Case moe = make_case({{"nbpr", 3}, {"rows", 9}, {"groups", 4}, {"slots", 6}, {"shared", 0}, {"pad", 5}, {"wg", 256}, {"grid", 0}}, 11);
  expect_pass(run_dot(device(), f, moe, ggml_decode(g)), moe.describe());
}

std::string type_param_name(const ::testing::TestParamInfo<quant::TensorType>& info) {
  return quant::type_name(info.param);
}

std::vector<quant::TensorType> block_types() {
  std::vector<quant::TensorType> out;
  for (const BlockFormat& f : block_formats()) out.push_back(f.type);
  return out;
}

// The types with a fused dot kernel (the eleven of KERNELS.md).
std::vector<quant::TensorType> dot_types() {
  std::vector<quant::TensorType> out;
  for (const BlockFormat& f : block_formats())
    if (f.dot) out.push_back(f.type);
  return out;
}

INSTANTIATE_TEST_SUITE_P(BlockType, GgufKernelVsGgml, ::testing::ValuesIn(block_types()), type_param_name);
INSTANTIATE_TEST_SUITE_P(BlockType, GgufDotVsGgml, ::testing::ValuesIn(dot_types()), type_param_name);

TEST(GgufKernelVsGgmlPlain, Iq4nlToI8MatchesGgmlDecode) {
  K100_REQUIRE_GGML(g);
  for (const Case& c : dequant_cases(false)) expect_pass(run_iq4nl_to_i8(device(), c, ggml_decode(g)), c.describe());
}

TEST(GgufKernelVsGgmlPlain, HalfConvertersMatchGgmlForEveryPattern) {
  K100_REQUIRE_GGML(g);
  for (bool bf16 : {false, true})
    for (const Case& c : half_cases(false))
      expect_pass(run_half_to_f32(device(), bf16, c, ggml_decode(g)), std::string(bf16 ? "bf16 " : "f16 ") + c.describe());
}

}  // namespace
}  // namespace k100::kernels::gguf
