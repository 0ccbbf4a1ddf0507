// k100lc emu/valu: fused multiply-add over 64 lanes.
//
// A correctly rounded fma in every rounding mode needs the host's FMA
// instruction; std::fma without it is a slow library call per lane. These
// entry points pick the host FMA code path once at startup when the CPU has
// it (x86-64 with FMA3), and fall back to the C library otherwise.
#pragma once

#include <cstdint>

namespace k100::emu::valu {

// r[i] = fma(a[i], b[i], c[i]) on f32/f64 bit patterns, in the current host
// rounding mode.
void fma_lanes_f32(uint32_t* r, const uint32_t* a, const uint32_t* b, const uint32_t* c);
void fma_lanes_f64(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* c);

}  // namespace k100::emu::valu
