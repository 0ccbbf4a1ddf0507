// GemvLinear takes its geometry, derived arguments and workspace from the
// launch contract the loaded package carries: a package whose q4_0_gemv_k
// differs only in its contract (default workgroup 128 and split 2 instead
// of 256 and 1) is launched as that contract says, with the same results.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "k100/codeobj/writer.h"
#include "k100/kernels/package.h"
#include "k100/kernels/registry.h"
#include "k100/model/linear.h"
#include "k100/quant/codec.h"
#include "k100/runtime/runtime.h"
#include "recording_device.h"

namespace k100::model {
namespace {

// The package of q4_0_gemv_k (its contract's defaults replaced when `wg` is
// not 0) and add_inplace_k, built from a registry of the two.
std::vector<uint8_t> package(int wg, int split) {
  kernels::KernelDef gemv = *kernels::registry().find("q4_0_gemv_k");
  if (wg) {
    const std::string was = "choose wg = 256\nchoose split = 1\n";
    const size_t at = gemv.launch.find(was);
    if (at == std::string::npos) throw Error("q4_0_gemv_k's contract changed: " + gemv.launch);
    gemv.launch.replace(at, was.size(),
                        "choose wg = " + std::to_string(wg) + "\nchoose split = " + std::to_string(split) + "\n");
  }
  kernels::Registry r;
  r.add(gemv);
  r.add(*kernels::registry().find("add_inplace_k"));
  const kernels::Package p = kernels::build_package(r, isa::Target::gfx926, K100_SOURCE_DIR "/kernels");
  return codeobj::write_code_object(p.code_object);
}

TEST(GemvContract, ModelFollowsThePackagesContract) {
  const int64_t n = 64 * 272, k = 64;  // 272 tiles: the split stays the contract's
  std::mt19937 g(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> wf(static_cast<size_t>(n * k)), x(static_cast<size_t>(k));
  for (float& v : wf) v = u(g);
  for (float& v : x) v = u(g);
  const std::vector<uint8_t> bytes = quant::quantize(quant::TensorType::Q4_0, wf);
  const std::vector<float> wd = quant::dequantize(quant::TensorType::Q4_0, bytes);
  for (auto [wg, split] : {std::pair{0, 0}, std::pair{128, 2}}) {
    runtime::RuntimeOptions o;
    o.default_package = false;
    runtime::Runtime rt(o);
    rt.load_package(package(wg, split), wg ? "changed contract" : "library contract");
    RuntimeDevice base(rt);
    RecordingDevice dev(base);
    GemvLinear lin(dev, n, k, quant::TensorType::Q4_0, bytes, nullptr, "q4_0 contract");
    EXPECT_EQ(lin.geometry().workgroup, wg ? 128u : 256u);
    EXPECT_EQ(lin.geometry().split, wg ? 2u : 1u);
    const std::vector<float> y = lin.forward(x, 1);
    ASSERT_EQ(dev.launched.size(), 1u);
    EXPECT_EQ(dev.launched[0].kernel, dev.kernel_id("q4_0_gemv_k"));
    // 256 threads at split 1: 4 tiles per workgroup; 128 at split 2: one
    EXPECT_EQ(dev.launched[0].workgroup, wg ? 128u : 256u);
    EXPECT_EQ(dev.launched[0].grid, wg ? 272u : 68u);
    ASSERT_EQ(y.size(), size_t(n));
    double worst = 0;
    for (int64_t r = 0; r < n; ++r) {
      double want = 0;
      for (int64_t i = 0; i < k; ++i) want += double(wd[size_t(r * k + i)]) * x[size_t(i)];
      worst = std::max(worst, std::abs(double(y[size_t(r)]) - want));
    }
    EXPECT_LT(worst, 1e-4);
  }
}

// A package whose kernel carries no contract is refused by name.
TEST(GemvContract, KernelWithoutContractIsRefused) {
  kernels::KernelDef gemv = *kernels::registry().find("q4_0_gemv_k");
  gemv.launch.clear();
  kernels::Registry r;
  r.add(gemv);
  r.add(*kernels::registry().find("add_inplace_k"));
  const kernels::Package p = kernels::build_package(r, isa::Target::gfx926, K100_SOURCE_DIR "/kernels");
  runtime::RuntimeOptions o;
  o.default_package = false;
  runtime::Runtime rt(o);
  rt.load_package(codeobj::write_code_object(p.code_object), "no contract");
  RuntimeDevice dev(rt);
  const std::vector<float> wf(64 * 32, 0.5f);
  const std::vector<uint8_t> bytes = quant::quantize(quant::TensorType::Q4_0, wf);
  try {
    GemvLinear lin(dev, 64, 32, quant::TensorType::Q4_0, bytes, nullptr, "q4_0");
    FAIL() << "a kernel without a launch contract was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'q4_0_gemv_k' has no launch contract"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace k100::model
