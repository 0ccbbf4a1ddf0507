#include "k100/quant/nvfp4.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "compressed_tensors_layer.h"
#include "k100/base/error.h"

namespace k100::quant {

Nvfp4Layer find_nvfp4_layer(const SafetensorsCheckpoint& c, const std::string& prefix) {
  using detail::expect_shape;
  using detail::layer_tensor;
  Nvfp4Layer L;
  L.prefix = prefix;
  L.packed = &layer_tensor(c, prefix + ".weight_packed", SafetensorsDtype::U8, "E2M1 codes, U8 [N, K/2]");
  L.scale = &layer_tensor(c, prefix + ".weight_scale", SafetensorsDtype::F8_E4M3, "block scales, F8_E4M3 [N, K/16]");
  L.global_scale = &layer_tensor(c, prefix + ".weight_global_scale", SafetensorsDtype::F32, "the global divisor, F32");
  detail::refuse_tensor(c, prefix + ".weight_zero_point", "zero points are not supported for NVFP4");
  const auto& ps = L.packed->tensor->shape;
  if (ps.size() != 2 || ps[0] == 0 || ps[1] == 0)
    throw Error(c.origin() + ": tensor '" + prefix + ".weight_packed' is " + L.packed->tensor->describe() +
                ", expected U8 [N, K/2]");
  L.n = int64_t(ps[0]);
  L.k = int64_t(ps[1]) * 2;
  if (L.k % 16)
    throw Error(c.origin() + ": layer '" + prefix + "' has K = " + std::to_string(L.k) + ", not a multiple of 16");
  expect_shape(c, *L.scale, {ps[0], uint64_t(L.k / 16)}, "[N, K/16] for weight_packed [N, K/2]");
  if (L.global_scale->tensor->elements != 1)
    throw Error(c.origin() + ": tensor '" + prefix + ".weight_global_scale' is " + L.global_scale->tensor->describe() +
                ", expected one F32 element");
  float g;
  std::memcpy(&g, c.bytes(*L.global_scale).data(), 4);
  L.matrix = detail::layer_matrix(c, prefix, kNvfp4, L.n, L.k, *L.packed, *L.scale, g);
  return L;
}

PackedNvfp4 pack_nvfp4(std::span<const float> w, int64_t n, int64_t k) {
  if (n <= 0 || k <= 0 || k % 16 || w.size() != uint64_t(n) * uint64_t(k))
    throw Error("pack_nvfp4: " + std::to_string(w.size()) + " weights for [" + std::to_string(n) + ", " +
                std::to_string(k) + "] (K a multiple of 16)");
  PackedNvfp4 p;
  float amax = 0;
  for (float v : w) amax = std::max(amax, std::fabs(v));
  p.global = amax == 0 ? 1.0f : 448.0f * 6.0f / amax;
  p.packed.assign(size_t(n * k / 2), 0);
  p.scale.resize(size_t(n * k / 16));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t b = 0; b < k / 16; ++b) {
      const float* x = w.data() + r * k + b * 16;
      float bmax = 0;
      for (int i = 0; i < 16; ++i) bmax = std::max(bmax, std::fabs(x[i]));
      const uint8_t sc = f32_to_e4m3(bmax / 6.0f * p.global);
      p.scale[size_t(r * (k / 16) + b)] = sc;
      const float s = e4m3_to_f32(sc);
      for (int i = 0; i < 16; ++i) {
        const float v = s == 0 ? 0.0f : x[i] * p.global / s;
        uint32_t best = 0;
        for (uint32_t m = 1; m < 8; ++m)
          if (std::fabs(std::fabs(v) - kE2M1Magnitudes[m]) < std::fabs(std::fabs(v) - kE2M1Magnitudes[best])) best = m;
        const uint32_t code = best | (std::signbit(v) && best ? 8u : 0u);
        const int64_t col = b * 16 + i;
        p.packed[size_t((r * k + col) / 2)] |= uint8_t(code << ((col & 1) * 4));
      }
    }
  return p;
}

}  // namespace k100::quant
