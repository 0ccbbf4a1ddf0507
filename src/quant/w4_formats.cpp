// The host reference of the 4-bit weight formats: size checks, dequantising
// and the float GEMV, all read from a W4Matrix's WeightFormat.
#include "k100/quant/w4_formats.h"

#include "k100/base/error.h"

namespace k100::quant {

uint8_t f32_to_e4m3(float f) {
  if (std::isnan(f)) return 0x7F;
  const uint8_t sign = std::signbit(f) ? 0x80 : 0x00;
  const double a = std::fabs(double(f));
  // The 127 non-negative finite codes increase with their bit pattern: take
  // the nearest, the even pattern on a tie (its mantissa's last bit is 0).
  uint8_t best = 0;
  double best_d = a;
  for (uint8_t c = 1; c <= 0x7E; ++c) {
    const double d = std::fabs(double(e4m3_to_f32(c)) - a);
    if (d < best_d || (d == best_d && (c & 1) == 0)) {
      best = c;
      best_d = d;
    }
  }
  return uint8_t(sign | best);
}

void W4Matrix::check(const std::string& what) const {
  const int64_t b = block();
  if (n <= 0 || k <= 0) throw Error(what + ": shape [" + std::to_string(n) + ", " + std::to_string(k) + "] is empty");
  if (b <= 0 || k % b || k % 8)
    throw Error(what + ": K = " + std::to_string(k) + " is not a multiple of the group " + std::to_string(b) +
                " and of 8 (" + format->name + ")");
  if (codes.size() != code_bytes())
    throw Error(what + ": " + std::to_string(codes.size()) + " code bytes, expected " + std::to_string(code_bytes()) +
                " for [" + std::to_string(n) + ", " + std::to_string(k) + "] (" + format->name + ")");
  if (scales.size() != scale_bytes())
    throw Error(what + ": " + std::to_string(scales.size()) + " scale bytes, expected " +
                std::to_string(scale_bytes()) + " (" + std::to_string(n) + " x " + std::to_string(groups_per_row()) +
                " scales, " + format->name + ")");
  if (format->global_divisor && !(std::isfinite(global) && global > 0))
    throw Error(what + ": the global scale " + std::to_string(global) + " is not a positive finite number");
}

void W4Matrix::dequantize_rows(int64_t first, int64_t count, float* out) const {
  if (first < 0 || count < 0 || first + count > n)
    throw Error(std::string(format->name) + ": rows [" + std::to_string(first) + ", " + std::to_string(first + count) +
                ") are outside the " + std::to_string(n) + " rows");
  for (int64_t r = 0; r < count; ++r)
    for (int64_t c = 0; c < k; ++c) out[r * k + c] = weight(first + r, c);
}

std::vector<float> W4Matrix::dequantize() const {
  std::vector<float> out(size_t(n * k));
  dequantize_rows(0, n, out.data());
  return out;
}

std::vector<float> gemv_reference(const W4Matrix& w, std::span<const float> x, int64_t m) {
  if (m < 0 || x.size() != uint64_t(m) * uint64_t(w.k))
    throw Error(std::string(w.format->name) + " GEMV: x holds " + std::to_string(x.size()) + " values, expected " +
                std::to_string(m) + " x " + std::to_string(w.k));
  std::vector<float> y(size_t(m * w.n));
  std::vector<float> row(size_t(w.k));
  for (int64_t r = 0; r < w.n; ++r) {
    w.dequantize_rows(r, 1, row.data());
    for (int64_t i = 0; i < m; ++i) {
      double acc = 0;
      for (int64_t c = 0; c < w.k; ++c) acc += double(row[size_t(c)]) * double(x[size_t(i * w.k + c)]);
      y[size_t(i * w.n + r)] = float(acc);
    }
  }
  return y;
}

}  // namespace k100::quant
