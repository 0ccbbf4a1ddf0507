// The model-layer family: every kernel group's registration, and the small
// host conversions the tests share.
#include <cmath>
#include <cstring>

#include "model/model_parts.h"

namespace k100::kernels {

void register_model_kernels(Registry& r) {
  register_model_gemv_kernels(r);
  register_model_embed_kernels(r);
  register_model_rope_kernels(r);
  register_model_attention_kernels(r);
  register_model_moe_kernels(r);
}

namespace model_family {

float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h >> 15) << 31, exp = (h >> 10) & 31, man = h & 0x3ff;
  float f;
  if (exp == 31) {
    uint32_t bits = sign | 0x7f800000u | (man << 13);
    std::memcpy(&f, &bits, 4);
    return f;
  }
  // denormals and normals: man * 2^(exp - 25) (with the implicit bit when exp > 0)
  f = std::ldexp(float(exp ? (man | 0x400) : man), int(exp ? exp : 1) - 25);
  return sign ? -f : f;
}

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = uint16_t((x >> 16) & 0x8000);
  const uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return uint16_t(sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 : 0));
  if (ax >= 0x477ff000u) return uint16_t(sign | 0x7c00);  // rounds to infinity
  if (ax < 0x38800000u) {                                  // below the smallest normal: denormal
    const float a = std::fabs(f) * 16777216.0f;            // units of 2^-24, exact scaling
    return uint16_t(sign | uint16_t(std::nearbyint(a)));
  }
  const uint32_t exp = (ax >> 23) - 112, man = ax & 0x7fffff;
  uint32_t h = (exp << 10) | (man >> 13);
  const uint32_t rest = man & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;
  return uint16_t(sign | h);
}

uint16_t float_to_bf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);
  return uint16_t(x >> 16);
}

uint32_t ceil_div(uint64_t a, uint64_t b) { return uint32_t((a + b - 1) / b); }

}  // namespace model_family
}  // namespace k100::kernels
