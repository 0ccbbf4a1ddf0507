// W4Linear on the default device (the emulator here) against quant's host
// references: compressed-tensors INT4 on a16 (gemv_reference, the float GEMV
// of the dequantised weights), a8 and a4 (gemv_quantized_reference over
// the activations quantised as quant_act / quant_act4 do), NVFP4 a8, and
// RT4 tensors; m = 1..4 rows and 5 (two launches), accumulating, several
// stacked matrices, and the refusals. A path whose kernels the package lacks
// is skipped (a failure under CI=true).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "k100/base/error.h"
#include "k100/model/w4_linear.h"
#include "k100/quant/activation_quant.h"
#include "k100/quant/compressed_tensors.h"
#include "k100/quant/half.h"
#include "k100/quant/nvfp4.h"
#include "k100/quant/rt4.h"
#include "k100/runtime/runtime.h"

namespace k100::model {
namespace {

Device& device() {
  static runtime::Runtime rt;
  static RuntimeDevice dev(rt);
  return dev;
}

std::vector<float> random(size_t n, uint32_t seed, float scale = 1.f) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0.f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

// A weight of `kind` over bytes the caller keeps (packed from random values).
struct Packed {
  std::vector<uint8_t> codes, scales;
  W4Weight w;
};

Packed pack(W4Kind kind, int64_t n, int64_t k, uint32_t seed) {
  const std::vector<float> values = random(size_t(n * k), seed, 0.05f);
  Packed p;
  p.w.kind = kind;
  p.w.key = "test." + std::to_string(seed);
  p.w.matrix.n = n;
  p.w.matrix.k = k;
  if (kind == W4Kind::Nvfp4) {
    const quant::PackedNvfp4 q = quant::pack_nvfp4(values, n, k);
    p.codes = q.packed;
    p.scales = q.scale;
    p.w.matrix.format = &quant::kNvfp4;
    p.w.matrix.global = q.global;
  } else {
    const quant::PackedInt4 q = quant::pack_int4_group128(values, n, k);
    const auto* c = reinterpret_cast<const uint8_t*>(q.packed.data());
    const auto* s = reinterpret_cast<const uint8_t*>(q.scale.data());
    p.codes.assign(c, c + q.packed.size() * 4);
    p.scales.assign(s, s + q.scale.size() * 2);
    p.w.matrix.format = &quant::kCompressedTensorsInt4;
    if (kind == W4Kind::Rt4) {
      // RT4: two's-complement nibbles, f16 scales (the converter's steps, quant/rt4.h)
      std::vector<uint8_t> flipped(p.codes.size());
      quant::offset_to_twos_complement(p.codes, flipped);
      p.codes = flipped;
      for (size_t i = 0; i < q.scale.size(); ++i) {
        const uint16_t h = quant::f32_to_f16(quant::bf16_to_f32(q.scale[i]));
        p.scales[2 * i] = uint8_t(h & 0xff);
        p.scales[2 * i + 1] = uint8_t(h >> 8);
      }
      p.w.matrix.format = &quant::kRt4Int4;
    }
  }
  p.w.matrix.codes = p.codes;
  p.w.matrix.scales = p.scales;
  return p;
}

// The matrices stacked by rows (what one W4Linear over several parts computes).
struct Stacked {
  std::vector<uint8_t> codes, scales;
  quant::W4Matrix m;
};
Stacked stack(const std::vector<const Packed*>& parts) {
  Stacked s;
  for (const Packed* p : parts) {
    s.codes.insert(s.codes.end(), p->codes.begin(), p->codes.end());
    s.scales.insert(s.scales.end(), p->scales.begin(), p->scales.end());
    s.m.n += p->w.matrix.n;
  }
  s.m.format = parts[0]->w.matrix.format;
  s.m.k = parts[0]->w.matrix.k;
  s.m.global = parts[0]->w.matrix.global;
  s.m.codes = s.codes;
  s.m.scales = s.scales;
  return s;
}

const quant::ActivationFormat* activation_format(W4Kind kind, W4Activations act) {
  if (kind == W4Kind::Nvfp4) return &quant::kActNvfp4;
  if (act == W4Activations::A8) return &quant::kActW4A8;
  if (act == W4Activations::A4) return &quant::kActW4A4Decode;
  return nullptr;
}

// The kernels a path needs, present in the package; else a skip (a failure under CI=true).
bool has_kernels(W4Kind kind, W4Activations act) {
  Device& dev = device();
  act = resolve_w4_activations(kind, act, "test");
  std::vector<std::vector<const char*>> any;  // each inner list: one of these
  if (kind == W4Kind::Nvfp4) any = {{"nvfp4_quant_act"}, {"nvfp4_gemv_fast_k", "nvfp4_gemv<1,1>"}};
  else if (act == W4Activations::A8) any = {{"quant_act"}, {"gemv_w4a8_fast_k", "gemv_w4a8<1,false,1>"}};
  else if (act == W4Activations::A4) any = {{"quant_act4"}, {"gemv_w4a4_fast_k", "gemv_w4a4<1>"}};
  else any = {{"int4_gemv_k", "int4_dot_k"}};
  for (const auto& names : any) {
    bool found = false;
    for (const char* n : names) found = found || dev.has(n);
    if (!found) return false;
  }
  return true;
}

#define REQUIRE_KERNELS(kind, act)                                                                      \
  do {                                                                                                  \
    if (!has_kernels(kind, act)) {                                                                      \
      const char* ci = std::getenv("CI");                                                               \
      if (ci && std::string(ci) == "true") FAIL() << "CI=true: the package lacks the kernels of this path"; \
      GTEST_SKIP() << "the kernel package lacks the kernels of " << w4_kind_name(kind) << " "            \
                   << w4_activations_name(act);                                                         \
    }                                                                                                   \
  } while (0)

// |got - want| <= tol * max |want| for every element.
void expect_close(const std::vector<float>& got, const std::vector<float>& want, double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double scale = 0;
  for (float w : want) scale = std::max(scale, double(std::abs(w)));
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * scale) << what << " element " << i;
}

struct Path {
  W4Kind kind;
  W4Activations act;
};

class W4LinearPaths : public ::testing::TestWithParam<Path> {};

TEST_P(W4LinearPaths, RowsStackedAndAccumulating) {
  const auto [kind, act] = GetParam();
  REQUIRE_KERNELS(kind, act);
  Device& dev = device();
  const int64_t k = 384;  // three INT4 groups, 24 NVFP4 blocks
  const Packed a = pack(kind, 40, k, 1), b = pack(kind, 24, k, 2);
  // NVFP4 parts share one layer only with equal global scales: one part there
  std::vector<const Packed*> parts = {&a};
  if (kind != W4Kind::Nvfp4) parts.push_back(&b);
  const Stacked s = stack(parts);
  std::vector<const W4Weight*> weights;
  for (const Packed* p : parts) weights.push_back(&p->w);
  W4Linear lin(dev, weights, act, nullptr, "w4test");
  ASSERT_EQ(lin.n(), s.m.n);
  const quant::ActivationFormat* af = activation_format(kind, lin.activations());
  for (int64_t rows : {1, 2, 3, 4, 5}) {
    const std::vector<float> x = random(size_t(rows * k), uint32_t(10 + rows));
    const std::vector<float> want = af ? quant::gemv_quantized_reference(s.m, quant::quantize_activations(*af, x, rows, k))
                                       : quant::gemv_reference(s.m, x, rows);
    // the integer paths sum exact products and scale in f32: a few f32 roundings of the largest
    expect_close(lin.forward(x, rows), want, 1e-5, std::string(w4_kind_name(kind)) + " " +
                                                       w4_activations_name(lin.activations()) + ", " +
                                                       std::to_string(rows) + " rows");
  }
  // y += W x
  const std::vector<float> x = random(size_t(k), 30), y0 = random(size_t(s.m.n), 31);
  Workspace ws(dev);
  const uint64_t px = ws.upload("x", x.data(), x.size() * 4), py = ws.upload("y", y0.data(), y0.size() * 4);
  lin.forward_device(px, 1, py, true);
  std::vector<float> want = af ? quant::gemv_quantized_reference(s.m, quant::quantize_activations(*af, x, 1, k))
                               : quant::gemv_reference(s.m, x, 1);
  for (size_t i = 0; i < want.size(); ++i) want[i] += y0[i];
  expect_close(dev.download<float>(py, want.size()), want, 1e-5, "accumulating");
}

INSTANTIATE_TEST_SUITE_P(Paths, W4LinearPaths,
                         ::testing::Values(Path{W4Kind::CompressedInt4, W4Activations::Default},
                                           Path{W4Kind::CompressedInt4, W4Activations::A8},
                                           Path{W4Kind::CompressedInt4, W4Activations::A4},
                                           Path{W4Kind::Rt4, W4Activations::Default},
                                           Path{W4Kind::Rt4, W4Activations::A4},
                                           Path{W4Kind::Nvfp4, W4Activations::Default}),
                         [](const auto& info) {
                           std::string n = std::string(w4_kind_name(info.param.kind)) + "_" +
                                           w4_activations_name(info.param.act);
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(W4Linear, LongMatricesRunAsSeveralLaunches) {
  // more rows than one int4_gemv_k launch takes (17408): consecutive runs of rows, each at its offsets
  // (a8: one launch of them all, beside it)
  REQUIRE_KERNELS(W4Kind::CompressedInt4, W4Activations::A8);
  Device& dev = device();
  const int64_t n = 17408 + 200, k = 128;
  const Packed a = pack(W4Kind::CompressedInt4, n, k, 5);
  const std::vector<const W4Weight*> parts = {&a.w};
  const std::vector<float> x = random(size_t(k), 6);
  for (W4Activations act : {W4Activations::A16, W4Activations::A8}) {
    if (act == W4Activations::A16 && !dev.has("int4_gemv_k")) continue;  // the dot path has no runs
    W4Linear lin(dev, parts, act, nullptr, "long");
    const std::vector<float> want =
        act == W4Activations::A16 ? quant::gemv_reference(a.w.matrix, x, 1)
                                  : quant::gemv_quantized_reference(a.w.matrix, quant::quantize_activations(quant::kActW4A8, x, 1, k));
    expect_close(lin.forward(x, 1), want, 1e-5, std::string("long matrix, ") + w4_activations_name(act));
  }
}

TEST(W4Linear, PathsAFormatLacksAreRefusedNamingBoth) {
  auto message = [](W4Kind kind, W4Activations act) {
    try {
      resolve_w4_activations(kind, act, "layer");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message(W4Kind::Nvfp4, W4Activations::A16).find("NVFP4 weights have no --act a16"), std::string::npos);
  EXPECT_NE(message(W4Kind::Nvfp4, W4Activations::A4).find("--act a4"), std::string::npos);
  EXPECT_NE(message(W4Kind::Rt4, W4Activations::A16).find("RT4 weights have no --act a16"), std::string::npos);
  EXPECT_EQ(resolve_w4_activations(W4Kind::CompressedInt4, W4Activations::Default, "l"), W4Activations::A16);
  EXPECT_EQ(resolve_w4_activations(W4Kind::Rt4, W4Activations::Default, "l"), W4Activations::A8);
  EXPECT_EQ(resolve_w4_activations(W4Kind::Nvfp4, W4Activations::Default, "l"), W4Activations::A8);
  EXPECT_THROW(parse_w4_activations("a2"), Error);
}

TEST(W4Linear, MismatchedPartsAreRefused) {
  Device& dev = device();
  const Packed a = pack(W4Kind::CompressedInt4, 8, 256, 1), b = pack(W4Kind::CompressedInt4, 8, 384, 2);
  const std::vector<const W4Weight*> parts = {&a.w, &b.w};
  try {
    W4Linear lin(dev, parts, W4Activations::A16, nullptr, "mixed");
    FAIL() << "parts of different k were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot share one layer"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace k100::model
