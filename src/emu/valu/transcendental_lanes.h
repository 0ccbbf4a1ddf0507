// k100lc emu/valu: 64-lane transcendental kernels: x[i] = f(f32 value a[i])
// in double precision (see transcendental.h for the accuracy).
#pragma once

#include <cstdint>

namespace k100::emu::valu {

using LanesF32ToF64 = void (*)(double* x, const uint32_t* a);
void exp2_lanes(double* x, const uint32_t* a);
void log2_lanes(double* x, const uint32_t* a);
void sin_rev_lanes(double* x, const uint32_t* a);
void cos_rev_lanes(double* x, const uint32_t* a);

}  // namespace k100::emu::valu
