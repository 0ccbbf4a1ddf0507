// Test inputs and output checks the activation quantisers share.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "k100/kernels/test_support.h"

namespace k100::kernels::w4act {

// Rows of activations whose groups of `group` k exercise the quantiser:
// normal values at magnitudes 2^-8..2^8, an all-zero group (scale 1), exact
// ties (amax = qmax 2^e, so s = 2^e and x / s lands on half-integers, which
// rint takes to even), denormal-sized values and values near 1e30; row r
// has `stride` floats (the first `k` are the row's, the rest filler).
std::vector<float> activation_rows(uint32_t seed, int64_t rows, int64_t k, int64_t stride, int64_t group, int qmax);

// An output buffer of `bytes` bytes followed by guard bytes, all filled with
// a pattern before the launch: unwritten outputs and writes past the end
// show in the comparison.
inline constexpr size_t kGuardBytes = 64;
inline constexpr uint8_t kFillByte = 0xa5;
inline std::vector<uint8_t> filled(size_t bytes) { return std::vector<uint8_t>(bytes + kGuardBytes, kFillByte); }

// got (output + guard) against want (the output's bytes), exactly; `what`
// names the output in the note of a failure.
CaseResult compare_output(const std::vector<uint8_t>& got, const void* want, size_t bytes, const std::string& what);

template <class T>
CaseResult compare_output(const std::vector<uint8_t>& got, const std::vector<T>& want, const std::string& what) {
  return compare_output(got, want.data(), want.size() * sizeof(T), what);
}

}  // namespace k100::kernels::w4act
