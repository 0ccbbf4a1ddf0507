// The model's layers take workgroup, grid and derived arguments from the
// launch contracts of the package they run: a package whose fill_k and
// silu_mul_k differ only in their contracts (workgroups of 128 and 256
// instead of 64; both kernels are grid-stride, so any geometry is correct)
// is launched as those contracts say, with results identical bit for bit,
// and the shifts the attention kernels take come from their contracts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "k100/codeobj/writer.h"
#include "k100/kernels/package.h"
#include "k100/kernels/registry.h"
#include "k100/model/attention.h"
#include "k100/model/mlp.h"
#include "k100/runtime/runtime.h"
#include "recording_device.h"

namespace k100::model {
namespace {

// What Attention(dim 64, max_len 256) and SwiGLU launch.
const char* const kKernels[] = {"vt_scatter_k",  "gemv_f32_warp_k",        "gemv_f32_rows8_k", "fill_k",
                                "scale_mul_k",   "softmax_vec_k",          "reduce_blocks_k",  "silu_mul_k",
                                "gemv_f32_rows8_split_k"};

void set_workgroup(kernels::KernelDef& d, int wg) {
  const std::string was = "workgroup = 64\ngrid = ceil_div(n, 64)";
  const size_t at = d.launch.find(was);
  if (at == std::string::npos) throw Error(d.lookup + "'s contract changed: " + d.launch);
  d.launch.replace(at, was.size(),
                   "workgroup = " + std::to_string(wg) + "\ngrid = ceil_div(n, " + std::to_string(wg) + ")");
}

std::vector<uint8_t> package(bool changed) {
  kernels::Registry r;
  for (const char* k : kKernels) {
    kernels::KernelDef d = *kernels::registry().find(k);
    if (changed && d.lookup == "fill_k") set_workgroup(d, 128);
    if (changed && d.lookup == "silu_mul_k") set_workgroup(d, 256);
    r.add(d);
  }
  const kernels::Package p = kernels::build_package(r, isa::Target::gfx926, K100_SOURCE_DIR "/kernels");
  return codeobj::write_code_object(p.code_object);
}

struct LayerRuns {
  std::vector<float> attention, swiglu;
  RecordingDevice::Launched fill, silu, split_gemv, scatter;
};

LayerRuns run(bool changed, const std::vector<float>& k, const std::vector<float>& v, const std::vector<float>& q,
        const std::vector<float>& gate, const std::vector<float>& up) {
  runtime::RuntimeOptions o;
  o.default_package = false;
  runtime::Runtime rt(o);
  rt.load_package(package(changed), changed ? "changed contracts" : "library contracts");
  RuntimeDevice base(rt);
  RecordingDevice dev(base);
  LayerRuns out;
  Attention attn(dev, 64, 256, nullptr, "attn contract");
  attn.append(k, v);
  out.attention = attn.forward(q);
  SwiGLU act(dev, nullptr, "swiglu contract");
  Workspace ws(dev);
  const uint64_t g = ws.upload("gate", gate.data(), gate.size() * 4), u = ws.upload("up", up.data(), up.size() * 4);
  out.swiglu = dev.download<float>(act.forward_device(g, u, int64_t(gate.size())), gate.size());
  auto one = [&](const char* kernel) {
    const std::vector<RecordingDevice::Launched> l = dev.of(kernel);
    if (l.size() != 1) throw Error(std::string(kernel) + " launched " + std::to_string(l.size()) + " times");
    return l[0];
  };
  out.fill = one("fill_k");
  out.silu = one("silu_mul_k");
  out.split_gemv = one("gemv_f32_rows8_split_k");
  out.scatter = one("vt_scatter_k");
  return out;
}

TEST(LayerContract, ModelFollowsThePackagesContracts) {
  const int64_t dim = 64, rows = 100, n = 1000;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  auto draw = [&](int64_t count) {
    std::vector<float> x(static_cast<size_t>(count));
    for (float& e : x) e = u(rng);
    return x;
  };
  const std::vector<float> k = draw(rows * dim), v = draw(rows * dim), q = draw(dim), gate = draw(n), up = draw(n);
  const LayerRuns lib = run(false, k, v, q, gate, up), chg = run(true, k, v, q, gate, up);

  // geometry as each package's contract says: 156 padding scores, 1000 activations
  EXPECT_EQ(lib.fill.workgroup, 64u);
  EXPECT_EQ(lib.fill.grid, 3u);
  EXPECT_EQ(chg.fill.workgroup, 128u);
  EXPECT_EQ(chg.fill.grid, 2u);
  EXPECT_EQ(lib.silu.workgroup, 64u);
  EXPECT_EQ(lib.silu.grid, 16u);
  EXPECT_EQ(chg.silu.workgroup, 256u);
  EXPECT_EQ(chg.silu.grid, 4u);
  // the shifts from the contracts: 2 splits of the 256 padded rows (sh 1), one 64-column tile (cshift 0)
  for (const LayerRuns* r : {&lib, &chg}) {
    EXPECT_EQ(r->split_gemv.grid, 16u);
    EXPECT_EQ(r->split_gemv.argv.back(), 1u);
    EXPECT_EQ(r->scatter.grid, 2u);
    EXPECT_EQ(r->scatter.argv.back(), 0u);
  }

  // the same results, bit for bit
  ASSERT_EQ(lib.attention.size(), size_t(dim));
  ASSERT_EQ(chg.attention.size(), size_t(dim));
  EXPECT_EQ(std::memcmp(lib.attention.data(), chg.attention.data(), lib.attention.size() * 4), 0);
  ASSERT_EQ(lib.swiglu.size(), chg.swiglu.size());
  EXPECT_EQ(std::memcmp(lib.swiglu.data(), chg.swiglu.data(), lib.swiglu.size() * 4), 0);

  // and right: softmax(K q / sqrt(dim)) V, silu(gate) * up
  std::vector<double> s(static_cast<size_t>(rows));
  double mx = -1e300, sum = 0;
  for (int64_t t = 0; t < rows; ++t) {
    double d = 0;
    for (int64_t i = 0; i < dim; ++i) d += double(k[size_t(t * dim + i)]) * q[size_t(i)];
    s[size_t(t)] = d / std::sqrt(double(dim));
    mx = std::max(mx, s[size_t(t)]);
  }
  for (double& e : s) sum += (e = std::exp(e - mx));
  double worst = 0;
  for (int64_t i = 0; i < dim; ++i) {
    double want = 0;
    for (int64_t t = 0; t < rows; ++t) want += s[size_t(t)] / sum * v[size_t(t * dim + i)];
    worst = std::max(worst, std::abs(want - lib.attention[size_t(i)]));
  }
  EXPECT_LT(worst, 1e-5);
  worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double g = gate[size_t(i)], want = g / (1 + std::exp(-g)) * up[size_t(i)];
    worst = std::max(worst, std::abs(want - lib.swiglu[size_t(i)]));
  }
  EXPECT_LT(worst, 1e-5);
}

}  // namespace
}  // namespace k100::model
