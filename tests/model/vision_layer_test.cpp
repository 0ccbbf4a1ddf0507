// model::VisionLayer's refusals: every mis-sized weight is named, head sizes
// vit_attn_kernel cannot take are refused before anything is uploaded, and
// the rotary tables refuse what they cannot describe. (The layer's numbers
// are checked against a float64 NumPy forward in python/test_vision_layer.py.)
#include "k100/model/vision_layer.h"

#include <gtest/gtest.h>

#include <string>

#include "k100/base/error.h"
#include "k100/runtime/runtime.h"

namespace k100::model {
namespace {

Device& device() {
  static runtime::Runtime rt;
  static RuntimeDevice dev(rt);
  return dev;
}

VisionLayerWeights zero_weights(int64_t H, int64_t I) {
  VisionLayerWeights w;
  w.norm1_w.assign(size_t(H), 1.f);
  w.norm1_b.assign(size_t(H), 0.f);
  w.qkv_w.assign(size_t(3 * H * H), 0);
  w.qkv_b.assign(size_t(3 * H), 0.f);
  w.proj_w.assign(size_t(H * H), 0);
  w.proj_b.assign(size_t(H), 0.f);
  w.norm2_w.assign(size_t(H), 1.f);
  w.norm2_b.assign(size_t(H), 0.f);
  w.fc1_w.assign(size_t(I * H), 0);
  w.fc1_b.assign(size_t(I), 0.f);
  w.fc2_w.assign(size_t(H * I), 0);
  w.fc2_b.assign(size_t(H), 0.f);
  return w;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(VisionLayer, NamesAMisSizedWeight) {
  VisionLayerWeights w = zero_weights(64, 96);
  w.fc1_b.pop_back();
  const std::string e = error_of([&] {
    VisionLayer l(device(), {64, 4, 96}, w, nullptr, "tower.blocks.3");
  });
  EXPECT_NE(e.find("tower.blocks.3"), std::string::npos) << e;
  EXPECT_NE(e.find("mlp.linear_fc1.bias"), std::string::npos) << e;
}

TEST(VisionLayer, RefusesHeadDimAbove72) {
  const std::string e = error_of([&] {
    VisionLayer l(device(), {160, 2, 96}, zero_weights(160, 96));
  });
  EXPECT_NE(e.find("head_dim 80"), std::string::npos) << e;
}

TEST(VisionLayer, RefusesHiddenNotAMultipleOfHeads) {
  const std::string e = error_of([&] {
    VisionLayer l(device(), {66, 4, 96}, zero_weights(66, 96));
  });
  EXPECT_NE(e.find("not a multiple of heads"), std::string::npos) << e;
}

TEST(VisionLayer, ZeroWeightsKeepTheInput) {
  // with every projection zero the two residual branches add their biases (zero): out = x
  const int64_t H = 64, T = 5, hd = 16;
  VisionLayer l(device(), {H, 4, 96}, zero_weights(H, 96));
  std::vector<float> x(size_t(T * H));
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 13) - 6.f;
  std::vector<int32_t> pos = {0, 0, 1, 1, 2};
  std::vector<float> cos, sin;
  vision_rope_tables(pos, pos, hd, cos, sin);
  EXPECT_EQ(l.forward(x, cos, sin, T), x);
}

TEST(VisionRopeTables, RefuseMismatchedPositionsAndOddHeadDims) {
  std::vector<float> c, s;
  std::vector<int32_t> a = {1, 2}, b = {1};
  EXPECT_NE(error_of([&] { vision_rope_tables(a, b, 16, c, s); }).find("column positions"),
            std::string::npos);
  EXPECT_NE(error_of([&] { vision_rope_tables(a, a, 18, c, s); }).find("head_dim 18"),
            std::string::npos);
}

}  // namespace
}  // namespace k100::model
