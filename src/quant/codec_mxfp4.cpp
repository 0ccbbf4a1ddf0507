// MXFP4: 32 elements of 4-bit E2M1 codes under a power-of-two (E8M0) scale.
// ggml keeps the code values doubled (kvalues_mxfp4: 0, 1, 2, 3, 4, 6, 8,
// 12 and their negatives) and halves the scale: value kv[q] * 2^(e - 128).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "codec_common.h"
#include "k100/quant/codec.h"
#include "k100/quant/iq_tables.h"

namespace k100::quant {
namespace {

// 2^(e - 128) as the f32 bits ggml forms (denormal for e < 2).
float e8m0_half(uint8_t e) {
  const uint32_t bits = e < 2 ? 0x00200000u << e : uint32_t(e - 1) << 23;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// The codes of x under scale d and the squared error.
double assign(const float* x, float d, uint8_t* code) {
  const auto kv = kvalues_mxfp4();
  double err = 0.0;
  for (int i = 0; i < 32; ++i) {
    int best = 0;
    float best_e = -1.0f;
    for (int q = 0; q < 16; ++q) {
      const float r = x[i] - float(kv[size_t(q)]) * d;
      if (best_e < 0.0f || r * r < best_e) best_e = r * r, best = q;
    }
    code[i] = uint8_t(best);
    err += double(best_e);
  }
  return err;
}

}  // namespace

void dequantize(const BlockMXFP4* blocks, size_t count, float* y) {
  const auto kv = kvalues_mxfp4();
  for (size_t b = 0; b < count; ++b, y += 32) {
    const float d = e8m0_half(blocks[b].e);
    for (int j = 0; j < 16; ++j) {
      y[j] = float(kv[blocks[b].qs[j] & 0x0f]) * d;
      y[j + 16] = float(kv[blocks[b].qs[j] >> 4]) * d;
    }
  }
}

// The exponent that puts the largest magnitude at or under the top level
// 12, and the one below it (which clips the largest but may fit the rest
// better): the one of smaller squared error.
void quantize(const float* src, size_t count, BlockMXFP4* blocks) {
  for (size_t b = 0; b < count; ++b, src += 32) {
    float x[32];
    detail::load_finite(src, 32, x);
    const float a = detail::max_abs(x, 32);
    int e0 = 0;
    if (a > 0.0f) {
      e0 = std::clamp(int(std::ceil(std::log2(double(a) / 12.0))) + 128, 0, 254);
      while (e0 < 254 && 12.0 * double(e8m0_half(uint8_t(e0))) < double(a)) ++e0;
      while (e0 > 0 && 12.0 * double(e8m0_half(uint8_t(e0 - 1))) >= double(a)) --e0;
    }
    uint8_t code[32], trial[32];
    double best = -1.0;
    int best_e = e0;
    for (int e = e0; e >= std::max(0, e0 - 1); --e) {
      const double err = assign(x, e8m0_half(uint8_t(e)), trial);
      if (best < 0.0 || err < best) best = err, best_e = e, std::memcpy(code, trial, 32);
    }
    blocks[b].e = uint8_t(best_e);
    for (int j = 0; j < 16; ++j) blocks[b].qs[j] = uint8_t(code[j] | (code[j + 16] << 4));
  }
}

}  // namespace k100::quant
