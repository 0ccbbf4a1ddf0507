// Fused multiply-add lane loops with a host-FMA fast path.
#include "fma_lanes.h"

#include <bit>
#include <cmath>

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
__attribute__((target("avx2,fma"))) void fma32_host(uint32_t* r, const uint32_t* a, const uint32_t* b,
                                                     const uint32_t* c) {
  for (int i = 0; i < kN; ++i)
    r[i] = std::bit_cast<uint32_t>(__builtin_fmaf(std::bit_cast<float>(a[i]), std::bit_cast<float>(b[i]),
                                                  std::bit_cast<float>(c[i])));
}
__attribute__((target("avx2,fma"))) void fma64_host(uint64_t* r, const uint64_t* a, const uint64_t* b,
                                                     const uint64_t* c) {
  for (int i = 0; i < kN; ++i)
    r[i] = std::bit_cast<uint64_t>(__builtin_fma(std::bit_cast<double>(a[i]), std::bit_cast<double>(b[i]),
                                                 std::bit_cast<double>(c[i])));
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

}  // namespace k100::emu::valu
