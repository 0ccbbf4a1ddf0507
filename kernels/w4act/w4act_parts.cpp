#include "w4act/w4act_parts.h"

#include <cmath>
#include <random>

namespace k100::kernels::w4act {

std::vector<float> activation_rows(uint32_t seed, int64_t rows, int64_t k, int64_t stride, int64_t group, int qmax) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-8, 8), half_steps(-2 * qmax, 2 * qmax - 1);
  std::vector<float> x(size_t(rows * stride));
  for (auto& v : x) v = normal(gen);  // filler between rows stays random too
  const int64_t groups = k / group;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t g = 0; g < groups; ++g) {
      float* p = x.data() + r * stride + g * group;
      const int e = exponent(gen);
      switch ((r * groups + g + seed) % 5) {
        case 0:  // plain values
          for (int64_t i = 0; i < group; ++i) p[i] = std::ldexp(normal(gen), e);
          break;
        case 1:  // all zero (one negative zero): scale 1
          for (int64_t i = 0; i < group; ++i) p[i] = 0.0f;
          p[group / 2] = -0.0f;
          break;
        case 2:  // amax = qmax 2^e: s = 2^e exactly, x / s on half-integers (ties)
          for (int64_t i = 0; i < group; ++i) p[i] = std::ldexp(0.5f * float(half_steps(gen)) + 0.5f, e);
          p[gen() % uint32_t(group)] = std::ldexp(float(gen() & 1 ? qmax : -qmax), e);
          break;
        case 3:  // denormal-sized values: the scale is a denormal
          for (int64_t i = 0; i < group; ++i) p[i] = normal(gen) * 1e-38f;
          break;
        default:  // large values
          for (int64_t i = 0; i < group; ++i) p[i] = normal(gen) * 1e30f;
          break;
      }
    }
  return x;
}

CaseResult compare_output(const std::vector<uint8_t>& got, const void* want, size_t bytes, const std::string& what) {
  CaseResult r;
  r.pass = true;
  r.tolerance = Tolerance{};
  const auto* w = static_cast<const uint8_t*>(want);
  for (size_t i = 0; i < got.size(); ++i) {
    const uint8_t expect = i < bytes ? w[i] : kFillByte;
    ++r.compared;
    if (got[i] != expect && r.pass) {
      r.pass = false;
      r.note = what + (i < bytes ? " byte " + std::to_string(i) + " (word " + std::to_string(i / 4) + ")"
                                 : " guard byte " + std::to_string(i - bytes) + " past the end") +
               ": got " + std::to_string(got[i]) + ", want " + std::to_string(expect);
      r.max_abs = 1;
    }
  }
  r.output_hash = hash_bytes(got.data(), got.size());
  return r;
}

}  // namespace k100::kernels::w4act
