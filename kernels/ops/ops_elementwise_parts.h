// Test helpers the elementwise operators share: guard words after outputs,
// bit patterns, random f16 inputs (decoded exactly by quant::f16_to_f32).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "ops_parts.h"

namespace k100::kernels {

// Words written after every output buffer by the tests: a kernel that writes
// past the documented size changes them.
inline constexpr size_t kGuardWords = 16;
inline constexpr uint32_t kGuardBits = 0x7fc0dead;  // a NaN no kernel computes

inline float guard_value() {
  float f;
  std::memcpy(&f, &kGuardBits, 4);
  return f;
}

// `host` followed by the guard words.
inline std::vector<float> with_guard(std::vector<float> host) {
  host.resize(host.size() + kGuardWords, guard_value());
  return host;
}

// Compares a downloaded buffer (outputs + guard) with the expected outputs:
// the outputs within `tol`, the guard words bit for bit.
inline CaseResult compare_guarded(const std::vector<float>& got, const std::vector<float>& want,
                                  const Tolerance& tol) {
  std::vector<float> head(got.begin(), got.begin() + std::ptrdiff_t(std::min(got.size(), want.size())));
  CaseResult r = tol.exact() ? compare_exact_u32(bits_of(head), bits_of(want)) : compare(head, want, tol);
  for (size_t i = want.size(); i < got.size(); ++i) {
    uint32_t b;
    std::memcpy(&b, &got[i], 4);
    if (b != kGuardBits && r.pass) {
      r.pass = false;
      r.note = "wrote past the output: word " + std::to_string(i) + " (output has " + std::to_string(want.size()) +
               " elements)";
    }
  }
  return r;
}

// Random finite halves (every exponent, denormals and zeros included).
inline std::vector<uint16_t> random_halves(Rng& rng, size_t n) {
  std::vector<uint16_t> v(n);
  for (auto& h : v) {
    do h = uint16_t(rng.engine()());
    while (((h >> 10) & 31) == 31);
  }
  return v;
}

}  // namespace k100::kernels
