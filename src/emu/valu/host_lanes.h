// k100lc emu/valu: lane kernels that need specific host instructions.
//
// A correctly rounded fma in every rounding mode needs the host's FMA
// instruction; std::fma without it is a slow library call per lane, so the
// FMA kernels pick the host FMA code path once at startup when the CPU has
// it (x86-64 with FMA3) and fall back to the C library otherwise. Square
// roots use the SSE instructions directly: under -frounding-math the
// compiler treats sqrt as a call and will not vectorise it. All kernels work
// in the current host rounding mode.
#pragma once

#include <cstdint>

namespace k100::emu::valu {

// r[i] = fma(a[i], b[i], c[i]) on f32/f64 bit patterns, in the current host
// rounding mode.
void fma_lanes_f32(uint32_t* r, const uint32_t* a, const uint32_t* b, const uint32_t* c);
void fma_lanes_f64(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* c);

// r[i] = sqrt(a[i]) (f32, correctly rounded).
void sqrt_lanes_f32(uint32_t* r, const uint32_t* a);
// x[i] = 1 / sqrt(double(a[i])) for f32 bit patterns, in double precision.
void rsq_lanes_f32_to_f64(double* x, const uint32_t* a);
// r[i] = sqrt(a[i]) (f64, correctly rounded).
void sqrt_lanes_f64(uint64_t* r, const uint64_t* a);

// out[i] = f16_from_f64_rne(x[i]) (round to nearest even, no flush) for n
// lanes (a multiple of 8); x[i] = exact f16 value of h[i] for 64 lanes.
void f16_from_f64_rne_lanes(uint32_t* out, const double* x, int n);
void f16_to_f64_lanes(double* x, const uint32_t* h);

}  // namespace k100::emu::valu
