// Lane loops over the double-precision transcendental kernels, kept in
// their own translation unit as plain loops the compiler vectorises.
#include <bit>

#include "transcendental.h"
#include "transcendental_lanes.h"

namespace k100::emu::valu {

namespace {
template <class F>
inline void from_f32(double* x, const uint32_t* a, F f) {
  for (int i = 0; i < 64; ++i) x[i] = f(double(std::bit_cast<float>(a[i])));
}
}  // namespace

// On x86-64 each kernel is also built for AVX2 and picked at load time.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define K100_LANES_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define K100_LANES_CLONES
#endif

K100_LANES_CLONES void exp2_lanes(double* x, const uint32_t* a) {
  from_f32(x, a, [](double v) { return exp2_f64(v); });
}
K100_LANES_CLONES void log2_lanes(double* x, const uint32_t* a) {
  from_f32(x, a, [](double v) { return log2_f64(v); });
}
K100_LANES_CLONES void sin_rev_lanes(double* x, const uint32_t* a) {
  from_f32(x, a, [](double v) { return sin_rev_f64(v); });
}
K100_LANES_CLONES void cos_rev_lanes(double* x, const uint32_t* a) {
  from_f32(x, a, [](double v) { return cos_rev_f64(v); });
}

}  // namespace k100::emu::valu
