#include "k100/quant/activation_quant.h"

#include <algorithm>
#include <cmath>

#include "k100/base/error.h"

namespace k100::quant {

int32_t QuantizedActivations::code(int64_t row, int64_t col) const {
  const size_t i = size_t((row * k + col) / 2);
  if (format->codes == ActivationCodes::Int8EvenOdd) return (col & 1) ? odd[i] : even[i];
  const uint32_t nib = (col & 1) ? uint32_t(packed[i] >> 4) : uint32_t(packed[i] & 15);
  return int32_t(nib ^ 8) - 8;
}

float QuantizedActivations::group_scale(int64_t row, int64_t g) const {
  return format->scale_order == ScaleOrder::RowMajor ? scale[size_t(row * groups_per_row() + g)]
                                                     : scale[size_t(g * m + row)];
}

QuantizedActivations quantize_activations(const ActivationFormat& f, std::span<const float> x, int64_t m, int64_t k,
                                          int64_t stride, int64_t offset) {
  const int64_t G = f.group;
  if (m < 0 || k <= 0 || k % G || k % 2)
    throw Error(std::string(f.name) + " activations: K = " + std::to_string(k) + " is not a multiple of the group " +
                std::to_string(G));
  if (stride == 0) stride = k;
  if (offset < 0 || stride < k + offset ||
      (m > 0 && uint64_t((m - 1) * stride + offset + k) > x.size()))
    throw Error(std::string(f.name) + " activations: " + std::to_string(x.size()) + " values cannot hold " +
                std::to_string(m) + " rows of " + std::to_string(k) + " at stride " + std::to_string(stride) +
                " from offset " + std::to_string(offset));
  QuantizedActivations a;
  a.format = &f;
  a.m = m;
  a.k = k;
  const int64_t groups = k / G;
  if (f.codes == ActivationCodes::Int8EvenOdd) {
    a.even.assign(size_t(m * k / 2), 0);
    a.odd.assign(size_t(m * k / 2), 0);
  } else {
    a.packed.assign(size_t(m * k / 2), 0);
  }
  a.scale.assign(size_t(m * groups), 0.0f);
  if (f.group_sums) a.sum.assign(size_t(m * groups), 0);
  const float qmax = float(f.qmax);
  for (int64_t r = 0; r < m; ++r) {
    const float* row = x.data() + r * stride + offset;
    for (int64_t g = 0; g < groups; ++g) {
      float amax = 0.0f;
      for (int64_t c = g * G; c < (g + 1) * G; ++c) amax = std::max(amax, std::fabs(row[c]));
      const float s = amax == 0.0f ? 1.0f : amax / qmax;
      int32_t total = 0;
      for (int64_t c = g * G; c < (g + 1) * G; ++c) {
        const float q = std::clamp(std::nearbyint(row[c] / s), -qmax - 1.0f, qmax);
        const int32_t v = int32_t(q);
        total += v;
        const size_t i = size_t((r * k + c) / 2);
        if (f.codes == ActivationCodes::Int8EvenOdd) {
          ((c & 1) ? a.odd : a.even)[i] = int8_t(v);
        } else {
          a.packed[i] |= uint8_t((uint32_t(v) & 15) << ((c & 1) * 4));
        }
      }
      const size_t si = f.scale_order == ScaleOrder::RowMajor ? size_t(r * groups + g) : size_t(g * m + r);
      a.scale[si] = s;
      if (f.group_sums) a.sum[size_t(r * groups + g)] = total;
    }
  }
  return a;
}

std::vector<float> gemv_quantized_reference(const W4Matrix& w, const QuantizedActivations& a) {
  const std::string what = std::string(w.format->name) + " x " + a.format->name;
  if (a.k != w.k)
    throw Error(what + ": activations of " + std::to_string(a.k) + " columns, weights of " + std::to_string(w.k));
  const int64_t Ga = a.format->group, Gw = w.block();
  if (Gw % Ga)
    throw Error(what + ": the weight group " + std::to_string(Gw) + " is not a multiple of the activation group " +
                std::to_string(Ga));
  const int64_t groups = a.groups_per_row();
  std::vector<float> y(size_t(a.m * w.n));
  for (int64_t n = 0; n < w.n; ++n)
    for (int64_t r = 0; r < a.m; ++r) {
      double acc = 0;
      for (int64_t g = 0; g < groups; ++g) {
        // exact: int4 x int8 products, or E2M1 (multiples of 1/2) x int8, 16 to 128 of them
        double dot = 0;
        for (int64_t c = g * Ga; c < (g + 1) * Ga; ++c)
          dot += double(code_value(w.format->code, w.code(n, c))) * double(a.code(r, c));
        acc += double(w.scale(n, g * Ga / Gw)) * double(a.group_scale(r, g)) * dot;
      }
      if (w.format->global_divisor) acc /= double(w.global);
      y[size_t(r * w.n + n)] = float(acc);
    }
  return y;
}

}  // namespace k100::quant
