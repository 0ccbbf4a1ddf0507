// Lane kernels with host-specific instructions: FMA and square roots.
#include "host_lanes.h"

#include "float_bits.h"

#include <bit>
#include <cmath>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define K100_HOST_X86 1
#endif

namespace k100::emu::valu {

namespace {

constexpr int kN = 64;

void fma32_generic(uint32_t* r, const uint32_t* a, const uint32_t* b, const uint32_t* c) {
  for (int i = 0; i < kN; ++i)
    r[i] = std::bit_cast<uint32_t>(std::fma(std::bit_cast<float>(a[i]), std::bit_cast<float>(b[i]),
                                            std::bit_cast<float>(c[i])));
}
void fma64_generic(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* c) {
  for (int i = 0; i < kN; ++i)
    r[i] = std::bit_cast<uint64_t>(std::fma(std::bit_cast<double>(a[i]), std::bit_cast<double>(b[i]),
                                            std::bit_cast<double>(c[i])));
}

#if defined(__x86_64__) && defined(__GNUC__)
// Explicit 256-bit FMA: r may alias a source (each lane reads before it writes).
__attribute__((target("avx2,fma"))) void fma32_host(uint32_t* r, const uint32_t* a, const uint32_t* b,
                                                     const uint32_t* c) {
  for (int i = 0; i < kN; i += 8) {
    __m256 x = _mm256_loadu_ps(reinterpret_cast<const float*>(a + i));
    __m256 y = _mm256_loadu_ps(reinterpret_cast<const float*>(b + i));
    __m256 z = _mm256_loadu_ps(reinterpret_cast<const float*>(c + i));
    _mm256_storeu_ps(reinterpret_cast<float*>(r + i), _mm256_fmadd_ps(x, y, z));
  }
}
__attribute__((target("avx2,fma"))) void fma64_host(uint64_t* r, const uint64_t* a, const uint64_t* b,
                                                     const uint64_t* c) {
  for (int i = 0; i < kN; i += 4) {
    __m256d x = _mm256_loadu_pd(reinterpret_cast<const double*>(a + i));
    __m256d y = _mm256_loadu_pd(reinterpret_cast<const double*>(b + i));
    __m256d z = _mm256_loadu_pd(reinterpret_cast<const double*>(c + i));
    _mm256_storeu_pd(reinterpret_cast<double*>(r + i), _mm256_fmadd_pd(x, y, z));
  }
}
bool host_has_fma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
}
#else
void fma32_host(uint32_t* r, const uint32_t* a, const uint32_t* b, const uint32_t* c) { fma32_generic(r, a, b, c); }
void fma64_host(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* c) { fma64_generic(r, a, b, c); }
bool host_has_fma() { return false; }
#endif

const bool kHostFma = host_has_fma();

}  // namespace

void fma_lanes_f32(uint32_t* r, const uint32_t* a, const uint32_t* b, const uint32_t* c) {
  if (kHostFma) fma32_host(r, a, b, c);
  else fma32_generic(r, a, b, c);
}

void fma_lanes_f64(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* c) {
  if (kHostFma) fma64_host(r, a, b, c);
  else fma64_generic(r, a, b, c);
}

void sqrt_lanes_f32(uint32_t* r, const uint32_t* a) {
#ifdef K100_HOST_X86
  for (int i = 0; i < kN; i += 4)
    _mm_storeu_ps(reinterpret_cast<float*>(r + i), _mm_sqrt_ps(_mm_loadu_ps(reinterpret_cast<const float*>(a + i))));
#else
  for (int i = 0; i < kN; ++i) r[i] = std::bit_cast<uint32_t>(std::sqrt(std::bit_cast<float>(a[i])));
#endif
}

void rsq_lanes_f32_to_f64(double* x, const uint32_t* a) {
#ifdef K100_HOST_X86
  const __m128d one = _mm_set1_pd(1.0);
  for (int i = 0; i < kN; i += 2) {
    __m128d v = _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(a + i))));
    _mm_storeu_pd(x + i, _mm_div_pd(one, _mm_sqrt_pd(v)));
  }
#else
  for (int i = 0; i < kN; ++i) x[i] = 1.0 / std::sqrt(double(std::bit_cast<float>(a[i])));
#endif
}

void sqrt_lanes_f64(uint64_t* r, const uint64_t* a) {
#ifdef K100_HOST_X86
  for (int i = 0; i < kN; i += 2)
    _mm_storeu_pd(reinterpret_cast<double*>(r + i), _mm_sqrt_pd(_mm_loadu_pd(reinterpret_cast<const double*>(a + i))));
#else
  for (int i = 0; i < kN; ++i) r[i] = std::bit_cast<uint64_t>(std::sqrt(std::bit_cast<double>(a[i])));
#endif
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define K100_LANES_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define K100_LANES_CLONES
#endif

K100_LANES_CLONES void f16_from_f64_rne_lanes(uint32_t* out, const double* x, int n) {
  for (int i = 0; i < n; ++i) out[i] = f16_from_f64_rne(x[i]);
}

K100_LANES_CLONES void f16_to_f64_lanes(double* x, const uint32_t* h) {
  for (int i = 0; i < kN; ++i) x[i] = double(f16_to_f32(h[i]));
}

}  // namespace k100::emu::valu
