// The model layers on the default device (the emulator here) against host
// references in double: linear layers of every float type (rows, accumulate,
// selected groups), RMSNorm, SwiGLU and MLP, KV cache, RoPE, single-head and
// multi-head / grouped-query attention, MoE combine and bucketed experts,
// TransformerLayer, run_sequence and the device argmax.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "k100/base/error.h"
#include "k100/model/attention.h"
#include "k100/model/kv_cache.h"
#include "k100/model/linear.h"
#include "k100/model/mlp.h"
#include "k100/model/moe.h"
#include "k100/model/norm.h"
#include "k100/model/rope.h"
#include "k100/model/sequence.h"
#include "k100/model/transformer_layer.h"
#include "k100/quant/codec.h"
#include "k100/quant/gemv_tile_shares.h"
#include "k100/quant/half.h"
#include "k100/runtime/runtime.h"

namespace k100::model {
namespace {

Device& device() {
  static runtime::Runtime rt;
  static RuntimeDevice dev(rt);
  return dev;
}

std::vector<float> random(size_t n, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

// |got - want| <= tol * (1 + max |want|) for every element.
void expect_near(const std::vector<float>& got, const std::vector<double>& want, double tol, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double scale = 0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * (1 + scale)) << what << " element " << i;
}

std::vector<double> matvec(const std::vector<float>& w, const float* x, int64_t n, int64_t k) {
  std::vector<double> y(static_cast<size_t>(n), 0.0);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) y[size_t(r)] += double(w[size_t(r * k + c)]) * double(x[c]);
  return y;
}

double silu(double g) { return g / (1 + std::exp(-g)); }

TEST(Linear, F32RowsAndAccumulate) {
  Device& dev = device();
  const int64_t n = 40, k = 300, rows = 3;
  auto w = random(size_t(n * k), 1), x = random(size_t(rows * k), 2);
  F32Linear lin(dev, n, k, w);
  std::vector<double> want;
  for (int64_t r = 0; r < rows; ++r) {
    auto y = matvec(w, &x[size_t(r * k)], n, k);
    want.insert(want.end(), y.begin(), y.end());
  }
  expect_near(lin.forward(x, rows), want, 1e-5, "y = W x");
  // accumulate into a buffer holding y0
  auto y0 = random(size_t(n), 3);
  Workspace ws(dev);
  const uint64_t px = ws.upload("x", x.data(), size_t(k) * 4), py = ws.upload("y", y0.data(), y0.size() * 4);
  lin.forward_device(px, 1, py, true);
  auto got = dev.download<float>(py, size_t(n));
  std::vector<double> acc(want.begin(), want.begin() + n);
  for (int64_t i = 0; i < n; ++i) acc[size_t(i)] += y0[size_t(i)];
  expect_near(got, acc, 1e-5, "y += W x");
  EXPECT_THROW(lin.forward(std::vector<float>(7), 1), Error);
}

TEST(Linear, HalfTypesAndSelectedGroups) {
  Device& dev = device();
  const int64_t n = 24, k = 520, groups = 5, sel = 3;
  for (quant::TensorType t : {quant::TensorType::F16, quant::TensorType::BF16}) {
    auto wf = random(size_t(groups * n * k), 4);
    std::vector<uint8_t> bytes(wf.size() * 2);
    for (size_t i = 0; i < wf.size(); ++i) {
      const uint16_t h = t == quant::TensorType::F16 ? quant::f32_to_f16(wf[i]) : quant::f32_to_bf16(wf[i]);
      wf[i] = t == quant::TensorType::F16 ? quant::f16_to_f32(h) : quant::bf16_to_f32(h);
      std::memcpy(&bytes[2 * i], &h, 2);
    }
    FloatLinear lin(dev, n, k, t, bytes, nullptr, "half", groups);
    auto x = random(size_t(sel * k), 5);
    // dense: group 0
    std::vector<float> w0(wf.begin(), wf.begin() + n * k);
    expect_near(lin.forward(std::vector<float>(x.begin(), x.begin() + k), 1), matvec(w0, x.data(), n, k), 1e-5,
                "half dense");
    // selected groups 4, 1, 2 with one input per group
    const std::vector<uint32_t> ids = {4, 1, 2};
    Workspace ws(dev);
    const uint64_t pids = ws.upload("ids", ids.data(), ids.size() * 4), px = ws.upload("x", x.data(), x.size() * 4),
                   out = ws.buffer("out", size_t(sel * n) * 4);
    lin.forward_selected(px, pids, sel, true, out);
    std::vector<double> want;
    for (int64_t s = 0; s < sel; ++s) {
      std::vector<float> wg(wf.begin() + int64_t(ids[size_t(s)]) * n * k, wf.begin() + (int64_t(ids[size_t(s)]) + 1) * n * k);
      auto y = matvec(wg, &x[size_t(s * k)], n, k);
      want.insert(want.end(), y.begin(), y.end());
    }
    expect_near(dev.download<float>(out, size_t(sel * n)), want, 1e-5, "half selected");
  }
}

// Quantized weights (the device decoders of kernels/gguf) against a double
// product over the host codec's dequantised weights: a matrix of one block per
// row (k = 256 for Q4_K, run as row pairs) dense, accumulating and with
// selected groups, and a Q8_0 matrix of 2^17 rows, past what the row count's own
// magic multiplier covers (a large vocabulary's output projection).
TEST(Linear, QuantizedOneBlockRowsAndWideMatrices) {
  Device& dev = device();
  for (const char* name : {"q4k_dot_k", "q8_0_dot_k"})
    if (dev.kernel_id(name) < 0) GTEST_SKIP() << name << " is not in the kernel package (kernels/gguf)";
  {
    const int64_t n = 10, k = 256, groups = 3, sel = 2;
    const auto wf = random(size_t(groups * n * k), 11);
    const auto bytes = quant::quantize(quant::TensorType::Q4_K, wf);
    const auto wd = quant::dequantize(quant::TensorType::Q4_K, bytes);
    DotLinear lin(dev, n, k, quant::TensorType::Q4_K, bytes, nullptr, "q4k", {}, groups);
    const auto x = random(size_t(sel * k), 12);
    const std::vector<float> w0(wd.begin(), wd.begin() + n * k);
    const auto want = matvec(w0, x.data(), n, k);
    expect_near(lin.forward(std::vector<float>(x.begin(), x.begin() + k), 1), want, 1e-5, "q4_K dense, k = 256");
    Workspace ws(dev);
    const auto y0 = random(size_t(n), 13);
    const uint64_t px = ws.upload("x", x.data(), x.size() * 4), py = ws.upload("y", y0.data(), y0.size() * 4);
    lin.forward_device(px, 1, py, true);
    std::vector<double> acc(want);
    for (int64_t i = 0; i < n; ++i) acc[size_t(i)] += y0[size_t(i)];
    expect_near(dev.download<float>(py, size_t(n)), acc, 1e-5, "q4_K y += W x, k = 256");
    const std::vector<uint32_t> ids = {2, 0};
    const uint64_t pids = ws.upload("ids", ids.data(), ids.size() * 4), out = ws.buffer("out", size_t(sel * n) * 4);
    for (bool per_group : {true, false}) {
      lin.forward_selected(px, pids, sel, per_group, out);
      std::vector<double> sw;
      for (int64_t s = 0; s < sel; ++s) {
        const auto g = wd.begin() + int64_t(ids[size_t(s)]) * n * k;
        const auto y = matvec(std::vector<float>(g, g + n * k), &x[size_t(per_group ? s * k : 0)], n, k);
        sw.insert(sw.end(), y.begin(), y.end());
      }
      expect_near(dev.download<float>(out, size_t(sel * n)), sw, 1e-5, per_group ? "q4_K selected, x per group"
                                                                                 : "q4_K selected, x shared");
    }
  }
  {
    const int64_t n = 131072, k = 64;
    const auto wf = random(size_t(n * k), 14);
    const auto bytes = quant::quantize(quant::TensorType::Q8_0, wf);
    const auto wd = quant::dequantize(quant::TensorType::Q8_0, bytes);
    DotLinear lin(dev, n, k, quant::TensorType::Q8_0, bytes, nullptr, "q8_0 wide");
    const auto x = random(size_t(k), 15);
    expect_near(lin.forward(x, 1), matvec(wd, x.data(), n, k), 1e-5, "q8_0, 131072 rows");
  }
}

// Every block type through GemvLinear: its launches' argument lists match
// the kernels' (the types that share tiles take ws; the runtime refuses a
// launch of the wrong length), for one row and accumulating.
TEST(Linear, GemvEveryTypeLaunches) {
  Device& dev = device();
  using quant::TensorType;
  const std::pair<TensorType, const char*> types[] = {
      {TensorType::Q4_0, "q4_0_gemv_k"},     {TensorType::Q8_0, "q8_0_gemv_k"},   {TensorType::Q2_0, "q2_0_gemv_k"},
      {TensorType::Q4_K, "q4k_gemv_k"},      {TensorType::Q5_K, "q5k_gemv_k"},    {TensorType::Q6_K, "q6k_gemv_k"},
      {TensorType::IQ4_NL, "iq4nl_gemv_k"},  {TensorType::IQ4_XS, "iq4xs_gemv_k"}, {TensorType::IQ2_S, "iq2s_gemv_k"},
      {TensorType::IQ3_S, "iq3s_gemv_k"},    {TensorType::IQ3_XXS, "iq3xxs_gemv_k"}, {TensorType::Q4_1, "q4_1_gemv_k"},
      {TensorType::Q5_0, "q5_0_gemv_k"},     {TensorType::Q5_1, "q5_1_gemv_k"},   {TensorType::MXFP4, "mxfp4_gemv_k"},
      {TensorType::Q2_K, "q2k_gemv_k"},      {TensorType::Q3_K, "q3k_gemv_k"},    {TensorType::IQ2_XXS, "iq2xxs_gemv_k"},
      {TensorType::IQ2_XS, "iq2xs_gemv_k"},  {TensorType::IQ1_S, "iq1s_gemv_k"},  {TensorType::IQ1_M, "iq1m_gemv_k"},
      {TensorType::TQ2_0, "tq2_0_gemv_k"}};
  for (const auto& [t, name] : types) {
    const std::string what = quant::type_name(t);
    if (dev.kernel_id(name) < 0) GTEST_SKIP() << name << " is not in the kernel package (kernels/gguf)";
    const int64_t n = 70, k = 2 * quant::traits(t).block_elems;
    const auto wf = random(size_t(n * k), 51);
    const auto bytes = quant::quantize(t, wf);
    const auto wd = quant::dequantize(t, bytes);
    GemvLinear lin(dev, n, k, t, bytes, nullptr, "gemv " + what);
    const auto x = random(size_t(k), 52);
    const auto want = matvec(wd, x.data(), n, k);
    expect_near(lin.forward(x, 1), want, 1e-5, (what + " one row").c_str());
    Workspace ws(dev);
    const auto y0 = random(size_t(n), 53);
    const uint64_t px = ws.upload("x", x.data(), x.size() * 4), py = ws.upload("y", y0.data(), y0.size() * 4);
    lin.forward_device(px, 1, py, true);
    std::vector<double> acc(want);
    for (size_t i = 0; i < acc.size(); ++i) acc[i] += y0[i];
    expect_near(dev.download<float>(py, acc.size()), acc, 1e-5, (what + " y += W x").c_str());
  }
}

// IQ2_S shares its last tiles among workgroups (k100/quant/gemv_tile_shares.h):
// 123 tiles for the 120 CUs, the last 3 in shares, against the double
// reference; rows 1..4 in one launch, then five (4 + 1), accumulating, and
// the RMS-scaled form (ss = 0: y = W x), each launch leaving the shared
// tiles' counters at zero for the next.
TEST(Linear, GemvSharedTiles) {
  Device& dev = device();
  if (dev.kernel_id("iq2s_gemv_k") < 0) GTEST_SKIP() << "iq2s_gemv_k is not in the kernel package (kernels/gguf)";
  const int64_t n = 122 * 64 + 5, k = 512;
  ASSERT_FALSE(quant::gemv_tile_shares((n + 63) / 64, quant::kGemvComputeUnits).none());
  const auto wf = random(size_t(n * k), 31);
  const auto bytes = quant::quantize(quant::TensorType::IQ2_S, wf);
  const auto wd = quant::dequantize(quant::TensorType::IQ2_S, bytes);
  GemvLinear lin(dev, n, k, quant::TensorType::IQ2_S, bytes, nullptr, "iq2s shared tiles");
  for (int64_t rows : {1, 3, 5}) {
    const auto x = random(size_t(rows * k), uint32_t(32 + rows));
    std::vector<double> want;
    for (int64_t r = 0; r < rows; ++r) {
      const auto y = matvec(wd, &x[size_t(r * k)], n, k);
      want.insert(want.end(), y.begin(), y.end());
    }
    expect_near(lin.forward(x, rows), want, 1e-5, ("iq2s shared tiles, rows " + std::to_string(rows)).c_str());
    Workspace ws(dev);
    const auto y0 = random(size_t(rows * n), uint32_t(40 + rows));
    const uint64_t px = ws.upload("x", x.data(), x.size() * 4), py = ws.upload("y", y0.data(), y0.size() * 4);
    lin.forward_device(px, rows, py, true);
    std::vector<double> acc(want);
    for (size_t i = 0; i < acc.size(); ++i) acc[i] += y0[i];
    expect_near(dev.download<float>(py, acc.size()), acc, 1e-5, ("iq2s shared tiles, y += W x, rows " + std::to_string(rows)).c_str());
    if (lin.fused()) {
      lin.rms_scaled(px, 0, 1e-5f, py);
      expect_near(dev.download<float>(py, size_t(n)), std::vector<double>(want.begin(), want.begin() + n), 1e-5,
                  "iq2s shared tiles, rms_scaled with ss = 0");
    }
  }
}

// The fast GEMVs over repacked weights against the same double reference:
// Q4_K, Q8_0 and an IQ type (its table travels with the repacked matrix),
// row counts past the 4 rows of one launch, a row count that is not a whole
// tile, accumulating into y, and the one-group selection.
TEST(Linear, GemvRowsAccumulateAndSelection) {
  Device& dev = device();
  for (const char* name : {"q4k_gemv_k", "q8_0_gemv_k", "iq4xs_gemv_k", "add_inplace_k"})
    if (dev.kernel_id(name) < 0) GTEST_SKIP() << name << " is not in the kernel package (kernels/gguf)";
  struct Case {
    quant::TensorType type;
    int64_t n, k, rows;
  };
  for (const Case c : {Case{quant::TensorType::Q4_K, 70, 512, 6}, Case{quant::TensorType::Q8_0, 130, 96, 3},
                       Case{quant::TensorType::IQ4_XS, 33, 256, 5}}) {
    const std::string what = quant::type_name(c.type);
    const auto wf = random(size_t(c.n * c.k), 21);
    const auto bytes = quant::quantize(c.type, wf);
    const auto wd = quant::dequantize(c.type, bytes);
    GemvLinear lin(dev, c.n, c.k, c.type, bytes, nullptr, "gemv " + what);
    const auto x = random(size_t(c.rows * c.k), 22);
    std::vector<double> want;
    for (int64_t r = 0; r < c.rows; ++r) {
      const auto y = matvec(wd, &x[size_t(r * c.k)], c.n, c.k);
      want.insert(want.end(), y.begin(), y.end());
    }
    expect_near(lin.forward(x, c.rows), want, 1e-5, (what + " rows").c_str());
    Workspace ws(dev);
    const auto y0 = random(size_t(c.rows * c.n), 23);
    const uint64_t px = ws.upload("x", x.data(), x.size() * 4), py = ws.upload("y", y0.data(), y0.size() * 4);
    lin.forward_device(px, c.rows, py, true);
    std::vector<double> acc(want);
    for (size_t i = 0; i < acc.size(); ++i) acc[i] += y0[i];
    expect_near(dev.download<float>(py, acc.size()), acc, 1e-5, (what + " y += W x").c_str());
    const std::vector<uint32_t> ids = {0, 0};
    const uint64_t pids = ws.upload("ids", ids.data(), ids.size() * 4), out = ws.buffer("out", size_t(2 * c.n) * 4);
    for (bool per_group : {true, false}) {
      lin.forward_selected(px, pids, 2, per_group, out);
      std::vector<double> sw(want.begin(), want.begin() + c.n);
      const auto y1 = per_group ? std::vector<double>(want.begin() + c.n, want.begin() + 2 * c.n) : sw;
      sw.insert(sw.end(), y1.begin(), y1.end());
      expect_near(dev.download<float>(out, size_t(2 * c.n)), sw, 1e-5, (what + " selected").c_str());
    }
  }
  {
    // more tiles than one launch takes (one row: consecutive launches; two rows: one launch)
    const int64_t n = 2 * 272 * 64 + 70, k = 32;  // 545 tiles: two launches for one row
    const auto wf = random(size_t(n * k), 26);
    const auto bytes = quant::quantize(quant::TensorType::Q8_0, wf);
    const auto wd = quant::dequantize(quant::TensorType::Q8_0, bytes);
    GemvLinear lin(dev, n, k, quant::TensorType::Q8_0, bytes, nullptr, "q8_0 tall");
    const auto x = random(size_t(2 * k), 27);
    auto want = matvec(wd, x.data(), n, k);
    expect_near(lin.forward(std::vector<float>(x.begin(), x.begin() + k), 1), want, 1e-5, "q8_0 tall, one row");
    const auto y1 = matvec(wd, x.data() + k, n, k);
    want.insert(want.end(), y1.begin(), y1.end());
    expect_near(lin.forward(x, 2), want, 1e-5, "q8_0 tall, two rows");
  }
  // the loader's form: bytes repacked into a buffer the caller owns, and the factory
  const int64_t n = 64, k = 256;
  const auto wf = random(size_t(n * k), 24);
  const auto bytes = quant::quantize(quant::TensorType::Q4_K, wf);
  const uint64_t p = upload_gemv_weights(dev, quant::TensorType::Q4_K, n, k, 1, bytes, "q4k");
  {
    auto lin = make_linear(dev, n, k, DeviceWeights{quant::TensorType::Q4_K, p, 1, false, true}, nullptr, "q4k");
    ASSERT_NE(dynamic_cast<GemvLinear*>(lin.get()), nullptr);
    const auto x = random(size_t(k), 25);
    expect_near(lin->forward(x, 1), matvec(quant::dequantize(quant::TensorType::Q4_K, bytes), x.data(), n, k), 1e-5,
                "q4_K through make_linear");
  }
  dev.free(p);
  EXPECT_THROW(upload_gemv_weights(dev, quant::TensorType::Q4_K, n, k, 1, std::span(bytes).first(10), "short"), Error);
  {
    // experts: three matrices, the selection {2, 0} as grid.y (x per group and shared)
    const int64_t ne = 3, en = 70;
    const auto ef = random(size_t(ne * en * k), 28);
    const auto eb = quant::quantize(quant::TensorType::Q4_K, ef);
    const auto ed = quant::dequantize(quant::TensorType::Q4_K, eb);
    GemvLinear experts(dev, en, k, quant::TensorType::Q4_K, eb, nullptr, "q4k experts", ne);
    Workspace ws(dev);
    const std::vector<uint32_t> ids = {2, 0};
    const auto x = random(size_t(2 * k), 29);
    const uint64_t pids = ws.upload("ids", ids.data(), 8), px = ws.upload("x", x.data(), x.size() * 4),
                   out = ws.buffer("out", size_t(2 * en) * 4);
    for (bool per_group : {true, false}) {
      experts.forward_selected(px, pids, 2, per_group, out);
      std::vector<double> want;
      for (int64_t s2 = 0; s2 < 2; ++s2) {
        const auto y = matvec(std::vector<float>(ed.begin() + int64_t(ids[size_t(s2)]) * en * k,
                                                 ed.begin() + (int64_t(ids[size_t(s2)]) + 1) * en * k),
                              x.data() + (per_group ? s2 * k : 0), en, k);
        want.insert(want.end(), y.begin(), y.end());
      }
      expect_near(dev.download<float>(out, size_t(2 * en)), want, 1e-5, "q4_K experts selected");
    }
  }
  {
    // the fused forms: y += W x with the scaled copy and partial sums, then
    // the RMS-scaled GEMV and the SwiGLU over them (rows [gate; up], F = 64)
    const int64_t fn = 128, fk = 256;
    const auto ff = random(size_t(fn * fk), 30);
    const auto fb = quant::quantize(quant::TensorType::Q4_K, ff);
    const auto fd = quant::dequantize(quant::TensorType::Q4_K, fb);
    GemvLinear wide(dev, fn, fk, quant::TensorType::Q4_K, fb, nullptr, "q4k fused");
    GemvLinear sq(dev, fk, fk, quant::TensorType::Q4_K,
                  quant::quantize(quant::TensorType::Q4_K, random(size_t(fk * fk), 31)), nullptr, "q4k square");
    ASSERT_TRUE(wide.fused());
    ASSERT_TRUE(wide.swiglu_rows());
    Workspace ws(dev);
    const auto x = random(size_t(fk), 32), h0 = random(size_t(fk), 33), nw = random(size_t(fk), 34);
    const uint64_t px = ws.upload("x", x.data(), x.size() * 4), ph = ws.upload("h", h0.data(), h0.size() * 4),
                   pnw = ws.upload("nw", nw.data(), nw.size() * 4), phn = ws.buffer("hn", size_t(fk) * 4),
                   pss = ws.buffer("ss", size_t(fk / 64) * 4), py = ws.buffer("y", size_t(fn) * 4);
    sq.accumulate_scaled(px, ph, pnw, phn, pss);
    // the new residual, its scaled copy and partials (the add itself is checked above)
    const auto hgot = dev.download<float>(ph, size_t(fk)), hn = dev.download<float>(phn, size_t(fk));
    const auto ssgot = dev.download<float>(pss, size_t(fk / 64));
    std::vector<double> hn_want(static_cast<size_t>(fk)), ss_want(static_cast<size_t>(fk / 64), 0.0);
    for (int64_t i = 0; i < fk; ++i) {
      hn_want[size_t(i)] = double(hgot[size_t(i)]) * nw[size_t(i)];
      ss_want[size_t(i / 64)] += double(hgot[size_t(i)]) * hgot[size_t(i)];
    }
    expect_near(hn, hn_want, 1e-6, "q4_K accumulate_scaled copy");
    expect_near(ssgot, ss_want, 1e-4, "q4_K accumulate_scaled partials");
    double ssum = 0;
    for (float v : hgot) ssum += double(v) * v;
    const double r = 1.0 / std::sqrt(ssum / double(fk) + 1e-5);
    std::vector<float> xn(static_cast<size_t>(fk));
    for (int64_t i = 0; i < fk; ++i) xn[size_t(i)] = float(double(hgot[size_t(i)]) * r * nw[size_t(i)]);
    const auto want_rms = matvec(fd, xn.data(), fn, fk);
    wide.rms_scaled(phn, pss, 1e-5f, py);
    expect_near(dev.download<float>(py, size_t(fn)), want_rms, 1e-4, "q4_K rms_scaled");
    wide.swiglu(phn, pss, 1e-5f, py);
    std::vector<double> want_glu(static_cast<size_t>(fn / 2));
    for (int64_t i = 0; i < fn / 2; ++i) {
      const double g = want_rms[size_t(i)], u = want_rms[size_t(fn / 2 + i)];
      want_glu[size_t(i)] = g / (1 + std::exp(-g)) * u;
    }
    expect_near(dev.download<float>(py, size_t(fn / 2)), want_glu, 1e-4, "q4_K swiglu");
  }
  // the split from the package's contract (q4k_gemv_k: 1), raised for a matrix of few tiles
  const kernels::LaunchContract q4k = dev.contract(dev.kernel("q4k_gemv_k"));
  EXPECT_GE(gemv_geometry(q4k, 5120, 256).split, 2u);  // 80 tiles: the rows split
  EXPECT_EQ(gemv_geometry(q4k, 17408, 256).split, 1u);
}

TEST(Linear, DivMagicAndErrors) {
  EXPECT_EQ(div_magic(3, 0), 0u);
  EXPECT_EQ(div_magic(1, 1), 0u);
  EXPECT_THROW(div_magic(1, 2), Error);
  EXPECT_THROW(div_magic(0, 5), Error);
  const uint32_t m = div_magic(7, 100000);
  for (uint64_t i = 0; i < 100000; ++i) ASSERT_EQ((i * m) >> 32, i / 7);
  EXPECT_THROW(make_linear(device(), 4, 32, DeviceWeights{quant::TensorType::Q4_1, 0, 1, false}, nullptr, "t"), Error);
  EXPECT_EQ(quant_spec(quant::TensorType::Q4_K)->dot_kernel, std::string("q4k_dot_k"));
  EXPECT_EQ(quant_spec("iq3xxs")->tables.size(), 2u);
  // a format's ggml name finds its spec too; the types without a fused dot are refused by name
  EXPECT_EQ(quant_spec("q4_K"), quant_spec(quant::TensorType::Q4_K));
  EXPECT_EQ(quant_spec("IQ2_XXS")->dequant_kernel, std::string("iq2xxs_dequant_k"));
  try {
    make_linear(device(), 4, 32, DeviceWeights{quant::TensorType::Q5_0, 0, 1, false}, nullptr, "t");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("q5_0 has no fused dot kernel"), std::string::npos) << e.what();
  }
}

TEST(Norm, RmsNormSwiGLUAndMlp) {
  Device& dev = device();
  const int64_t dim = 320, rows = 2, ffn = 192;
  auto w = random(size_t(dim), 6, 0.5f, 1.5f), x = random(size_t(rows * dim), 7, -3.f, 3.f);
  RMSNorm norm(dev, dim, w, 1e-5f);
  std::vector<double> want;
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t d = 0; d < dim; ++d) s += double(x[size_t(r * dim + d)]) * x[size_t(r * dim + d)];
    const double scale = 1 / std::sqrt(s / double(dim) + 1e-5);
    for (int64_t d = 0; d < dim; ++d) want.push_back(x[size_t(r * dim + d)] * scale * w[size_t(d)]);
  }
  expect_near(norm.forward(x, rows), want, 1e-6, "rmsnorm");
  EXPECT_THROW(RMSNorm(dev, 100, std::vector<float>(100), 1e-5f), Error);

  auto wg = random(size_t(ffn * dim), 8), wu = random(size_t(ffn * dim), 9), wd = random(size_t(dim * ffn), 10);
  F32Linear g(dev, ffn, dim, wg), u(dev, ffn, dim, wu), d(dev, dim, ffn, wd);
  MLP mlp(dev, g, u, d);
  auto xr = std::vector<float>(x.begin(), x.begin() + dim);
  auto gv = matvec(wg, xr.data(), ffn, dim), uv = matvec(wu, xr.data(), ffn, dim);
  std::vector<float> a(static_cast<size_t>(ffn));
  for (int64_t i = 0; i < ffn; ++i) a[size_t(i)] = float(silu(gv[size_t(i)]) * uv[size_t(i)]);
  expect_near(mlp.forward(xr, 1), matvec(wd, a.data(), dim, ffn), 2e-5, "mlp");
  EXPECT_THROW(MLP(dev, g, u, d, nullptr, "m", "gelu"), Error);
}

TEST(Cache, KVCacheAppendAndOverflow) {
  Device& dev = device();
  KVCache kv(dev, 64, 3);
  auto k = random(128, 11), v = random(128, 12);
  kv.append(k, v);
  EXPECT_EQ(kv.length(), 2);
  EXPECT_EQ(dev.download<float>(kv.k(), 128), k);
  EXPECT_EQ(dev.download<float>(kv.v(), 128), v);
  EXPECT_THROW(kv.append(k, v), Error);  // 2 + 2 rows > 3
}

TEST(Rope, RotateHalf) {
  Device& dev = device();
  const int64_t dim = 64, pos = 5;
  RoPE rope(dev, dim, 16);
  auto x = random(size_t(2 * dim), 13);
  std::vector<double> want(x.size());
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t j = 0; j < dim / 2; ++j) {
      const double th = double(pos + r) * std::pow(10000.0, -2.0 * double(j) / double(dim));
      const double a = x[size_t(r * dim + j)], b = x[size_t(r * dim + j + dim / 2)];
      want[size_t(r * dim + j)] = a * std::cos(th) - b * std::sin(th);
      want[size_t(r * dim + j + dim / 2)] = a * std::sin(th) + b * std::cos(th);
    }
  expect_near(rope.forward(x, pos), want, 1e-6, "rope");
  EXPECT_THROW(rope.forward(x, 15), Error);  // rows 15, 16 pass max_len
}

// softmax(q . k_j / sqrt(hd)) v_j over j < n for one head.
std::vector<double> attend(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                           int64_t n, int64_t hd, int64_t qoff, int64_t kvoff, int64_t kvstride) {
  std::vector<double> s(static_cast<size_t>(n)), out(static_cast<size_t>(hd), 0.0);
  double m = -INFINITY, l = 0;
  for (int64_t j = 0; j < n; ++j) {
    double a = 0;
    for (int64_t d = 0; d < hd; ++d) a += double(q[size_t(qoff + d)]) * k[size_t(j * kvstride + kvoff + d)];
    s[size_t(j)] = a / std::sqrt(double(hd));
    m = std::max(m, s[size_t(j)]);
  }
  for (int64_t j = 0; j < n; ++j) {
    const double p = std::exp(s[size_t(j)] - m);
    l += p;
    for (int64_t d = 0; d < hd; ++d) out[size_t(d)] += p * v[size_t(j * kvstride + kvoff + d)];
  }
  for (auto& o : out) o /= l;
  return out;
}

TEST(Attention, SingleHeadShortAndSplitSoftmax) {
  Device& dev = device();
  for (int64_t n : {37, 2100}) {
    const int64_t dim = 128, max_len = 2304;
    Attention att(dev, dim, max_len);
    auto k = random(size_t(n * dim), 14), v = random(size_t(n * dim), 15), q = random(size_t(dim), 16, -2.f, 2.f);
    att.append(k, v);
    expect_near(att.forward(q), attend(q, k, v, n, dim, 0, 0, dim), 2e-5, n > 2048 ? "split softmax" : "softmax");
  }
  EXPECT_THROW(Attention(dev, 100, 256), Error);
}

TEST(Attention, FlashMultiHeadAndGrouped) {
  Device& dev = device();
  for (int64_t kv_heads : {4, 2, 1}) {
    const int64_t heads = 4, hd = 64, n = 70, max_len = 128, kvdim = kv_heads * hd;
    FlashAttention fa(dev, heads, hd, max_len, nullptr, "fa", kv_heads);
    auto k = random(size_t(n * kvdim), 17), v = random(size_t(n * kvdim), 18), q = random(size_t(heads * hd), 19, -2.f, 2.f);
    fa.append(std::vector<float>(k.begin(), k.begin() + kvdim), std::vector<float>(v.begin(), v.begin() + kvdim));
    fa.append(std::vector<float>(k.begin() + kvdim, k.end()), std::vector<float>(v.begin() + kvdim, v.end()));
    std::vector<double> want;
    for (int64_t h = 0; h < heads; ++h) {
      auto o = attend(q, k, v, n, hd, h * hd, (h / (heads / kv_heads)) * hd, kvdim);
      want.insert(want.end(), o.begin(), o.end());
    }
    expect_near(fa.forward(q), want, 2e-5, "flash attention");
  }
  {  // head size 32, 16 query heads per KV head (the part kernel's half-full column block)
    const int64_t heads = 32, kv_heads = 2, hd = 32, n = 70, max_len = 128, kvdim = kv_heads * hd;
    FlashAttention fa(dev, heads, hd, max_len, nullptr, "fa32", kv_heads);
    auto k = random(size_t(n * kvdim), 20), v = random(size_t(n * kvdim), 21);
    auto q = random(size_t(heads * hd), 22, -2.f, 2.f);
    fa.append(k, v);
    std::vector<double> want;
    for (int64_t h = 0; h < heads; ++h) {
      auto o = attend(q, k, v, n, hd, h * hd, (h / (heads / kv_heads)) * hd, kvdim);
      want.insert(want.end(), o.begin(), o.end());
    }
    expect_near(fa.forward(q), want, 2e-5, "flash attention, head size 32");
  }
  EXPECT_THROW(FlashAttention(device(), 4, 64, 64, nullptr, "fa", 3), Error);
  EXPECT_THROW(FlashAttention(device(), 4, 48, 64, nullptr, "fa", 2), Error);
}

TEST(Moe, CombineAndBucketedExperts) {
  Device& dev = device();
  const int64_t rows = 3, dim = 64, n_exp = 4, topk = 2, out_dim = 32;
  MoECombine comb(dev, rows, dim, n_exp);
  auto eo = random(size_t(n_exp * rows * dim), 20), w = random(size_t(rows * n_exp), 21, 0.f, 1.f);
  std::vector<double> want(size_t(rows * dim), 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t e = 0; e < n_exp; ++e)
      for (int64_t d = 0; d < dim; ++d)
        want[size_t(r * dim + d)] += double(w[size_t(r * n_exp + e)]) * eo[size_t((e * rows + r) * dim + d)];
  expect_near(comb.forward(eo, w), want, 1e-6, "moe combine");

  std::vector<std::vector<float>> ew;
  std::vector<std::unique_ptr<F32Linear>> experts;
  std::vector<Linear*> ptrs;
  for (int64_t e = 0; e < n_exp; ++e) {
    ew.push_back(random(size_t(out_dim * dim), uint32_t(30 + e)));
    experts.push_back(std::make_unique<F32Linear>(dev, out_dim, dim, ew.back(), nullptr, "e" + std::to_string(e)));
    ptrs.push_back(experts.back().get());
  }
  MoEExperts moe(dev, ptrs, rows, dim, out_dim, topk);
  auto x = random(size_t(rows * dim), 22);
  const std::vector<int32_t> ids = {2, 0, 2, 3, 9, 1};  // id 9 is not an expert: that assignment is dropped
  const std::vector<float> wt = {0.6f, 0.4f, 0.5f, 0.5f, 0.7f, 0.3f};
  const MoERoute route = moe.route(ids, wt);
  EXPECT_EQ(route.offsets, (std::vector<int32_t>{0, 1, 2, 4, 5}));
  EXPECT_EQ(route.bucket_rows, (std::vector<int32_t>{0, 2, 0, 1, 1}));
  EXPECT_EQ(route.valid[4], 0);
  std::vector<double> wm(size_t(rows * out_dim), 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t t = 0; t < topk; ++t) {
      const int32_t e = ids[size_t(r * topk + t)];
      if (e < 0 || e >= n_exp) continue;
      auto y = matvec(ew[size_t(e)], &x[size_t(r * dim)], out_dim, dim);
      for (int64_t d = 0; d < out_dim; ++d) wm[size_t(r * out_dim + d)] += wt[size_t(r * topk + t)] * y[size_t(d)];
    }
  expect_near(moe.forward(x, ids, wt), wm, 2e-5, "moe experts");
  EXPECT_THROW(MoEExperts(dev, ptrs, rows, dim, out_dim, 5), Error);
}

TEST(Transformer, LayerMatchesHostReference) {
  Device& dev = device();
  const int64_t heads = 2, hd = 64, dim = heads * hd, ffn = 96, max_len = 8;
  auto wqkv = random(size_t(3 * dim * dim), 40, -0.2f, 0.2f), wo = random(size_t(dim * dim), 41, -0.2f, 0.2f),
       wgu = random(size_t(2 * ffn * dim), 42, -0.2f, 0.2f), wd = random(size_t(dim * ffn), 43, -0.2f, 0.2f),
       n1 = random(size_t(dim), 44, 0.8f, 1.2f), n2 = random(size_t(dim), 45, 0.8f, 1.2f);
  TransformerLayer layer(dev, dim, heads, hd, ffn, max_len, wqkv, wo, wgu, wd, n1, n2, 1e-6f);
  std::vector<std::vector<double>> ks, vs;
  auto rms = [&](const std::vector<double>& x, const std::vector<float>& w) {
    double s = 0;
    for (double v : x) s += v * v;
    std::vector<float> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = float(x[i] / std::sqrt(s / double(x.size()) + 1e-6) * w[i]);
    return y;
  };
  auto rope = [&](std::vector<double>& v, int64_t off, int64_t pos) {
    for (int64_t j = 0; j < hd / 2; ++j) {
      const double th = double(pos) * std::pow(10000.0, -2.0 * double(j) / double(hd)), a = v[size_t(off + j)],
                   b = v[size_t(off + j + hd / 2)];
      v[size_t(off + j)] = a * std::cos(th) - b * std::sin(th);
      v[size_t(off + j + hd / 2)] = a * std::sin(th) + b * std::cos(th);
    }
  };
  for (int64_t pos = 0; pos < 3; ++pos) {
    auto x = random(size_t(dim), uint32_t(50 + pos));
    std::vector<double> h(x.begin(), x.end());
    auto xn = rms(h, n1);
    auto qkv = matvec(wqkv, xn.data(), 3 * dim, dim);
    for (int64_t hh = 0; hh < heads; ++hh) {
      rope(qkv, hh * hd, pos);
      rope(qkv, dim + hh * hd, pos);
    }
    ks.emplace_back(qkv.begin() + dim, qkv.begin() + 2 * dim);
    vs.emplace_back(qkv.begin() + 2 * dim, qkv.end());
    std::vector<float> q(qkv.begin(), qkv.begin() + dim), kf, vf;
    for (size_t j = 0; j < ks.size(); ++j) {
      kf.insert(kf.end(), ks[j].begin(), ks[j].end());
      vf.insert(vf.end(), vs[j].begin(), vs[j].end());
    }
    std::vector<float> att;
    for (int64_t hh = 0; hh < heads; ++hh) {
      auto o = attend(q, kf, vf, int64_t(ks.size()), hd, hh * hd, hh * hd, dim);
      att.insert(att.end(), o.begin(), o.end());
    }
    auto o = matvec(wo, att.data(), dim, dim);
    for (int64_t i = 0; i < dim; ++i) h[size_t(i)] += o[size_t(i)];
    auto xn2 = rms(h, n2);
    auto gu = matvec(wgu, xn2.data(), 2 * ffn, dim);
    std::vector<float> a(static_cast<size_t>(ffn));
    for (int64_t i = 0; i < ffn; ++i) a[size_t(i)] = float(silu(gu[size_t(i)]) * gu[size_t(ffn + i)]);
    auto dn = matvec(wd, a.data(), dim, ffn);
    for (int64_t i = 0; i < dim; ++i) h[size_t(i)] += dn[size_t(i)];
    expect_near(layer.forward(x, pos), h, 2e-5, "transformer layer");
  }
  EXPECT_THROW(TransformerLayer(dev, 192, 3, 64, 96, 8, wqkv, wo, wgu, wd, n1, n2), Error);
}

TEST(Sequence, RunSequenceAndArgmax) {
  Device& dev = device();
  Workspace ws(dev);
  auto l = random(2 * 700, 60);
  l[123] = 5.f;
  l[700 + 699] = 6.f;
  const uint64_t p = ws.upload("l", l.data(), l.size() * 4);
  const uint64_t idx = argmax_device(dev, ws, p, 2, 700);
  EXPECT_EQ(dev.download<int32_t>(idx, 2), (std::vector<int32_t>{123, 699}));
  const int64_t dim = 64;
  auto w = random(size_t(dim), 61, 0.5f, 1.5f), x = random(size_t(dim), 62);
  RMSNorm norm(dev, dim, w, 1e-5f, &ws, "n");
  const std::vector<DeviceOp> ops = {[&](uint64_t in) { return norm.forward_device(in, 1); },
                                     [&](uint64_t in) { return norm.forward_device(in, 1, ws.buffer("n2", dim * 4)); }};
  const uint64_t out = run_sequence(dev, ops, ws.upload("x", x.data(), x.size() * 4));
  auto once = norm.forward(x, 1);
  auto twice = norm.forward(once, 1);
  EXPECT_EQ(dev.download<float>(out, size_t(dim)), twice);
}

}  // namespace
}  // namespace k100::model
