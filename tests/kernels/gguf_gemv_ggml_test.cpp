// The fast decode GEMVs (*_gemv_k) on the emulator against a double-precision
// dot product over the weights as ggml (llama.cpp) dequantises them: every
// type at the registry's shapes (tails of rows and of
// block groups, one to four activation rows, rows split over waves, MoE
// groups on a permutation of the experts) and the sweep's.
#include <gtest/gtest.h>

#include "../quant/ggml_oracle.h"
#include "gguf/gemv_reference.h"
#include "k100/kernels/emu_test_device.h"
#include "k100/kernels/registry.h"
#include "k100/quant/gemv_layout.h"

namespace k100::kernels {
namespace {

using quant::TensorType;

EmuTestDevice& device() {
  static EmuTestDevice dev(registry(), std::string(K100_SOURCE_DIR) + "/kernels", EmuTestDevice::OnFirstLaunch{});
  return dev;
}

// Every type with a fast GEMV (a GEMV layout).
std::vector<TensorType> gemv_types() {
  std::vector<TensorType> out;
  for (const quant::TypeTraits& t : quant::all_types())
    if (quant::has_gemv_layout(t.type)) out.push_back(t.type);
  return out;
}

class GemvType : public ::testing::TestWithParam<TensorType> {};

void run_all(const test::GgmlOracle* g, TensorType t, bool sweep) {
  const int id = g->type_id(quant::type_name(t));
  ASSERT_GE(id, 0) << "ggml has no type " << quant::type_name(t);
  const gguf_gemv::RowDequantizer ggml = [g, id](const uint8_t* row, float* out, int64_t n) {
    g->dequantize(id, row, out, n);
  };
  const auto cases = gguf_gemv::gemv_cases(t, sweep);
  ASSERT_GE(cases.size(), 8u);
  for (const Case& c : cases) {
    const CaseResult r = gguf_gemv::run_gemv_case(device(), c, t, ggml);
    EXPECT_TRUE(r.pass) << quant::type_name(t) << " " << c.describe() << ": " << r.note << " (max abs " << r.max_abs
                        << ", max rel " << r.max_rel << ")";
    EXPECT_GT(r.compared, 0u);
  }
}

TEST_P(GemvType, MatchesDotOverGgmlDequantisedWeights) {
  K100_REQUIRE_GGML(g);
  run_all(g, GetParam(), false);
}

// Q4_K and IQ3_S (one of each decoder family with a partial last group) at every sweep shape.
TEST(GemvSweep, Q4KAndIQ3SAtSweepShapes) {
  K100_REQUIRE_GGML(g);
  run_all(g, TensorType::Q4_K, true);
  run_all(g, TensorType::IQ3_S, true);
}

INSTANTIATE_TEST_SUITE_P(All, GemvType, ::testing::ValuesIn(gemv_types()),
                         [](const ::testing::TestParamInfo<TensorType>& p) { return quant::type_name(p.param); });

}  // namespace
}  // namespace k100::kernels
